//! XML to JSON, safely.
//!
//! quick-xml never expands DTD entities, so entity bombs and external entities (XXE) cannot
//! do anything: a reference to an entity the XML specification does not predefine is refused.
//! Nesting is capped, and the reader is streaming, so memory stays proportional to the input.

use quick_xml::{Reader, events::Event};
use serde_json::Map;

use wrench_contract::prelude::*;

/// Deepest element nesting accepted.
const MAX_DEPTH: usize = wrench_infra::bounds::MAX_NESTING;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct XmlToJsonInput {
    /// An XML document.
    xml: String,
    /// Drop namespace prefixes (`soap:Body` becomes `Body`) and `xmlns` declarations.
    #[serde(default)]
    strip_namespaces: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct XmlToJsonOutput {
    /// `{rootName: content}`. Attributes are `@name` keys, text beside children or
    /// attributes is `#text`, repeated children become arrays, an element with only text is a
    /// string, and an empty element is null.
    json: Value,
    /// Name of the root element.
    root: String,
}

struct Frame {
    name: String,
    obj: Map<String, Value>,
    text: String,
    has_children: bool,
}

fn name_of(s: &str, strip: bool) -> String {
    if strip { s.rsplit(':').next().unwrap_or(s).to_string() } else { s.to_string() }
}

fn open(e: &quick_xml::events::BytesStart<'_>, strip: bool) -> Result<Frame, ApiError> {
    let mut obj = Map::new();
    for attr in e.attributes() {
        let attr = attr.map_err(|err| ApiError::invalid("xml", format!("bad attribute: {err}")))?;
        let key: &str = attr.key.as_ref();
        if strip && (key == "xmlns" || key.starts_with("xmlns:")) {
            continue;
        }
        let value = attr
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| ApiError::invalid("xml", format!("attribute {key}: {err}")))?;
        let key = if strip { key.rsplit(':').next().unwrap_or(key) } else { key };
        obj.insert(format!("@{key}"), Value::String(value.into_owned()));
    }
    Ok(Frame { name: name_of(e.name().as_ref(), strip), obj, text: String::new(), has_children: false })
}

fn close(frame: Frame) -> (String, Value) {
    let text = frame.text.trim();
    let value = if frame.obj.is_empty() && !frame.has_children {
        if text.is_empty() { Value::Null } else { Value::String(text.to_string()) }
    } else {
        let mut obj = frame.obj;
        if !text.is_empty() {
            obj.insert("#text".into(), Value::String(text.to_string()));
        }
        Value::Object(obj)
    };
    (frame.name, value)
}

fn attach(parent: &mut Frame, name: String, value: Value) {
    parent.has_children = true;
    match parent.obj.get_mut(&name) {
        Some(Value::Array(list)) => list.push(value),
        Some(existing) => {
            let first = existing.take();
            *existing = Value::Array(vec![first, value]);
        }
        None => {
            parent.obj.insert(name, value);
        }
    }
}

/// The text a reference in content stands for: a character reference, or one of the five
/// entities XML predefines. Any other entity is refused: DTD entities are never expanded.
pub(crate) fn reference_text(r: &quick_xml::events::BytesRef<'_>) -> Result<String, ApiError> {
    if r.is_char_ref() {
        return match r.resolve_char_ref() {
            Ok(Some(c)) => Ok(c.to_string()),
            _ => Err(ApiError::invalid("xml", "has an invalid character reference")),
        };
    }
    let name = r.xml10_content();
    Ok(match name.as_ref() {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        _ => {
            return Err(ApiError::invalid(
                "xml",
                format!("uses the entity &{name}; which is not predefined; DTD entities are never expanded"),
            ));
        }
    }
    .to_string())
}

