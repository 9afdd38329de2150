//! XPath 1.0 expressions read into a tree (W3C XPath 1.0, sections 2 and 3, with the lexical
//! rules of section 3.7: after a token that can end an operand, `*` multiplies and a name is an
//! operator).
//!
//! Names are resolved while reading: a prefix must be bound by the caller (`xml` always is),
//! a function must be one of the core library's 27 with an arity it takes, and nesting is
//! bounded so that a hostile expression cannot exhaust the stack.

use std::collections::BTreeMap;

/// How deep parentheses, predicates and calls may nest while reading.
const MAX_NESTING: usize = 64;
/// How deep the tree read may be, operators included.
const MAX_DEPTH: usize = 128;
/// The XML namespace, bound to `xml` in every document.
pub(super) const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Axis {
    Ancestor,
    AncestorOrSelf,
    Attribute,
    Child,
    Descendant,
    DescendantOrSelf,
    Following,
    FollowingSibling,
    Namespace,
    Parent,
    Preceding,
    PrecedingSibling,
    /// `self::`.
    Itself,
}

impl Axis {
    fn named(name: &str) -> Option<Axis> {
        Some(match name {
            "ancestor" => Axis::Ancestor,
            "ancestor-or-self" => Axis::AncestorOrSelf,
            "attribute" => Axis::Attribute,
            "child" => Axis::Child,
            "descendant" => Axis::Descendant,
            "descendant-or-self" => Axis::DescendantOrSelf,
            "following" => Axis::Following,
            "following-sibling" => Axis::FollowingSibling,
            "namespace" => Axis::Namespace,
            "parent" => Axis::Parent,
            "preceding" => Axis::Preceding,
            "preceding-sibling" => Axis::PrecedingSibling,
            "self" => Axis::Itself,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum NodeTest {
    /// `*`: any node of the axis's principal type.
    Any,
    /// `p:*`: any node of the principal type in that namespace.
    AnyIn(String),
    /// A name in a namespace (`None` for no namespace, as an unprefixed name means).
    Name(Option<String>, String),
    Text,
    Comment,
    Node,
    /// `processing-instruction()`, with the target it asks for, if any.
    Pi(Option<String>),
}

#[derive(Debug, Clone)]
pub(super) struct Step {
    pub axis: Axis,
    pub test: NodeTest,
    pub predicates: Vec<Expr>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Union,
}

#[derive(Debug, Clone)]
pub(super) enum Expr {
    Binary(Op, Box<Expr>, Box<Expr>),
    Negate(Box<Expr>),
    Literal(String),
    Number(f64),
    Call(&'static str, Vec<Expr>),
    /// A location path: from the root when `absolute`, else from the context node.
    Path {
        absolute: bool,
        steps: Vec<Step>,
    },
    /// A primary expression filtered by predicates, then followed by steps.
    Filter {
        primary: Box<Expr>,
        predicates: Vec<Expr>,
        steps: Vec<Step>,
    },
}

/// The core function library (section 4) and how many arguments each takes.
const FUNCTIONS: &[(&str, usize, usize)] = &[
    ("last", 0, 0),
    ("position", 0, 0),
    ("count", 1, 1),
    ("id", 1, 1),
    ("local-name", 0, 1),
    ("namespace-uri", 0, 1),
    ("name", 0, 1),
    ("string", 0, 1),
    ("concat", 2, usize::MAX),
    ("starts-with", 2, 2),
    ("contains", 2, 2),
    ("substring-before", 2, 2),
    ("substring-after", 2, 2),
    ("substring", 2, 3),
    ("string-length", 0, 1),
    ("normalize-space", 0, 1),
    ("translate", 3, 3),
    ("boolean", 1, 1),
    ("not", 1, 1),
    ("true", 0, 0),
    ("false", 0, 0),
    ("lang", 1, 1),
    ("number", 0, 1),
    ("sum", 1, 1),
    ("floor", 1, 1),
    ("ceiling", 1, 1),
    ("round", 1, 1),
];

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Slash,
    DoubleSlash,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Dot,
    DotDot,
    At,
    Comma,
    ColonColon,
    /// An operator: `|`, `+`, `-`, `=`, `!=`, `<`, `<=`, `>`, `>=`, and `*`, `and`, `or`,
    /// `mod`, `div` where section 3.7 makes them operators.
    Operator(Op),
    Minus,
    /// `*`, `p:*` or a QName as a name test (prefix, local part).
    NameTest(Option<String>, Option<String>),
    NodeType(String),
    Function(Option<String>, String),
    Axis(String),
    Literal(String),
    Number(f64),
    Variable(String),
}

/// A reading error: what is wrong, and at which character (from 1).
#[derive(Debug, PartialEq)]
pub(super) struct SyntaxError {
    pub column: usize,
    pub reason: String,
}

fn err<T>(column: usize, reason: impl Into<String>) -> Result<T, SyntaxError> {
    Err(SyntaxError { column, reason: reason.into() })
}

fn is_name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || (!c.is_ascii() && !c.is_whitespace() && !c.is_control())
}

fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || c == '-' || c == '.' || c == '\u{b7}'
}

/// Splits `text` into tokens, each with the column it starts at.
fn lex(text: &str) -> Result<Vec<(Tok, usize)>, SyntaxError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<(Tok, usize)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            i += 1;
            continue;
        }
        // Section 3.7: after a token that can end an operand, `*` and names are operators.
        let after_operand = out.last().is_some_and(|(t, _)| {
            !matches!(
                t,
                Tok::At
                    | Tok::ColonColon
                    | Tok::LParen
                    | Tok::LBracket
                    | Tok::Comma
                    | Tok::Operator(_)
                    | Tok::Minus
                    | Tok::Slash
                    | Tok::DoubleSlash
            )
        });
        let next = chars.get(i + 1).copied();
        let (tok, len) = match c {
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            '[' => (Tok::LBracket, 1),
            ']' => (Tok::RBracket, 1),
            '@' => (Tok::At, 1),
            ',' => (Tok::Comma, 1),
            '|' => (Tok::Operator(Op::Union), 1),
            '+' => (Tok::Operator(Op::Add), 1),
            '-' => (Tok::Minus, 1),
            '=' => (Tok::Operator(Op::Eq), 1),
            '!' if next == Some('=') => (Tok::Operator(Op::Ne), 2),
            '<' if next == Some('=') => (Tok::Operator(Op::Le), 2),
            '<' => (Tok::Operator(Op::Lt), 1),
            '>' if next == Some('=') => (Tok::Operator(Op::Ge), 2),
            '>' => (Tok::Operator(Op::Gt), 1),
            '/' if next == Some('/') => (Tok::DoubleSlash, 2),
            '/' => (Tok::Slash, 1),
            ':' if next == Some(':') => (Tok::ColonColon, 2),
            '*' if after_operand => (Tok::Operator(Op::Mul), 1),
            '*' => (Tok::NameTest(None, None), 1),
            '.' if next == Some('.') => (Tok::DotDot, 2),
            '.' if !next.is_some_and(|n| n.is_ascii_digit()) => (Tok::Dot, 1),
            '"' | '\'' => {
                let Some(end) = chars[i + 1..].iter().position(|&q| q == c) else {
                    return err(col, "a string literal is not closed");
                };
                (Tok::Literal(chars[i + 1..i + 1 + end].iter().collect()), end + 2)
            }
            d if d.is_ascii_digit() || d == '.' => {
                let mut j = i;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
                if j < chars.len() && chars[j] == '.' {
                    j += 1;
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                }
                let s: String = chars[i..j].iter().collect();
                (Tok::Number(s.parse().unwrap_or(f64::NAN)), j - i)
            }
            '$' => {
                let (name, len) = qname(&chars, i + 1)
                    .ok_or(SyntaxError { column: col, reason: "a variable needs a name after $".into() })?;
                (Tok::Variable(name), len + 1)
            }
            n if is_name_start(n) => {
                let mut j = i;
                while j < chars.len() && is_name_char(chars[j]) {
                    j += 1;
                }
                let first: String = chars[i..j].iter().collect();
                if after_operand {
                    let op = match first.as_str() {
                        "and" => Op::And,
                        "or" => Op::Or,
                        "mod" => Op::Mod,
                        "div" => Op::Div,
                        _ => return err(col, format!("expected an operator, found {first}")),
                    };
                    (Tok::Operator(op), j - i)
                } else {
                    // A prefix: `p:*` or `p:local` (a single colon, not `::`).
                    let (prefix, local, mut end) = if chars.get(j) == Some(&':') && chars.get(j + 1) != Some(&':') {
                        if chars.get(j + 1) == Some(&'*') {
                            (Some(first.clone()), None, j + 2)
                        } else {
                            let mut k = j + 1;
                            if !chars.get(k).is_some_and(|&c| is_name_start(c)) {
                                return err(j + 2, "a name must follow its prefix's colon");
                            }
                            while k < chars.len() && is_name_char(chars[k]) {
                                k += 1;
                            }
                            (Some(first.clone()), Some(chars[j + 1..k].iter().collect::<String>()), k)
                        }
                    } else {
                        (None, Some(first.clone()), j)
                    };
                    let len = end - i;
                    // What follows, past whitespace, decides a name's role.
                    while end < chars.len() && chars[end].is_whitespace() {
                        end += 1;
                    }
                    let follows_paren = chars.get(end) == Some(&'(');
                    let follows_axis = chars.get(end) == Some(&':') && chars.get(end + 1) == Some(&':');
                    match (&prefix, &local) {
                        (None, Some(name)) if follows_axis => (Tok::Axis(name.clone()), len),
                        (None, Some(name))
                            if follows_paren
                                && matches!(name.as_str(), "comment" | "text" | "node" | "processing-instruction") =>
                        {
                            (Tok::NodeType(name.clone()), len)
                        }
                        (_, Some(name)) if follows_paren => (Tok::Function(prefix.clone(), name.clone()), len),
                        _ => (Tok::NameTest(prefix, local), len),
                    }
                }
            }
            other => return err(col, format!("unexpected character {other:?}")),
        };
        out.push((tok, col));
        i += len;
    }
    Ok(out)
}

