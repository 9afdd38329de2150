//! CBOR (RFC 8949) read into a tree that keeps what JSON cannot (byte strings, tags, simple
//! values, float widths, indefinite lengths), written back in preferred serialization, shown in
//! diagnostic notation (section 8) and converted to JSON (section 6.1).

use base64::Engine;
use serde_json::Value;

/// How deep items may nest.
pub(super) const MAX_DEPTH: usize = 128;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Item {
    Unsigned(u64),
    /// Major type 1: the value is -1 - n.
    Negative(u64),
    /// Byte strings; more than one chunk when the length was indefinite.
    Bytes(Vec<Vec<u8>>, bool),
    Text(Vec<String>, bool),
    Array(Vec<Item>, bool),
    Map(Vec<(Item, Item)>, bool),
    Tag(u64, Box<Item>),
    Simple(u8),
    /// The value, and the width it was written in (16, 32 or 64 bits).
    Float(f64, u8),
}

/// Where reading stopped and why.
pub(super) struct ReadError {
    pub offset: usize,
    pub reason: String,
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let frac = f64::from(h & 0x3ff);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(i32::from(e) - 15),
    }
}

/// `v` as half precision when that loses nothing.
fn f64_to_f16(v: f64) -> Option<u16> {
    if v.is_nan() {
        return Some(0x7e00);
    }
    let f = v as f32;
    if f64::from(f) != v {
        return None;
    }
    let bits = f.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return Some(sign | 0x7c00);
    }
    if exp == 0 && mant == 0 {
        return Some(sign);
    }
    let e = exp - 127;
    if (-14..=15).contains(&e) && mant & 0x1fff == 0 {
        return Some(sign | (((e + 15) as u16) << 10) | (mant >> 13) as u16);
    }
    if (-24..-14).contains(&e) {
        let full = (1u32 << 23) | mant;
        let shift = (-e - 1) as u32;
        if full & ((1 << shift) - 1) == 0 {
            return Some(sign | (full >> shift) as u16);
        }
    }
    None
}

