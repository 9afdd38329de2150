//! XPath 1.0's core function library (section 4) and its conversions between strings,
//! numbers and booleans.
//!
//! Numbers are written as section 4.2 says: integers without a decimal point, other numbers
//! with as many digits as tell them apart from every other double, never with an exponent
//! (`0.0000001`, not `1e-07`). Strings are read as numbers only in the grammar's form (digits
//! with an optional fraction and minus sign), so `1e3` is NaN.

use roxmltree::NodeType;

use super::model::{Context, Fault, Value, Work, XNode, expanded_name};
use super::syntax::XML_NS;

pub(super) fn to_boolean(v: &Value) -> bool {
    match v {
        Value::Nodes(n) => !n.is_empty(),
        Value::Number(x) => *x != 0.0 && !x.is_nan(),
        Value::Str(s) => !s.is_empty(),
        Value::Bool(b) => *b,
    }
}

pub(super) fn to_string(v: &Value, work: &mut Work) -> Result<String, Fault> {
    Ok(match v {
        Value::Nodes(n) => match n.first() {
            Some(first) => first.string_value(work)?,
            None => String::new(),
        },
        Value::Number(x) => number_to_string(*x),
        Value::Str(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
    })
}

pub(super) fn to_number(v: &Value, work: &mut Work) -> Result<f64, Fault> {
    Ok(match v {
        Value::Number(x) => *x,
        Value::Bool(b) => f64::from(u8::from(*b)),
        other => string_to_number(&to_string(other, work)?),
    })
}

/// Section 4.4's `number()` of a string: optional whitespace, an optional minus, digits with an
/// optional fraction (or a fraction alone), optional whitespace; anything else is NaN.
pub(super) fn string_to_number(s: &str) -> f64 {
    let t = s.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    let digits = t.strip_prefix('-').unwrap_or(t);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let well_formed = (!whole.is_empty() || !fraction.is_empty())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
        && !(digits.contains('.') && whole.is_empty() && fraction.is_empty());
    if well_formed { t.parse().unwrap_or(f64::NAN) } else { f64::NAN }
}

/// Section 4.2's `string()` of a number.
pub(super) fn number_to_string(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if x == 0.0 {
        "0".into()
    } else {
        // Rust writes the shortest digits that read back as the same double, and never an
        // exponent: what the section asks for, for integers and fractions alike.
        format!("{x}")
    }
}

/// Section 4.4's `round()`: the nearest integer, halves toward positive infinity, keeping
/// negative zero for -0.5 to 0.
fn round(x: f64) -> f64 {
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        x
    } else if (-0.5..0.0).contains(&x) {
        -0.0
    } else {
        (x + 0.5).floor()
    }
}

/// Section 4.2's `substring()`: characters at positions `p` with `round(start) <= p <
/// round(start) + round(length)`, counted from 1, with NaN and infinities as the comparisons
/// make them.
fn substring(s: &str, start: f64, length: Option<f64>) -> String {
    let from = round(start);
    let to = length.map_or(f64::INFINITY, |l| from + round(l));
    s.chars()
        .enumerate()
        .filter(|(i, _)| {
            let p = (*i + 1) as f64;
            p >= from && p < to
        })
        .map(|(_, c)| c)
        .collect()
}

/// The first node of the node-set argument, or the context node when there is none.
fn node_or_context<'a, 'i>(
    args: &[Value<'a, 'i>],
    ctx: Context<'a, 'i>,
    name: &str,
) -> Result<Option<XNode<'a, 'i>>, Fault> {
    match args.first() {
        None => Ok(Some(ctx.node)),
        Some(Value::Nodes(n)) => Ok(n.first().copied()),
        Some(_) => Err(Fault::Refused(format!("{name}() takes a node-set"))),
    }
}

/// An argument as a string, its length charged as work.
fn text(v: &Value, work: &mut Work) -> Result<String, Fault> {
    let s = to_string(v, work)?;
    work.charge(s.len() as u64 / 16)?;
    Ok(s)
}

