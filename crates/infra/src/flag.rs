//! A thread-local switch that is on for the length of one call and off again however the call
//! ends, a panic included. Decoding uses it to know it is reading query text, the CPU pool to
//! know a job already runs on it.

use std::{cell::Cell, thread::LocalKey};

/// Runs `f` with `flag` set on this thread.
pub fn while_set<T>(flag: &'static LocalKey<Cell<bool>>, f: impl FnOnce() -> T) -> T {
    struct Reset(&'static LocalKey<Cell<bool>>);
    impl Drop for Reset {
        fn drop(&mut self) {
            self.0.set(false);
        }
    }
    flag.set(true);
    let _reset = Reset(flag);
    f()
}