impl Reader<'_> {
    fn fail<T>(&self, reason: impl Into<String>) -> Result<T, ReadError> {
        Err(ReadError { offset: self.at, reason: reason.into() })
    }

    fn take(&mut self, n: u64) -> Result<&[u8], ReadError> {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if self.bytes.len() - self.at < n {
            return self.fail(format!("needs {n} more bytes, {} are left", self.bytes.len() - self.at));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    /// The argument of a head whose additional information is `info`; `None` for indefinite.
    fn argument(&mut self, info: u8) -> Result<Option<u64>, ReadError> {
        let be = |b: &[u8]| b.iter().fold(0u64, |n, &x| n << 8 | u64::from(x));
        Ok(Some(match info {
            0..=23 => u64::from(info),
            24 => be(self.take(1)?),
            25 => be(self.take(2)?),
            26 => be(self.take(4)?),
            27 => be(self.take(8)?),
            31 => return Ok(None),
            _ => return self.fail(format!("additional information {info} is reserved")),
        }))
    }

    fn at_break(&self) -> bool {
        self.bytes.get(self.at) == Some(&0xff)
    }

    fn item(&mut self, depth: usize) -> Result<Item, ReadError> {
        if depth > MAX_DEPTH {
            return self.fail(format!("items nest deeper than {MAX_DEPTH}"));
        }
        let start = self.at;
        let head = *self.take(1)?.first().expect("one byte");
        let (major, info) = (head >> 5, head & 0x1f);
        if major == 7 {
            return Ok(match info {
                0..=23 => Item::Simple(info),
                24 => {
                    let v = self.take(1)?[0];
                    if v < 32 {
                        self.at = start;
                        return self.fail("a simple value below 32 must use the one-byte form");
                    }
                    Item::Simple(v)
                }
                25 => Item::Float(f16_to_f64(u16::from_be_bytes(self.take(2)?.try_into().expect("2"))), 16),
                26 => Item::Float(f64::from(f32::from_be_bytes(self.take(4)?.try_into().expect("4"))), 32),
                27 => Item::Float(f64::from_be_bytes(self.take(8)?.try_into().expect("8")), 64),
                31 => {
                    self.at = start;
                    return self.fail("a break stop code outside an indefinite-length item");
                }
                _ => return self.fail(format!("additional information {info} is reserved")),
            });
        }
        let arg = self.argument(info)?;
        match (major, arg) {
            (0, Some(n)) => Ok(Item::Unsigned(n)),
            (1, Some(n)) => Ok(Item::Negative(n)),
            (2, Some(n)) => Ok(Item::Bytes(vec![self.take(n)?.to_vec()], false)),
            (3, Some(n)) => {
                let raw = self.take(n)?;
                let text = std::str::from_utf8(raw).map_err(|e| ReadError {
                    offset: start,
                    reason: format!("a text string that is not UTF-8 ({e})"),
                })?;
                Ok(Item::Text(vec![text.to_string()], false))
            }
            (2 | 3, None) => {
                let mut chunks = Vec::new();
                while !self.at_break() {
                    match self.item(depth + 1)? {
                        Item::Bytes(mut c, false) if major == 2 => chunks.push(c.remove(0)),
                        Item::Text(mut c, false) if major == 3 => chunks.push(Vec::from(c.remove(0))),
                        _ => {
                            return self
                                .fail("a chunk of an indefinite-length string is not a definite string of its type");
                        }
                    }
                }
                self.at += 1;
                Ok(if major == 2 {
                    Item::Bytes(chunks, true)
                } else {
                    Item::Text(chunks.into_iter().map(|c| String::from_utf8(c).expect("checked")).collect(), true)
                })
            }
            (4, Some(n)) => {
                let mut items = Vec::new();
                for _ in 0..n {
                    items.push(self.item(depth + 1)?);
                }
                Ok(Item::Array(items, false))
            }
            (4, None) => {
                let mut items = Vec::new();
                while !self.at_break() {
                    items.push(self.item(depth + 1)?);
                }
                self.at += 1;
                Ok(Item::Array(items, true))
            }
            (5, Some(n)) => {
                let mut pairs = Vec::new();
                for _ in 0..n {
                    pairs.push((self.item(depth + 1)?, self.item(depth + 1)?));
                }
                Ok(Item::Map(pairs, false))
            }
            (5, None) => {
                let mut pairs = Vec::new();
                while !self.at_break() {
                    pairs.push((self.item(depth + 1)?, self.item(depth + 1)?));
                }
                self.at += 1;
                Ok(Item::Map(pairs, true))
            }
            (6, Some(tag)) => Ok(Item::Tag(tag, Box::new(self.item(depth + 1)?))),
            _ => {
                self.at = start;
                self.fail(format!("major type {major} cannot have an indefinite length"))
            }
        }
    }
}

/// Reads every item of `bytes` (a CBOR sequence, RFC 8742, when there are several).
pub(super) fn read_all(bytes: &[u8]) -> Result<Vec<Item>, ReadError> {
    let mut r = Reader { bytes, at: 0 };
    let mut items = Vec::new();
    while r.at < bytes.len() {
        items.push(r.item(0)?);
    }
    if items.is_empty() {
        return r.fail("there is no item");
    }
    Ok(items)
}

/// Diagnostic notation (RFC 8949 section 8).
pub(super) fn diagnostic(item: &Item) -> String {
    let list = |items: Vec<String>, open: &str, close: &str, indefinite: bool| {
        format!("{open}{}{}{close}", if indefinite { "_ " } else { "" }, items.join(", "))
    };
    match item {
        Item::Unsigned(n) => n.to_string(),
        Item::Negative(n) => format!("-{}", u128::from(*n) + 1),
        Item::Bytes(chunks, false) => format!("h'{}'", hex::encode(&chunks[0])),
        Item::Bytes(chunks, true) => {
            list(chunks.iter().map(|c| format!("h'{}'", hex::encode(c))).collect(), "(", ")", true)
        }
        Item::Text(chunks, false) => Value::String(chunks[0].clone()).to_string(),
        Item::Text(chunks, true) => {
            list(chunks.iter().map(|c| Value::String(c.clone()).to_string()).collect(), "(", ")", true)
        }
        Item::Array(items, indefinite) => list(items.iter().map(diagnostic).collect(), "[", "]", *indefinite),
        Item::Map(pairs, indefinite) => list(
            pairs.iter().map(|(k, v)| format!("{}: {}", diagnostic(k), diagnostic(v))).collect(),
            "{",
            "}",
            *indefinite,
        ),
        Item::Tag(tag, inner) => format!("{tag}({})", diagnostic(inner)),
        Item::Simple(20) => "false".into(),
        Item::Simple(21) => "true".into(),
        Item::Simple(22) => "null".into(),
        Item::Simple(23) => "undefined".into(),
        Item::Simple(n) => format!("simple({n})"),
        Item::Float(v, _) if v.is_nan() => "NaN".into(),
        Item::Float(v, _) if v.is_infinite() => if *v > 0.0 { "Infinity" } else { "-Infinity" }.into(),
        Item::Float(v, _) => {
            let s = format!("{v:?}");
            if s.contains(['.', 'e']) { s } else { format!("{s}.0") }
        }
    }
}

/// The JSON value of an item, as RFC 8949 section 6.1 converts: byte strings as unpadded
/// base64url (padded Base64 under tag 22, hex under tag 23), tags dropped but for that hint,
/// `undefined`, other simple values and non-finite floats as null, and map keys that are not
/// text written in diagnostic notation.
pub(super) fn to_json(item: &Item, bytes_hint: u64) -> Value {
    match item {
        Item::Unsigned(n) => Value::from(*n),
        Item::Negative(n) => match i64::try_from(*n) {
            Ok(i) => Value::from(-1 - i),
            Err(_) => serde_json::Number::from_f64(-1.0 - *n as f64).map_or(Value::Null, Value::Number),
        },
        Item::Bytes(chunks, _) => {
            let all = chunks.concat();
            Value::String(match bytes_hint {
                22 => base64::engine::general_purpose::STANDARD.encode(&all),
                23 => hex::encode(&all),
                _ => base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&all),
            })
        }
        Item::Text(chunks, _) => Value::String(chunks.concat()),
        Item::Array(items, _) => Value::Array(items.iter().map(|i| to_json(i, bytes_hint)).collect()),
        Item::Map(pairs, _) => Value::Object(
            pairs
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Item::Text(chunks, _) => chunks.concat(),
                        other => diagnostic(other),
                    };
                    (key, to_json(v, bytes_hint))
                })
                .collect(),
        ),
        Item::Tag(tag @ (21..=23), inner) => to_json(inner, *tag),
        Item::Tag(_, inner) => to_json(inner, bytes_hint),
        Item::Simple(20) => Value::Bool(false),
        Item::Simple(21) => Value::Bool(true),
        Item::Simple(_) => Value::Null,
        Item::Float(v, _) => serde_json::Number::from_f64(*v).map_or(Value::Null, Value::Number),
    }
}

