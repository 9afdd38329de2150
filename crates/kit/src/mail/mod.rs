//! E-mail: the syntax of an address, the embedded domain lists, the DNS records that describe a
//! domain's mail (SPF, DMARC, DKIM, MTA-STS, TLS-RPT, BIMI) and the score built from them.

pub mod lists;
pub mod policies;
pub mod records;
pub mod security_score;
pub mod spf;
pub mod syntax;
