//! `decompress`: bytes in one of eight formats, named or found by their signature, never more
//! of them than the answer may hold.

use wrench_contract::prelude::*;
use wrench_infra::bounds;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

use super::formats::{self, Fault, Format};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum FormatOrAuto {
    /// Found by the signature the data starts with (gzip, zlib, zstd, bzip2, xz, lz4).
    Auto,
    Gzip,
    Zlib,
    Deflate,
    Brotli,
    Zstd,
    Bzip2,
    Xz,
    Lz4,
}

fn auto() -> FormatOrAuto {
    FormatOrAuto::Auto
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DecompressInput {
    /// The compressed bytes, written as `inputEncoding` says (Base64 unless told otherwise).
    input: String,
    /// How `input` carries its bytes: `base64` (the default here, since compressed data is
    /// not text), `base64url`, `hex` or `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
    /// `auto` (the default: by the signature; Brotli and raw DEFLATE have none and must be
    /// named), `gzip`, `zlib`, `deflate`, `brotli`, `zstd`, `bzip2`, `xz` or `lz4`.
    #[serde(default = "auto")]
    format: FormatOrAuto,
    /// How to write the decompressed bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8`, `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DecompressOutput {
    /// The decompressed bytes, written as `outputEncoding` says.
    output: String,
    /// How `output` is written: `utf-8`, `hex`, `base64` or `base64url`.
    output_encoding: UsedEncoding,
    /// The format read (found by its signature with `auto`).
    format: Format,
    /// Bytes in.
    input_bytes: usize,
    /// Bytes out.
    output_bytes: usize,
}

fn named(format: FormatOrAuto) -> Option<Format> {
    Some(match format {
        FormatOrAuto::Auto => return None,
        FormatOrAuto::Gzip => Format::Gzip,
        FormatOrAuto::Zlib => Format::Zlib,
        FormatOrAuto::Deflate => Format::Deflate,
        FormatOrAuto::Brotli => Format::Brotli,
        FormatOrAuto::Zstd => Format::Zstd,
        FormatOrAuto::Bzip2 => Format::Bzip2,
        FormatOrAuto::Xz => Format::Xz,
        FormatOrAuto::Lz4 => Format::Lz4,
    })
}

/// The most bytes whose answer, in `encoding`, fits in `limit`: Base64 writes four characters
/// for three bytes, hex two for one, and text escapes to at most two (`auto` chooses text only
/// without control characters, whose escapes are longer).
fn cap_for(encoding: OutputEncoding, limit: usize) -> usize {
    let room = limit.saturating_sub(256);
    match encoding {
        OutputEncoding::Hex => room / 2,
        OutputEncoding::Utf8 => room / 6,
        OutputEncoding::Auto | OutputEncoding::Base64 | OutputEncoding::Base64Url => room / 4 * 3,
    }
}

/// Decompress gzip, zlib, DEFLATE, Brotli, Zstandard, bzip2, xz or LZ4 data.
///
/// Reads the bytes of `input` (Base64 by default) in the named format, or with `auto` the one
/// its signature shows (Brotli and raw DEFLATE have none and must be named). Several gzip,
/// bzip2, xz or Zstandard streams one after another are read as one, as the tools do. The
/// output stops one byte past the most the answer can hold within the response limit, so a
/// decompression bomb is a 400 `RESULT_TOO_LARGE` that has cost no more memory than that; xz
/// streams asking for more than 80 MiB and Zstandard windows over 16 MiB are refused too.
/// Data that is not valid in the format is a 400 naming `input`. The bytes come back as text
/// when they are text, else in the encoding `outputEncoding` names.
#[op(post "/v1/decompress" as decompress, tag = TextAndData, pipe(input -> output),
     rejects = "`input` that is not in its `inputEncoding`, not in the format or of no known signature, or that decompresses past the response limit",
     example(gzip_auto, {"input": "H4sIAAAAAAACA/NIzcnJ11EIzy/KSVHkAgCEnui0DgAAAA=="}),
     example(brotli_named, {"input": "jwaAd3JlbmNoLCBicm90bGkD", "format": "brotli"}),
     example(zstd_hex_input, {"input": "28b52ffd04582100006869210a9fed96d8", "inputEncoding": "hex", "outputEncoding": "hex"}),
     example(no_signature, {"input": "bm90IGNvbXByZXNzZWQ="}, status = 400))]
