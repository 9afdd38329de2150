//! `file/detect`: what kind of file some bytes are, from the magic numbers at their start (the
//! infer crate's table: images, video, audio, archives, documents, fonts, executables, about
//! 200 formats), else whether they are text. Nothing else is read: a file's name and a
//! client's claims are not evidence.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FileDetectInput {
    /// The file's bytes, or its first few kilobytes (4 KiB suffice for every format known),
    /// in `inputEncoding`.
    #[schemars(length(min = 1))]
    input: String,
    /// How `input` carries its bytes: `base64` (the default), `base64url`, `hex` or `utf-8`.
    #[serde(default = "byte_encoding::base64_input")]
    input_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct FileDetectOutput {
    /// The media type: the format's, `text/plain` for text, `application/octet-stream` when
    /// nothing is known.
    mime_type: &'static str,
    /// The usual extension, without its dot; null when nothing is known.
    extension: Option<&'static str>,
    /// `image`, `video`, `audio`, `archive`, `document`, `book`, `font`, `application`, `text`
    /// or `unknown`.
    kind: &'static str,
    /// Whether a format's magic number matched (false for text and unknown bytes).
    matched: bool,
    /// How many bytes were given.
    size: usize,
}

/// Detect a file's type from its bytes.
///
/// Reads the magic numbers at the start of the bytes (Base64 by default) and answers the
/// format's media type, usual extension and kind, for about 200 formats: images, video,
/// audio, archives and compressed data, documents, e-books, fonts and executables. Bytes no
/// format claims are `text/plain` when they are UTF-8 text without NUL bytes, else
/// `application/octet-stream`. The first 4 KiB of a file are enough.
#[op(post "/v1/file/detect" as fileDetect, tag = DeveloperUtilities, pipe(input -> mimeType),
     rejects = "`input` that is not in its encoding",
     example(png, {"input": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABc3UBGAAAAABJRU5ErkJggg=="}),
     example(gzip_hex, {"input": "1f8b0800000000000003", "inputEncoding": "hex"}),
     example(text, {"input": "name,value\n", "inputEncoding": "utf-8"}),
     example(bad_base64, {"input": "***"}, status = 400))]
async fn file_detect(input: FileDetectInput) -> Result<FileDetectOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let size = bytes.len();
    if let Some(t) = infer::get(&bytes) {
        return Ok(FileDetectOutput {
            mime_type: t.mime_type(),
            extension: Some(t.extension()),
            kind: match t.matcher_type() {
                infer::MatcherType::Image => "image",
                infer::MatcherType::Video => "video",
                infer::MatcherType::Audio => "audio",
                infer::MatcherType::Archive => "archive",
                infer::MatcherType::Doc => "document",
                infer::MatcherType::Book => "book",
                infer::MatcherType::Font => "font",
                infer::MatcherType::Text => "text",
                infer::MatcherType::App | infer::MatcherType::Custom => "application",
            },
            matched: true,
            size,
        });
    }
    let text = !bytes.contains(&0) && std::str::from_utf8(&bytes).is_ok();
    Ok(FileDetectOutput {
        mime_type: if text { "text/plain" } else { "application/octet-stream" },
        extension: text.then_some("txt"),
        kind: if text { "text" } else { "unknown" },
        matched: false,
        size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(bytes: &[u8]) -> FileDetectOutput {
        use base64::Engine;
        let input = FileDetectInput {
            input: base64::engine::general_purpose::STANDARD.encode(bytes),
            input_encoding: InputEncoding::Base64,
        };
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(file_detect(input)).unwrap()
    }

    #[test]
    fn agrees_with_libmagic() {
        // tests/fixtures/file_types.py: files written by Pillow, Python's archive and database
        // modules, the compressors and the system's own executables, each with the media type
        // Debian's `file --mime-type` (libmagic) gives. Where the two name one format
        // differently, the table below says how, and both names are the format's.
        let same_format = |ours: &str, magic: &str| {
            ours == magic
                || matches!(
                    (ours, magic),
                    // IANA registered `image/vnd.microsoft.icon`; `image/x-icon` is what
                    // browsers and most servers send.
                    ("image/x-icon", "image/vnd.microsoft.icon")
                        // libmagic tells position-independent executables (every Debian
                        // binary) from libraries; both are ELF.
                        | ("application/x-executable", "application/x-pie-executable")
                        | ("application/x-executable", "application/x-sharedlib")
                )
        };
        let cases = crate::testing::fixture("file_types.json");
        let cases = cases.as_array().expect("cases");
        assert!(cases.len() >= 20, "{}", cases.len());
        let mut differ = Vec::new();
        for case in cases {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD.decode(case["bytes"].as_str().unwrap()).unwrap();
            let out = detect(&bytes);
            let magic = case["mime"].as_str().unwrap();
            if !same_format(out.mime_type, magic) {
                differ.push(format!("{}: ours {} libmagic {magic}", case["name"], out.mime_type));
            }
        }
        assert!(differ.is_empty(), "{differ:#?}");
    }
}
