//! Reading a request body within its limit, and what to do with the rest of one that is
//! refused. A server that answers early and closes with unread bytes in its socket makes the
//! kernel reset the connection, and the reset can overtake the answer: clients (curl, Python's
//! requests) then report a broken connection instead of the 413 envelope. So the refusal is
//! sent at once, and what the client still sends is read and dropped in the background, up to
//! a bound and within the body timeout, before the connection closes; past either the
//! connection is dropped anyway, since a client may not make the server read without end.

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures_util::{StreamExt, stream::BoxStream};
use poem::Body;

type Chunks = BoxStream<'static, Result<Bytes, std::io::Error>>;

/// How reading a body ended.
pub enum Read {
    Body(Bytes),
    /// Over the limit after `seen` bytes; the rest of the body is still to come.
    TooLarge {
        rest: Chunks,
        seen: usize,
    },
    /// Not all there before the deadline.
    TimedOut,
    Failed(std::io::Error),
}

/// The body's bytes when at most `limit` arrive within `timeout`.
pub async fn read_limited(body: Body, limit: usize, timeout: Duration) -> Read {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut stream: Chunks = body.into_bytes_stream().boxed();
    let mut out = BytesMut::new();
    loop {
        let chunk = match tokio::time::timeout_at(deadline, stream.next()).await {
            Err(_) => return Read::TimedOut,
            Ok(None) => return Read::Body(out.freeze()),
            Ok(Some(Err(e))) => return Read::Failed(e),
            Ok(Some(Ok(chunk))) => chunk,
        };
        if out.len() + chunk.len() > limit {
            return Read::TooLarge { rest: stream, seen: out.len() + chunk.len() };
        }
        out.extend_from_slice(&chunk);
    }
}

/// Reads and drops, in the background, what is left of a refused body: until it ends, `cap`
/// bytes in all have come (`seen` of them already), or `timeout` passes.
pub fn discard_later(mut rest: Chunks, seen: usize, cap: usize, timeout: Duration) {
    tokio::spawn(async move {
        let mut seen = seen;
        let _ = tokio::time::timeout(timeout, async {
            while seen < cap {
                match rest.next().await {
                    Some(Ok(chunk)) => seen += chunk.len(),
                    _ => return,
                }
            }
        })
        .await;
    });
}

/// [`discard_later`] of a whole body.
pub fn discard_body_later(body: Body, cap: usize, timeout: Duration) {
    discard_later(body.into_bytes_stream().boxed(), 0, cap, timeout);
}
