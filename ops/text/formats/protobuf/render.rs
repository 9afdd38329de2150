//! What `protobuf/decode` answers for the fields `wire.rs` read: a flat list in wire order
//! (each field with its parent, depth and path, and every reading of its value), and the text
//! `protoc --decode_raw` prints for the same bytes.

use serde::Serialize;

use wrench_contract::prelude::*;
use wrench_infra::bounds::{CappedText, OutputBudget};
use wrench_kit::byte_encoding::{self, OutputEncoding, UsedEncoding};

use super::wire::{Field, Payload};

/// A float as JSON carries it: a number, or `NaN`, `Infinity` and `-Infinity` by name (as the
/// proto3 JSON mapping writes them).
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub(super) enum Float {
    Number(f64),
    Name(String),
}

impl Float {
    fn of(x: f64) -> Float {
        if x.is_finite() {
            Float::Number(x)
        } else if x.is_nan() {
            Float::Name("NaN".into())
        } else {
            Float::Name(if x > 0.0 { "Infinity" } else { "-Infinity" }.into())
        }
    }
}

/// The wire types, by the encoding guide's names.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum WireType {
    Varint,
    I64,
    Len,
    Group,
    I32,
}

/// One field on the wire.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawField {
    /// The index in `fields` of the field whose value holds this one (a `len` field read as a
    /// message, or a group); absent at the top.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    /// 0 at the top, one more inside each message or group.
    pub depth: usize,
    /// The field numbers from the top down to this field, joined by dots (`3.1`).
    pub path: String,
    /// The field number, 1 to 536,870,911.
    pub number: u32,
    pub wire_type: WireType,
    /// Where the field's tag starts, in bytes from the start of `input`.
    pub offset: usize,
    /// Where the field ends (exclusive), after its value or its group's end tag.
    pub end: usize,
    /// The value as `protoc --decode_raw` shows it: a varint in decimal, `i32` and `i64` as
    /// `0x` and 8 or 16 hex digits; a `len` field's bytes written as `valueEncoding` says;
    /// absent for a group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// How a `len` field's `value` is written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value_encoding: Option<UsedEncoding>,
    /// A `len` field's length in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
    /// A varint, `i32` or `i64` read as unsigned (`uint64`, `fixed64`, `fixed32`), in decimal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uint: Option<String>,
    /// The same bits read as signed two's complement (`int64`, `sfixed64`, `sfixed32`; a
    /// varint as `int64`, which also covers negative `int32`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub int: Option<String>,
    /// A varint read as ZigZag (`sint32`, `sint64`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sint: Option<String>,
    /// A varint of 0 or 1 read as `bool`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bool: Option<bool>,
    /// An `i32` read as `float`, or an `i64` as `double`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub float: Option<Float>,
    /// A `len` field's bytes as text, when they are UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,
    /// Whether a `len` field's bytes read as a message, whose fields follow this one.
    pub message: bool,
}

/// Fixed cost of one field in the JSON answer, over its variable strings: names, punctuation
/// and numbers.
const FIELD_OVERHEAD: usize = 320;

/// Lists `fields` and everything inside them in wire order, charging `budget` for each.
pub(super) fn flatten(
    buf: &[u8],
    fields: &[Field],
    encoding: OutputEncoding,
    budget: &mut OutputBudget,
) -> Result<Vec<RawField>, ApiError> {
    let mut out = Vec::new();
    walk(buf, fields, None, "", encoding, budget, &mut out)?;
    Ok(out)
}

