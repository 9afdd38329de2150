//! `text/extract`: the indicators of chosen kinds in a text, each kind's list in order of first
//! appearance, optionally refanged first so that `hxxp://evil[.]com` is found as a URL.

use std::collections::{BTreeMap, HashSet};

use wrench_contract::prelude::*;

use super::{
    fang::refang,
    scan::{IndicatorKind, find},
};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TextExtractInput {
    /// The text to search.
    text: String,
    /// The kinds to look for; all of them when absent.
    #[serde(default)]
    #[schemars(length(min = 1, max = 11))]
    types: Option<Vec<IndicatorKind>>,
    /// List each indicator once (the default), as first written; `false` lists every
    /// occurrence.
    #[serde(default = "yes")]
    unique: bool,
    /// Refang the text first (`hxxp`, `[.]`, `(at)` and the other notations `text/refang`
    /// reads), so defanged indicators are found; they are listed refanged.
    #[serde(default)]
    refang: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Serialize, JsonSchema)]
struct TextExtractOutput {
    /// For each kind asked for, its indicators in order of first appearance (an empty list when
    /// there are none).
    matches: BTreeMap<IndicatorKind, Vec<String>>,
    /// For each kind asked for, how many were listed.
    counts: BTreeMap<IndicatorKind, usize>,
    /// How many were listed in all.
    total: usize,
}

/// Extract indicators from text: URLs, e-mails, domains, IPs, MACs, hashes, CVEs.
///
/// Finds each kind on its own, so a domain inside a URL or an e-mail address is listed as a
/// domain too. Addresses are validated rather than pattern-matched (`999.1.1.1` and `1.2.3.4.5`
/// are not IPv4 addresses; an IPv6 address must parse), a domain must end in a suffix of the
/// public suffix list (so a file name whose extension is a country code, such as `setup.py`,
/// counts as one), and a hash is a run of hex digits of exactly 32, 40, 64 or 128 standing
/// alone. CVE names are given in upper case; everything else as written.
#[op(post "/v1/text/extract" as textExtract, tag = TextAndData,
     example(report, {"text": "Beacon to hxxps://update-check[.]example[.]net/api from 203.0.113.7 and 2001:db8::42; payload 44d88612fea8a8f36de82e1278abb02f (CVE-2021-44228). Contact soc@example.org."}),
     example(refanged, {"text": "Beacon to hxxps://update-check[.]example[.]net/api from 203[.]0[.]113[.]7", "refang": true, "types": ["url", "ipv4", "domain"]}),
     example(every_occurrence, {"text": "10.0.0.1 then 10.0.0.1 again, not 10.0.0.256", "types": ["ipv4"], "unique": false}))]
async fn text_extract(input: TextExtractInput) -> Result<TextExtractOutput, ApiError> {
    let text = if input.refang { refang(&input.text).0 } else { input.text };
    let mut kinds = input.types.unwrap_or_else(|| IndicatorKind::ALL.to_vec());
    kinds.sort();
    kinds.dedup();
    let mut matches = BTreeMap::new();
    for kind in kinds {
        let mut seen = HashSet::new();
        let list: Vec<String> = find(&text, kind)
            .into_iter()
            .map(|f| {
                let found = &text[f.start..f.end];
                if kind == IndicatorKind::Cve { found.to_ascii_uppercase() } else { found.to_string() }
            })
            .filter(|m| !input.unique || seen.insert(m.to_lowercase()))
            .collect();
        matches.insert(kind, list);
    }
    let counts: BTreeMap<IndicatorKind, usize> = matches.iter().map(|(k, v)| (*k, v.len())).collect();
    Ok(TextExtractOutput { total: counts.values().sum(), counts, matches })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Generated texts (tests/fixtures/indicators.py): every kind's list is what the generator
    /// placed, in order, decoys (`999.1.1.1`, `1.2.3.4.5`, a 33-digit hex run) left out.
    #[tokio::test]
    async fn finds_what_was_placed() {
        let cases = crate::testing::fixture("indicators.json");
        for c in cases.as_array().unwrap() {
            let input =
                TextExtractInput { text: c["text"].as_str().unwrap().into(), types: None, unique: true, refang: false };
            let out = serde_json::to_value(text_extract(input).await.unwrap()).unwrap();
            for kind in IndicatorKind::ALL {
                let name = serde_json::to_value(kind).unwrap();
                let name = name.as_str().unwrap();
                let want = c["expected"].get(name).cloned().unwrap_or(json!([]));
                assert_eq!(out["matches"][name], want, "{name} in {}", c["text"]);
            }
        }
    }

    #[tokio::test]
    async fn every_occurrence_and_refanged() {
        let text = "hxxp://a[.]example[.]com and 10.0.0.1, 10.0.0.1; 10.0.0.256 cve-2021-44228";
        let input = TextExtractInput { text: text.into(), types: None, unique: false, refang: true };
        let out = text_extract(input).await.unwrap();
        assert_eq!(out.matches[&IndicatorKind::Url], ["http://a.example.com"]);
        assert_eq!(out.matches[&IndicatorKind::Ipv4], ["10.0.0.1", "10.0.0.1"]);
        assert_eq!(out.matches[&IndicatorKind::Cve], ["CVE-2021-44228"]);
        assert_eq!(out.matches[&IndicatorKind::Domain], ["a.example.com"]);
    }
}
