//! The inbox page for people (`/inbox/{id}`): the deliveries of one inbox, live, shown as text
//! and never run. Its three files sit in `page/` and are compiled in; the server serves them
//! under a policy that lets the page run only its own script (`wrench_contract::op::PageFile`).

use wrench_contract::op::{PageFile, PageKind};

pub(crate) const FILES: &[PageFile] = &[
    PageFile { paths: &["/inbox/:id"], kind: PageKind::Html, body: include_str!("page/index.html") },
    PageFile { paths: &["/inbox-assets/app.js"], kind: PageKind::Script, body: include_str!("page/app.js") },
    PageFile { paths: &["/inbox-assets/app.css"], kind: PageKind::Style, body: include_str!("page/app.css") },
];
