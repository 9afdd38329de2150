//! `protobuf/decode`: protobuf bytes read field by field without a schema (`wire.rs`, listed
//! and printed by `render.rs`), and with the caller's `.proto` schema as JSON as well
//! (`schema.rs`). One message, or a stream of length-prefixed ones.

mod render;
mod schema;
mod wire;

use serde_json::Value;

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding};

use render::RawField;
use wire::{Limits, MAX_GROUP_DEPTH, NESTED_BUDGET};

/// Fixed cost of one message in the JSON answer, over its fields and text.
const MESSAGE_OVERHEAD: usize = 96;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ProtobufDecodeInput {
    /// The protobuf bytes: one message, or with `delimited` a stream of them.
    input: String,
    /// How `input` carries its bytes: `base64` (the default here), `base64url`, `hex` or
    /// `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
    /// A `.proto` file (proto2 or proto3, up to 262,144 characters) declaring the message type; its
    /// imports may be the well-known types (`google/protobuf/timestamp.proto` and the others)
    /// and nothing else. With it, each message is also answered as JSON.
    #[serde(default)]
    #[schemars(length(max = 262144))]
    schema: Option<String>,
    /// Which message of `schema` the bytes are, by name with or without its package; needed
    /// when the schema declares more than one top-level message.
    #[serde(default)]
    #[schemars(length(min = 1, max = 512))]
    message_type: Option<String>,
    /// Whether `input` is a stream of messages, each preceded by its length as a varint (as
    /// Java's `writeDelimitedTo` and the C++ and Python delimited helpers write them).
    #[serde(default)]
    delimited: bool,
    /// How the bytes of `len` fields are written: `auto` (the default: text when they are
    /// UTF-8 text, Base64 otherwise), `utf-8`, `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DecodedMessage {
    /// Where the message's bytes start in `input` (after its length prefix when delimited).
    offset: usize,
    /// How many bytes it has.
    length: usize,
    /// Every field in wire order, fields inside messages and groups right after the field that
    /// holds them.
    fields: Vec<RawField>,
    /// The message as `protoc --decode_raw` prints it.
    text: String,
    /// With a schema: the message in the proto3 JSON mapping.
    #[serde(skip_serializing_if = "Option::is_none")]
    json: Option<Value>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ProtobufDecodeOutput {
    /// The messages: one, unless `delimited`.
    messages: Vec<DecodedMessage>,
    /// With a schema: the full name of the message type the bytes were read as.
    #[serde(skip_serializing_if = "Option::is_none")]
    message_type: Option<String>,
}

/// Decode protobuf bytes, with or without a .proto schema.
///
/// Without a schema, lists every field with its number, wire type, offsets and each reading
/// of its value (unsigned, signed, ZigZag, bool, float, text), and prints the message as
/// `protoc --decode_raw` does. As there, a length-delimited field whose bytes read as a message
/// is shown as one, at most 10 such fields deep; groups nest at most 100 deep. With `schema`,
/// each message is also answered in the proto3 JSON mapping. With `delimited`, the input is a
/// stream of length-prefixed messages. Bytes that are not protobuf are a 400 naming the byte
/// offset and the reason.
#[op(post "/v1/protobuf/decode" as protobufDecode, tag = TextAndData, cpu,
     rejects = "bytes that are not a protobuf message, a schema that does not compile, or a message type it does not declare",
     example(raw, {"input": "089601120774657374696e671a03089601", "inputEncoding": "hex"}),
     example(with_schema, {"input": "0a067772656e6368109a05", "inputEncoding": "hex",
         "schema": "syntax = \"proto3\";\nmessage Tool {\n  string name = 1;\n  int64 stars = 2;\n}\n"}),
     example(delimited, {"input": "03089601030a0161", "inputEncoding": "hex", "delimited": true}),
     example(malformed, {"input": "0a05ab", "inputEncoding": "hex"}, status = 400))]
async fn protobuf_decode(ctx: &Ctx, input: ProtobufDecodeInput) -> Result<ProtobufDecodeOutput, ApiError> {
    decode(input, ctx.config.response_limit)
}

fn decode(input: ProtobufDecodeInput, limit: usize) -> Result<ProtobufDecodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let not_protobuf =
        |e: wire::Fault| ApiError::invalid("input", format!("not protobuf at byte {}: {}", e.offset, e.reason));
    let message_type = match &input.schema {
        Some(s) => Some(schema::message_type(s, input.message_type.as_deref())?),
        None if input.message_type.is_some() => {
            return Err(ApiError::invalid("messageType", "needs a schema that declares it"));
        }
        None => None,
    };
    let runs = if input.delimited {
        wire::split_delimited(&bytes).map_err(not_protobuf)?
    } else {
        std::iter::once(0..bytes.len()).collect()
    };
    let mut budget = OutputBudget::new(limit);
    let mut messages = Vec::with_capacity(runs.len().min(1024));
    for run in runs {
        budget.add(MESSAGE_OVERHEAD)?;
        let top = Limits { groups: MAX_GROUP_DEPTH, nested: NESTED_BUDGET };
        let fields = wire::read_message(&bytes, run.clone(), top).map_err(not_protobuf)?;
        let json = match &message_type {
            Some(m) => {
                let json = schema::to_json(m, &bytes[run.clone()], run.start)?;
                budget.add(wrench_infra::bounds::json_size(&json))?;
                Some(json)
            }
            None => None,
        };
        let listed = render::flatten(&bytes, &fields, input.output_encoding, &mut budget)?;
        let text = render::text(&bytes, &fields, limit.saturating_sub(budget.used()))?;
        budget.add_json_string(&text)?;
        messages.push(DecodedMessage { offset: run.start, length: run.len(), fields: listed, text, json });
    }
    Ok(ProtobufDecodeOutput { messages, message_type: message_type.map(|m| m.full_name().to_owned()) })
}

#[cfg(test)]
mod tests;
