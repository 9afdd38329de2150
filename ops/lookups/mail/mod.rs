//! E-mail: whether an address can receive mail, how well a domain's mail is protected, and the embedded list of disposable domains.

pub(crate) mod disposable;
pub(crate) mod security;
pub(crate) mod validate;
