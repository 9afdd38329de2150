//! `xml/query`: an XPath 1.0 expression (read by `syntax.rs`, evaluated by `eval.rs` with the
//! core functions of `functions.rs`, on the values and nodes of `model.rs`) over an XML document, answering a node-set as the nodes
//! themselves (kind, name, a locating path, string-value and source text) or a number, string
//! or boolean.

mod eval;
mod functions;
mod model;
mod syntax;

use std::collections::{BTreeMap, HashMap};

use roxmltree::{Document, NodeType, ParsingOptions};

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;

use eval::Evaluator;
use model::{Context, Fault, Value, Work, XNode};

/// The most nodes an answer lists.
const MAX_NODES: usize = 100_000;
/// The most nodes a document may have.
const MAX_DOCUMENT_NODES: u32 = 1_000_000;
/// Fixed cost of one listed node in the JSON answer, over its strings.
const NODE_OVERHEAD: usize = 128;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct XmlQueryInput {
    /// The XML document. A DTD is read for its entities (expanded within roxmltree's limits);
    /// nothing external is fetched.
    xml: String,
    /// The XPath 1.0 expression.
    #[schemars(length(min = 1, max = 4096))]
    xpath: String,
    /// Prefixes for the expression's names, each bound to a namespace URI (`xml` is always
    /// bound). An unprefixed name in XPath 1.0 means no namespace, so elements in a default
    /// namespace need a prefix here.
    #[serde(default)]
    #[schemars(length(max = 64))]
    namespaces: BTreeMap<String, String>,
}

/// What the expression evaluated to (XPath 1.0 section 1).
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ResultType {
    Nodeset,
    Number,
    String,
    Boolean,
}

/// A number, string or boolean result; a number that is not finite is written `NaN`,
/// `Infinity` or `-Infinity`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum Scalar {
    Boolean(bool),
    Number(f64),
    Text(String),
}

/// One node of a node-set.
#[derive(Debug, Serialize, JsonSchema)]
struct XpathNode {
    /// `root`, `element`, `attribute`, `text`, `comment`, `processing-instruction` or
    /// `namespace`.
    kind: &'static str,
    /// The name as the document writes it (with its prefix): of an element or attribute, a
    /// processing instruction's target, a namespace's prefix.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// The namespace URI of an element's or attribute's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<String>,
    /// Where the node is, as a path of steps with positions (`/catalog[1]/book[2]/@id`).
    path: String,
    /// The node's string-value: an element's text, all of it; an attribute's value.
    value: String,
    /// The node's source text as the document writes it: an element with its content, a
    /// comment, a processing instruction or a text node.
    #[serde(skip_serializing_if = "Option::is_none")]
    xml: Option<String>,
    /// The line (from 1) where the node starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    /// The column (from 1, in characters) where the node starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct XmlQueryOutput {
    /// `nodeset`, `number`, `string` or `boolean`.
    #[serde(rename = "type")]
    kind: ResultType,
    /// A number, string or boolean result.
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<Scalar>,
    /// How many nodes a node-set holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
    /// A node-set's nodes, in document order.
    #[serde(skip_serializing_if = "Option::is_none")]
    nodes: Option<Vec<XpathNode>>,
}