/// A QName at `chars[i..]`, and how many characters it takes.
fn qname(chars: &[char], i: usize) -> Option<(String, usize)> {
    let mut j = i;
    if !chars.get(j).is_some_and(|&c| is_name_start(c)) {
        return None;
    }
    while j < chars.len() && (is_name_char(chars[j]) || chars[j] == ':') {
        j += 1;
    }
    Some((chars[i..j].iter().collect(), j - i))
}

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    at: usize,
    end_column: usize,
    namespaces: &'a BTreeMap<String, String>,
    depth: usize,
}

/// Reads `text` as an XPath 1.0 expression, with `namespaces` binding its prefixes.
pub(super) fn parse(text: &str, namespaces: &BTreeMap<String, String>) -> Result<Expr, SyntaxError> {
    let toks = lex(text)?;
    let mut p = Parser { toks, at: 0, end_column: text.chars().count() + 1, namespaces, depth: 0 };
    if p.toks.is_empty() {
        return err(1, "the expression is empty");
    }
    let e = p.expr()?;
    if p.at < p.toks.len() {
        return err(p.column(), "unexpected token after the expression");
    }
    if depth(&e) > MAX_DEPTH {
        return err(
            1,
            format!("the expression's tree is deeper than {MAX_DEPTH} levels (long chains of operators count)"),
        );
    }
    Ok(e)
}