fn walk(
    buf: &[u8],
    fields: &[Field],
    parent: Option<usize>,
    prefix: &str,
    encoding: OutputEncoding,
    budget: &mut OutputBudget,
    out: &mut Vec<RawField>,
) -> Result<(), ApiError> {
    let depth = out.get(parent.unwrap_or(usize::MAX)).map_or(0, |p: &RawField| p.depth + 1);
    for f in fields {
        let path = if prefix.is_empty() { f.number.to_string() } else { format!("{prefix}.{}", f.number) };
        let mut raw = RawField {
            parent,
            depth,
            path,
            number: f.number,
            wire_type: WireType::Varint,
            offset: f.offset,
            end: f.end,
            value: None,
            value_encoding: None,
            length: None,
            uint: None,
            int: None,
            sint: None,
            bool: None,
            float: None,
            string: None,
            message: false,
        };
        let mut inner = None;
        match &f.payload {
            Payload::Varint(v) => {
                raw.value = Some(v.to_string());
                raw.uint = raw.value.clone();
                raw.int = Some((*v as i64).to_string());
                raw.sint = Some(((v >> 1) as i64 ^ -((v & 1) as i64)).to_string());
                raw.bool = (*v <= 1).then_some(*v == 1);
            }
            Payload::I64(v) => {
                raw.wire_type = WireType::I64;
                raw.value = Some(format!("0x{v:016x}"));
                raw.uint = Some(v.to_string());
                raw.int = Some((*v as i64).to_string());
                raw.float = Some(Float::of(f64::from_bits(*v)));
            }
            Payload::I32(v) => {
                raw.wire_type = WireType::I32;
                raw.value = Some(format!("0x{v:08x}"));
                raw.uint = Some(v.to_string());
                raw.int = Some((*v as i32).to_string());
                raw.float = Some(Float::of(f64::from(f32::from_bits(*v))));
            }
            Payload::Len(run, nested) => {
                raw.wire_type = WireType::Len;
                let bytes = &buf[run.clone()];
                let (text, used) = byte_encoding::encode(bytes, encoding, "outputEncoding")?;
                budget.add_json_string(&text)?;
                raw.string = std::str::from_utf8(bytes).ok().map(str::to_owned);
                if let Some(s) = &raw.string
                    && used != UsedEncoding::Utf8
                {
                    budget.add_json_string(s)?;
                }
                raw.value = Some(text);
                raw.value_encoding = Some(used);
                raw.length = Some(bytes.len());
                raw.message = nested.is_some();
                inner = nested.as_deref();
            }
            Payload::Group(children) => {
                raw.wire_type = WireType::Group;
                inner = Some(children);
            }
        }
        budget.add(FIELD_OVERHEAD + raw.path.len())?;
        // With `auto`, text needs no second copy: `value` already is the string.
        if raw.value_encoding == Some(UsedEncoding::Utf8) {
            raw.string = None;
        }
        let me = out.len();
        let path = raw.path.clone();
        out.push(raw);
        if let Some(children) = inner {
            walk(buf, children, Some(me), &path, encoding, budget, out)?;
        }
    }
    Ok(())
}

/// The text `protoc --decode_raw` prints for `fields`: one field a line, two spaces of indent a
/// level, nested messages and groups in braces, bytes in C escapes. `limit` is what the answer
/// has left: deep groups indent every line, so the text is counted while it is written.
pub(super) fn text(buf: &[u8], fields: &[Field], limit: usize) -> Result<String, ApiError> {
    let mut out = CappedText::new(limit);
    let written = write_text(buf, fields, 0, &mut out);
    let text = out.finish()?;
    written.map_err(|_| ApiError::internal("the text form could not be written"))?;
    Ok(text)
}

fn write_text(buf: &[u8], fields: &[Field], indent: usize, out: &mut CappedText) -> std::fmt::Result {
    use std::fmt::Write;
    for f in fields {
        write!(out, "{:indent$}", "")?;
        match &f.payload {
            Payload::Varint(v) => writeln!(out, "{}: {v}", f.number)?,
            Payload::I64(v) => writeln!(out, "{}: 0x{v:016x}", f.number)?,
            Payload::I32(v) => writeln!(out, "{}: 0x{v:08x}", f.number)?,
            Payload::Len(_, Some(inner)) | Payload::Group(inner) => {
                writeln!(out, "{} {{", f.number)?;
                write_text(buf, inner, indent + 2, out)?;
                writeln!(out, "{:indent$}}}", "")?;
            }
            Payload::Len(run, None) => {
                write!(out, "{}: \"", f.number)?;
                let mut escaped = String::new();
                c_escape(&buf[run.clone()], &mut escaped);
                out.write_str(&escaped)?;
                writeln!(out, "\"")?;
            }
        }
    }
    Ok(())
}

/// C escapes as protobuf's `CEscape` writes them: `\n`, `\r`, `\t`, `\"`, `\'` and `\\` by
/// name, printable ASCII as itself, every other byte as three octal digits.
fn c_escape(bytes: &[u8], out: &mut String) {
    for &b in bytes {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                out.push('\\');
                out.push((b'0' + (b >> 6)) as char);
                out.push((b'0' + ((b >> 3) & 7)) as char);
                out.push((b'0' + (b & 7)) as char);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_escapes_as_protobuf_writes_them() {
        let mut s = String::new();
        c_escape(b"a\n\"'\\\x00\x7f\xff~", &mut s);
        assert_eq!(s, "a\\n\\\"\\'\\\\\\000\\177\\377~");
    }
}
