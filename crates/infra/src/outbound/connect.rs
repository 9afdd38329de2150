//! Opening a TCP connection to a judged target, for the operations that speak to a host
//! themselves (TLS inspection, timed fetches) rather than through the HTTP client.
//!
//! Only addresses judged by the policy are tried (a [`Target`]'s, or a WHOIS server's), in the resolver's order, each bounded by the
//! connect limit inside the caller's deadline; the first that accepts wins.

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use tokio::{net::TcpStream, time::timeout_at};

use super::{Net, error::OutboundError, fetch::CONNECT_TIMEOUT, target::Target};

/// An open connection and how it was made.
pub struct Connected {
    pub stream: TcpStream,
    pub address: SocketAddr,
    /// From the first attempt to the connection being open.
    pub took: Duration,
}

impl Net {
    /// Connects to one of `target`'s judged addresses before `deadline`.
    pub async fn connect(&self, target: &Target, deadline: tokio::time::Instant) -> Result<Connected, OutboundError> {
        self.connect_to(&target.addresses, &target.host, deadline).await
    }

    /// Connects to one of `addresses` (judged by the caller), naming `host` in failures.
    pub async fn connect_to(
        &self,
        addresses: &[SocketAddr],
        host: &str,
        deadline: tokio::time::Instant,
    ) -> Result<Connected, OutboundError> {
        let started = Instant::now();
        let mut last = String::from("no address to connect to");
        for address in addresses {
            let limit = deadline.min(tokio::time::Instant::now() + CONNECT_TIMEOUT);
            match timeout_at(limit, TcpStream::connect(address)).await {
                Ok(Ok(stream)) => {
                    let _ = stream.set_nodelay(true);
                    return Ok(Connected { stream, address: *address, took: started.elapsed() });
                }
                Ok(Err(e)) => last = format!("{address}: {e}"),
                Err(_) if tokio::time::Instant::now() >= deadline => {
                    return Err(OutboundError::Timeout(format!(
                        "{} did not accept a connection within {} s (WRENCH_OUTBOUND_TIMEOUT)",
                        host,
                        self.config.timeout.as_secs()
                    )));
                }
                Err(_) => last = format!("{address}: no answer within {} s", CONNECT_TIMEOUT.as_secs()),
            }
        }
        Err(OutboundError::Unreachable(format!("could not connect to {host} ({last})")))
    }
}