async fn decompress(ctx: &Ctx, input: DecompressInput) -> Result<DecompressOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let format = match named(input.format) {
        Some(format) => format,
        None => Format::sniff(&bytes).ok_or_else(|| {
            let start: String = bytes.iter().take(6).map(|b| format!("{b:02x}")).collect();
            ApiError::invalid(
                "input",
                format!(
                    "starts with {start:?}, the signature of no format known here (gzip 1f8b, zlib 78.., zstd 28b52ffd, \
                     bzip2 425a68, xz fd377a585a00, lz4 04224d18); Brotli and raw DEFLATE have none: name the format"
                ),
            )
        })?,
    };
    let limit = ctx.config.response_limit;
    let cap = cap_for(input.output_encoding, limit);
    let input_bytes = bytes.len();
    let out = wrench_infra::cpu::run(move || {
        formats::decompress(&bytes, format, cap).map_err(|fault| match fault {
            Fault::TooLarge => bounds::result_too_large(cap + 1, true, cap),
            Fault::Corrupt(why) => ApiError::invalid("input", format!("is not valid {} data: {why}", format.name())),
        })
    })
    .await?;
    let (output, output_encoding) = byte_encoding::encode(&out, input.output_encoding, "outputEncoding")?;
    Ok(DecompressOutput { output, output_encoding, format, input_bytes, output_bytes: out.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format written by its own tool (Debian's gzip, zstd, bzip2, xz, lz4 and brotli;
    /// Python's zlib for zlib and raw DEFLATE), streams one after another included, read back
    /// here (tests/fixtures/compression.py). tests/it/compression.rs has the tools read what
    /// is written here.
    #[test]
    fn the_tools_and_wrench_read_each_other() {
        let fixture = crate::testing::fixture("compression.json");
        let samples: Vec<Vec<u8>> = fixture["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| ::hex::decode(h.as_str().unwrap()).unwrap())
            .collect();
        let cases = fixture["written"].as_array().unwrap();
        assert!(cases.len() >= 40);
        for case in cases {
            let format: Format = serde_json::from_value(case["format"].clone()).unwrap();
            let data = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            let sample = &samples[case["sample"].as_u64().unwrap() as usize];
            let read = formats::decompress(&data, format, 8 << 20).unwrap();
            assert_eq!(&read, sample, "{} by {}", format.name(), case["by"]);
            if !matches!(format, Format::Brotli | Format::Deflate) {
                assert_eq!(Format::sniff(&data), Some(format), "{}", case["by"]);
            }
        }
    }

    /// A megabyte of zeros compresses to a few hundred bytes in every format; with a cap of
    /// 64 KiB each stops one byte past it.
    #[test]
    fn bombs_stop_at_the_cap() {
        let zeros = vec![0u8; 1 << 20];
        for format in Format::ALL {
            let bomb = formats::compress(&zeros, format, format.levels().2).unwrap();
            assert!(bomb.len() < 8 << 10, "{} {}", format.name(), bomb.len());
            assert!(matches!(formats::decompress(&bomb, format, 64 << 10), Err(Fault::TooLarge)), "{}", format.name());
            assert_eq!(formats::decompress(&bomb, format, 1 << 20).unwrap().len(), 1 << 20);
        }
    }

    /// Truncated or altered data is an error in every format, never a silent short answer.
    #[test]
    fn damaged_data_is_refused() {
        let text = b"The quick brown fox jumps over the lazy dog. ".repeat(50);
        for format in Format::ALL {
            let packed = formats::compress(&text, format, format.levels().2).unwrap();
            let cut = &packed[..packed.len() - 3];
            assert!(
                matches!(formats::decompress(cut, format, 1 << 20), Err(Fault::Corrupt(_))),
                "{} cut",
                format.name()
            );
        }
    }
}
