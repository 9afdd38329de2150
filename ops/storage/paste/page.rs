//! The paste page for people: the form that writes a paste (`/p/`) and the page that reads one
//! (`/p/{id}`), encrypting and decrypting in the browser so the key never reaches the server.
//! Its three files sit in `page/` and are compiled in; the server serves them under a policy
//! that lets the page run only its own script (`wrench_contract::op::PageFile`).

use wrench_contract::op::{PageFile, PageKind};

pub(crate) const FILES: &[PageFile] = &[
    PageFile { paths: &["/p/", "/p/:id"], kind: PageKind::Html, body: include_str!("page/index.html") },
    PageFile { paths: &["/paste-assets/app.js"], kind: PageKind::Script, body: include_str!("page/app.js") },
    PageFile { paths: &["/paste-assets/app.css"], kind: PageKind::Style, body: include_str!("page/app.css") },
];
