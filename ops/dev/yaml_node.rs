//! A YAML node as the YAML 1.2 core schema resolves it, read through serde from serde-saphyr:
//! `yaml/format` compares documents by it, and `yaml/to-json` writes it as JSON.

use wrench_contract::prelude::*;

/// A YAML node as the core schema resolves it, compared by value: floats by their bits (so
/// `.nan` equals itself), mappings in order with keys of any kind.
#[derive(Debug, PartialEq)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    Int(i128),
    Float(u64),
    Str(String),
    Bytes(Vec<u8>),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> serde::de::Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Int(v.into()))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Int(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Float(if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() }))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Node, E> {
        Ok(Node::Bytes(v.to_vec()))
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Node::Seq(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut out = Vec::new();
        while let Some(entry) = map.next_entry()? {
            out.push(entry);
        }
        Ok(Node::Map(out))
    }
}

impl Node {
    /// The node as JSON: an infinite or NaN float becomes null (`yaml/to-json` refuses them
    /// before), bytes are read as UTF-8, and a mapping key that is not a string is written as
    /// its JSON text (`1`, `true`, `null`, `[1,2]`).
    pub(crate) fn into_json(self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(b),
            Node::Int(i) => match (i64::try_from(i), u64::try_from(i)) {
                (Ok(v), _) => Value::from(v),
                (_, Ok(v)) => Value::from(v),
                _ => serde_json::Number::from_f64(i as f64).map_or(Value::Null, Value::Number),
            },
            Node::Float(bits) => serde_json::Number::from_f64(f64::from_bits(bits)).map_or(Value::Null, Value::Number),
            Node::Str(s) => Value::String(s),
            Node::Bytes(b) => Value::String(String::from_utf8_lossy(&b).into_owned()),
            Node::Seq(items) => Value::Array(items.into_iter().map(Node::into_json).collect()),
            Node::Map(entries) => {
                let mut out = serde_json::Map::new();
                for (k, v) in entries {
                    let key = match k.into_json() {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    out.insert(key, v.into_json());
                }
                Value::Object(out)
            }
        }
    }
}
