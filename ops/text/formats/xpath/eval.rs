//! XPath 1.0 evaluated over the nodes of `model.rs`: the axes of section 2.2, node tests,
//! predicates, paths and unions, and the operators of section 3, comparisons (3.4) existential
//! over node-sets.
//!
//! Every node an axis visits and every character a string function builds is charged to a
//! budget of work, so that a hostile expression (`//*[//*[//*]]` over a large document) is
//! refused once it has cost about a second, instead of holding a worker.

use roxmltree::Document;

use super::functions;
use super::model::{Context, Fault, Value, Work, XNode, expanded_name, namespaces};
use super::syntax::{Axis, Expr, NodeTest, Op, Step};

pub(super) struct Evaluator<'a, 'i> {
    pub doc: &'a Document<'i>,
    pub work: Work,
}

fn sort_nodes(nodes: &mut Vec<XNode>) {
    nodes.sort_by_key(|n| n.order());
    nodes.dedup_by_key(|n| n.order());
}

impl<'a, 'i> Evaluator<'a, 'i> {
    pub fn eval(&mut self, e: &Expr, ctx: Context<'a, 'i>) -> Result<Value<'a, 'i>, Fault> {
        self.work.charge(1)?;
        Ok(match e {
            Expr::Literal(s) => Value::Str(s.clone()),
            Expr::Number(n) => Value::Number(*n),
            Expr::Negate(e) => Value::Number(-self.number(e, ctx)?),
            Expr::Call(name, args) => {
                let values = args.iter().map(|a| self.eval(a, ctx)).collect::<Result<Vec<_>, _>>()?;
                functions::call(name, values, ctx, &mut self.work)?
            }
            Expr::Path { absolute, steps } => {
                let start = if *absolute { XNode::Node(self.doc.root()) } else { ctx.node };
                Value::Nodes(self.steps(vec![start], steps)?)
            }
            Expr::Filter { primary, predicates, steps } => {
                let Value::Nodes(mut nodes) = self.eval(primary, ctx)? else {
                    return Err(Fault::Refused("a predicate or a path can only follow a node-set".into()));
                };
                for p in predicates {
                    nodes = self.filter(nodes, p)?;
                }
                Value::Nodes(self.steps(nodes, steps)?)
            }
            Expr::Binary(op, a, b) => self.binary(*op, a, b, ctx)?,
        })
    }

    pub fn number(&mut self, e: &Expr, ctx: Context<'a, 'i>) -> Result<f64, Fault> {
        let v = self.eval(e, ctx)?;
        functions::to_number(&v, &mut self.work)
    }

    pub fn boolean(&mut self, e: &Expr, ctx: Context<'a, 'i>) -> Result<bool, Fault> {
        Ok(functions::to_boolean(&self.eval(e, ctx)?))
    }

    fn binary(&mut self, op: Op, a: &Expr, b: &Expr, ctx: Context<'a, 'i>) -> Result<Value<'a, 'i>, Fault> {
        Ok(match op {
            Op::Or => Value::Bool(self.boolean(a, ctx)? || self.boolean(b, ctx)?),
            Op::And => Value::Bool(self.boolean(a, ctx)? && self.boolean(b, ctx)?),
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Mod => {
                let (x, y) = (self.number(a, ctx)?, self.number(b, ctx)?);
                Value::Number(match op {
                    Op::Add => x + y,
                    Op::Sub => x - y,
                    Op::Mul => x * y,
                    Op::Div => x / y,
                    // Section 3.5: the remainder of truncating division, as Rust's `%` on floats.
                    _ => x % y,
                })
            }
            Op::Union => {
                let (Value::Nodes(mut x), Value::Nodes(y)) = (self.eval(a, ctx)?, self.eval(b, ctx)?) else {
                    return Err(Fault::Refused("| joins node-sets only".into()));
                };
                self.work.charge((x.len() + y.len()) as u64)?;
                x.extend(y);
                sort_nodes(&mut x);
                Value::Nodes(x)
            }
            _ => {
                let (x, y) = (self.eval(a, ctx)?, self.eval(b, ctx)?);
                Value::Bool(self.compare(op, &x, &y)?)
            }
        })
    }

