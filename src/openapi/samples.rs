//! Examples of image results, made by running an operation's own declared examples.
//!
//! Swagger UI cannot invent an SVG ("XML example cannot be generated") and shows nothing useful
//! for PNG bytes, so each image operation's response carries what its examples really produce:
//! the SVG text itself, and for PNG and data URIs a description of the bytes (size and the
//! input that made them). Rendering runs once per operation per process, on a thread of its
//! own with a single-threaded runtime, so building the document from inside a server's runtime
//! does not nest runtimes.

use std::{
    collections::HashMap,
    sync::{LazyLock, Mutex},
};

use bytes::Bytes;
use serde_json::{Value, json};

use crate::op::{Ctx, InputKind, OpRequest, Operation, Reply};

/// What an image operation's examples produced, by media type.
#[derive(Debug, Clone, Default)]
pub(super) struct Samples {
    /// The first SVG an example produced, as text.
    pub(super) svg: Option<String>,
    /// The first PNG: its size in bytes and the example's name and input.
    pub(super) png: Option<(usize, &'static str, Value)>,
    /// The first `text/plain` (data URI) answer, when short enough to show whole.
    pub(super) text: Option<String>,
}

/// Longest data URI shown whole in the document.
const TEXT_LIMIT: usize = 4096;

static CACHE: LazyLock<Mutex<HashMap<&'static str, Samples>>> = LazyLock::new(Default::default);

/// The samples of `op` (an image operation), rendered on first use.
pub(super) fn of(op: &Operation) -> Samples {
    if let Some(s) = CACHE.lock().unwrap_or_else(|e| e.into_inner()).get(op.id()) {
        return s.clone();
    }
    let op_for_thread = op.clone();
    let samples = std::thread::spawn(move || render(&op_for_thread)).join().unwrap_or_default();
    CACHE.lock().unwrap_or_else(|e| e.into_inner()).insert(op.id(), samples.clone());
    samples
}

fn render(op: &Operation) -> Samples {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        return Samples::default();
    };
    let mut out = Samples::default();
    for example in (op.examples)().into_iter().filter(|e| e.status == 200) {
        if out.svg.is_some() && out.png.is_some() && out.text.is_some() {
            break;
        }
        let request =
            OpRequest { input: InputKind::Body, body: Bytes::from(example.input.to_string()), ..Default::default() };
        let Ok(Reply::Image(image)) = runtime.block_on((op.handler)(Ctx::offline(), request)) else { continue };
        match image.content_type {
            "image/svg+xml" if out.svg.is_none() => out.svg = String::from_utf8(image.bytes).ok(),
            "image/png" if out.png.is_none() => out.png = Some((image.bytes.len(), example.name, example.input)),
            t if t.starts_with("text/plain") && out.text.is_none() && image.bytes.len() <= TEXT_LIMIT => {
                out.text = String::from_utf8(image.bytes).ok();
            }
            _ => {}
        }
    }
    out
}

/// The `content` of an image operation's success response, with the samples as examples.
pub(super) fn image_content(op: &Operation) -> Value {
    let s = of(op);
    // Declared as bytes like the PNG, so generated clients hand back bytes for either.
    let mut svg = json!({"schema": {"type": "string", "format": "binary", "contentMediaType": "image/svg+xml", "description": "SVG markup (UTF-8)."}});
    if let Some(text) = s.svg {
        svg["example"] = json!(text);
    }
    let mut png = json!({"schema": {"type": "string", "format": "binary", "contentMediaType": "image/png"}});
    if let Some((size, name, input)) = s.png {
        png["examples"] = json!({
            name: {
                "summary": format!("{} ({size} bytes)", name.replace('_', " ")),
                "description": format!("A PNG of {size} bytes, the answer to {input}.")
            }
        });
    }
    let mut text = json!({"schema": {"type": "string", "description": "A `data:image/png;base64,...` URI, for operations that offer a base64 format."}});
    if let Some(t) = s.text {
        text["example"] = json!(t);
    }
    json!({"image/svg+xml": svg, "image/png": png, "text/plain": text})
}
