//! The short-link page for people: a form that makes a short link (`/s/`), and a link's
//! statistics (`/s/{slug}`): its target and limits, visits over time, top referrers, countries,
//! browsers and devices, and the latest visits. Both call the API with the key kept in the
//! browser, and use the style and shared script of the other pages (`/ui/`). The files sit in
//! `page/` and are compiled in.

use wrench_contract::op::{PageFile, PageKind};

pub(crate) const FILES: &[PageFile] = &[
    PageFile { paths: &["/s/", "/s/:slug"], kind: PageKind::Html, body: include_str!("page/index.html") },
    PageFile { paths: &["/ui/short-links.js"], kind: PageKind::Script, body: include_str!("page/app.js") },
];