    /// Section 3.4: comparisons, existential over node-sets.
    fn compare(&mut self, op: Op, x: &Value<'a, 'i>, y: &Value<'a, 'i>) -> Result<bool, Fault> {
        match (x, y) {
            (Value::Nodes(a), Value::Nodes(b)) => {
                let bs: Vec<String> = b.iter().map(|n| n.string_value(&mut self.work)).collect::<Result<_, _>>()?;
                for n in a {
                    let s = n.string_value(&mut self.work)?;
                    for t in &bs {
                        self.work.charge(1)?;
                        if self.atomic(op, &Value::Str(s.clone()), &Value::Str(t.clone()))? {
                            return Ok(true);
                        }
                    }
                }
                Ok(false)
            }
            (Value::Nodes(a), other) | (other, Value::Nodes(a)) => {
                let nodes_first = matches!(x, Value::Nodes(_));
                if let Value::Bool(_) = other {
                    let b = Value::Bool(!a.is_empty());
                    return if nodes_first { self.atomic(op, &b, other) } else { self.atomic(op, other, &b) };
                }
                for n in a {
                    let s = n.string_value(&mut self.work)?;
                    let v = match other {
                        Value::Number(_) => Value::Number(functions::string_to_number(&s)),
                        _ => Value::Str(s),
                    };
                    let hit = if nodes_first { self.atomic(op, &v, other)? } else { self.atomic(op, other, &v)? };
                    if hit {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            _ => self.atomic(op, x, y),
        }
    }

    /// A comparison of two values neither of which is a node-set.
    fn atomic(&mut self, op: Op, x: &Value<'a, 'i>, y: &Value<'a, 'i>) -> Result<bool, Fault> {
        if matches!(op, Op::Eq | Op::Ne) {
            let equal = match (x, y) {
                (Value::Bool(_), _) | (_, Value::Bool(_)) => functions::to_boolean(x) == functions::to_boolean(y),
                (Value::Number(_), _) | (_, Value::Number(_)) => {
                    functions::to_number(x, &mut self.work)? == functions::to_number(y, &mut self.work)?
                }
                _ => functions::to_string(x, &mut self.work)? == functions::to_string(y, &mut self.work)?,
            };
            return Ok(equal == (op == Op::Eq));
        }
        let (a, b) = (functions::to_number(x, &mut self.work)?, functions::to_number(y, &mut self.work)?);
        Ok(match op {
            Op::Lt => a < b,
            Op::Le => a <= b,
            Op::Gt => a > b,
            _ => a >= b,
        })
    }

    /// Applies `steps` to every node of `start`, each step's results merged in document order.
    fn steps(&mut self, mut nodes: Vec<XNode<'a, 'i>>, steps: &[Step]) -> Result<Vec<XNode<'a, 'i>>, Fault> {
        for step in steps {
            let mut next = Vec::new();
            for n in &nodes {
                let mut found = self.axis(*n, step)?;
                for p in &step.predicates {
                    found = self.filter(found, p)?;
                }
                next.extend(found);
            }
            self.work.charge(next.len() as u64)?;
            sort_nodes(&mut next);
            nodes = next;
        }
        Ok(nodes)
    }

    /// Keeps the nodes for which `predicate` holds, with positions counted in the given order.
    fn filter(&mut self, nodes: Vec<XNode<'a, 'i>>, predicate: &Expr) -> Result<Vec<XNode<'a, 'i>>, Fault> {
        let size = nodes.len();
        let mut kept = Vec::new();
        for (i, n) in nodes.into_iter().enumerate() {
            let ctx = Context { node: n, position: i + 1, size };
            let keep = match self.eval(predicate, ctx)? {
                Value::Number(x) => x == (i + 1) as f64,
                v => functions::to_boolean(&v),
            };
            if keep {
                kept.push(n);
            }
        }
        Ok(kept)
    }

    /// The nodes of `step`'s axis from `n` that pass its node test, in the axis's order.
    fn axis(&mut self, n: XNode<'a, 'i>, step: &Step) -> Result<Vec<XNode<'a, 'i>>, Fault> {
        let mut out = Vec::new();
        let test = &step.test;
        let mut visit = |x: XNode<'a, 'i>, work: &mut Work| -> Result<(), Fault> {
            work.charge(1)?;
            if matches_test(x, test, step.axis) {
                out.push(x);
            }
            Ok(())
        };
        let work = &mut self.work;
        let own = match n {
            XNode::Node(e) => Some(e),
            _ => None,
        };
        match step.axis {
            Axis::Itself => visit(n, work)?,
            Axis::Child => {
                for c in own.into_iter().flat_map(|e| e.children()) {
                    visit(XNode::Node(c), work)?;
                }
            }
            Axis::Descendant | Axis::DescendantOrSelf => {
                if step.axis == Axis::DescendantOrSelf {
                    visit(n, work)?;
                }
                for d in own.into_iter().flat_map(|e| e.descendants().skip(1)) {
                    visit(XNode::Node(d), work)?;
                }
            }
            Axis::Parent => match n {
                XNode::Node(e) => {
                    if let Some(p) = e.parent() {
                        visit(XNode::Node(p), work)?;
                    }
                }
                _ => visit(XNode::Node(n.element()), work)?,
            },
            Axis::Ancestor | Axis::AncestorOrSelf => {
                if step.axis == Axis::AncestorOrSelf {
                    visit(n, work)?;
                }
                let first = match n {
                    XNode::Node(e) => e.parent(),
                    _ => Some(n.element()),
                };
                for a in first.into_iter().flat_map(|p| p.ancestors()) {
                    visit(XNode::Node(a), work)?;
                }
            }
            Axis::FollowingSibling => {
                for s in own.into_iter().flat_map(|e| e.next_siblings().skip(1)) {
                    visit(XNode::Node(s), work)?;
                }
            }
            Axis::PrecedingSibling => {
                for s in own.into_iter().flat_map(|e| e.prev_siblings().skip(1)) {
                    visit(XNode::Node(s), work)?;
                }
            }
            Axis::Following => {
                // Everything after the node that is not inside it: for an attribute or a
                // namespace, that includes its element's descendants.
                let mut cur = match n {
                    XNode::Node(e) => e,
                    _ => {
                        let e = n.element();
                        for d in e.descendants().skip(1) {
                            visit(XNode::Node(d), work)?;
                        }
                        e
                    }
                };
                loop {
                    for s in cur.next_siblings().skip(1) {
                        for d in s.descendants() {
                            visit(XNode::Node(d), work)?;
                        }
                    }
                    match cur.parent() {
                        Some(p) => cur = p,
                        None => break,
                    }
                }
            }
            Axis::Preceding => {
                // Everything before the node that is not an ancestor, nearest first.
                let e = n.element();
                let ancestors: Vec<usize> = e.ancestors().map(|a| a.id().get_usize()).collect();
                let mut before = Vec::new();
                for d in self.doc.root().descendants() {
                    work.charge(1)?;
                    if d.id().get_usize() >= e.id().get_usize() {
                        break;
                    }
                    if !ancestors.contains(&d.id().get_usize()) {
                        before.push(d);
                    }
                }
                for d in before.into_iter().rev() {
                    visit(XNode::Node(d), work)?;
                }
            }
            Axis::Attribute => {
                if let Some(e) = own.filter(|e| e.is_element()) {
                    for i in 0..e.attributes().len() {
                        visit(XNode::Attr(e, i), work)?;
                    }
                }
            }
            Axis::Namespace => {
                if let Some(e) = own.filter(|e| e.is_element()) {
                    for i in 0..namespaces(e) {
                        visit(XNode::Ns(e, i), work)?;
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Whether `x` passes `test` on `axis` (section 2.3): `*` and names match the axis's principal
/// node type (attributes on the attribute axis, namespaces on the namespace axis, elements
/// elsewhere).
fn matches_test(x: XNode, test: &NodeTest, axis: Axis) -> bool {
    let principal = match (axis, x) {
        (Axis::Attribute, XNode::Attr(..)) | (Axis::Namespace, XNode::Ns(..)) => true,
        (Axis::Attribute | Axis::Namespace, _) => false,
        (_, XNode::Node(n)) => n.is_element(),
        _ => false,
    };
    match test {
        NodeTest::Node => true,
        NodeTest::Text => matches!(x, XNode::Node(n) if n.is_text()),
        NodeTest::Comment => matches!(x, XNode::Node(n) if n.is_comment()),
        NodeTest::Pi(target) => match x {
            XNode::Node(n) if n.is_pi() => target.as_deref().is_none_or(|t| n.pi().is_some_and(|p| p.target == t)),
            _ => false,
        },
        NodeTest::Any => principal,
        NodeTest::AnyIn(uri) => principal && expanded_name(x).0.as_deref() == Some(uri.as_str()),
        NodeTest::Name(uri, local) => {
            // A namespace node's name is its prefix, in no namespace.
            principal && {
                let (ns, name) = expanded_name(x);
                ns.as_deref() == uri.as_deref() && name == *local
            }
        }
    }
}
