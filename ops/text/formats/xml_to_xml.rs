//! `xml/to-xml`: JSON written as XML, the inverse of `xml/to-json` and the convention of PyPI
//! `xmltodict`: `@name` keys are attributes, `#text` is an element's text (written after its
//! children), arrays repeat their element, and `null` is an empty element.

use serde_json::{Map, Value};

use wrench_contract::prelude::*;

/// The deepest nesting written.
const MAX_DEPTH: usize = wrench_infra::bounds::MAX_NESTING;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct JsonToXmlInput {
    /// The document: an object with one member (the root element); or, with `root`, the root
    /// element's content.
    json: Value,
    /// The root element's name, wrapping `json`.
    #[serde(default)]
    #[schemars(length(min = 1, max = 200))]
    root: Option<String>,
    /// Spaces to indent nested elements by (0, the default, writes everything on one line).
    #[serde(default)]
    #[schemars(range(min = 0, max = 8))]
    indent: u8,
}

#[derive(Debug, Serialize, JsonSchema)]
struct JsonToXmlOutput {
    /// The XML document, with its declaration.
    xml: String,
}

/// Whether `name` is an XML name (XML 1.0 section 2.3: a letter, `_` or `:`, then those,
/// digits, `-`, `.` and `·`).
fn xml_name(name: &str) -> bool {
    let start = |c: char| c.is_alphabetic() || c == '_' || c == ':';
    let mut chars = name.chars();
    chars.next().is_some_and(start)
        && chars.all(|c| start(c) || c.is_alphanumeric() || matches!(c, '-' | '.' | '\u{b7}'))
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Text escaped as Python's `xml.sax.saxutils.escape` does.
fn escape_text(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

/// An attribute value quoted as `saxutils.quoteattr` quotes it: double quotes, or single ones
/// when the value holds `"` but no `'`; line breaks and tabs as character references.
fn quote_attr(s: &str, out: &mut String) {
    let mut body = String::new();
    escape_text(s, &mut body);
    let body = body.replace('\n', "&#10;").replace('\r', "&#13;").replace('\t', "&#9;");
    if body.contains('"') {
        if body.contains('\'') {
            out.push('"');
            out.push_str(&body.replace('"', "&quot;"));
            out.push('"');
        } else {
            out.push('\'');
            out.push_str(&body);
            out.push('\'');
        }
    } else {
        out.push('"');
        out.push_str(&body);
        out.push('"');
    }
}

struct Writer {
    out: String,
    indent: usize,
}

impl Writer {
    fn element(&mut self, name: &str, value: &Value, path: &str, depth: usize) -> Result<(), ApiError> {
        if depth > MAX_DEPTH {
            return Err(ApiError::invalid("json", format!("{path} nests deeper than {MAX_DEPTH}")));
        }
        if !xml_name(name) {
            return Err(ApiError::invalid("json", format!("{path}: {name:?} is not an XML element name")));
        }
        let items: Vec<&Value> = match value {
            Value::Array(a) => a.iter().collect(),
            v => vec![v],
        };
        for (i, item) in items.into_iter().enumerate() {
            let here = if value.is_array() { format!("{path}[{i}]") } else { path.to_string() };
            let empty = Map::new();
            let (attrs_and_children, text) = match item {
                Value::Null => (&empty, None),
                Value::Object(o) => (o, o.get("#text")),
                Value::Array(_) => return Err(ApiError::invalid("json", format!("{here} is an array in an array"))),
                scalar => (&empty, Some(scalar)),
            };
            // Laid out as xmltodict lays out: each element on its own line at its depth, a
            // parent's text after its children's lines.
            let pad = " ".repeat(self.indent * depth);
            let pretty = self.indent > 0;
            if pretty {
                self.out.push_str(&pad);
            }
            self.out.push('<');
            self.out.push_str(name);
            let mut children = Vec::new();
            for (k, v) in attrs_and_children {
                if k == "#text" {
                    continue;
                }
                if let Some(attr) = k.strip_prefix('@') {
                    let value = text_of(v).ok_or_else(|| {
                        ApiError::invalid("json", format!("{here}.{k}: an attribute is a string, number or boolean"))
                    })?;
                    if !xml_name(attr) && !attr.starts_with("xmlns") {
                        return Err(ApiError::invalid("json", format!("{here}: {attr:?} is not an attribute name")));
                    }
                    self.out.push(' ');
                    self.out.push_str(attr);
                    self.out.push('=');
                    quote_attr(&value, &mut self.out);
                } else {
                    children.push((k, v));
                }
            }
            self.out.push('>');
            if pretty && !children.is_empty() {
                self.out.push('\n');
            }
            for (k, v) in &children {
                self.element(k, v, &format!("{here}.{k}"), depth + 1)?;
            }
            if let Some(t) = text {
                let t = text_of(t)
                    .ok_or_else(|| ApiError::invalid("json", format!("{here}.#text is a string, number or boolean")))?;
                escape_text(&t, &mut self.out);
            }
            if pretty && !children.is_empty() {
                self.out.push_str(&pad);
            }
            self.out.push_str("</");
            self.out.push_str(name);
            self.out.push('>');
            if pretty && depth > 0 {
                self.out.push('\n');
            }
        }
        Ok(())
    }
}

/// Convert JSON to XML.
///
/// Writes a JSON object as an XML document the way PyPI `xmltodict`'s `unparse` does, the
/// inverse of `xml/to-json`: `@name` members become attributes, `#text` the element's text,
/// arrays repeated elements, `null` an empty element, booleans `true`/`false`. The object has
/// one member, the root element, unless `root` names it. Names that are not XML names are a
/// 400 naming where; `indent` lays nested elements out on lines.
#[op(post "/v1/xml/to-xml" as xmlToXml, tag = TextAndData, pipe(json -> xml),
     rejects = "not exactly one root element, a name that is not an XML name, or an array in an array",
     example(attributes, {"json": {"book": {"@id": "bk101", "title": "XML Developer's Guide", "price": 44.95, "tags": {"tag": ["xml", "guide"]}}}, "indent": 2}),
     example(with_root, {"json": {"name": "wrench", "ok": true}, "root": "result"}),
     example(two_roots, {"json": {"a": 1, "b": 2}}, status = 400))]
