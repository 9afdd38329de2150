//! `text/distance`: how far apart two strings are, by the usual edit distances and similarity
//! measures, counted in Unicode characters (code points), as PyPI `rapidfuzz.distance` counts
//! them on Python strings.

use wrench_contract::prelude::*;

/// The longest string for the metrics that keep one row of a table (every one but
/// Damerau-Levenshtein): 10,000 × 10,000 cells stay within a quarter of a second.
const MAX_CHARS: usize = 10_000;
/// Damerau-Levenshtein keeps its whole table: 2,000 × 2,000 cells of 8 bytes are 32 MB.
const MAX_DAMERAU_CHARS: usize = 2_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "kebab-case")]
enum Metric {
    /// Insertions, deletions and substitutions.
    Levenshtein,
    /// Levenshtein plus transpositions of adjacent characters, unrestricted.
    DamerauLevenshtein,
    /// Optimal string alignment: transpositions, each substring edited at most once.
    Osa,
    /// Positions that differ; the longer string's extra characters count as differing.
    Hamming,
    /// Insertions and deletions only.
    Indel,
    /// The longest common subsequence: the distance is the longer length less its length.
    Lcs,
    /// Jaro similarity; the distance is 1 less it.
    Jaro,
    /// Jaro-Winkler (prefix scale 0.1, up to 4 characters, above 0.7).
    JaroWinkler,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct DistanceInput {
    /// The first string (at most 10,000 characters; 2,000 for `damerau-levenshtein`).
    #[schemars(length(max = 10000))]
    a: String,
    /// The second string, as long.
    #[schemars(length(max = 10000))]
    b: String,
    /// The measure (default `levenshtein`).
    #[serde(default = "levenshtein")]
    metric: Metric,
}

fn levenshtein() -> Metric {
    Metric::Levenshtein
}

#[derive(Debug, Serialize, JsonSchema)]
struct DistanceOutput {
    metric: Metric,
    /// The distance: a count of edits or positions, or 1 less the similarity for `jaro` and
    /// `jaro-winkler`.
    distance: f64,
    /// From 0 (nothing alike) to 1 (equal): 1 less the distance over its largest possible value
    /// for these lengths (the longer length; the sum of lengths for `indel`).
    similarity: f64,
}

/// The length of the longest common subsequence, one table row at a time.
fn lcs_len(a: &[char], b: &[char]) -> usize {
    let mut row = vec![0usize; b.len() + 1];
    for &ca in a {
        let mut diagonal = 0;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb { diagonal + 1 } else { above.max(row[j]) };
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Measure the edit distance or similarity of two strings.
///
/// Levenshtein, Damerau-Levenshtein, optimal string alignment, Hamming, Indel, longest common
/// subsequence, Jaro and Jaro-Winkler, over Unicode characters, with a similarity from 0 to 1
/// normalised as PyPI `rapidfuzz` normalises it. Strings of up to 10,000 characters (2,000 for
/// Damerau-Levenshtein, whose table is quadratic in memory).
#[op(post "/v1/text/distance" as textDistance, tag = TextAndData, cpu,
     rejects = "strings longer than Damerau-Levenshtein's 2,000 characters",
     example(kitten, {"a": "kitten", "b": "sitting"}),
     example(jaro_winkler, {"a": "MARTHA", "b": "MARHTA", "metric": "jaro-winkler"}),
     example(transposition, {"a": "ca", "b": "abc", "metric": "damerau-levenshtein"}),
     example(unknown_metric, {"a": "a", "b": "b", "metric": "soundex"}, status = 400))]
async fn text_distance(input: DistanceInput) -> Result<DistanceOutput, ApiError> {
    let (a, b) = (input.a.as_str(), input.b.as_str());
    let (la, lb) = (a.chars().count(), b.chars().count());
    for (field, len) in [("a", la), ("b", lb)] {
        if len > MAX_CHARS || (input.metric == Metric::DamerauLevenshtein && len > MAX_DAMERAU_CHARS) {
            return Err(ApiError::invalid(field, format!("has {len} characters, more than this metric takes")));
        }
    }
    let longer = la.max(lb) as f64;
    let normalised = |d: usize, most: f64| if most == 0.0 { 1.0 } else { 1.0 - d as f64 / most };
    let (distance, similarity) = match input.metric {
        Metric::Levenshtein => {
            let d = strsim::levenshtein(a, b);
            (d as f64, normalised(d, longer))
        }
        Metric::DamerauLevenshtein => {
            let d = strsim::damerau_levenshtein(a, b);
            (d as f64, normalised(d, longer))
        }
        Metric::Osa => {
            let d = strsim::osa_distance(a, b);
            (d as f64, normalised(d, longer))
        }
        Metric::Hamming => {
            let differ = a.chars().zip(b.chars()).filter(|(x, y)| x != y).count();
            let d = differ + la.abs_diff(lb);
            (d as f64, normalised(d, longer))
        }
        Metric::Indel | Metric::Lcs => {
            let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let common = lcs_len(&ca, &cb);
            if input.metric == Metric::Indel {
                let d = la + lb - 2 * common;
                (d as f64, normalised(d, (la + lb) as f64))
            } else {
                let d = la.max(lb) - common;
                (d as f64, normalised(d, longer))
            }
        }
        Metric::Jaro => {
            let s = strsim::jaro(a, b);
            (1.0 - s, s)
        }
        Metric::JaroWinkler => {
            let s = strsim::jaro_winkler(a, b);
            (1.0 - s, s)
        }
    };
    Ok(DistanceOutput { metric: input.metric, distance, similarity })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyPI rapidfuzz's `distance` module (tests/fixtures/distance.py): every metric's distance
    /// and normalised similarity on generated pairs, Unicode among them.
    #[tokio::test]
    async fn rapidfuzzs_distances() {
        let f = crate::testing::fixture("distance.json");
        let cases = f.as_array().unwrap();
        assert!(cases.len() >= 200);
        for c in cases {
            let (a, b) = (c["a"].as_str().unwrap(), c["b"].as_str().unwrap());
            let metric: Metric = serde_json::from_value(c["metric"].clone()).unwrap();
            let out = text_distance(DistanceInput { a: a.into(), b: b.into(), metric }).await.unwrap();
            let (d, s) = (c["distance"].as_f64().unwrap(), c["similarity"].as_f64().unwrap());
            assert!((out.distance - d).abs() < 1e-9, "{metric:?} {a:?} {b:?}: {} vs {d}", out.distance);
            assert!((out.similarity - s).abs() < 1e-9, "{metric:?} {a:?} {b:?}: {} vs {s}", out.similarity);
        }
    }

    #[tokio::test]
    async fn lengths_are_bounded_per_metric() {
        let long = "x".repeat(2001);
        let e = text_distance(DistanceInput { a: long.clone(), b: "y".into(), metric: Metric::DamerauLevenshtein })
            .await
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("a"));
        let widest = "ab".repeat(5000);
        let out = text_distance(DistanceInput {
            a: widest.clone(),
            b: widest.chars().rev().collect(),
            metric: Metric::Levenshtein,
        })
        .await
        .unwrap();
        assert_eq!(out.distance, 2.0);
        assert!(text_distance(DistanceInput { a: long, b: "y".into(), metric: Metric::Osa }).await.is_ok());
    }
}
