//! Decoding with a schema: the caller's `.proto` text compiled in memory (protox, with the
//! well-known types of `google/protobuf/*.proto` and no other imports, so nothing is read from
//! disk), and the bytes read as its message type into the proto3 JSON mapping
//! (prost-reflect), as `MessageToJson` writes it by default: lowerCamelCase names, fields at
//! their default value left out, enums by name, 64-bit integers as strings, bytes in Base64.

use miette::Diagnostic;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, SerializeOptions};
use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};
use serde_json::Value;

use wrench_contract::prelude::*;

/// The name the caller's schema is compiled under, as its errors call it.
const FILE_NAME: &str = "schema.proto";

/// Serves the caller's text as the one file besides the well-known types.
struct CallerFile(String);

impl FileResolver for CallerFile {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        if name == FILE_NAME { File::from_source(name, &self.0) } else { Err(protox::Error::file_not_found(name)) }
    }
}

/// `line:column` (both from 1) of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{line}:{column}")
}

/// A compile error as a 400 on `schema`, located where the compiler points.
fn schema_error(text: &str, e: &protox::Error) -> ApiError {
    let place = e.labels().and_then(|mut l| l.next()).map(|l| format!(" at {}", line_column(text, l.offset())));
    let help = e.help().map(|h| format!(" ({h})")).unwrap_or_default();
    ApiError::invalid("schema", format!("does not compile{}: {e}{help}", place.unwrap_or_default()))
}

/// The stack the schema compiler runs on. Its lexer takes stack in proportion to the
/// characters outside ASCII in one comment or string (a 10,000-character comment of `é`
/// overflowed a 2 MiB thread in a debug build and ended the process); the declared bound of
/// 262,144 characters fits in this, which is reserved, not committed, until used.
const COMPILER_STACK: usize = 256 << 20;

/// `text` compiled with the well-known types beside it.
fn compile(text: &str) -> Result<DescriptorPool, ApiError> {
    let mut files = ChainFileResolver::new();
    files.add(CallerFile(text.to_owned()));
    files.add(GoogleFileResolver::new());
    let mut compiler = protox::Compiler::with_file_resolver(files);
    compiler.include_imports(true);
    compiler.open_file(FILE_NAME).map_err(|e| schema_error(text, &e))?;
    Ok(compiler.descriptor_pool())
}

/// Compiles `text` and finds the message type to decode as: `name` (with or without its
/// package), or else the schema's only top-level message.
pub(super) fn message_type(text: &str, name: Option<&str>) -> Result<MessageDescriptor, ApiError> {
    let pool = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(COMPILER_STACK)
            .spawn_scoped(s, || compile(text))
            .map_err(|e| ApiError::internal(format!("no thread for the schema compiler: {e}")))?
            .join()
            .map_err(|_| ApiError::internal("the schema compiler failed"))?
    })?;
    let file = pool.get_file_by_name(FILE_NAME).ok_or_else(|| ApiError::internal("the compiled schema is missing"))?;
    let declared: Vec<MessageDescriptor> = file.messages().collect();
    let names = || declared.iter().map(|m| m.full_name().to_owned()).collect::<Vec<_>>().join(", ");
    match name {
        Some(n) => {
            let n = n.trim_start_matches('.');
            let qualified =
                if file.package_name().is_empty() { n.to_owned() } else { format!("{}.{n}", file.package_name()) };
            pool.get_message_by_name(n).or_else(|| pool.get_message_by_name(&qualified)).ok_or_else(|| {
                ApiError::invalid("messageType", format!("the schema declares no message {n}; it declares {}", names()))
            })
        }
        None => match declared.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(ApiError::invalid("schema", "declares no message to decode as")),
            _ => Err(ApiError::invalid(
                "messageType",
                format!("is needed: the schema declares several messages ({})", names()),
            )),
        },
    }
}

/// `bytes` read as `message` and written in the proto3 JSON mapping; `at` is where the bytes
/// start in the input, for the error.
pub(super) fn to_json(message: &MessageDescriptor, bytes: &[u8], at: usize) -> Result<Value, ApiError> {
    let decoded = DynamicMessage::decode(message.clone(), bytes).map_err(|e| {
        ApiError::invalid("input", format!("the message at byte {at} is not a {}: {e}", message.full_name()))
    })?;
    // Written as text first: serde_json's text writes a `float` in its shortest 32-bit form
    // (0.1), as MessageToJson does, where its `Value` would widen it to 0.10000000149011612.
    let mut text = Vec::new();
    decoded
        .serialize_with_options(&mut serde_json::Serializer::new(&mut text), &SerializeOptions::new())
        .map_err(|e| ApiError::invalid("input", format!("the message at byte {at} has no JSON form: {e}")))?;
    serde_json::from_slice(&text).map_err(|e| ApiError::internal(format!("the JSON form does not read back: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_point_into_the_schema() {
        let e = message_type("syntax = \"proto3\";\nmessage A {\n  int32 x = 1\n}\n", None).unwrap_err();
        assert!(e.message.contains("at 4:1"), "{}", e.message);
        let e = message_type("syntax = \"proto3\";\nmessage A { Missing m = 1; }\n", None).unwrap_err();
        assert!(e.message.contains("at 2:13") && e.message.contains("Missing"), "{}", e.message);
        let e = message_type("import \"other.proto\";\nmessage A {}\n", None).unwrap_err();
        assert!(e.message.contains("other.proto"), "{}", e.message);
        let two = "syntax = \"proto3\";\npackage p;\nmessage A {}\nmessage B { A a = 1; }\n";
        assert!(message_type(two, None).unwrap_err().message.contains("p.A, p.B"));
        assert_eq!(message_type(two, Some("B")).unwrap().full_name(), "p.B");
        assert_eq!(message_type(two, Some(".p.A")).unwrap().full_name(), "p.A");
        assert!(message_type(two, Some("C")).is_err());
    }

    #[test]
    fn well_known_types_are_importable() {
        let schema = "syntax = \"proto3\";\nimport \"google/protobuf/timestamp.proto\";\n\
                      message E { google.protobuf.Timestamp at = 1; }\n";
        let m = message_type(schema, None).unwrap();
        // at { seconds: 1 }
        assert_eq!(
            to_json(&m, &[0x0a, 0x02, 0x08, 0x01], 0).unwrap(),
            serde_json::json!({"at": "1970-01-01T00:00:01Z"})
        );
    }
}
