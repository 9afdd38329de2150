//! A server that only counts connections: put on an address no caller may reach, it proves
//! that a refused request never connected. It answers each connection with a bare 200 and
//! closes it, so that a request that wrongly got through is visible as a success too.

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
};

use tokio::{io::AsyncWriteExt, net::TcpListener};

#[derive(Clone)]
pub struct Counter {
    pub address: SocketAddr,
    count: Arc<AtomicUsize>,
}

impl Counter {
    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

/// Counts connections on `address` (`[::]:port` also takes IPv4 on Linux).
pub async fn serve(address: SocketAddr) -> std::io::Result<Counter> {
    let listener = TcpListener::bind(address).await?;
    let counter = Counter { address: listener.local_addr()?, count: Arc::new(AtomicUsize::new(0)) };
    let count = counter.count.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let _ =
                    stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 7\r\nconnection: close\r\n\r\ncounted").await;
            });
        }
    });
    Ok(counter)
}
