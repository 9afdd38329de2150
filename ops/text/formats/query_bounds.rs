//! Bounds on what a query may cost and answer, checked before and after it runs, since neither
//! query library can be interrupted once it has started.
//!
//! - JSONPath (RFC 9535): a descendant segment (`..`) inside a filter runs a whole-subtree
//!   search for every node the filter visits, so a query with `k` of them costs on the order of
//!   `n^(1+k)` for a document of `n` nodes. Queries whose bound passes [`MAX_WORK`] are refused
//!   before they run; the rest are polynomial of a degree the caller cannot raise further.
//! - JMESPath: a multiselect (`[a, b]`, `{a: a, b: b}`) multiplies what flows through it by its
//!   arity, and pipes and flattens compose those products, so the product of every
//!   multiselect's arity bounds how far an expression can multiply the document. It is refused
//!   past [`MAX_FANOUT`].
//! - Answers: at most [`MAX_RESULTS`] values and [`MAX_OUTPUT`] bytes of JSON, measured
//!   without writing anything past the limit (a JMESPath answer can share one value many times,
//!   and writing it all out is what must not happen).

use jmespath::ast::Ast;
use serde_json::Value;

/// The most node visits a JSONPath query may need (about a second of work).
pub(super) const MAX_WORK: f64 = 1e8;
/// The largest product of JMESPath multiselect arities.
pub(super) const MAX_FANOUT: u64 = 256;
/// The most values an answer lists.
pub(super) const MAX_RESULTS: usize = 100_000;
/// The largest answer, in bytes of JSON.
pub(super) const MAX_OUTPUT: usize = 4 << 20;

/// The values and containers in `v`.
pub(super) fn node_count(v: &Value) -> usize {
    let mut count = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        count += 1;
        match v {
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    count
}

/// How many descendant segments (`..`) a JSONPath query has inside filters, reading past
/// string literals so that `'..'` in a name does not count.
pub(super) fn descendants_in_filters(query: &str) -> u32 {
    let bytes = query.as_bytes();
    let mut quote: Option<u8> = None;
    // One entry per open bracket: whether it opened a filter (`[?` or `,?`).
    let mut brackets: Vec<bool> = Vec::new();
    let mut in_filter = 0usize;
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(q) = quote {
            if c == b'\\' {
                i += 1;
            } else if c == q {
                quote = None;
            }
        } else {
            match c {
                b'\'' | b'"' => quote = Some(c),
                b'[' => {
                    let filter = bytes[i + 1..].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'?');
                    in_filter += usize::from(filter);
                    brackets.push(filter);
                }
                b']' if brackets.pop() == Some(true) => in_filter -= 1,
                b'?' if !brackets.is_empty() && brackets.last() == Some(&false) => {
                    // A filter selector after a comma: `[0, ?@.x]`.
                    if let Some(last) = brackets.last_mut() {
                        *last = true;
                        in_filter += 1;
                    }
                }
                b'.' if in_filter > 0 && bytes.get(i + 1) == Some(&b'.') => {
                    count += 1;
                    i += 1;
                }
                _ => {}
            }
        }
        i += 1;
    }
    count
}

/// The product of the arities of every multiselect in a JMESPath expression, saturating.
pub(super) fn fanout(ast: &Ast) -> u64 {
    let children: Vec<&Ast> = match ast {
        Ast::Comparison { lhs, rhs, .. }
        | Ast::Projection { lhs, rhs, .. }
        | Ast::And { lhs, rhs, .. }
        | Ast::Or { lhs, rhs, .. }
        | Ast::Subexpr { lhs, rhs, .. } => vec![lhs, rhs],
        Ast::Condition { predicate, then, .. } => vec![predicate, then],
        Ast::Expref { ast, .. } => vec![ast],
        Ast::Flatten { node, .. } | Ast::Not { node, .. } | Ast::ObjectValues { node, .. } => vec![node],
        Ast::Function { args, .. } => args.iter().collect(),
        Ast::MultiList { elements, .. } => elements.iter().collect(),
        Ast::MultiHash { elements, .. } => elements.iter().map(|kv| &kv.value).collect(),
        Ast::Identity { .. } | Ast::Field { .. } | Ast::Index { .. } | Ast::Literal { .. } | Ast::Slice { .. } => {
            vec![]
        }
    };
    let own = match ast {
        Ast::MultiList { elements, .. } => elements.len().max(1) as u64,
        Ast::MultiHash { elements, .. } => elements.len().max(1) as u64,
        _ => 1,
    };
    children.into_iter().fold(own, |product, child| product.saturating_mul(fanout(child)))
}

/// The size of `v` written as compact JSON, or `None` once it passes `budget`.
pub(super) fn json_size(v: &Value, budget: usize) -> Option<usize> {
    let mut size = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        size += match v {
            Value::Null => 4,
            Value::Bool(b) => 4 + usize::from(!b),
            Value::Number(n) => n.to_string().len(),
            // Quotes, and escapes counted as their worst case would make this slower than
            // writing; the text's length is close enough for a bound.
            Value::String(s) => s.len() + 2,
            Value::Array(a) => {
                stack.extend(a.iter());
                2 + a.len()
            }
            Value::Object(o) => {
                for (k, v) in o {
                    size += k.len() + 3;
                    stack.push(v);
                }
                2
            }
        };
        if size > budget {
            return None;
        }
    }
    Some(size)
}

/// A JMESPath answer as JSON, refused (`None`) once it passes `budget` bytes, before it is
/// written out in full.
pub(super) fn jmespath_to_json(v: &jmespath::Variable, budget: &mut usize) -> Option<Value> {
    use jmespath::Variable;
    let cost = match v {
        Variable::String(s) => s.len() + 2,
        Variable::Array(a) => 2 + a.len(),
        Variable::Object(o) => 2 + o.keys().map(|k| k.len() + 3).sum::<usize>(),
        _ => 8,
    };
    *budget = budget.checked_sub(cost)?;
    Some(match v {
        Variable::Null | Variable::Expref(_) => Value::Null,
        Variable::String(s) => Value::String(s.clone()),
        Variable::Bool(b) => Value::Bool(*b),
        Variable::Number(n) => Value::Number(n.clone()),
        Variable::Array(a) => Value::Array(a.iter().map(|x| jmespath_to_json(x, budget)).collect::<Option<_>>()?),
        Variable::Object(o) => Value::Object(
            o.iter().map(|(k, x)| Some((k.clone(), jmespath_to_json(x, budget)?))).collect::<Option<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendants_are_counted_inside_filters_only() {
        assert_eq!(descendants_in_filters("$..a"), 0);
        assert_eq!(descendants_in_filters("$..[?@..x]"), 1);
        assert_eq!(descendants_in_filters("$[?@..x && @..y]"), 2);
        assert_eq!(descendants_in_filters("$[?@['..'] == '..']"), 0);
        assert_eq!(descendants_in_filters("$[0, ?@..x]"), 1);
        assert_eq!(descendants_in_filters("$[?@[?@..x]]..y"), 1);
    }

    #[test]
    fn fanout_multiplies_multiselects() {
        let f = |e: &str| fanout(jmespath::compile(e).unwrap().as_ast());
        assert_eq!(f("a.b"), 1);
        assert_eq!(f("people[*].{n: name, a: age}"), 2);
        assert_eq!(f("[@, @] | [][@, @, @]"), 6);
    }
}
