//! E-mail: whether an address can receive mail, its canonical form by its provider's rules, how
//! well a domain's mail is protected, and the embedded list of disposable domains.

pub(crate) mod disposable;
pub(crate) mod normalize;
pub(crate) mod security;
pub(crate) mod validate;
