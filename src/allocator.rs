//! The binary's two settings of the C library's allocator, which decide how much of what the
//! server freed it keeps (BENCHMARKS.md, "Footprint and speed"). They are the only unsafe code
//! the server runs: the library crates forbid it, and these are calls into glibc that take no
//! pointers.

/// Blocks from which glibc serves every allocation of at least this size straight from the
/// system, and to which it returns them when freed.
const LARGE_BLOCK: i32 = 1 << 20;

/// Fixes glibc's threshold for serving allocations from the system at [`LARGE_BLOCK`]. By
/// default it rises to the largest block freed so far (up to 32 MiB), after which such blocks
/// come from the heap and stay there once freed: one `encrypt/text` call (Argon2id with 19 MiB
/// of memory) left the server 19 MiB larger for good, and so can any large body or answer.
/// Elsewhere than glibc it does nothing.
pub(crate) fn large_blocks_from_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's tuning parameters; it is called before any
    // other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGE_BLOCK);
    }
}

/// Gives the pages the C library's allocator holds free back to the system. It runs twice
/// while the server starts: once the routes and documents are built, which leaves about 9 MB
/// of the main thread's heap free (BENCHMARKS.md, "Fifth round"), and once the start-up work
/// (parsing and compiling the embedded tables on the blocking pool's threads) has freed about
/// 10 MB in those threads' arenas. glibc would otherwise keep both for the life of the
/// process (BENCHMARKS.md, "Footprint and speed"; an allocator that returns memory by itself
/// was tried and held more). Elsewhere than glibc it does nothing.
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers and only walks the allocator's own free lists,
    // under the allocator's locks; it is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}
