//! `cbor/encode` and `cbor/decode`: JSON to CBOR in preferred serialization, and CBOR (or a
//! CBOR sequence) to JSON and diagnostic notation, by the tree of `cbor_item.rs`.

use serde_json::Value;

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

use super::cbor_item::{self, Item};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CborEncodeInput {
    /// The value to encode: any JSON value.
    json: Value,
    /// How to write the CBOR: `base64` (the default here, since CBOR is not text), `base64url`,
    /// `hex`, or `auto` and `utf-8` as everywhere.
    #[serde(default = "wrench_kit::byte_encoding::base64_output")]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CborEncodeOutput {
    /// The CBOR bytes, written as `outputEncoding` says.
    output: String,
    output_encoding: UsedEncoding,
    /// How many bytes.
    bytes: usize,
    /// The encoded item in diagnostic notation (RFC 8949 section 8).
    diagnostic: String,
}

/// Encode JSON as CBOR.
///
/// Writes the value in CBOR's preferred serialization (RFC 8949 section 4.1): the shortest
/// integer heads, definite lengths, and every float in the narrowest of half, single or double
/// precision that holds it exactly (`1.5` is `f9 3e00`); numbers written without a fraction are
/// integers. Answers the bytes and their diagnostic notation.
#[op(post "/v1/cbor/encode" as cborEncode, tag = TextAndData, pipe(json -> output),
     rejects = "outputEncoding utf-8 for bytes that are not UTF-8",
     example(object, {"json": {"a": 1, "b": [2, 3.5, true, null]}, "outputEncoding": "hex"}),
     example(base64, {"json": [1, [2, 3], "streaming"]}),
     example(bad_encoding, {"json": 1, "outputEncoding": "base32"}, status = 400))]
async fn cbor_encode(input: CborEncodeInput) -> Result<CborEncodeOutput, ApiError> {
    let mut bytes = Vec::new();
    cbor_item::from_json(&input.json, &mut bytes);
    let diagnostic = cbor_item::read_all(&bytes).map(|items| cbor_item::diagnostic(&items[0])).unwrap_or_default();
    let (output, output_encoding) = byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding")?;
    Ok(CborEncodeOutput { output, output_encoding, bytes: bytes.len(), diagnostic })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CborDecodeInput {
    /// The CBOR bytes (one item, or a sequence of items).
    input: String,
    /// How `input` carries its bytes: `base64` (the default here), `base64url`, `hex` or
    /// `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CborDecodeOutput {
    /// The item as JSON (RFC 8949 section 6.1); for a sequence of items, an array of them.
    json: Value,
    /// The item in diagnostic notation, which keeps what JSON loses (byte strings, tags,
    /// `undefined`, float widths, indefinite lengths); items of a sequence separated by `, `.
    diagnostic: String,
    /// How many items the bytes held (more than one for a CBOR sequence, RFC 8742).
    items: usize,
}

/// Decode CBOR to JSON and diagnostic notation.
///
/// Reads one CBOR item or a CBOR sequence (RFC 8742), with indefinite lengths, tags, simple
/// values and half, single and double floats, nested at most 128 deep. Answers JSON as RFC 8949
/// section 6.1 converts (byte strings as base64url, tags dropped, non-text map keys in
/// diagnostic notation) and the exact diagnostic notation. Malformed bytes are a 400 naming the
/// offset.
#[op(post "/v1/cbor/decode" as cborDecode, tag = TextAndData, pipe(input -> json), cpu,
     rejects = "bytes that are not well-formed CBOR, or items nested deeper than 128",
     example(map, {"input": "a26161016162820203", "inputEncoding": "hex"}),
     example(tagged_and_bytes, {"input": "c074323031332d30332d32315432303a30343a30305a", "inputEncoding": "hex"}),
     example(array, {"input": "83010203", "inputEncoding": "hex"}),
     example(malformed, {"input": "8301", "inputEncoding": "hex"}, status = 400))]
