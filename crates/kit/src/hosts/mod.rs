//! Asking hosts on an operation's behalf, through the outbound layer: DNS questions, TLS
//! handshakes, RDAP and WHOIS, fetching a caller's URL, and the network lists (hosting ranges,
//! Tor exits) the IP operations consult.

pub mod dns;
pub mod hosting;
pub mod http_fetch;
pub mod rdap;
pub mod tls;
pub mod tor_exits;
pub mod whois_text;
