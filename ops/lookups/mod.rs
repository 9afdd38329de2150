//! Lookups (spec 4.5 and 4.6): DNS, IP, network and data-set lookups. Everything here that
//! contacts a host goes through the outbound layer (`src/net/`).
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod a11y_rules;
pub(crate) mod accessibility;
pub(crate) mod carbon;
pub(crate) mod carbon_model;
pub(crate) mod company;
pub(crate) mod dns;
pub(crate) mod dns_common;
pub(crate) mod dns_monitor;
pub(crate) mod domain_report;
pub(crate) mod domain_search;
pub(crate) mod email_lists;
pub(crate) mod email_security;
pub(crate) mod email_security_score;
pub(crate) mod email_syntax;
pub(crate) mod email_validate;
pub(crate) mod favicon;
pub(crate) mod headers;
pub(crate) mod http_fetch;
pub(crate) mod linked_data;
pub(crate) mod mail_policies;
pub(crate) mod mail_records;
pub(crate) mod page;
pub(crate) mod page_links;
pub(crate) mod page_rank;
pub(crate) mod performance;
pub(crate) mod propagation;
pub(crate) mod rdap;
pub(crate) mod redirect_trace;
pub(crate) mod site_home;
pub(crate) mod spf_check;
pub(crate) mod ssl;
pub(crate) mod ssl_cert;
pub(crate) mod tech_rules;
pub(crate) mod tls_common;
pub(crate) mod tls_fingerprint;
pub(crate) mod url_metadata;
pub(crate) mod whois;
pub(crate) mod whois_text;
