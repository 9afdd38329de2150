//! `bytes/entropy`: how the byte values of some data are distributed.

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EntropyInput {
    /// The data.
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
struct ByteCount {
    /// The byte value, 0 to 255.
    value: u8,
    count: usize,
    /// Its share of all bytes, in percent.
    percent: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EntropyOutput {
    /// How many bytes.
    length: usize,
    /// How many different byte values occur.
    distinct: usize,
    /// Shannon entropy, bits per byte: 0 for one repeated value, 8 for uniformly random bytes.
    shannon_bits_per_byte: f64,
    /// Every value that occurs, most frequent first (equal counts by value).
    frequency: Vec<ByteCount>,
    /// Pearson's chi-square statistic against a uniform distribution over the 256 values
    /// (255 degrees of freedom; random data scores near 255).
    chi_square: f64,
    /// The chance that two bytes drawn without replacement are equal, Σ n(n−1) / N(N−1); about
    /// 1/256 for random bytes, far higher for text. Null for fewer than two bytes.
    index_of_coincidence: Option<f64>,
}

/// Measure the entropy and byte distribution of data.
///
/// Shannon entropy in bits per byte, the count and share of every byte value, Pearson's
/// chi-square against uniformly distributed bytes and the index of coincidence: what tells
/// compressed or encrypted data (near 8 bits per byte) from text or structured data.
#[op(post "/v1/bytes/entropy" as bytesEntropy, tag = TextAndData, cpu,
     rejects = "input that is not in its inputEncoding",
     example(text, {"input": "hello world"}),
     example(random_looking, {"input": "q83vEmo3lYkS2y0V0b8C7w==", "inputEncoding": "base64"}),
     example(bad_hex, {"input": "zz", "inputEncoding": "hex"}, status = 400))]
async fn bytes_entropy(input: EntropyInput) -> Result<EntropyOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let mut counts = [0usize; 256];
    for &b in &bytes {
        counts[usize::from(b)] += 1;
    }
    let n = bytes.len();
    let total = n as f64;
    let shannon = counts.iter().filter(|&&c| c > 0).map(|&c| c as f64 / total).map(|p| -p * p.log2()).sum::<f64>();
    let expected = total / 256.0;
    let chi_square = if n == 0 { 0.0 } else { counts.iter().map(|&c| (c as f64 - expected).powi(2) / expected).sum() };
    let index_of_coincidence = (n >= 2)
        .then(|| counts.iter().map(|&c| (c * c.saturating_sub(1)) as f64).sum::<f64>() / (total * (total - 1.0)));
    let mut frequency: Vec<ByteCount> = (0..=255u8)
        .filter(|&v| counts[usize::from(v)] > 0)
        .map(|v| ByteCount {
            value: v,
            count: counts[usize::from(v)],
            percent: counts[usize::from(v)] as f64 * 100.0 / total,
        })
        .collect();
    frequency.sort_by(|a, b| b.count.cmp(&a.count).then(a.value.cmp(&b.value)));
    Ok(EntropyOutput {
        length: n,
        distinct: frequency.len(),
        shannon_bits_per_byte: if n == 0 { 0.0 } else { shannon },
        frequency,
        chi_square,
        index_of_coincidence,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `math` and `collections.Counter` (tests/fixtures/entropy.py) on generated data:
    /// text, repeated values, random bytes, bytes that are not UTF-8, one byte and none.
    #[tokio::test]
    async fn pythons_figures() {
        let f = crate::testing::fixture("entropy.json");
        for c in f.as_array().unwrap() {
            let hex = c["hex"].as_str().unwrap();
            let out =
                bytes_entropy(EntropyInput { input: hex.into(), input_encoding: InputEncoding::Hex }).await.unwrap();
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
            assert_eq!(
                (out.length, out.distinct),
                (c["length"].as_u64().unwrap() as usize, c["distinct"].as_u64().unwrap() as usize)
            );
            assert!(close(out.shannon_bits_per_byte, c["shannon"].as_f64().unwrap()), "{hex}");
            assert!(close(out.chi_square, c["chiSquare"].as_f64().unwrap()), "{hex}");
            match c["ic"].as_f64() {
                Some(ic) => assert!(close(out.index_of_coincidence.unwrap(), ic), "{hex}"),
                None => assert!(out.index_of_coincidence.is_none()),
            }
            let top: Vec<(u64, u64)> =
                out.frequency.iter().take(5).map(|b| (u64::from(b.value), b.count as u64)).collect();
            let want: Vec<(u64, u64)> =
                c["top"].as_array().unwrap().iter().map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap())).collect();
            assert_eq!(top, want, "{hex}");
        }
    }
}
