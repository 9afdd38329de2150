//! `xml/format`: an XML document laid out as `xmllint --format` lays it out, or minified as
//! `xmllint --noblanks` writes it, byte for byte.
//!
//! The rules are libxml2's. Whitespace-only text between elements is dropped when it is
//! followed by markup, unless the element holds nothing else or already holds text (its first
//! or latest child); `xml:space="preserve"` keeps it all. An element whose children include text
//! or CDATA is written as it stands; the others put each child on its own line, indented. An
//! element with no children is written `<e/>`; namespace declarations come before the other
//! attributes. Without a declared encoding, characters outside ASCII are written as character
//! references, as libxml2 writes them. As in `xml/to-json`, DTD entities are never expanded.

use quick_xml::{Reader, events::Event};

use wrench_contract::prelude::*;

/// Deepest element nesting accepted.
const MAX_DEPTH: usize = wrench_infra::bounds::MAX_NESTING;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct XmlFormatInput {
    /// The XML document.
    xml: String,
    /// Spaces per level (default 2, as `xmllint`).
    #[serde(default = "two")]
    #[schemars(range(min = 1, max = 8))]
    indent: u8,
    /// Write the document on one line with blank text dropped, as `xmllint --noblanks`.
    #[serde(default)]
    minify: bool,
}

fn two() -> u8 {
    2
}

#[derive(Debug, Serialize, JsonSchema)]
struct XmlFormatOutput {
    /// The document, formatted or minified, with its declaration and a final line break.
    formatted: String,
}

enum Node {
    Element { name: String, attrs: Vec<(String, String)>, children: Vec<Node> },
    Text(String),
    CData(String),
    Comment(String),
    Pi(String),
}

struct Open {
    name: String,
    attrs: Vec<(String, String)>,
    children: Vec<Node>,
    preserve: bool,
}

struct Document {
    declaration: String,
    ascii: bool,
    prolog: Vec<String>,
    root: Option<Node>,
    epilog: Vec<String>,
}

fn bad(reader: &Reader<&[u8]>, e: impl std::fmt::Display) -> ApiError {
    ApiError::invalid("xml", format!("not well-formed at byte {}: {e}", reader.error_position()))
}

fn push_text(children: &mut Vec<Node>, text: &str) {
    if let Some(Node::Text(last)) = children.last_mut() {
        last.push_str(text);
    } else {
        children.push(Node::Text(text.to_string()));
    }
}

