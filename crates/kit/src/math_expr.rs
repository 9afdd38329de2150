//! A small arithmetic language: parsing and evaluation in one recursive-descent pass.
//!
//! Grammar (usual precedence, `^` binds tighter than unary minus and is right-associative, so
//! `-2^2` is -4 and `2^3^2` is 512, as in mathematics and most calculators):
//!
//! ```text
//! expr    = term { ("+" | "-") term }
//! term    = unary { ("*" | "/" | "%") unary }
//! unary   = ("-" | "+") unary | power
//! power   = primary [ ("^" | "**") unary ]
//! primary = number | constant | name "(" expr { "," expr } ")" | "(" expr ")"
//! ```
//!
//! Work is linear in the input and the input is bounded by the caller; nesting is capped at
//! [`MAX_DEPTH`] so a pathological input cannot exhaust the stack. Every error carries the
//! 1-based character position it was found at.

use std::f64::consts;

/// Deepest nesting of parentheses, calls and unary signs.
pub const MAX_DEPTH: usize = 100;

/// An evaluation error and the character position (1-based) it concerns.
#[derive(Debug, PartialEq)]
pub struct MathError {
    pub message: String,
    pub position: usize,
}

/// How trigonometric functions read and write angles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Angle {
    Radians,
    Degrees,
}

/// The functions, with their arity (`None`: one or more arguments).
pub const FUNCTIONS: &[(&str, Option<usize>, &str)] = &[
    ("sqrt", Some(1), "square root"),
    ("cbrt", Some(1), "cube root"),
    ("abs", Some(1), "absolute value"),
    ("sin", Some(1), "sine"),
    ("cos", Some(1), "cosine"),
    ("tan", Some(1), "tangent"),
    ("asin", Some(1), "arcsine"),
    ("acos", Some(1), "arccosine"),
    ("atan", Some(1), "arctangent"),
    ("atan2", Some(2), "arctangent of y/x with quadrant, atan2(y, x)"),
    ("sinh", Some(1), "hyperbolic sine"),
    ("cosh", Some(1), "hyperbolic cosine"),
    ("tanh", Some(1), "hyperbolic tangent"),
    ("ln", Some(1), "natural logarithm"),
    ("log", None, "base-10 logarithm, or log(x, base)"),
    ("log10", Some(1), "base-10 logarithm"),
    ("log2", Some(1), "base-2 logarithm"),
    ("exp", Some(1), "e to the power x"),
    ("pow", Some(2), "pow(x, y) = x^y"),
    ("min", None, "smallest argument"),
    ("max", None, "largest argument"),
    ("round", None, "round half away from zero, or round(x, digits)"),
    ("floor", Some(1), "round down"),
    ("ceil", Some(1), "round up"),
    ("trunc", Some(1), "round toward zero"),
    ("sign", Some(1), "-1, 0 or 1"),
    ("hypot", Some(2), "sqrt(x^2 + y^2)"),
];

/// The constants.
pub const CONSTANTS: &[(&str, f64)] = &[("pi", consts::PI), ("e", consts::E), ("tau", consts::TAU)];

/// Evaluates `text`.
pub fn evaluate(text: &str, angle: Angle) -> Result<f64, MathError> {
    let mut p = Parser { chars: text.chars().collect(), pos: 0, depth: 0, angle };
    let v = p.expr()?;
    p.skip_space();
    if p.pos < p.chars.len() {
        return Err(p.error_at(p.pos, format!("unexpected {:?}; expected an operator or the end", p.chars[p.pos])));
    }
    if v.is_infinite() {
        return Err(MathError { message: "the result is too large for a 64-bit float".into(), position: 1 });
    }
    Ok(v)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
    angle: Angle,
}

impl Parser {
    fn error_at(&self, pos: usize, message: impl Into<String>) -> MathError {
        MathError { message: message.into(), position: pos + 1 }
    }

    fn skip_space(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.chars.get(self.pos).copied()
    }

