//! Recipes: operations chained in one call. A recipe is a list of steps, each an operation by
//! its operationId, whose inputs come from literal `args`, from pointers into the recipe's
//! input and earlier steps' data (`from`), or from the previous step's main output (the pipe
//! form). The whole recipe is checked against the operations' schemas before anything runs
//! (`plan.rs`), then run step by step through the server (`run.rs`), each step meeting the
//! operation's own validation and bounds and counting against the caller's rate limit.
//!
//! Also here: the catalog of operations recipes are built from (`catalog.rs`), the detector,
//! which finds the recipe that decodes a blob (`detect.rs`), the translation of CyberChef
//! recipes (`cyberchef.rs`), and recipes stored under an id to share and run (`stored/`).

pub(crate) mod catalog;
pub(crate) mod cyberchef;
pub(crate) mod detect;
pub(crate) mod model;
pub(crate) mod plan;
pub(crate) mod pointer;
pub(crate) mod run;
pub(crate) mod running;
pub(crate) mod stored;
