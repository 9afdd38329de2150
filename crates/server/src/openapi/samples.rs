//! Examples of image results, as the operations' own declared examples produce them.
//!
//! Swagger UI cannot invent an SVG ("XML example cannot be generated") and shows nothing useful
//! for PNG bytes, so each image operation's response carries what its examples really produce:
//! the SVG text itself, and for PNG and data URIs a description of the bytes (size and the
//! input that made them). Writing the document runs no operation: the examples' results are
//! checked in (`openapi/image-examples.json`), and `tests/it/openapi.rs` renders them again with
//! [`render`] and fails when the file is stale (`UPDATE_OPENAPI=1` rewrites it).

use std::sync::LazyLock;

use bytes::Bytes;
use serde_json::{Map, Value, json};

use wrench_contract::op::{Ctx, InputKind, OpRequest, Operation, OutputKind, Reply};

/// What an image operation's examples produced, by media type.
#[derive(Debug, Clone, Default)]
pub(super) struct Samples {
    /// The first SVG an example produced, as text.
    pub(super) svg: Option<String>,
    /// The first PNG: its size in bytes and the example's name and input.
    pub(super) png: Option<(u64, String, Value)>,
    /// The first `text/plain` (data URI) answer, when short enough to show whole.
    pub(super) text: Option<String>,
}

/// Longest data URI shown whole in the document.
const TEXT_LIMIT: usize = 4096;

/// The checked-in results, by operationId.
static CHECKED_IN: LazyLock<Value> =
    LazyLock::new(|| serde_json::from_str(include_str!("../../../../openapi/image-examples.json")).unwrap_or_default());

/// The samples of `op` (an image operation), as checked in.
pub(super) fn of(op: &Operation) -> Samples {
    let entry = &CHECKED_IN[op.id()];
    let text = |key: &str| entry[key].as_str().map(str::to_string);
    let png = &entry["png"];
    Samples {
        svg: text("svg"),
        png: png["bytes"]
            .as_u64()
            .map(|n| (n, png["example"].as_str().unwrap_or("").to_string(), png["input"].clone())),
        text: text("text"),
    }
}

/// What every image operation's examples produce now, in the checked-in file's form: each
/// example that should succeed is run through the operation, with default settings and an
/// in-memory store, on a thread of its own with a single-threaded runtime.
pub fn render(ops: &[Operation]) -> Value {
    let mut out = Map::new();
    for op in ops.iter().filter(|o| o.output == OutputKind::Image) {
        let op_for_thread = op.clone();
        let samples = std::thread::spawn(move || render_one(&op_for_thread)).join().unwrap_or_default();
        let mut entry = Map::new();
        if let Some(svg) = samples.svg {
            entry.insert("svg".into(), json!(svg));
        }
        if let Some((bytes, example, input)) = samples.png {
            entry.insert("png".into(), json!({"bytes": bytes, "example": example, "input": input}));
        }
        if let Some(text) = samples.text {
            entry.insert("text".into(), json!(text));
        }
        out.insert(op.id().to_string(), Value::Object(entry));
    }
    Value::Object(out)
}

fn render_one(op: &Operation) -> Samples {
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
            "image/png" if out.png.is_none() => {
                out.png = Some((image.bytes.len() as u64, example.name.to_string(), example.input))
            }
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
        let summary = format!("{} ({size} bytes)", name.replace('_', " "));
        png["examples"] = json!({
            name: {
                "summary": summary,
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
