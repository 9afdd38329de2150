//! `msgpack/encode` and `msgpack/decode`: JSON to MessagePack in its smallest forms, and
//! MessagePack back to JSON.

use base64::Engine;
use rmpv::Value as Mp;
use serde_json::Value;

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

/// How deep values may nest.
const MAX_DEPTH: usize = 128;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MsgpackEncodeInput {
    /// The value to encode: any JSON value.
    json: Value,
    /// How to write the bytes: `base64` (the default here), `base64url`, `hex`, or `auto` and
    /// `utf-8` as everywhere.
    #[serde(default = "wrench_kit::byte_encoding::base64_output")]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MsgpackEncodeOutput {
    /// The MessagePack bytes, written as `outputEncoding` says.
    output: String,
    output_encoding: UsedEncoding,
    /// How many bytes.
    bytes: usize,
}

fn to_mp(v: &Value) -> Mp {
    match v {
        Value::Null => Mp::Nil,
        Value::Bool(b) => Mp::Boolean(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Mp::from(u),
            (None, Some(i)) => Mp::from(i),
            _ => Mp::F64(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Mp::from(s.as_str()),
        Value::Array(a) => Mp::Array(a.iter().map(to_mp).collect()),
        Value::Object(o) => Mp::Map(o.iter().map(|(k, x)| (Mp::from(k.as_str()), to_mp(x))).collect()),
    }
}

/// Encode JSON as MessagePack.
///
/// Integers, strings, arrays and maps in their smallest MessagePack forms, numbers with a
/// fraction or exponent as 64-bit floats, strings as `str` (never `bin`): byte for byte what
/// PyPI `msgpack`'s `packb` writes for the same value.
#[op(post "/v1/msgpack/encode" as msgpackEncode, tag = TextAndData, pipe(json -> output),
     rejects = "outputEncoding utf-8 for bytes that are not UTF-8",
     example(object, {"json": {"compact": true, "schema": 0}, "outputEncoding": "hex"}),
     example(mixed, {"json": [1, -1, 300, 1.5, "text", null]}),
     example(bad_encoding, {"json": 1, "outputEncoding": "octal"}, status = 400))]
async fn msgpack_encode(input: MsgpackEncodeInput) -> Result<MsgpackEncodeOutput, ApiError> {
    let mut bytes = Vec::new();
    rmpv::encode::write_value(&mut bytes, &to_mp(&input.json))
        .map_err(|e| ApiError::internal(format!("writing to memory failed: {e}")))?;
    let (output, output_encoding) = byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding")?;
    Ok(MsgpackEncodeOutput { output, output_encoding, bytes: bytes.len() })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MsgpackDecodeInput {
    /// The MessagePack bytes: one value, or several one after another.
    input: String,
    /// How `input` carries its bytes: `base64` (the default here), `base64url`, `hex` or
    /// `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
struct MsgpackDecodeOutput {
    /// The value as JSON; for several values, an array of them. `bin` becomes Base64, an
    /// extension `{"extType": n, "data": "<Base64>"}`, a non-string map key its JSON text,
    /// and a string that is not UTF-8 its bytes in Base64.
    json: Value,
    /// How many values the bytes held.
    values: usize,
}

fn to_json(v: &Mp) -> Value {
    let b64 = |b: &[u8]| Value::String(base64::engine::general_purpose::STANDARD.encode(b));
    match v {
        Mp::Nil => Value::Null,
        Mp::Boolean(b) => Value::Bool(*b),
        Mp::Integer(i) => i.as_u64().map(Value::from).or_else(|| i.as_i64().map(Value::from)).unwrap_or(Value::Null),
        Mp::F32(f) => serde_json::Number::from_f64(f64::from(*f)).map_or(Value::Null, Value::Number),
        Mp::F64(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Mp::String(s) => match s.as_str() {
            Some(text) => Value::String(text.to_string()),
            None => b64(s.as_bytes()),
        },
        Mp::Binary(b) => b64(b),
        Mp::Array(a) => Value::Array(a.iter().map(to_json).collect()),
        Mp::Map(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let key = match k {
                        Mp::String(s) if s.as_str().is_some() => s.as_str().unwrap_or_default().to_string(),
                        other => to_json(other).to_string(),
                    };
                    (key, to_json(x))
                })
                .collect(),
        ),
        Mp::Ext(kind, data) => serde_json::json!({"extType": kind, "data": b64(data)}),
    }
}

/// Where the value at `at` ends, checking each marker on the way: the reader the values are then
/// decoded with takes the reserved marker 0xc1 for nil, which the specification says is never
/// used, so the bytes are walked here first.
fn well_formed(b: &[u8], at: usize, depth: usize) -> Result<usize, (usize, String)> {
    let m = *b.get(at).ok_or((at, "the bytes end where a value should start".to_string()))?;
    if depth > MAX_DEPTH {
        return Err((at, format!("values nest deeper than {MAX_DEPTH}")));
    }
    let len = |width: usize| -> Result<usize, (usize, String)> {
        let field = b.get(at + 1..at + 1 + width).ok_or((at, "the bytes end inside a length".to_string()))?;
        Ok(field.iter().fold(0usize, |n, &x| n << 8 | usize::from(x)))
    };
    let (head, body, children) = match m {
        0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => (1, 0, 0),
        0x80..=0x8f => (1, 0, 2 * usize::from(m & 0x0f)),
        0x90..=0x9f => (1, 0, usize::from(m & 0x0f)),
        0xa0..=0xbf => (1, usize::from(m & 0x1f), 0),
        0xc1 => return Err((at, "0xc1 is a marker MessagePack never uses".to_string())),
        0xc4 | 0xd9 => (2, len(1)?, 0),
        0xc5 | 0xda => (3, len(2)?, 0),
        0xc6 | 0xdb => (5, len(4)?, 0),
        0xc7 => (3, len(1)?, 0),
        0xc8 => (4, len(2)?, 0),
        0xc9 => (6, len(4)?, 0),
        0xca => (1, 4, 0),
        0xcb => (1, 8, 0),
        0xcc..=0xcf => (1, 1 << (m - 0xcc), 0),
        0xd0..=0xd3 => (1, 1 << (m - 0xd0), 0),
        0xd4..=0xd8 => (2, 1 << (m - 0xd4), 0),
        0xdc => (3, 0, len(2)?),
        0xdd => (5, 0, len(4)?),
        0xde => (3, 0, 2 * len(2)?),
        0xdf => (5, 0, 2 * len(4)?),
    };
    let mut end = at + head + body;
    if end > b.len() {
        return Err((at, format!("the value needs {} bytes, {} are left", head + body, b.len() - at)));
    }
    for _ in 0..children {
        end = well_formed(b, end, depth + 1)?;
    }
    Ok(end)
}

/// Decode MessagePack to JSON.
///
/// Reads one MessagePack value or several in a row, nested at most 128 deep, and answers
/// JSON: `bin` and strings that are not UTF-8 as Base64, extensions as `{extType, data}`,
/// non-finite floats as null. Malformed or truncated bytes are a 400 naming the offset.
#[op(post "/v1/msgpack/decode" as msgpackDecode, tag = TextAndData, pipe(input -> json), cpu,
     rejects = "bytes that are not MessagePack, or values nested deeper than 128",
     example(map, {"input": "82a7636f6d70616374c3a6736368656d6100", "inputEncoding": "hex"}),
     example(base64, {"input": "kwECAw=="}),
     example(truncated, {"input": "92a3", "inputEncoding": "hex"}, status = 400))]
