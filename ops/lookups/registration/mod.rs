//! Domain registration: RDAP and WHOIS records, which names a domain could have, and the whole report on one domain.

pub(crate) mod domain_report;
pub(crate) mod domain_search;
pub(crate) mod whois;
