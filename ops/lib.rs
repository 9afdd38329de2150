//! The operations. One folder per tag of the document (`text` is Text and data, `dev`
//! Developer utilities, `images`, `security` Security and validation, `lookups`, `storage`,
//! `recipes`), inside it one folder per feature where a group holds several (`lookups/dns`,
//! `storage/short_url`) with the stored model of a feature in its own `model.rs`, one file per
//! topic and one `#[op]` function per operation; a test checks that every operation sits in the
//! folder of its tag. Code that two features share lives in `wrench-kit`, not here. Each file
//! and folder is declared by a `mod` line in its parent (`lib.rs` or a `mod.rs`), so rustfmt and
//! readers see the whole tree; `build.rs` follows those lines as deep as they go, finds every
//! `#[op]` function and generates only the registry included below, and fails the build naming
//! any file that no `mod` line reaches.

#![forbid(unsafe_code)]

use wrench_contract::op;
use wrench_infra::datasets;

pub(crate) mod dev;
pub(crate) mod images;
pub(crate) mod lookups;
pub(crate) mod recipes;
pub(crate) mod security;
pub(crate) mod storage;
pub(crate) mod text;

#[cfg(test)]
mod testing;

include!(concat!(env!("OUT_DIR"), "/registry.rs"));

/// Everything the server needs from this crate: every operation, sorted by the path then the
/// method of its main route, and the work to do once at start-up.
pub fn registry() -> op::Registry {
    let mut operations: Vec<op::Operation> = placed().into_iter().map(|(_, op)| op).collect();
    operations.sort_by_key(|o| (o.routes[0].path, o.routes[0].method));
    let startup = op::StartupTask { name: "embedded tables", run: warm_up };
    op::Registry {
        operations,
        startup: vec![startup],
        tables: TABLES.iter().map(|t| t.task).collect(),
        mounts: vec![storage::short_url::links::MOUNT],
        pages: [storage::webhook::page::FILES, storage::paste::page::FILES, storage::short_url::page::FILES].concat(),
    }
}

/// An embedded table an operation builds on first use.
struct Table {
    task: op::StartupTask,
    /// Built by the server's warm-up, in the background at start, because it takes long enough
    /// that the first request needing it would notice. The others are cheap or rarely used,
    /// and stay unbuilt (and out of memory) until a request needs them.
    at_start: bool,
}

/// Every embedded table, by name, with what builds it: the one list that both the warm-up
/// ([`warm_up`]) and `wrench tables` (which builds each in turn and reports the time and memory
/// it takes; BENCHMARKS.md, "Footprint and speed") read.
const TABLES: &[Table] = &[
    table("user-agent rules", true, wrench_kit::uap::warm),
    table("phone metadata", true, lookups::phone::warm_metadata),
    table("phone carriers", false, lookups::phone::warm_carriers),
    table("land polygons", true, || {
        let _ = lookups::geo::on_water::land();
    }),
    table("lake polygons", true, || {
        let _ = lookups::geo::on_water::lakes();
    }),
    table("place index", true, || {
        let _ = wrench_kit::geo::places::index();
    }),
    table("time-zone boundaries", false, datasets::zones::warm_up),
    table("time-zone database (IANA names)", false, wrench_kit::geo::tzdb::warm),
    table("holidays", false, lookups::geo::holidays::warm),
    table("e-mail domain lists", false, wrench_kit::mail::lists::warm),
    table("countries", false, datasets::countries::warm),
    table("SVG fonts", false, wrench_kit::render::warm),
    table("OG image fonts", false, images::og::warm),
    table("licence summaries", false, dev::license::warm),
    table("CLDR units", false, wrench_kit::number_units::warm),
    table("WHOIS servers", false, wrench_kit::hosts::whois_text::warm),
];

const fn table(name: &'static str, at_start: bool, run: fn()) -> Table {
    Table { task: op::StartupTask { name, run }, at_start }
}

/// The server's start-up warm-up: builds the tables marked `at_start`, so that the first
/// request needing one does not wait; every other table is built on first use.
fn warm_up() {
    for table in TABLES.iter().filter(|t| t.at_start) {
        (table.task.run)();
    }
}

/// Every operation, sorted as [`registry`] sorts them.
pub fn operations() -> Vec<op::Operation> {
    registry().operations
}

/// The folder of `ops/` that holds the operations of `tag`.
pub fn folder_of(tag: op::Tag) -> &'static str {
    match tag {
        op::Tag::TextAndData => "text",
        op::Tag::DeveloperUtilities => "dev",
        op::Tag::Images => "images",
        op::Tag::SecurityAndValidation => "security",
        op::Tag::Lookups => "lookups",
        op::Tag::Storage => "storage",
        op::Tag::Recipes => "recipes",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_operation_sits_in_the_folder_of_its_tag() {
        let placed = super::placed();
        assert!(placed.len() > 100, "{}", placed.len());
        for (folder, op) in placed {
            assert_eq!(folder, super::folder_of(op.tag), "{} is tagged {:?}", op.id(), op.tag);
        }
    }
}