async fn xml_to_xml(input: JsonToXmlInput) -> Result<JsonToXmlOutput, ApiError> {
    let mut w =
        Writer { out: String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"), indent: usize::from(input.indent) };
    match (&input.root, &input.json) {
        (Some(root), json) if !json.is_array() => w.element(root, json, "$", 0)?,
        (Some(_), _) => {
            return Err(ApiError::invalid(
                "json",
                "with root, is the root's content: an object or a value, not an array",
            ));
        }
        (None, Value::Object(o)) if o.len() == 1 => {
            let (name, value) = o.iter().next().expect("one member");
            if value.is_array() {
                return Err(ApiError::invalid("json", "the root element cannot repeat: a document has one root"));
            }
            w.element(name, value, &format!("$.{name}"), 0)?;
        }
        _ => {
            return Err(ApiError::invalid(
                "json",
                "is an object with exactly one member, the root element (or give root)",
            ));
        }
    }
    Ok(JsonToXmlOutput { xml: w.out })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI xmltodict 1.0 (tests/fixtures/xml_json.py): `unparse` of generated documents, on one
    /// line and indented by two spaces, byte for byte.
    #[tokio::test]
    async fn xmltodicts_documents() {
        let f = crate::testing::fixture("xml_json.json");
        let cases = f.as_array().unwrap();
        assert!(cases.len() >= 80);
        for c in cases {
            for (indent, key) in [(0, "xml"), (2, "pretty")] {
                let out = xml_to_xml(JsonToXmlInput { json: c["json"].clone(), root: None, indent }).await.unwrap();
                assert_eq!(out.xml, c[key].as_str().unwrap(), "{}", c["json"]);
            }
        }
    }

    #[tokio::test]
    async fn names_and_roots_are_checked() {
        for json in [
            serde_json::json!({"1a": 1}),
            serde_json::json!({"a": {"b c": 1}}),
            serde_json::json!({"a": [1, 2]}),
            serde_json::json!([1]),
        ] {
            assert!(xml_to_xml(JsonToXmlInput { json: json.clone(), root: None, indent: 0 }).await.is_err(), "{json}");
        }
    }
}