async fn cbor_decode(input: CborDecodeInput) -> Result<CborDecodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let items: Vec<Item> = cbor_item::read_all(&bytes)
        .map_err(|e| ApiError::invalid("input", format!("not well-formed CBOR at byte {}: {}", e.offset, e.reason)))?;
    let diagnostic = items.iter().map(cbor_item::diagnostic).collect::<Vec<_>>().join(", ");
    let json = match items.as_slice() {
        [one] => cbor_item::to_json(one, 0),
        many => Value::Array(many.iter().map(|i| cbor_item::to_json(i, 0)).collect()),
    };
    Ok(CborDecodeOutput { json, diagnostic, items: items.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8949 appendix A (tests/fixtures/cbor_appendix_a.json, from cbor/test-vectors, which
    /// keeps RFC 7049's list): each
    /// vector decodes to its JSON value or its diagnostic notation, and each value JSON can
    /// carry encodes back to the vector's bytes where the appendix marks it as round-tripping.
    #[tokio::test]
    async fn rfc_8949_appendix_a() {
        let f = crate::testing::fixture("cbor_appendix_a.json");
        let mut failures = Vec::new();
        for v in f.as_array().unwrap() {
            let hex = v["hex"].as_str().unwrap();
            if hex == "f818" {
                // RFC 7049's appendix listed simple(24) as `f8 18`; RFC 8949 section 3.3 makes a
                // two-byte simple value below 32 not well-formed, and the newer standard wins.
                let e = cbor_decode(CborDecodeInput { input: hex.into(), input_encoding: InputEncoding::Hex })
                    .await
                    .unwrap_err();
                assert!(e.message.contains("one-byte form"), "{}", e.message);
                continue;
            }
            let out =
                cbor_decode(CborDecodeInput { input: hex.into(), input_encoding: InputEncoding::Hex }).await.unwrap();
            if let Some(want) = v.get("diagnostic")
                && out.diagnostic != want.as_str().unwrap()
            {
                failures.push(format!("{hex}: diagnostic {} is not {want}", out.diagnostic));
            }
            if hex.starts_with("c2") || hex.starts_with("c3") {
                // A bignum's value is past JSON's exact numbers; RFC 8949 section 6.1 writes its
                // byte string as unpadded base64url instead.
                assert_eq!(out.json, "AQAAAAAAAAAA", "{hex}");
                continue;
            }
            if let Some(want) = v.get("decoded") {
                let exact = match (&out.json, want) {
                    (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
                    (a, b) => a == b,
                };
                if !exact {
                    failures.push(format!("{hex}: {} is not {want}", out.json));
                }
                // Integers past 64 bits are not exact in JSON numbers, nor are the vectors of
                // indefinite lengths written back indefinitely.
                let past_64_bits =
                    want.as_f64().is_some_and(|f| want.is_f64() && f.fract() == 0.0 && f.abs() >= 9.2e18);
                let representable = !past_64_bits;
                if v["roundtrip"].as_bool() == Some(true) && representable {
                    let again =
                        cbor_encode(CborEncodeInput { json: want.clone(), output_encoding: OutputEncoding::Hex })
                            .await
                            .unwrap();
                    if again.output != hex {
                        failures.push(format!("{want} encodes to {}, not {hex}", again.output));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}:\n{}", failures.len(), failures.join("\n"));
    }

    /// PyPI cbor2 (tests/fixtures/binary_json.py): its encoding of generated documents decodes
    /// to them, and wrench's encoding equals cbor2's canonical one byte for byte.
    #[tokio::test]
    async fn cbor2s_encodings() {
        let f = crate::testing::fixture("binary_json.json");
        for c in f.as_array().unwrap() {
            let doc = &c["json"];
            let out = cbor_decode(CborDecodeInput {
                input: c["cbor"].as_str().unwrap().into(),
                input_encoding: InputEncoding::Hex,
            })
            .await
            .unwrap();
            assert_eq!(&out.json, doc);
            let mine =
                cbor_encode(CborEncodeInput { json: doc.clone(), output_encoding: OutputEncoding::Hex }).await.unwrap();
            assert_eq!(mine.output, c["cborCanonical"].as_str().unwrap(), "{doc}");
        }
    }

    #[tokio::test]
    async fn malformed_and_deep_input_is_refused_with_an_offset() {
        for hex in ["8301", "ff", "1c", "5f01ff", "7f61", "f800", &"81".repeat(200)] {
            let e = cbor_decode(CborDecodeInput { input: hex.to_string(), input_encoding: InputEncoding::Hex })
                .await
                .unwrap_err();
            assert!(e.message.contains("at byte"), "{hex}: {}", e.message);
        }
        let seq =
            cbor_decode(CborDecodeInput { input: "0102".into(), input_encoding: InputEncoding::Hex }).await.unwrap();
        assert_eq!((seq.items, seq.json, seq.diagnostic.as_str()), (2, serde_json::json!([1, 2]), "1, 2"));
        // A head claiming 2^60 items with none there fails at the end of the input, allocating
        // nothing for the claim.
        let e = cbor_decode(CborDecodeInput { input: "9b1000000000000000".into(), input_encoding: InputEncoding::Hex })
            .await
            .unwrap_err();
        assert!(e.message.contains("at byte"), "{}", e.message);
    }
}
