//! `url/clean`: a link without its tracking parameters (`utm_*`, `fbclid`, `gclid` and the
//! others `trackers.rs` lists), and by default without the redirect wrappers `url/unwrap`
//! peels. Everything else in the link stays exactly as written: the other parameters keep
//! their order and their escapes, and the fragment is untouched.

use wrench_contract::prelude::*;

use super::query::pairs;
use super::trackers::tracker;
use super::unwrap::{Layer, peel};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct CleanInput {
    /// The link.
    #[schemars(length(min = 1, max = 32768))]
    url: String,
    /// Peel redirect wrappers (as `url/unwrap` does) before cleaning; default true.
    #[serde(default = "yes")]
    unwrap: bool,
    /// Parameter names to keep even though they are trackers (matched without regard to case).
    #[serde(default)]
    #[schemars(length(max = 100))]
    keep: Vec<String>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Serialize, JsonSchema)]
struct Removed {
    /// The parameter's name, decoded.
    name: String,
    /// Its value, decoded.
    value: String,
    /// What it tracks.
    reason: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
struct CleanOutput {
    /// The link, unwrapped and without its tracking parameters.
    url: String,
    /// The parameters taken off, in the order they were written.
    removed: Vec<Removed>,
    /// The wrappers peeled first, outermost first (empty when `unwrap` is false or there were
    /// none).
    unwrapped: Vec<Layer>,
}

/// Remove tracking parameters from a link.
///
/// Takes off the parameters that track a click rather than choose a page: `utm_*`, `mtm_*`,
/// `pk_*`, `hsa_*`, `itm_*`, and the click IDs of Google, Microsoft, Meta, X, TikTok,
/// LinkedIn, Yandex, Pinterest, Snapchat, Adobe, Mailchimp, HubSpot, Marketo and others (each
/// named in `removed` with what it tracks). By default the link is first unwrapped from
/// redirect wrappers as `url/unwrap` does. Everything else stays exactly as written: the other
/// parameters, their order and escapes, and the fragment. `keep` spares named parameters.
#[op(post "/v1/url/clean" as urlClean, tag = DeveloperUtilities, pipe(url -> url),
     rejects = "text that is not an absolute URL, or a wrapper's link without a readable destination",
     example(campaign, {"url": "https://shop.example/item/42?color=blue&utm_source=newsletter&utm_medium=email&fbclid=IwAR0abc&size=m#reviews"}),
     example(wrapped, {"url": "https://www.google.com/url?q=https%3A%2F%2Fexample.org%2Fpost%3Fid%3D9%26gclid%3DCj0K&sa=D", "keep": ["utm_campaign"]}),
     example(relative, {"url": "?utm_source=x"}, status = 400))]
async fn url_clean(input: CleanInput) -> Result<CleanOutput, ApiError> {
    let unwrapped = if input.unwrap { peel(&input.url)? } else { Vec::new() };
    let link = unwrapped.last().map_or_else(|| input.url.trim().to_string(), |l| l.url.clone());
    url::Url::parse(&link).map_err(|e| ApiError::invalid("url", format!("is not an absolute URL: {e}")))?;
    let keep: Vec<String> = input.keep.iter().map(|k| k.to_ascii_lowercase()).collect();
    let (url, removed) = strip(&link, &keep);
    Ok(CleanOutput { url, removed, unwrapped })
}

/// `link` without its trackers (but those named in `keep`, lower-cased), and what was taken.
fn strip(link: &str, keep: &[String]) -> (String, Vec<Removed>) {
    let (before_fragment, fragment) = match link.find('#') {
        Some(i) => link.split_at(i),
        None => (link, ""),
    };
    let Some((base, query)) = before_fragment.split_once('?') else {
        return (link.to_string(), Vec::new());
    };
    let mut kept = Vec::new();
    let mut removed = Vec::new();
    for pair in pairs(query) {
        match tracker(&pair.name).filter(|_| !keep.contains(&pair.name.to_ascii_lowercase())) {
            Some(reason) => removed.push(Removed { name: pair.name, value: pair.value, reason }),
            None => kept.push(pair.raw),
        }
    }
    if removed.is_empty() {
        return (link.to_string(), removed);
    }
    let mut out = base.to_string();
    if !kept.is_empty() {
        out.push('?');
        out.push_str(&kept.join("&"));
    }
    out.push_str(fragment);
    (out, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_trackers_go_and_the_rest_stays_as_written() {
        let (url, removed) = strip("https://a.example/p?x=%41+b&UTM_Source=n%20l&y&fbclid=1#f?utm_x=1", &[]);
        assert_eq!(url, "https://a.example/p?x=%41+b&y#f?utm_x=1");
        let names: Vec<_> = removed.iter().map(|r| (r.name.as_str(), r.value.as_str())).collect();
        assert_eq!(names, [("UTM_Source", "n l"), ("fbclid", "1")]);
        let (url, removed) = strip("https://a.example/?gclid=1&utm_source=2", &["gclid".into()]);
        assert_eq!((url.as_str(), removed.len()), ("https://a.example/?gclid=1", 1));
        assert_eq!(strip("https://a.example/?utm_=1", &[]).0, "https://a.example/?utm_=1");
        assert_eq!(strip("https://a.example/?utm_a=1#top", &[]).0, "https://a.example/#top");
    }

    #[test]
    fn generated_links_keep_what_urllib_reads_as_ordinary() {
        // tests/fixtures/links.py: the pairs Python's `parse_qsl` reads, split into trackers
        // and the rest. What remains is read back with a second decoder (form_urlencoded).
        let cases = crate::testing::fixture("links.json");
        let cases = cases["clean"].as_array().expect("cases");
        assert_eq!(cases.len(), 160);
        let pairs_of = |v: &Value| -> Vec<(String, String)> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string()))
                .collect()
        };
        for case in cases {
            let link = case["link"].as_str().unwrap();
            let (url, removed) = strip(link, &[]);
            let fragment = case["fragment"].as_str().unwrap();
            let rest = url.strip_suffix(fragment).unwrap_or_else(|| panic!("{url} lost {fragment}"));
            let (base, query) = rest.split_once('?').unwrap_or((rest, ""));
            assert_eq!(base, case["base"].as_str().unwrap(), "{link}");
            let kept: Vec<(String, String)> =
                form_urlencoded::parse(query.as_bytes()).map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
            assert_eq!(kept, pairs_of(&case["kept"]), "{link} -> {url}");
            let removed: Vec<(String, String)> = removed.into_iter().map(|r| (r.name, r.value)).collect();
            assert_eq!(removed, pairs_of(&case["removed"]), "{link}");
        }
    }
}
