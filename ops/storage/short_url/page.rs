//! The short-link page for people: a form that makes a short link (`/tools/short-links`), and a
//! link's statistics (`/tools/short-links/{slug}`): its target and limits, visits over time, top referrers, countries,
//! browsers and devices, and the latest visits. Both call the API with the key kept in the
//! browser, and use the style and shared script of the other pages (`/ui/`). The files sit in
//! `page/` and are compiled in. They live under `/tools/`, which the server keeps for itself
//! already (no operationId has a `-`), so no short base path or slug an operator chose can be
//! shadowed by them.

use wrench_contract::op::{PageFile, PageKind};

pub(crate) const FILES: &[PageFile] = &[
    PageFile {
        paths: &["/tools/short-links", "/tools/short-links/:slug"],
        kind: PageKind::Html,
        body: include_str!("page/index.html"),
    },
    PageFile { paths: &["/ui/short-links.js"], kind: PageKind::Script, body: include_str!("page/app.js") },
];