fn head(out: &mut Vec<u8>, major: u8, n: u64) {
    let m = major << 5;
    match n {
        0..=23 => out.push(m | n as u8),
        24..=0xff => out.extend([m | 24, n as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend((n as u16).to_be_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(m | 26);
            out.extend((n as u32).to_be_bytes());
        }
        _ => {
            out.push(m | 27);
            out.extend(n.to_be_bytes());
        }
    }
}

/// A JSON value in CBOR's preferred serialization: the shortest heads, definite lengths, and
/// each float in the narrowest width that holds it exactly (RFC 8949 section 4.1).
pub(super) fn from_json(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(0xf6),
        Value::Bool(b) => out.push(if *b { 0xf5 } else { 0xf4 }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                head(out, 0, u);
            } else if let Some(i) = n.as_i64() {
                head(out, 1, (-1 - i) as u64);
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if let Some(h) = f64_to_f16(f) {
                    out.push(0xf9);
                    out.extend(h.to_be_bytes());
                } else if f64::from(f as f32) == f {
                    out.push(0xfa);
                    out.extend((f as f32).to_be_bytes());
                } else {
                    out.push(0xfb);
                    out.extend(f.to_be_bytes());
                }
            }
        }
        Value::String(s) => {
            head(out, 3, s.len() as u64);
            out.extend(s.as_bytes());
        }
        Value::Array(a) => {
            head(out, 4, a.len() as u64);
            a.iter().for_each(|x| from_json(x, out));
        }
        Value::Object(o) => {
            head(out, 5, o.len() as u64);
            for (k, x) in o {
                head(out, 3, k.len() as u64);
                out.extend(k.as_bytes());
                from_json(x, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_both_ways() {
        for (bits, value) in [
            (0x3c00u16, 1.0),
            (0x7bff, 65504.0),
            (0x0001, 5.960464477539063e-8),
            (0x0400, 6.103515625e-5),
            (0xc400, -4.0),
        ] {
            assert_eq!(f16_to_f64(bits), value);
            assert_eq!(f64_to_f16(value), Some(bits));
        }
        assert_eq!(f64_to_f16(1.1), None);
        assert_eq!(f64_to_f16(100000.0), None);
    }
}
