//! How long the Redis store waits: a command (queueing while disconnected included), and a
//! connection. Short, so that a Redis that is down becomes 503 within two seconds.

use std::time::Duration;

/// Longest a command may take, queueing while disconnected included.
pub const COMMAND_TIMEOUT: Duration = Duration::from_millis(1500);

/// Longest a connection attempt may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
