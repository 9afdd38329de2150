//! The values XPath 1.0 computes with (section 1: node-sets, numbers, strings, booleans), the
//! nodes of its data model over a roxmltree document (section 5), and the budget of work an
//! evaluation draws on.

use roxmltree::{Node, NodeType};

use super::syntax::XML_NS;

/// The most units of work (nodes visited, characters built) one evaluation may take.
pub(super) const MAX_WORK: u64 = 20_000_000;

/// One node of the data model. Attributes and namespaces are not roxmltree nodes, so they are
/// their element and an index.
#[derive(Debug, Clone, Copy)]
pub(super) enum XNode<'a, 'i> {
    Node(Node<'a, 'i>),
    /// An attribute: its element and its index among the element's attributes.
    Attr(Node<'a, 'i>, usize),
    /// A namespace node: its element and its index among the element's in-scope namespaces,
    /// 0 being `xml`.
    Ns(Node<'a, 'i>, usize),
}

impl<'a, 'i> XNode<'a, 'i> {
    /// The position in document order: an element's namespaces, then its attributes, come after
    /// it and before its children (section 5).
    pub fn order(&self) -> (usize, u8, usize) {
        match self {
            XNode::Node(n) => (n.id().get_usize(), 0, 0),
            XNode::Ns(n, i) => (n.id().get_usize(), 1, *i),
            XNode::Attr(n, i) => (n.id().get_usize(), 2, *i),
        }
    }

    /// The node itself, or the element that holds an attribute or namespace.
    pub fn element(&self) -> Node<'a, 'i> {
        match self {
            XNode::Node(n) | XNode::Attr(n, _) | XNode::Ns(n, _) => *n,
        }
    }

    /// Section 5's string-value.
    pub fn string_value(&self, work: &mut Work) -> Result<String, Fault> {
        Ok(match self {
            XNode::Node(n) => match n.node_type() {
                NodeType::Root | NodeType::Element => {
                    let mut s = String::new();
                    for d in n.descendants() {
                        work.charge(1)?;
                        if d.is_text() {
                            let t = d.text().unwrap_or_default();
                            work.charge(t.len() as u64 / 16)?;
                            s.push_str(t);
                        }
                    }
                    s
                }
                NodeType::PI => n.pi().and_then(|p| p.value).unwrap_or_default().to_owned(),
                NodeType::Comment | NodeType::Text => n.text().unwrap_or_default().to_owned(),
            },
            XNode::Attr(n, i) => n.attributes().nth(*i).map(|a| a.value().to_owned()).unwrap_or_default(),
            XNode::Ns(n, i) => namespace(*n, *i).1,
        })
    }
}

/// An element's in-scope namespace nodes: `xml` first, then those roxmltree lists.
pub(super) fn namespaces(n: Node) -> usize {
    1 + n.namespaces().count()
}

/// The `i`th namespace node of `n`: its prefix (empty for the default) and URI.
pub(super) fn namespace(n: Node, i: usize) -> (String, String) {
    if i == 0 {
        return ("xml".into(), XML_NS.into());
    }
    n.namespaces()
        .nth(i - 1)
        .map(|ns| (ns.name().unwrap_or_default().to_owned(), ns.uri().to_owned()))
        .unwrap_or_default()
}

/// Why an evaluation stopped.
#[derive(Debug)]
pub(super) enum Fault {
    TooCostly,
    /// Something the expression asks that this evaluator refuses, said in words.
    Refused(String),
}

/// The work done so far.
#[derive(Debug, Default)]
pub(super) struct Work(u64);

impl Work {
    pub fn charge(&mut self, n: u64) -> Result<(), Fault> {
        self.0 += n;
        if self.0 > MAX_WORK { Err(Fault::TooCostly) } else { Ok(()) }
    }
}

/// A value (section 1): a node-set (kept in document order without repeats), a number, a
/// string or a boolean.
#[derive(Debug, Clone)]
pub(super) enum Value<'a, 'i> {
    Nodes(Vec<XNode<'a, 'i>>),
    Number(f64),
    Str(String),
    Bool(bool),
}

/// Where an expression is evaluated: the context node, position and size (section 1).
#[derive(Debug, Clone, Copy)]
pub(super) struct Context<'a, 'i> {
    pub node: XNode<'a, 'i>,
    pub position: usize,
    pub size: usize,
}

/// A node's expanded name: namespace URI and local part (section 5).
pub(super) fn expanded_name(x: XNode) -> (Option<String>, String) {
    match x {
        XNode::Node(n) if n.is_element() => {
            (n.tag_name().namespace().map(str::to_owned), n.tag_name().name().to_owned())
        }
        XNode::Node(n) if n.is_pi() => (None, n.pi().map(|p| p.target.to_owned()).unwrap_or_default()),
        XNode::Node(_) => (None, String::new()),
        XNode::Attr(n, i) => {
            n.attributes().nth(i).map(|a| (a.namespace().map(str::to_owned), a.name().to_owned())).unwrap_or_default()
        }
        XNode::Ns(n, i) => (None, namespace(n, i).0),
    }
}