/// How deep the tree `e` is, measured without recursion: evaluation recurses along it, and a
/// chain of operators (`1+1+1+...`) is as deep as it is long.
fn depth(e: &Expr) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(e, 1)];
    while let Some((e, d)) = stack.pop() {
        deepest = deepest.max(d);
        let steps: &[Step] = match e {
            Expr::Binary(_, a, b) => {
                stack.extend([(&**a, d + 1), (&**b, d + 1)]);
                &[]
            }
            Expr::Negate(a) => {
                stack.push((&**a, d + 1));
                &[]
            }
            Expr::Call(_, args) => {
                stack.extend(args.iter().map(|a| (a, d + 1)));
                &[]
            }
            Expr::Path { steps, .. } => steps,
            Expr::Filter { primary, predicates, steps } => {
                stack.push((&**primary, d + 1));
                stack.extend(predicates.iter().map(|p| (p, d + 1)));
                steps
            }
            Expr::Literal(_) | Expr::Number(_) => &[],
        };
        stack.extend(steps.iter().flat_map(|s| s.predicates.iter()).map(|p| (p, d + 1)));
    }
    deepest
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|(t, _)| t)
    }

    fn column(&self) -> usize {
        self.toks.get(self.at).map_or(self.end_column, |(_, c)| *c)
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok, what: &str) -> Result<(), SyntaxError> {
        if self.eat(t) { Ok(()) } else { err(self.column(), format!("expected {what}")) }
    }

    fn nest(&mut self) -> Result<(), SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return err(self.column(), format!("the expression nests deeper than {MAX_NESTING} levels"));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, SyntaxError> {
        self.nest()?;
        let e = self.binary(0);
        self.depth -= 1;
        e
    }

    /// Binary operators by precedence, loosest first (section 3: or, and, equality,
    /// relational, additive, multiplicative); each level is left-associative.
    fn binary(&mut self, level: usize) -> Result<Expr, SyntaxError> {
        const LEVELS: &[&[Op]] = &[
            &[Op::Or],
            &[Op::And],
            &[Op::Eq, Op::Ne],
            &[Op::Lt, Op::Le, Op::Gt, Op::Ge],
            &[Op::Add, Op::Sub],
            &[Op::Mul, Op::Div, Op::Mod],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let op = match self.peek() {
                Some(Tok::Operator(op)) if LEVELS[level].contains(op) => *op,
                Some(Tok::Minus) if LEVELS[level].contains(&Op::Sub) => Op::Sub,
                _ => return Ok(left),
            };
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, SyntaxError> {
        if self.eat(&Tok::Minus) {
            self.nest()?;
            let e = self.unary().map(|e| Expr::Negate(Box::new(e)));
            self.depth -= 1;
            return e;
        }
        let mut left = self.path_expr()?;
        while self.eat(&Tok::Operator(Op::Union)) {
            let right = self.path_expr()?;
            left = Expr::Binary(Op::Union, Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn path_expr(&mut self) -> Result<Expr, SyntaxError> {
        match self.peek() {
            Some(Tok::Slash) => {
                self.at += 1;
                // `/` alone selects the root; a step may follow.
                let steps = if self.starts_step() { self.relative_path()? } else { Vec::new() };
                Ok(Expr::Path { absolute: true, steps })
            }
            Some(Tok::DoubleSlash) => {
                self.at += 1;
                let mut steps = vec![descendant_or_self()];
                steps.extend(self.relative_path()?);
                Ok(Expr::Path { absolute: true, steps })
            }
            _ if self.starts_step() => Ok(Expr::Path { absolute: false, steps: self.relative_path()? }),
            _ => {
                let primary = self.primary()?;
                let predicates = self.predicates()?;
                let steps = match self.peek() {
                    Some(Tok::Slash) => {
                        self.at += 1;
                        self.relative_path()?
                    }
                    Some(Tok::DoubleSlash) => {
                        self.at += 1;
                        let mut steps = vec![descendant_or_self()];
                        steps.extend(self.relative_path()?);
                        steps
                    }
                    _ => Vec::new(),
                };
                if predicates.is_empty() && steps.is_empty() {
                    Ok(primary)
                } else {
                    Ok(Expr::Filter { primary: Box::new(primary), predicates, steps })
                }
            }
        }
    }

    fn starts_step(&self) -> bool {
        matches!(
            self.peek(),
            Some(Tok::Dot | Tok::DotDot | Tok::At | Tok::NameTest(..) | Tok::NodeType(_) | Tok::Axis(_))
        )
    }

    fn relative_path(&mut self) -> Result<Vec<Step>, SyntaxError> {
        let mut steps = vec![self.step()?];
        loop {
            if self.eat(&Tok::Slash) {
                steps.push(self.step()?);
            } else if self.eat(&Tok::DoubleSlash) {
                steps.push(descendant_or_self());
                steps.push(self.step()?);
            } else {
                return Ok(steps);
            }
        }
    }

    fn step(&mut self) -> Result<Step, SyntaxError> {
        if self.eat(&Tok::Dot) {
            return Ok(Step { axis: Axis::Itself, test: NodeTest::Node, predicates: Vec::new() });
        }
        if self.eat(&Tok::DotDot) {
            return Ok(Step { axis: Axis::Parent, test: NodeTest::Node, predicates: Vec::new() });
        }
        let axis = match self.peek().cloned() {
            Some(Tok::At) => {
                self.at += 1;
                Axis::Attribute
            }
            Some(Tok::Axis(name)) => {
                let col = self.column();
                self.at += 1;
                self.expect(&Tok::ColonColon, "::")?;
                Axis::named(&name).ok_or(SyntaxError { column: col, reason: format!("no axis is named {name}") })?
            }
            _ => Axis::Child,
        };
        let col = self.column();
        let test = match self.peek().cloned() {
            Some(Tok::NameTest(None, None)) => NodeTest::Any,
            Some(Tok::NameTest(Some(p), None)) => NodeTest::AnyIn(self.resolve(&p, col)?),
            Some(Tok::NameTest(prefix, Some(local))) => {
                let ns = match prefix {
                    Some(p) => Some(self.resolve(&p, col)?),
                    None => None,
                };
                NodeTest::Name(ns, local)
            }
            Some(Tok::NodeType(kind)) => {
                self.at += 1;
                self.expect(&Tok::LParen, "( after the node type")?;
                let test = match kind.as_str() {
                    "processing-instruction" => match self.peek().cloned() {
                        Some(Tok::Literal(target)) => {
                            self.at += 1;
                            NodeTest::Pi(Some(target))
                        }
                        _ => NodeTest::Pi(None),
                    },
                    "comment" => NodeTest::Comment,
                    "text" => NodeTest::Text,
                    _ => NodeTest::Node,
                };
                self.expect(&Tok::RParen, ") after the node type")?;
                let predicates = self.predicates()?;
                return Ok(Step { axis, test, predicates });
            }
            _ => {
                return err(
                    col,
                    "expected a node test (a name, *, or text(), node(), comment(), processing-instruction())",
                );
            }
        };
        self.at += 1;
        let predicates = self.predicates()?;
        Ok(Step { axis, test, predicates })
    }

    fn resolve(&self, prefix: &str, column: usize) -> Result<String, SyntaxError> {
        if prefix == "xml" {
            return Ok(XML_NS.to_owned());
        }
        self.namespaces
            .get(prefix)
            .cloned()
            .ok_or(SyntaxError { column, reason: format!("the prefix {prefix} is not bound; bind it in namespaces") })
    }

    fn predicates(&mut self) -> Result<Vec<Expr>, SyntaxError> {
        let mut out = Vec::new();
        while self.eat(&Tok::LBracket) {
            out.push(self.expr()?);
            self.expect(&Tok::RBracket, "] to close the predicate")?;
        }
        Ok(out)
    }

    fn primary(&mut self) -> Result<Expr, SyntaxError> {
        let col = self.column();
        match self.peek().cloned() {
            Some(Tok::LParen) => {
                self.at += 1;
                let e = self.expr()?;
                self.expect(&Tok::RParen, ")")?;
                Ok(e)
            }
            Some(Tok::Literal(s)) => {
                self.at += 1;
                Ok(Expr::Literal(s))
            }
            Some(Tok::Number(n)) => {
                self.at += 1;
                Ok(Expr::Number(n))
            }
            Some(Tok::Variable(name)) => err(col, format!("${name}: no variables are bound here")),
            Some(Tok::Function(prefix, name)) => {
                self.at += 1;
                let Some(&(fname, min, max)) = FUNCTIONS.iter().find(|(f, ..)| prefix.is_none() && *f == name) else {
                    let shown = prefix.map_or(name.clone(), |p| format!("{p}:{name}"));
                    return err(col, format!("{shown}() is not a function of XPath 1.0's core library"));
                };
                self.expect(&Tok::LParen, "(")?;
                let mut args = Vec::new();
                if !self.eat(&Tok::RParen) {
                    loop {
                        args.push(self.expr()?);
                        if self.eat(&Tok::RParen) {
                            break;
                        }
                        self.expect(&Tok::Comma, ", or ) in the arguments")?;
                    }
                }
                if args.len() < min || args.len() > max {
                    let takes = match (min, max) {
                        (a, b) if a == b => format!("{a}"),
                        (a, usize::MAX) => format!("at least {a}"),
                        (a, b) => format!("{a} to {b}"),
                    };
                    return err(col, format!("{fname}() takes {takes} arguments, not {}", args.len()));
                }
                Ok(Expr::Call(fname, args))
            }
            _ => err(col, "expected an expression"),
        }
    }
}

fn descendant_or_self() -> Step {
    Step { axis: Axis::DescendantOrSelf, test: NodeTest::Node, predicates: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Expr, SyntaxError> {
        let ns = BTreeMap::from([("p".to_owned(), "urn:p".to_owned())]);
        parse(s, &ns)
    }

    #[test]
    fn section_3_7s_disambiguation() {
        // `*` after an operand multiplies; `div` after one divides; elsewhere both are names.
        assert!(matches!(p("2 * 3").unwrap(), Expr::Binary(Op::Mul, ..)));
        assert!(matches!(p("div div div").unwrap(), Expr::Binary(Op::Div, ..)));
        assert!(matches!(p("*").unwrap(), Expr::Path { absolute: false, .. }));
        assert!(matches!(p("a - b").unwrap(), Expr::Binary(Op::Sub, ..)));
        assert!(matches!(p("p:x/@p:*").unwrap(), Expr::Path { .. }));
        assert!(matches!(p("count(//a)").unwrap(), Expr::Call("count", _)));
    }

    #[test]
    fn errors_name_the_column() {
        for (text, column, words) in [
            ("//a[", 5, "expected an expression"),
            ("foo()", 1, "not a function"),
            ("count()", 1, "takes 1 arguments"),
            ("q:a", 1, "prefix q is not bound"),
            ("'open", 1, "not closed"),
            ("$v", 1, "no variables"),
            ("a b", 3, "expected an operator"),
            ("bogus::a", 1, "no axis"),
            ("1 +", 4, "expected an expression"),
            ("a]", 2, "unexpected token"),
        ] {
            let e = p(text).unwrap_err();
            assert_eq!(e.column, column, "{text}: {e:?}");
            assert!(e.reason.contains(words), "{text}: {e:?}");
        }
        let deep = "(".repeat(100) + "1" + &")".repeat(100);
        assert!(p(&deep).unwrap_err().reason.contains("nests deeper"));
        let chain = "1".to_owned() + &"+1".repeat(2000);
        assert!(p(&chain).unwrap_err().reason.contains("deeper than 128"));
        assert!(p(&("1".to_owned() + &"+1".repeat(100))).is_ok());
    }
}
