//! Line and list tools: `text/lines` (`run.rs`) runs a text's lines through steps
//! (`steps.rs`), with the orders GNU `sort` knows (`order.rs`: version and numeric) and
//! `fold`'s wrapping (`fold.rs`); `text/compare-lists` answers set operations on two lists
//! (`compare.rs`).

pub(crate) mod compare;
mod fold;
mod order;
pub(crate) mod run;
mod steps;
