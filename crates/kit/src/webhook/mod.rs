//! Webhook deliveries: what an inbox records of each request ([`delivery`]), the form fields it
//! reads out of urlencoded and multipart bodies ([`form`]) and the signature schemes it checks
//! ([`signatures`]).

pub mod delivery;
pub mod form;
pub mod signatures;