    fn nest(&mut self) -> Result<(), MathError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error_at(self.pos, format!("nested deeper than {MAX_DEPTH} levels")));
        }
        Ok(())
    }

    fn expr(&mut self) -> Result<f64, MathError> {
        let mut v = self.term()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.pos += 1;
            let r = self.term()?;
            v = if op == '+' { v + r } else { v - r };
        }
        Ok(v)
    }

    fn term(&mut self) -> Result<f64, MathError> {
        let mut v = self.unary()?;
        loop {
            let op = match self.peek() {
                Some('*') if self.chars.get(self.pos + 1) != Some(&'*') => '*',
                Some(op @ ('/' | '%')) => op,
                _ => return Ok(v),
            };
            let at = self.pos;
            self.pos += 1;
            let r = self.unary()?;
            v = match op {
                '*' => v * r,
                _ if r == 0.0 => {
                    let what = if op == '/' { "division" } else { "modulo" };
                    return Err(self.error_at(at, format!("{what} by zero")));
                }
                '/' => v / r,
                _ => v % r,
            };
        }
    }

    fn unary(&mut self) -> Result<f64, MathError> {
        match self.peek() {
            Some(sign @ ('-' | '+')) => {
                self.pos += 1;
                self.nest()?;
                let v = self.unary()?;
                self.depth -= 1;
                Ok(if sign == '-' { -v } else { v })
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<f64, MathError> {
        let base = self.primary()?;
        self.skip_space();
        let at = self.pos;
        let op_len = match (self.peek(), self.chars.get(self.pos + 1)) {
            (Some('^'), _) => 1,
            (Some('*'), Some('*')) => 2,
            _ => return Ok(base),
        };
        self.pos += op_len;
        self.nest()?;
        let exp = self.unary()?;
        self.depth -= 1;
        power(base, exp).map_err(|m| self.error_at(at, m))
    }

    fn primary(&mut self) -> Result<f64, MathError> {
        let start = {
            self.skip_space();
            self.pos
        };
        match self.peek() {
            None => Err(self.error_at(start, "the expression ends where a number was expected")),
            Some('(') => {
                self.pos += 1;
                self.nest()?;
                let v = self.expr()?;
                self.depth -= 1;
                self.expect(')', start)?;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() => {
                while self.chars.get(self.pos).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
                    self.pos += 1;
                }
                let name: String = self.chars[start..self.pos].iter().collect::<String>().to_lowercase();
                if self.peek() == Some('(') {
                    self.call(&name, start)
                } else if let Some((_, v)) = CONSTANTS.iter().find(|(n, _)| *n == name) {
                    Ok(*v)
                } else if FUNCTIONS.iter().any(|(n, _, _)| *n == name) {
                    Err(self.error_at(self.pos, format!("{name} is a function: write {name}(...)")))
                } else {
                    Err(self.error_at(start, format!("unknown name {name:?}; constants are pi, e and tau")))
                }
            }
            Some(c) => Err(self.error_at(self.pos, format!("unexpected {c:?}; expected a number, a name or '('"))),
        }
    }

    fn expect(&mut self, want: char, opened_at: usize) -> Result<(), MathError> {
        if self.peek() == Some(want) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error_at(self.pos, format!("expected {want:?} to close the '(' at position {}", opened_at + 1)))
        }
    }

    fn number(&mut self) -> Result<f64, MathError> {
        let start = self.pos;
        let digits = |p: &mut Parser| {
            while p.chars.get(p.pos).is_some_and(char::is_ascii_digit) {
                p.pos += 1;
            }
        };
        digits(self);
        if self.chars.get(self.pos) == Some(&'.') {
            self.pos += 1;
            digits(self);
        }
        if matches!(self.chars.get(self.pos), Some('e' | 'E'))
            && (self.chars.get(self.pos + 1).is_some_and(char::is_ascii_digit)
                || matches!(self.chars.get(self.pos + 1), Some('+' | '-'))
                    && self.chars.get(self.pos + 2).is_some_and(char::is_ascii_digit))
        {
            self.pos += 2;
            digits(self);
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        text.parse::<f64>().map_err(|_| self.error_at(start, format!("{text:?} is not a number")))
    }

    fn call(&mut self, name: &str, start: usize) -> Result<f64, MathError> {
        let Some((_, arity, _)) = FUNCTIONS.iter().find(|(n, _, _)| *n == name) else {
            let known: Vec<&str> = FUNCTIONS.iter().map(|(n, _, _)| *n).collect();
            return Err(self.error_at(start, format!("unknown function {name:?}; known: {}", known.join(", "))));
        };
        let open = self.pos;
        self.pos += 1;
        self.nest()?;
        let mut args = vec![self.expr()?];
        while self.peek() == Some(',') {
            self.pos += 1;
            args.push(self.expr()?);
        }
        self.depth -= 1;
        self.expect(')', open)?;
        match arity {
            Some(n) if args.len() != *n => {
                return Err(self.error_at(
                    start,
                    format!("{name} takes {n} argument{}, got {}", if *n == 1 { "" } else { "s" }, args.len()),
                ));
            }
            None if matches!(name, "log" | "round") && args.len() > 2 => {
                return Err(self.error_at(start, format!("{name} takes 1 or 2 arguments, got {}", args.len())));
            }
            _ => {}
        }
        apply(name, &args, self.angle).map_err(|m| self.error_at(start, m))
    }
}

fn power(base: f64, exp: f64) -> Result<f64, String> {
    if base == 0.0 && exp < 0.0 {
        return Err("division by zero (0 to a negative power)".into());
    }
    if base < 0.0 && exp.fract() != 0.0 {
        return Err(format!("domain error: a negative number to a fractional power ({base}^{exp}) is not real"));
    }
    Ok(base.powf(exp))
}

fn apply(name: &str, args: &[f64], angle: Angle) -> Result<f64, String> {
    let x = args[0];
    let to_rad = |v: f64| if angle == Angle::Degrees { v.to_radians() } else { v };
    let from_rad = |v: f64| if angle == Angle::Degrees { v.to_degrees() } else { v };
    let domain = |ok: bool, what: &str| {
        if ok { Ok(()) } else { Err(format!("domain error: {name} is defined {what} (got {x})")) }
    };
    Ok(match name {
        "sqrt" => {
            domain(x >= 0.0, "for numbers >= 0")?;
            x.sqrt()
        }
        "cbrt" => x.cbrt(),
        "abs" => x.abs(),
        "sin" => exact_trig(to_rad(x).sin()),
        "cos" => exact_trig(to_rad(x).cos()),
        "tan" => {
            let r = to_rad(x);
            // In degrees, odd multiples of 90 are exact poles; in radians pi/2 is not exactly
            // representable, so tan(pi/2) is a very large finite number, as everywhere else.
            if angle == Angle::Degrees && (x / 90.0).fract() == 0.0 && (x / 90.0) % 2.0 != 0.0 {
                return Err(format!("domain error: tan is undefined at {x} degrees"));
            }
            exact_trig(r.tan())
        }
        "asin" => {
            domain((-1.0..=1.0).contains(&x), "for -1 to 1")?;
            from_rad(x.asin())
        }
        "acos" => {
            domain((-1.0..=1.0).contains(&x), "for -1 to 1")?;
            from_rad(x.acos())
        }
        "atan" => from_rad(x.atan()),
        "atan2" => from_rad(x.atan2(args[1])),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "tanh" => x.tanh(),
        "ln" => {
            domain(x > 0.0, "for numbers > 0")?;
            x.ln()
        }
        "log10" | "log" if args.len() == 1 => {
            domain(x > 0.0, "for numbers > 0")?;
            x.log10()
        }
        "log" => {
            let b = args[1];
            domain(x > 0.0, "for numbers > 0")?;
            if b <= 0.0 || b == 1.0 {
                return Err(format!("domain error: a logarithm base must be > 0 and not 1 (got {b})"));
            }
            x.ln() / b.ln()
        }
        "log2" => {
            domain(x > 0.0, "for numbers > 0")?;
            x.log2()
        }
        "exp" => x.exp(),
        "pow" => power(x, args[1])?,
        "min" => args.iter().copied().fold(f64::INFINITY, f64::min),
        "max" => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        "round" if args.len() == 1 => x.round(),
        "round" => {
            let d = args[1];
            if d.fract() != 0.0 || !(0.0..=15.0).contains(&d) {
                return Err(format!("round's digits must be a whole number from 0 to 15 (got {d})"));
            }
            let f = 10f64.powi(d as i32);
            (x * f).round() / f
        }
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "trunc" => x.trunc(),
        "sign" => {
            if x == 0.0 {
                0.0
            } else {
                x.signum()
            }
        }
        "hypot" => x.hypot(args[1]),
        _ => return Err(format!("unknown function {name:?}")),
    })
}

/// Snaps results within 1e-15 of zero to zero, so sin(pi) reads 0 rather than 1.2e-16.
fn exact_trig(v: f64) -> f64 {
    if v.abs() < 1e-15 { 0.0 } else { v }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(s: &str) -> f64 {
        evaluate(s, Angle::Radians).unwrap_or_else(|e| panic!("{s}: {e:?}"))
    }

    #[test]
    fn precedence_and_associativity() {
        let cases: &[(&str, f64)] = &[
            ("1 + 2 * 3", 7.0),
            ("(1 + 2) * 3", 9.0),
            ("10 - 4 - 3", 3.0),
            ("100 / 10 / 5", 2.0),
            ("2 ^ 3 ^ 2", 512.0),
            ("2 ** 3 ** 2", 512.0),
            ("-2 ^ 2", -4.0),
            ("(-2) ^ 2", 4.0),
            ("2 ^ -1", 0.5),
            ("--3", 3.0),
            ("-+-3", 3.0),
            ("7 % 3", 1.0),
            ("-7 % 3", -1.0),
            ("2 * -3", -6.0),
            ("1.5e3 + .5", 1500.5),
            ("1E-2", 0.01),
            ("0.1 + 0.2", 0.1 + 0.2),
            ("  3  ", 3.0),
        ];
        for (s, want) in cases {
            assert_eq!(eval(s), *want, "{s}");
        }
    }

    #[test]
    fn functions_and_constants() {
        let cases: &[(&str, f64)] = &[
            ("sqrt(16)", 4.0),
            ("SQRT(2)", 2f64.sqrt()),
            ("sin(pi)", 0.0),
            ("cos(0)", 1.0),
            ("tan(pi/4)", (consts::PI / 4.0).tan()),
            ("ln(e)", 1.0),
            ("log(1000)", 3.0),
            ("log(8, 2)", 3.0),
            ("log2(1024)", 10.0),
            ("abs(-3.5)", 3.5),
            ("min(3, 1, 2)", 1.0),
            ("max(3, 1, 2)", 3.0),
            ("round(2.5)", 3.0),
            ("round(-2.5)", -3.0),
            ("round(2.71828, 2)", 2.72),
            ("floor(-1.5) + ceil(1.2)", 0.0),
            ("atan2(1, 1) * 4", consts::PI),
            ("hypot(3, 4)", 5.0),
            ("pow(2, 10)", 1024.0),
            ("exp(0) + tau - 2*pi", 1.0),
        ];
        for (s, want) in cases {
            assert!((eval(s) - want).abs() < 1e-12, "{s}: {} vs {want}", eval(s));
        }
        assert_eq!(evaluate("sin(30)", Angle::Degrees).unwrap(), 0.49999999999999994);
        assert_eq!(evaluate("asin(1)", Angle::Degrees).unwrap(), 90.0);
    }

    #[test]
    fn errors_are_specific_and_positioned() {
        let cases: &[(&str, &str, usize)] = &[
            ("1 / 0", "division by zero", 3),
            ("5 % (2 - 2)", "modulo by zero", 3),
            ("0 ^ -1", "division by zero", 3),
            ("sqrt(-1)", "domain error: sqrt", 1),
            ("ln(0)", "domain error: ln", 1),
            ("log(8, 1)", "base must be", 1),
            ("asin(2)", "domain error: asin", 1),
            ("(-8) ^ (1/3)", "fractional power", 6),
            ("foo(1)", "unknown function \"foo\"", 1),
            ("x + 1", "unknown name \"x\"", 1),
            ("sqrt", "sqrt is a function", 5),
            ("sqrt(1, 2)", "sqrt takes 1 argument, got 2", 1),
            ("(1 + 2", "expected ')' to close the '(' at position 1", 7),
            ("1 +", "ends where a number was expected", 4),
            ("2 3", "unexpected '3'", 3),
            ("1 $ 2", "unexpected '$'", 3),
            ("10 ^ 400", "too large", 1),
        ];
        for (s, want, pos) in cases {
            let e = evaluate(s, Angle::Radians).expect_err(s);
            assert!(e.message.contains(want), "{s}: {}", e.message);
            assert_eq!(e.position, *pos, "{s}: {}", e.message);
        }
        assert!(evaluate("tan(90)", Angle::Degrees).unwrap_err().message.contains("undefined"));
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "(".repeat(5_000) + "1" + &")".repeat(5_000);
        assert!(evaluate(&deep, Angle::Radians).unwrap_err().message.contains("nested deeper"));
        let signs = "-".repeat(5_000) + "1";
        assert!(evaluate(&signs, Angle::Radians).unwrap_err().message.contains("nested deeper"));
        let ok = "(".repeat(50) + "1" + &")".repeat(50);
        assert_eq!(eval(&ok), 1.0);
    }
}