/// The string argument, or the context node's string-value when there is none.
fn text_or_context(args: &[Value], ctx: Context, work: &mut Work) -> Result<String, Fault> {
    match args.first() {
        Some(v) => text(v, work),
        None => ctx.node.string_value(work),
    }
}

/// The QName a node was written with: its prefix as in the document.
pub(super) fn qualified_name(x: XNode) -> String {
    match x {
        XNode::Node(n) if n.is_element() => {
            let text = n.document().input_text();
            let from = n.range().start + 1;
            let len = text[from..].find(|c: char| c.is_whitespace() || c == '>' || c == '/').unwrap_or(0);
            text[from..from + len].to_owned()
        }
        XNode::Attr(n, i) => {
            let text = n.document().input_text();
            n.attributes().nth(i).map(|a| text[a.range_qname()].to_owned()).unwrap_or_default()
        }
        other => expanded_name(other).1,
    }
}

/// Calls the core function `name` on its evaluated arguments (XPath 1.0's functions take
/// their arguments whole, so evaluating them first changes nothing).
pub(super) fn call<'a, 'i>(
    name: &str,
    args: Vec<Value<'a, 'i>>,
    ctx: Context<'a, 'i>,
    work: &mut Work,
) -> Result<Value<'a, 'i>, Fault> {
    let node_set = |v: &Value<'a, 'i>| match v {
        Value::Nodes(n) => Ok(n.clone()),
        _ => Err(Fault::Refused(format!("{name}() takes a node-set"))),
    };
    Ok(match name {
        "last" => Value::Number(ctx.size as f64),
        "position" => Value::Number(ctx.position as f64),
        "count" => Value::Number(node_set(&args[0])?.len() as f64),
        "id" => {
            // IDs are the values of xml:id attributes; attributes a DTD declares as IDs are
            // not known here.
            let wanted: Vec<String> = match &args[0] {
                Value::Nodes(n) => {
                    let mut all = Vec::new();
                    for x in n {
                        all.extend(x.string_value(work)?.split_whitespace().map(str::to_owned));
                    }
                    all
                }
                other => to_string(other, work)?.split_whitespace().map(str::to_owned).collect(),
            };
            let mut found = Vec::new();
            for d in ctx.node.element().document().descendants() {
                work.charge(1)?;
                if d.attribute((XML_NS, "id")).is_some_and(|v| wanted.iter().any(|w| w == v)) {
                    found.push(XNode::Node(d));
                }
            }
            Value::Nodes(found)
        }
        "local-name" | "namespace-uri" | "name" => match node_or_context(&args, ctx, name)? {
            None => Value::Str(String::new()),
            Some(x) => Value::Str(match name {
                "local-name" => expanded_name(x).1,
                "namespace-uri" => expanded_name(x).0.unwrap_or_default(),
                _ => qualified_name(x),
            }),
        },
        "string" => Value::Str(text_or_context(&args, ctx, work)?),
        "concat" => {
            let mut s = String::new();
            for a in &args {
                s.push_str(&text(a, work)?);
            }
            Value::Str(s)
        }
        "starts-with" => Value::Bool(text(&args[0], work)?.starts_with(&text(&args[1], work)?)),
        "contains" => Value::Bool(text(&args[0], work)?.contains(&text(&args[1], work)?)),
        "substring-before" => {
            let (s, t) = (text(&args[0], work)?, text(&args[1], work)?);
            Value::Str(s.find(&t).map(|i| s[..i].to_owned()).unwrap_or_default())
        }
        "substring-after" => {
            let (s, t) = (text(&args[0], work)?, text(&args[1], work)?);
            Value::Str(s.find(&t).map(|i| s[i + t.len()..].to_owned()).unwrap_or_default())
        }
        "substring" => {
            let s = text(&args[0], work)?;
            let start = to_number(&args[1], work)?;
            let length = match args.get(2) {
                Some(l) => Some(to_number(l, work)?),
                None => None,
            };
            Value::Str(substring(&s, start, length))
        }
        "string-length" => Value::Number(text_or_context(&args, ctx, work)?.chars().count() as f64),
        "normalize-space" => {
            let s = text_or_context(&args, ctx, work)?;
            Value::Str(s.split([' ', '\t', '\n', '\r']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" "))
        }
        "translate" => {
            let s = text(&args[0], work)?;
            let from: Vec<char> = text(&args[1], work)?.chars().collect();
            let to: Vec<char> = text(&args[2], work)?.chars().collect();
            Value::Str(
                s.chars()
                    .filter_map(|c| match from.iter().position(|&f| f == c) {
                        Some(i) => to.get(i).copied(),
                        None => Some(c),
                    })
                    .collect(),
            )
        }
        "boolean" => Value::Bool(to_boolean(&args[0])),
        "not" => Value::Bool(!to_boolean(&args[0])),
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "lang" => {
            let want = text(&args[0], work)?.to_ascii_lowercase();
            let mut at = Some(ctx.node.element());
            let mut lang = None;
            while let Some(n) = at {
                if let Some(l) = n.attribute((XML_NS, "lang")) {
                    lang = Some(l.to_ascii_lowercase());
                    break;
                }
                at = n.parent();
            }
            Value::Bool(
                lang.is_some_and(|l| {
                    l == want || (l.starts_with(&want) && l.as_bytes().get(want.len()) == Some(&b'-'))
                }),
            )
        }
        "number" => Value::Number(match args.first() {
            Some(v) => to_number(v, work)?,
            None => string_to_number(&ctx.node.string_value(work)?),
        }),
        "sum" => {
            let mut total = 0.0;
            for x in node_set(&args[0])? {
                total += string_to_number(&x.string_value(work)?);
            }
            Value::Number(total)
        }
        "floor" => Value::Number(to_number(&args[0], work)?.floor()),
        "ceiling" => Value::Number(to_number(&args[0], work)?.ceil()),
        "round" => Value::Number(round(to_number(&args[0], work)?)),
        other => return Err(Fault::Refused(format!("{other}() is not implemented"))),
    })
}

