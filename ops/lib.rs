//! The operations. One folder per tag of the document (`text` is Text and data, `dev`
//! Developer utilities, `images`, `security` Security and validation, `lookups`, `storage`),
//! one file per topic, one `#[op]` function per operation; a test checks that every operation
//! sits in the folder of its tag. Code that two operations share lives in `wrench-kit`, not
//! here. Each file is declared by a `mod` line in its group's `mod.rs` (and each group here), so
//! rustfmt and readers see the whole tree; `build.rs` finds every `#[op]` function and
//! generates only the registry included below, and fails the build naming any file that is not
//! declared.

#![forbid(unsafe_code)]

// The lower layers' modules, under the names the operation files use for them.
use wrench_contract::{decode, op, prelude, validate};
#[cfg(test)]
use wrench_infra::config;
use wrench_infra::{bounds, connection, cpu, datasets, envelope, net, random, rate, store, time};

pub(crate) mod dev;
pub(crate) mod images;
pub(crate) mod lookups;
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
    op::Registry { operations, startup: vec![lookups::warm_up_task()], tables: tables() }
}

/// Every embedded table an operation builds on first use, by name, with what builds it. The
/// server's warm-up builds the slowest at start (`lookups::warm_up_task`); `wrench tables`
/// builds each in turn and reports the time and memory it takes (BENCHMARKS.md, "Footprint
/// and speed").
fn tables() -> Vec<op::StartupTask> {
    let t = |name: &'static str, run: fn()| op::StartupTask { name, run };
    vec![
        t("user-agent rules", wrench_kit::uap::warm),
        t("phone metadata and carriers", lookups::phone::warm),
        t("land polygons", || {
            let _ = lookups::on_water::land();
        }),
        t("lake polygons", || {
            let _ = lookups::on_water::lakes();
        }),
        t("place index", || {
            let _ = wrench_kit::geo::places::index();
        }),
        t("time-zone boundaries", datasets::zones::warm_up),
        t("time-zone database (IANA names)", wrench_kit::geo::tzdb::warm),
        t("holidays", lookups::holidays::warm),
        t("e-mail domain lists", wrench_kit::mail::lists::warm),
        t("countries", datasets::countries::warm),
        t("SVG fonts", wrench_kit::render::warm),
        t("OG image fonts", images::og::warm),
        t("licence summaries", dev::license::warm),
        t("CLDR units", wrench_kit::number_units::warm),
        t("WHOIS servers", wrench_kit::network::whois_text::warm),
    ]
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
