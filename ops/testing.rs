//! The helpers of the operations' tests, which are the server's (an operation's examples run
//! through the whole HTTP pipeline).

pub(crate) use wrench_server::testing::*;