/// What kind of node `x` is, by the data model's names.
pub(super) fn kind(x: XNode) -> &'static str {
    match x {
        XNode::Attr(..) => "attribute",
        XNode::Ns(..) => "namespace",
        XNode::Node(n) => match n.node_type() {
            NodeType::Root => "root",
            NodeType::Element => "element",
            NodeType::PI => "processing-instruction",
            NodeType::Comment => "comment",
            NodeType::Text => "text",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_section_4_2_says() {
        for (x, s) in [
            (1.0 / 3.0, "0.3333333333333333"),
            (1e-7, "0.0000001"),
            (1e20, "100000000000000000000"),
            (-0.0, "0"),
            (-2.5, "-2.5"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(number_to_string(x), s);
        }
        for (s, x) in [(" 12 ", 12.0), ("-.5", -0.5), ("3.", 3.0), ("\n-7\t", -7.0)] {
            assert_eq!(string_to_number(s), x, "{s:?}");
        }
        for s in ["1e3", "", ".", "-", "+1", "0x10", "1 2", "- 1"] {
            assert!(string_to_number(s).is_nan(), "{s:?}");
        }
        assert_eq!((round(2.5), round(-2.5), round(-0.4).to_bits()), (3.0, -2.0, (-0.0f64).to_bits()));
        // The specification's own substring() examples.
        assert_eq!(substring("12345", 1.5, Some(2.6)), "234");
        assert_eq!(substring("12345", 0.0, Some(3.0)), "12");
        assert_eq!(substring("12345", f64::NAN, Some(3.0)), "");
        assert_eq!(substring("12345", 1.0, Some(f64::NAN)), "");
        assert_eq!(substring("12345", -42.0, Some(f64::INFINITY)), "12345");
        assert_eq!(substring("12345", f64::NEG_INFINITY, Some(f64::INFINITY)), "");
    }
}