fn blank(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

fn parse(xml: &str) -> Result<Document, ApiError> {
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut doc = Document {
        declaration: "<?xml version=\"1.0\"?>".into(),
        ascii: true,
        prolog: Vec::new(),
        root: None,
        epilog: Vec::new(),
    };
    let mut stack: Vec<Open> = Vec::new();
    // Whitespace waiting for what follows it to decide whether it stays.
    let mut pending: Option<String> = None;
    loop {
        let event = reader.read_event().map_err(|e| bad(&reader, e))?;
        if let Some(ws) = pending.take() {
            let top = stack.last_mut().expect("whitespace waits inside an element only");
            let keep = top.preserve
                || matches!(event, Event::GeneralRef(_))
                || (top.children.is_empty() && matches!(event, Event::End(_)))
                || matches!(top.children.last(), Some(Node::Text(_)))
                || matches!(top.children.first(), Some(Node::Text(_)));
            if keep {
                push_text(&mut top.children, &ws);
            }
        }
        match event {
            Event::Decl(d) => {
                let version = d.version().map_err(|e| bad(&reader, e))?;
                let mut decl = format!("<?xml version=\"{}\"", version);
                if let Some(enc) = d.encoding() {
                    let enc = enc.map_err(|e| bad(&reader, e))?.into_owned();
                    doc.ascii = !enc.eq_ignore_ascii_case("utf-8");
                    decl += &format!(" encoding=\"{enc}\"");
                }
                if let Some(sa) = d.standalone() {
                    decl += &format!(" standalone=\"{}\"", sa.map_err(|e| bad(&reader, e))?);
                }
                doc.declaration = decl + "?>";
            }
            Event::Start(e) | Event::Empty(e) if stack.len() >= MAX_DEPTH => {
                let _ = e;
                return Err(wrench_infra::bounds::too_deep("xml"));
            }
            Event::Start(ref e) | Event::Empty(ref e) => {
                if doc.root.is_some() && stack.is_empty() {
                    return Err(ApiError::invalid("xml", "has more than one root element"));
                }
                let mut attrs = Vec::new();
                let mut preserve = stack.last().is_some_and(|o| o.preserve);
                for attr in e.attributes() {
                    let attr = attr.map_err(|err| bad(&reader, err))?;
                    let key = attr.key.as_ref().to_string();
                    let value = attr
                        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .map_err(|err| ApiError::invalid("xml", format!("attribute {key}: {err}")))?
                        .into_owned();
                    if key == "xml:space" {
                        preserve = value == "preserve";
                    }
                    attrs.push((key, value));
                }
                // libxml2 keeps namespace declarations apart and writes them first.
                attrs.sort_by_key(|(k, _)| !(k == "xmlns" || k.starts_with("xmlns:")));
                let name = e.name().as_ref().to_string();
                let open = Open { name, attrs, children: Vec::new(), preserve };
                if matches!(event, Event::Start(_)) {
                    stack.push(open);
                } else {
                    close(&mut stack, &mut doc, open);
                }
            }
            Event::End(_) => {
                let open = stack.pop().ok_or_else(|| ApiError::invalid("xml", "has an end tag without a start tag"))?;
                close(&mut stack, &mut doc, open);
            }
            Event::Text(t) => {
                let text = t.xml10_content().into_owned();
                match stack.last_mut() {
                    Some(_) if blank(&text) => pending = Some(text),
                    Some(top) => push_text(&mut top.children, &text),
                    None if blank(&text) => {}
                    None => return Err(ApiError::invalid("xml", "has text outside the root element")),
                }
            }
            Event::GeneralRef(r) => {
                let Some(top) = stack.last_mut() else {
                    return Err(ApiError::invalid("xml", "has an entity reference outside the root element"));
                };
                let text = crate::text::xml::reference_text(&r)?;
                push_text(&mut top.children, &text);
            }
            Event::CData(t) => {
                let text = t.into_inner().into_owned();
                match stack.last_mut() {
                    // libxml2 joins adjacent CDATA sections into one.
                    Some(top) => match top.children.last_mut() {
                        Some(Node::CData(last)) => last.push_str(&text),
                        _ => top.children.push(Node::CData(text)),
                    },
                    None => return Err(ApiError::invalid("xml", "has CDATA outside the root element")),
                }
            }
            Event::Comment(c) => {
                let node = format!("<!--{}-->", c.into_inner());
                misc(&mut stack, &mut doc, node, false);
            }
            Event::PI(p) => {
                let target = p.target().to_string();
                let data = p.content().trim_start().to_string();
                let node = if data.is_empty() { format!("<?{target}?>") } else { format!("<?{target} {data}?>") };
                misc(&mut stack, &mut doc, node, true);
            }
            Event::DocType(d) => {
                let text = d.into_inner().trim().to_string();
                doc.prolog.push(format!("<!DOCTYPE {text}>"));
            }
            Event::Eof => break,
        }
    }
    if let Some(open) = stack.last() {
        return Err(ApiError::invalid("xml", format!("ends before <{}> is closed", open.name)));
    }
    if doc.root.is_none() {
        return Err(ApiError::invalid("xml", "has no root element"));
    }
    Ok(doc)
}

fn close(stack: &mut [Open], doc: &mut Document, open: Open) {
    let node = Node::Element { name: open.name, attrs: open.attrs, children: open.children };
    match stack.last_mut() {
        Some(parent) => parent.children.push(node),
        None => doc.root = Some(node),
    }
}

fn misc(stack: &mut [Open], doc: &mut Document, text: String, pi: bool) {
    match stack.last_mut() {
        Some(top) => top.children.push(if pi { Node::Pi(text) } else { Node::Comment(text) }),
        None if doc.root.is_none() => doc.prolog.push(text),
        None => doc.epilog.push(text),
    }
}

struct Out {
    text: String,
    ascii: bool,
    indent: usize,
}

impl Out {
    fn escaped(&mut self, s: &str, attribute: bool) {
        for c in s.chars() {
            match c {
                '&' => self.text.push_str("&amp;"),
                '<' => self.text.push_str("&lt;"),
                '>' => self.text.push_str("&gt;"),
                '\r' => self.text.push_str("&#13;"),
                '"' if attribute => self.text.push_str("&quot;"),
                '\n' if attribute => self.text.push_str("&#10;"),
                '\t' if attribute => self.text.push_str("&#9;"),
                c if self.ascii && !c.is_ascii() => self.text.push_str(&format!("&#x{:X};", c as u32)),
                c => self.text.push(c),
            }
        }
    }

    fn node(&mut self, node: &Node, level: usize, format: bool) {
        match node {
            Node::Text(t) => self.escaped(t, false),
            Node::CData(t) => {
                self.text.push_str("<![CDATA[");
                self.text.push_str(t);
                self.text.push_str("]]>");
            }
            Node::Comment(t) | Node::Pi(t) => self.text.push_str(t),
            Node::Element { name, attrs, children } => {
                self.text.push('<');
                self.text.push_str(name);
                for (k, v) in attrs {
                    self.text.push(' ');
                    self.text.push_str(k);
                    self.text.push_str("=\"");
                    self.escaped(v, true);
                    self.text.push('"');
                }
                if children.is_empty() {
                    self.text.push_str("/>");
                    return;
                }
                self.text.push('>');
                let format = format && !children.iter().any(|c| matches!(c, Node::Text(_) | Node::CData(_)));
                for child in children {
                    if format {
                        self.text.push('\n');
                        self.text.push_str(&" ".repeat(self.indent * (level + 1)));
                    }
                    self.node(child, level + 1, format);
                }
                if format {
                    self.text.push('\n');
                    self.text.push_str(&" ".repeat(self.indent * level));
                }
                self.text.push_str("</");
                self.text.push_str(name);
                self.text.push('>');
            }
        }
    }
}

/// Format or minify XML, as xmllint does.
///
/// Lays the document out as `xmllint --format` does (each element whose content is only
/// elements, comments and processing instructions gets its children on their own lines,
/// indented; text and mixed content stay as written), or with `minify` writes it on one line
/// as `xmllint --noblanks`. The declaration is kept or added. DTD entities are never expanded
/// (a reference to one is a 400) and nesting is limited to 128 levels.
#[op(post "/v1/xml/format" as xmlFormat, tag = TextAndData, pipe(xml -> formatted), cpu,
     rejects = "text that is not well-formed XML, or a reference to an entity that is not predefined",
     example(nested, {"xml": "<?xml version=\"1.0\" encoding=\"UTF-8\"?><catalog><book id=\"bk101\"><title>XML &amp; you</title><price>44.95</price></book><book id=\"bk102\"/></catalog>"}),
     example(minify, {"xml": "<a>\n  <b>text</b>\n  <c/>\n</a>\n", "minify": true}),
     example(mixed_content, {"xml": "<p>Some <b>bold</b> text</p>", "indent": 4}),
     example(not_closed, {"xml": "<a><b></a>"}, status = 400))]
async fn xml_format(input: XmlFormatInput) -> Result<XmlFormatOutput, ApiError> {
    let doc = parse(&input.xml)?;
    let mut out = Out { text: doc.declaration.clone(), ascii: doc.ascii, indent: usize::from(input.indent) };
    out.text.push('\n');
    for p in &doc.prolog {
        out.text.push_str(p);
        out.text.push('\n');
    }
    if let Some(root) = &doc.root {
        out.node(root, 0, !input.minify);
        out.text.push('\n');
    }
    for p in &doc.epilog {
        out.text.push_str(p);
        out.text.push('\n');
    }
    Ok(XmlFormatOutput { formatted: out.text })
}