/// Query XML with XPath 1.0.
///
/// Evaluates an XPath 1.0 expression (every axis, node test and core function; prefixes
/// bound in `namespaces`) against the document's root. A node-set answers each node in
/// document order with its kind, name, a path that locates it, its string-value, source text
/// and line; a number, string or boolean answers the value. Strings become numbers and
/// numbers strings exactly as the specification says (`string(1 div 3)` is
/// `0.3333333333333333`, `number('1e3')` is NaN). `id()` finds `xml:id` attributes. At most
/// 100,000 nodes; an expression that needs more than 20 million steps of work on the document
/// is refused rather than run to the end.
#[op(post "/v1/xml/query" as xmlQuery, tag = TextAndData, cpu,
     rejects = "XML that is not well-formed, an expression that is not XPath 1.0 or uses an unbound prefix, or one that costs too much",
     example(titles, {"xml": "<catalog><book id=\"b1\"><title>Dune</title><price>9.99</price></book><book id=\"b2\"><title>Emma</title><price>4.50</price></book></catalog>",
         "xpath": "//book[price < 5]/title"}),
     example(sum, {"xml": "<catalog><book><price>9.99</price></book><book><price>4.50</price></book></catalog>", "xpath": "sum(//price)"}),
     example(namespaced, {"xml": "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title>One</title></entry></feed>",
         "xpath": "string(//a:entry/a:title)", "namespaces": {"a": "http://www.w3.org/2005/Atom"}}),
     example(bad_expression, {"xml": "<a/>", "xpath": "//a["}, status = 400))]
async fn xml_query(ctx: &Ctx, input: XmlQueryInput) -> Result<XmlQueryOutput, ApiError> {
    query(input, ctx.config.response_limit)
}

fn query(input: XmlQueryInput, limit: usize) -> Result<XmlQueryOutput, ApiError> {
    let expr = syntax::parse(&input.xpath, &input.namespaces)
        .map_err(|e| ApiError::invalid("xpath", format!("is not XPath 1.0 at character {}: {}", e.column, e.reason)))?;
    let options = ParsingOptions { allow_dtd: true, nodes_limit: MAX_DOCUMENT_NODES, ..ParsingOptions::default() };
    let doc = Document::parse_with_options(&input.xml, options)
        .map_err(|e| ApiError::invalid("xml", format!("is not well-formed XML: {e}")))?;
    let mut ev = Evaluator { doc: &doc, work: Work::default() };
    let root = Context { node: XNode::Node(doc.root()), position: 1, size: 1 };
    let value = ev.eval(&expr, root).map_err(|f| match f {
        Fault::TooCostly => ApiError::invalid(
            "xpath",
            format!("needs more than {} steps of work on this document; narrow it", model::MAX_WORK),
        ),
        Fault::Refused(why) => ApiError::invalid("xpath", why),
    })?;
    let scalar = |kind, value| Ok(XmlQueryOutput { kind, value: Some(value), count: None, nodes: None });
    match value {
        Value::Bool(b) => scalar(ResultType::Boolean, Scalar::Boolean(b)),
        Value::Number(x) if x.is_finite() => scalar(ResultType::Number, Scalar::Number(x)),
        Value::Number(x) => scalar(ResultType::Number, Scalar::Text(functions::number_to_string(x))),
        Value::Str(s) => {
            OutputBudget::new(limit).add_json_string(&s)?;
            scalar(ResultType::String, Scalar::Text(s))
        }
        Value::Nodes(nodes) => {
            if nodes.len() > MAX_NODES {
                return Err(ApiError::invalid(
                    "xpath",
                    format!("selects {} nodes, more than the {MAX_NODES} an answer lists", nodes.len()),
                ));
            }
            let listed = describe(&doc, &nodes, &mut ev.work, limit)?;
            Ok(XmlQueryOutput { kind: ResultType::Nodeset, value: None, count: Some(nodes.len()), nodes: Some(listed) })
        }
    }
}