async fn msgpack_decode(input: MsgpackDecodeInput) -> Result<MsgpackDecodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    if bytes.is_empty() {
        return Err(ApiError::invalid("input", "holds no bytes"));
    }
    let mut cursor = std::io::Cursor::new(bytes.as_slice());
    let mut values = Vec::new();
    while (cursor.position() as usize) < bytes.len() {
        let at = cursor.position();
        well_formed(&bytes, at as usize, 0)
            .map_err(|(offset, why)| ApiError::invalid("input", format!("not MessagePack at byte {offset}: {why}")))?;
        let v = rmpv::decode::read_value_with_max_depth(&mut cursor, MAX_DEPTH)
            .map_err(|e| ApiError::invalid("input", format!("not MessagePack at byte {at}: {e}")))?;
        values.push(to_json(&v));
    }
    let count = values.len();
    let json = if count == 1 { values.remove(0) } else { Value::Array(values) };
    Ok(MsgpackDecodeOutput { json, values: count })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI msgpack (tests/fixtures/binary_json.py): `packb` of generated documents is what
    /// `msgpack/encode` writes, byte for byte, and decodes back to the document.
    #[tokio::test]
    async fn msgpacks_encodings() {
        let f = crate::testing::fixture("binary_json.json");
        for c in f.as_array().unwrap() {
            let doc = &c["json"];
            let hex = c["msgpack"].as_str().unwrap();
            let mine = msgpack_encode(MsgpackEncodeInput { json: doc.clone(), output_encoding: OutputEncoding::Hex })
                .await
                .unwrap();
            assert_eq!(mine.output, hex, "{doc}");
            let back = msgpack_decode(MsgpackDecodeInput { input: hex.into(), input_encoding: InputEncoding::Hex })
                .await
                .unwrap();
            assert_eq!(&back.json, doc);
        }
    }

    #[tokio::test]
    async fn refusals_name_the_offset() {
        for hex in ["92a3", "c1", &"91".repeat(200)] {
            let e = msgpack_decode(MsgpackDecodeInput { input: hex.to_string(), input_encoding: InputEncoding::Hex })
                .await
                .unwrap_err();
            assert!(e.message.contains("at byte"), "{hex}: {}", e.message);
        }
        let two = msgpack_decode(MsgpackDecodeInput { input: "0102".into(), input_encoding: InputEncoding::Hex })
            .await
            .unwrap();
        assert_eq!((two.values, two.json), (2, serde_json::json!([1, 2])));
    }
}