pub(crate) fn xml_to_value(xml: &str, strip: bool) -> Result<(String, Value), ApiError> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<(String, Value)> = None;
    let err = |reader: &Reader<&[u8]>, e: quick_xml::Error| {
        ApiError::invalid("xml", format!("not well-formed at byte {}: {e}", reader.error_position()))
    };
    loop {
        let event = reader.read_event().map_err(|e| err(&reader, e))?;
        match event {
            Event::Start(e) => {
                if root.is_some() {
                    return Err(ApiError::invalid("xml", "has more than one root element"));
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(wrench_infra::bounds::too_deep("xml"));
                }
                stack.push(open(&e, strip)?);
            }
            Event::Empty(e) => {
                if root.is_some() {
                    return Err(ApiError::invalid("xml", "has more than one root element"));
                }
                let (name, value) = close(open(&e, strip)?);
                match stack.last_mut() {
                    Some(parent) => attach(parent, name, value),
                    None => root = Some((name, value)),
                }
            }
            Event::End(_) => {
                let frame =
                    stack.pop().ok_or_else(|| ApiError::invalid("xml", "has an end tag without a start tag"))?;
                let (name, value) = close(frame);
                match stack.last_mut() {
                    Some(parent) => attach(parent, name, value),
                    None => root = Some((name, value)),
                }
            }
            Event::Text(t) => {
                let content = t.xml10_content();
                match stack.last_mut() {
                    Some(top) => top.text.push_str(&content),
                    None if content.trim().is_empty() => {}
                    None => return Err(ApiError::invalid("xml", "has text outside the root element")),
                }
            }
            Event::CData(t) => {
                let content = t.xml10_content();
                match stack.last_mut() {
                    Some(top) => top.text.push_str(&content),
                    None => return Err(ApiError::invalid("xml", "has CDATA outside the root element")),
                }
            }
            Event::GeneralRef(r) => {
                let Some(top) = stack.last_mut() else {
                    return Err(ApiError::invalid("xml", "has an entity reference outside the root element"));
                };
                top.text.push_str(&reference_text(&r)?);
            }
            Event::Eof => break,
            // Declarations, comments, processing instructions and DOCTYPE carry no data here.
            Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    if let Some(open) = stack.last() {
        return Err(ApiError::invalid("xml", format!("ends before <{}> is closed", open.name)));
    }
    root.ok_or_else(|| ApiError::invalid("xml", "has no root element"))
}

/// Convert XML to JSON.
///
/// The document becomes `{rootName: content}`: attributes are `@name` keys, text beside child
/// elements or attributes is `#text`, repeated child elements become arrays in document order,
/// an element with only text becomes a string, and an empty element null. Namespace prefixes
/// are kept as written (`soap:Body`, with `xmlns` declarations as `@xmlns:soap` attributes)
/// unless `stripNamespaces` is set. Text is trimmed; CDATA is text. Comments and processing
/// instructions are dropped. Only the five predefined entities and character references are
/// resolved: DTD entities are never expanded (no entity bombs, no external entities), and a
/// reference to one is a 400. Nesting is limited to 128 levels.
#[op(post "/v1/xml/to-json" as xmlToJson, tag = TextAndData, pipe(xml -> json),
     rejects = "XML that is not well-formed, uses entities other than the predefined ones, or nests deeper than 128 levels",
     example(typical, {"xml": "<?xml version=\"1.0\"?><catalog lang=\"en\"><book id=\"1\"><title>Rust &amp; You</title><tag>a</tag><tag>b</tag></book><note>see <![CDATA[<raw>]]></note><empty/></catalog>"}),
     example(namespaces_stripped, {"xml": "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\"><soap:Body><m:Price xmlns:m=\"urn:x\" m:currency=\"EUR\">9.5</m:Price></soap:Body></soap:Envelope>", "stripNamespaces": true}),
     example(entity_bomb_refused, {"xml": "<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;\">]><lolz>&lol2;</lolz>"}, status = 400))]
async fn xml_to_json(input: XmlToJsonInput) -> Result<XmlToJsonOutput, ApiError> {
    let (root, value) = xml_to_value(&input.xml, input.strip_namespaces)?;
    let mut json = Map::new();
    json.insert(root.clone(), value);
    Ok(XmlToJsonOutput { json: Value::Object(json), root })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structure_conventions() {
        let (root, v) = xml_to_value("<r a='1'>t<c>x</c><c>y</c><d/><e>&#x41;&lt;</e></r>", false).unwrap();
        assert_eq!(root, "r");
        assert_eq!(v, json!({"@a": "1", "#text": "t", "c": ["x", "y"], "d": null, "e": "A<"}));
    }

    #[test]
    fn hostile_documents_are_refused() {
        let xxe = "<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>";
        assert!(xml_to_value(xxe, false).is_err());
        let deep = "<a>".repeat(MAX_DEPTH + 1) + &"</a>".repeat(MAX_DEPTH + 1);
        assert!(xml_to_value(&deep, false).unwrap_err().message.contains("nested"));
        for bad in ["<a><b></a></b>", "<a>", "<a/><b/>", "text", "", "<a></a>junk"] {
            assert!(xml_to_value(bad, false).is_err(), "{bad}");
        }
    }
}