/// Each node as the answer lists it, counted against the response limit as it is built.
fn describe(doc: &Document, nodes: &[XNode], work: &mut Work, limit: usize) -> Result<Vec<XpathNode>, ApiError> {
    let text = doc.input_text();
    let line_starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    // Nodes come in document order, so each column is counted on from the last one on the
    // same line: a document on one line costs one pass, not one per node.
    let mut cursor = (0usize, 1usize, 1usize);
    let mut place = |offset: usize| {
        let line = line_starts.partition_point(|&s| s <= offset);
        let (from, column) =
            if cursor.1 == line && cursor.0 <= offset { (cursor.0, cursor.2) } else { (line_starts[line - 1], 1) };
        let column = column + text[from..offset].chars().count();
        cursor = (offset, line, column);
        (line, column)
    };
    let positions = sibling_positions(doc);
    let mut budget = OutputBudget::new(limit);
    let mut out = Vec::with_capacity(nodes.len());
    for &x in nodes {
        let value = x.string_value(work).map_err(|_| {
            ApiError::invalid("xpath", format!("needs more than {} steps of work on this document", model::MAX_WORK))
        })?;
        let (name, namespace) = match x {
            XNode::Node(n) if n.is_element() => {
                (Some(functions::qualified_name(x)), n.tag_name().namespace().map(str::to_owned))
            }
            XNode::Attr(n, i) => (
                Some(functions::qualified_name(x)),
                n.attributes().nth(i).and_then(|a| a.namespace()).map(str::to_owned),
            ),
            XNode::Node(n) if n.is_pi() => (n.pi().map(|p| p.target.to_owned()), None),
            XNode::Ns(n, i) => (Some(model::namespace(n, i).0), None),
            _ => (None, None),
        };
        let (xml, start) = match x {
            XNode::Node(n) if n.node_type() != NodeType::Root => {
                (Some(text[n.range()].to_owned()), Some(n.range().start))
            }
            XNode::Attr(n, i) => (None, n.attributes().nth(i).map(|a| a.range().start)),
            _ => (None, None),
        };
        let path = path_of(x, &positions);
        budget.add(NODE_OVERHEAD + path.len())?;
        budget.add_json_string(&value)?;
        if let Some(x) = &xml {
            budget.add_json_string(x)?;
        }
        let (line, column) = start.map(&mut place).unzip();
        out.push(XpathNode { kind: functions::kind(x), name, namespace, path, value, xml, line, column });
    }
    Ok(out)
}

/// Each node's position among its siblings of the same kind (and, for elements, the same
/// expanded name), counted in one pass over the document.
fn sibling_positions(doc: &Document) -> HashMap<usize, usize> {
    let mut positions = HashMap::new();
    for parent in doc.descendants() {
        let mut seen: HashMap<(u8, Option<&str>, &str), usize> = HashMap::new();
        for c in parent.children() {
            let key = match c.node_type() {
                NodeType::Element => (0, c.tag_name().namespace(), c.tag_name().name()),
                NodeType::Text => (1, None, ""),
                NodeType::Comment => (2, None, ""),
                NodeType::PI => (3, None, c.pi().map_or("", |p| p.target)),
                NodeType::Root => continue,
            };
            let n = seen.entry(key).or_default();
            *n += 1;
            positions.insert(c.id().get_usize(), *n);
        }
    }
    positions
}

/// A path that locates `x`: steps from the root with positions among like siblings.
fn path_of(x: XNode, positions: &HashMap<usize, usize>) -> String {
    let step = |n: roxmltree::Node| {
        let at = positions.get(&n.id().get_usize()).copied().unwrap_or(1);
        match n.node_type() {
            NodeType::Element => format!("{}[{at}]", functions::qualified_name(XNode::Node(n))),
            NodeType::Text => format!("text()[{at}]"),
            NodeType::Comment => format!("comment()[{at}]"),
            NodeType::PI => format!("processing-instruction('{}')[{at}]", n.pi().map_or("", |p| p.target)),
            NodeType::Root => String::new(),
        }
    };
    let element = x.element();
    let mut steps: Vec<String> = element.ancestors().filter(|a| !a.is_root()).map(step).collect();
    steps.reverse();
    let mut path =
        if steps.is_empty() && element.is_root() { String::from("/") } else { format!("/{}", steps.join("/")) };
    match x {
        XNode::Attr(..) => path.push_str(&format!("/@{}", functions::qualified_name(x))),
        XNode::Ns(n, i) => path.push_str(&format!("/namespace::{}", model::namespace(n, i).0)),
        _ => {}
    }
    path
}

#[cfg(test)]
mod tests;
