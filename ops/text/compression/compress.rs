//! `compress`: bytes in one of eight formats, at a level the format allows.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

use super::formats::{self, Format};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CompressInput {
    /// What to compress: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// `gzip`, `zlib`, `deflate` (raw), `brotli`, `zstd`, `bzip2`, `xz` or `lz4`.
    format: Format,
    /// The level: gzip, zlib and deflate 0-9 (6 by default), brotli 0-11 (5), zstd 1-19 (3),
    /// bzip2 1-9 (9), xz 0-6 (6); lz4 has one level, 0.
    #[serde(default)]
    #[schemars(range(min = 0, max = 19))]
    level: Option<i32>,
    /// How to write the compressed bytes: `base64` (the default here, since compressed data
    /// is not text), `base64url`, `hex`, or `auto` and `utf-8` as everywhere.
    #[serde(default = "wrench_kit::byte_encoding::base64_output")]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CompressOutput {
    /// The compressed bytes, written as `outputEncoding` says.
    output: String,
    /// How `output` is written.
    output_encoding: UsedEncoding,
    /// The format used.
    format: Format,
    /// The level used.
    level: i32,
    /// Bytes in.
    input_bytes: usize,
    /// Bytes out.
    output_bytes: usize,
    /// Bytes out per byte in (0 for empty input).
    ratio: f64,
}

/// Compress bytes with gzip, zlib, DEFLATE, Brotli, Zstandard, bzip2, xz or LZ4.
///
/// Writes the bytes of `input` in the chosen format, as its command-line tool does (`gzip`,
/// `brotli`, `zstd`, `bzip2`, `xz`, `lz4` can read the result; zlib and raw DEFLATE are the
/// streams inside PNG, ZIP and HTTP), at `level` or the format's usual default. xz stops at
/// level 6 and Zstandard at 19, whose higher levels need hundreds of megabytes. The answer
/// gives the sizes and their ratio; the compressed bytes come back in Base64 unless another
/// encoding is asked for. Compression runs on the CPU pool, so it does not hold up cheap
/// requests.
#[op(post "/v1/compress" as compress, tag = TextAndData, pipe(input -> output),
     rejects = "`input` that is not in its `inputEncoding`, or a level outside the format's range",
     example(gzip, {"input": "Hello, Hello, Hello, Hello!", "format": "gzip"}),
     example(zstd_hex, {"input": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "format": "zstd", "level": 19, "outputEncoding": "hex"}),
     example(brotli, {"input": "<html><body>wrench</body></html>", "format": "brotli", "level": 11}),
     example(level_out_of_range, {"input": "x", "format": "xz", "level": 9}, status = 400))]
async fn compress(ctx: &Ctx, input: CompressInput) -> Result<CompressOutput, ApiError> {
    let (low, high, default) = input.format.levels();
    let level = input.level.unwrap_or(default);
    if !(low..=high).contains(&level) {
        return Err(ApiError::invalid(
            "level",
            format!("{} takes levels {low} to {high}; {level} is outside them", input.format.name()),
        ));
    }
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let format = input.format;
    let input_bytes = bytes.len();
    let compressed = wrench_infra::cpu::run(move || {
        formats::compress(&bytes, format, level)
            .map_err(|e| ApiError::internal(format!("{} compression failed: {e}", format.name())))
    })
    .await?;
    // Compressed bytes can be a little larger than the input; their encoding, larger still.
    wrench_infra::bounds::OutputBudget::new(ctx.config.response_limit).add(compressed.len() / 3 * 4 + 64)?;
    let (output, output_encoding) = byte_encoding::encode(&compressed, input.output_encoding, "outputEncoding")?;
    let ratio = if input_bytes == 0 { 0.0 } else { compressed.len() as f64 / input_bytes as f64 };
    Ok(CompressOutput {
        output,
        output_encoding,
        format,
        level,
        input_bytes,
        output_bytes: compressed.len(),
        ratio: (ratio * 10_000.0).round() / 10_000.0,
    })
}
