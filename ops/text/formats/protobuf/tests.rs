//! `protobuf/decode` against `protoc --decode_raw` and PyPI protobuf's `MessageToJson`
//! (tests/fixtures/protobuf.py), and its bounds.

use serde_json::json;

use super::*;

const LIMIT: usize = 8 << 20;

fn input(hex: &str) -> ProtobufDecodeInput {
    ProtobufDecodeInput {
        input: hex.into(),
        input_encoding: InputEncoding::Hex,
        schema: None,
        message_type: None,
        delimited: false,
        output_encoding: OutputEncoding::Auto,
    }
}

/// 700 messages written field by field, 140 of them altered: where protoc prints a message,
/// the text is the same byte for byte, and where protoc refuses the bytes, so does wrench.
///
/// One departure, by the standard: inside a run, protoc's printer reads a tag of more than 32
/// bits by dropping the high bits (`bd ec a9 80 f1 03` as field 33,640,135), where the encoding
/// guide makes a tag a 32-bit varint; wrench leaves that run as bytes.
#[test]
fn raw_messages_read_as_protoc_decode_raw_reads_them() {
    let f = crate::testing::fixture("protobuf.json");
    let mut failures = Vec::new();
    let mut refused = 0;
    for (i, case) in f["raw"].as_array().unwrap().iter().enumerate() {
        let hex = case["hex"].as_str().unwrap();
        if i == 545 {
            let want = case["text"].as_str().unwrap();
            let out = decode(input(hex), LIMIT).unwrap();
            assert!(want.contains("2048 {\n") && want.contains("33640135: 0x610a6b33"), "{want}");
            assert!(out.messages[0].text.contains("2048: \"\\275\\354\\251\\200\\361\\303\\210g3k\\na\""));
            continue;
        }
        match (decode(input(hex), LIMIT), case["text"].as_str()) {
            (Ok(out), Some(want)) if out.messages[0].text == want => {}
            (Ok(out), Some(want)) => failures.push(format!("=== {hex}:\n{}\nis not\n{want}", out.messages[0].text)),
            (Ok(out), None) => {
                failures.push(format!("=== {hex}: protoc refuses, wrench reads\n{}", out.messages[0].text))
            }
            (Err(e), Some(_)) => failures.push(format!("=== {hex}: protoc reads, wrench refuses: {}", e.message)),
            (Err(e), None) => {
                assert!(e.message.contains("not protobuf at byte"), "{}", e.message);
                refused += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{} of 700:\n{}", failures.len(), failures.join("\n"));
    assert!(refused > 50, "the altered messages should include refused ones: {refused}");
}

// Numbers equal as numbers (Python writes `1e-07` where serde_json writes `1e-7`).
use crate::testing::same_by_value as same;

/// 240 messages of a proto3 schema (every scalar type, enums, maps, oneofs, well-known types)
/// and a proto2 one (groups, packed and unpacked repeated fields, defaults), serialized by PyPI
/// protobuf: the JSON is its `MessageToJson`.
#[test]
fn typed_messages_read_as_message_to_json_writes_them() {
    let f = crate::testing::fixture("protobuf.json");
    let mut failures = Vec::new();
    for case in f["typed"].as_array().unwrap() {
        let hex = case["hex"].as_str().unwrap();
        let schema = f["schemas"][case["schema"].as_str().unwrap()].as_str().unwrap();
        let out = decode(
            ProtobufDecodeInput {
                schema: Some(schema.into()),
                message_type: Some(case["messageType"].as_str().unwrap().into()),
                ..input(hex)
            },
            LIMIT,
        );
        match out {
            Ok(out) if same(out.messages[0].json.as_ref().unwrap(), &case["json"]) => {
                assert_eq!(out.message_type.as_deref(), case["messageType"].as_str());
            }
            Ok(out) => {
                failures.push(format!("{hex}:\n{}\nis not\n{}", out.messages[0].json.as_ref().unwrap(), case["json"]))
            }
            Err(e) => failures.push(format!("{hex}: {}", e.message)),
        }
    }
    assert!(failures.is_empty(), "{} of 240:\n{}", failures.len(), failures.join("\n"));
}

/// Every reading of each wire type, on values whose readings are known.
#[test]
fn each_field_lists_its_readings() {
    // 1: varint 2^64-1; 2: i32 -1.5f; 3: i64 1.0; 4: "hi"; 5: bytes ff
    let out = decode(input("08ffffffffffffffffff01 15 0000c0bf 19 000000000000f03f 2203686921 2a01ff"), LIMIT).unwrap();
    let f = &out.messages[0].fields;
    let v = serde_json::to_value(f).unwrap();
    assert_eq!(
        v[0],
        json!({"depth": 0, "path": "1", "number": 1, "wireType": "varint", "offset": 0, "end": 11,
               "value": "18446744073709551615", "uint": "18446744073709551615", "int": "-1",
               "sint": "-9223372036854775808", "message": false})
    );
    assert_eq!(
        (&v[1]["value"], &v[1]["int"], &v[1]["float"]),
        (&json!("0xbfc00000"), &json!("-1077936128"), &json!(-1.5))
    );
    assert_eq!((&v[2]["value"], &v[2]["float"]), (&json!("0x3ff0000000000000"), &json!(1.0)));
    assert_eq!((&v[3]["value"], &v[3]["valueEncoding"], v[3].get("string")), (&json!("hi!"), &json!("utf-8"), None));
    assert_eq!((&v[4]["value"], &v[4]["valueEncoding"], v[4].get("string")), (&json!("/w=="), &json!("base64"), None));
    // A zigzag varint of 1 is -1, and 0 or 1 read as a bool.
    let one = serde_json::to_value(&decode(input("0801"), LIMIT).unwrap().messages[0].fields[0]).unwrap();
    assert_eq!((&one["sint"], &one["bool"]), (&json!("-1"), &json!(true)));
    // Hex output keeps the text reading too.
    let hexed =
        decode(ProtobufDecodeInput { output_encoding: OutputEncoding::Hex, ..input("22026869") }, LIMIT).unwrap();
    let v = serde_json::to_value(&hexed.messages[0].fields[0]).unwrap();
    assert_eq!((&v["value"], &v["string"]), (&json!("6869"), &json!("hi")));
    // NaN has a name.
    let nan = decode(input("150000c07f"), LIMIT).unwrap();
    assert_eq!(serde_json::to_value(&nan.messages[0].fields[0]).unwrap()["float"], "NaN");
}

#[test]
fn nested_fields_follow_their_parent_with_a_path() {
    // 3 { 1: 150  4 (group) { 2: 1 } }  5: 7
    let out = decode(input("1a07 089601 23 1001 24 2807"), LIMIT).unwrap();
    let got: Vec<_> = out.messages[0]
        .fields
        .iter()
        .map(|f| (f.path.as_str(), f.parent, f.depth, f.offset, f.end, f.message))
        .collect();
    assert_eq!(
        got,
        [
            ("3", None, 0, 0, 9, true),
            ("3.1", Some(0), 1, 2, 5, false),
            ("3.4", Some(0), 1, 5, 9, false),
            ("3.4.2", Some(2), 2, 6, 8, false),
            ("5", None, 0, 9, 11, false),
        ]
    );
    assert_eq!(out.messages[0].text, "3 {\n  1: 150\n  4 {\n    2: 1\n  }\n}\n5: 7\n");
}

#[test]
fn delimited_streams_answer_one_entry_a_message() {
    let out = decode(ProtobufDecodeInput { delimited: true, ..input("03089601 00 030a0161") }, LIMIT).unwrap();
    let got: Vec<_> = out.messages.iter().map(|m| (m.offset, m.length, m.text.as_str())).collect();
    assert_eq!(got, [(1, 3, "1: 150\n"), (5, 0, ""), (6, 3, "1: \"a\"\n")]);
    // Offsets of faults count from the start of the whole input.
    let e = decode(ProtobufDecodeInput { delimited: true, ..input("020801ff") }, LIMIT).unwrap_err();
    assert_eq!(e.message, "input: not protobuf at byte 3: a varint runs past the end of its bytes");
    let e = decode(ProtobufDecodeInput { delimited: true, ..input("0508") }, LIMIT).unwrap_err();
    assert!(e.message.contains("byte 0: a message claims 5 bytes, 1 remain"), "{}", e.message);
}

#[test]
fn schemas_and_types_are_checked() {
    let e = decode(ProtobufDecodeInput { message_type: Some("A".into()), ..input("") }, LIMIT).unwrap_err();
    assert_eq!(e.field.as_deref(), Some("messageType"));
    let schema = "syntax = \"proto3\";\nmessage A { int32 x = 1; }\n";
    // A varint where the schema has a string: the typed reading fails, naming the type.
    let e = decode(
        ProtobufDecodeInput { schema: Some("message S { optional string s = 1; }".into()), ..input("0801") },
        LIMIT,
    )
    .unwrap_err();
    assert!(e.message.contains("is not a S"), "{}", e.message);
    let ok = decode(ProtobufDecodeInput { schema: Some(schema.into()), ..input("08ffffffff0f") }, LIMIT).unwrap();
    assert_eq!(ok.messages[0].json, Some(json!({"x": -1})));
    // The schema's bound is the document's: characters, not bytes. One past it is refused by
    // the input's validation; at it, a schema of two-byte characters (512 KiB) compiles.
    use wrench_contract::prelude::Validate;
    let over = ProtobufDecodeInput { schema: Some("/".repeat(262_145)), ..input("") };
    let e = over.validate("").unwrap_err();
    assert!(format!("{e:?}").contains("at most 262144 characters"), "{e:?}");
    let head = "syntax = \"proto3\";\nmessage A { int32 x = 1; }\n// ";
    let comment = format!("{head}{}", "é".repeat(262_144 - head.chars().count()));
    assert_eq!(comment.chars().count(), 262_144);
    let at = ProtobufDecodeInput { schema: Some(comment), ..input("0801") };
    at.validate("").unwrap();
    assert_eq!(decode(at, LIMIT).unwrap().messages[0].json, Some(json!({"x": 1})));
}

/// The answers that grow fastest from their input: a field a line deep in groups (each line
/// indented 200 spaces), and a run read as a message at every one of 10 levels (its bytes
/// written again at each). From a 1 MiB body both stop at the response limit, before the
/// answer is built.
#[test]
fn the_largest_inputs_stop_at_the_response_limit() {
    let deep = [vec![0x0b; 100], [0x08, 0x01].repeat(480_000), vec![0x0c; 100]].concat();
    let e =
        decode(ProtobufDecodeInput { input_encoding: InputEncoding::Base64, ..input(&b64(&deep)) }, LIMIT).unwrap_err();
    assert_eq!(e.code, wrench_infra::envelope::ErrorCode::ResultTooLarge, "{e:?}");
    let mut nested = [0x08, 0x01].repeat(300_000);
    for _ in 0..10 {
        let mut outer = vec![0x0a];
        let mut len = nested.len();
        while len >= 0x80 {
            outer.push((len as u8 & 0x7f) | 0x80);
            len >>= 7;
        }
        outer.push(len as u8);
        outer.extend(nested);
        nested = outer;
    }
    let e = decode(ProtobufDecodeInput { input_encoding: InputEncoding::Base64, ..input(&b64(&nested)) }, LIMIT)
        .unwrap_err();
    assert_eq!(e.code, wrench_infra::envelope::ErrorCode::ResultTooLarge, "{e:?}");
    // A 700 KiB run of random bytes is answered twice over (Base64 in `value`, C escapes in
    // `text`) and still fits.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let noise: Vec<u8> = (0..700 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let mut one = vec![0x12, 0x80, 0xe0, 0x2b];
    one.extend(&noise);
    let out =
        decode(ProtobufDecodeInput { input_encoding: InputEncoding::Base64, ..input(&b64(&one)) }, LIMIT).unwrap();
    assert!(!out.messages[0].fields[0].message);
    let size = wrench_infra::bounds::json_size(&out);
    assert!(size > 3 << 20 && size < LIMIT, "{size}");
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A message type that holds itself, 150 levels deep: the raw reading lists it (runs past 10
/// levels stay bytes), and the typed reading stops at the runtime's 100 levels with a 400.
#[test]
fn self_nesting_messages_stop_at_100_levels() {
    let schema = "syntax = \"proto3\";\nmessage R { R r = 1; int32 v = 2; }\n";
    let mut msg = vec![0x10, 0x01];
    for _ in 0..150 {
        let mut outer = vec![0x0a, msg.len() as u8];
        if msg.len() >= 0x80 {
            outer = vec![0x0a, (msg.len() as u8 & 0x7f) | 0x80, (msg.len() >> 7) as u8];
        }
        outer.extend(&msg);
        msg = outer;
    }
    let raw = decode(input(&hex::encode(&msg)), LIMIT).unwrap();
    assert_eq!(raw.messages[0].fields.iter().map(|f| f.depth).max(), Some(10));
    let e =
        decode(ProtobufDecodeInput { schema: Some(schema.into()), ..input(&hex::encode(&msg)) }, LIMIT).unwrap_err();
    assert!(e.message.contains("is not a R") && e.message.contains("recursion"), "{}", e.message);
}
