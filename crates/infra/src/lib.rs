//! The infrastructure every other crate of wrench stands on: the error type and its codes
//! ([`envelope`]), settings ([`config`]), the store behind the stateful features ([`store`]),
//! the outbound network with its address policy ([`outbound`]), the third-party providers it
//! calls, each declared once ([`providers`]), the large data sets
//! given as files ([`datasets`]), metrics, time, bounded JSON ([`bounds`]), the CPU pool
//! ([`cpu`]), request counting ([`rate`]) and unguessable identifiers ([`random`]).
//!
//! Nothing here knows what an operation is: that is `wrench-contract`, one layer up.

#![forbid(unsafe_code)]

pub mod blobs;
pub mod bounds;
pub mod config;
pub mod connection;
pub mod cpu;
pub mod datasets;
pub mod envelope;
pub mod flag;
pub mod metrics;
pub mod outbound;
pub mod providers;
pub mod random;
pub mod rate;
pub mod store;
pub mod time;
