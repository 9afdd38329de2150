//! `text/defang` and `text/refang`. Defanging rewrites the URLs, domains, IP addresses and
//! e-mail addresses of a text so that no mail client, chat or browser turns them into links
//! (`hxxps[://]example[.]com`, `203[.]0[.]113[.]7`, `soc[@]example[.]org`), leaving the rest of
//! the text as it was. Refanging reads the notations analysts use back: `hxxp`/`hXXp`/`h**p`,
//! `fxp`, `[.]` `(.)` `{.}` `[dot]` `(dot)` `{dot}` (spaces allowed inside the brackets), `\.`,
//! `[:]` `(:)`, `[://]`, `[/]`, `[@]` `(@)` `{@}` `[at]` `(at)` `{at}`.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use wrench_contract::prelude::*;

use super::scan::{Found, IndicatorKind, find};

/// The kinds defanging rewrites, in the order they claim text (a URL's domain is the URL's).
const DEFANGED: [IndicatorKind; 5] =
    [IndicatorKind::Url, IndicatorKind::Email, IndicatorKind::Ipv4, IndicatorKind::Ipv6, IndicatorKind::Domain];

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DefangInput {
    /// The text.
    text: String,
    /// The kinds to defang: any of `url`, `email`, `ipv4`, `ipv6`, `domain`; all five when
    /// absent.
    #[serde(default)]
    #[schemars(length(min = 1, max = 5))]
    types: Option<Vec<IndicatorKind>>,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct RefangInput {
    /// The text.
    text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct FangOutput {
    /// The text, rewritten.
    text: String,
    /// How many indicators (defang) or notations (refang) were rewritten.
    changed: usize,
}

/// One indicator defanged: dots become `[.]`, a URL's scheme `hxxp`, `hxxps` or `fxp` and its
/// `://` `[://]`, an e-mail's `@` `[@]`, an IPv6 address's colons `[:]`.
fn defanged(found: &str, kind: IndicatorKind) -> String {
    match kind {
        IndicatorKind::Url => {
            let (scheme, rest) = found.split_once("://").unwrap_or(("", found));
            let scheme = match scheme.to_ascii_lowercase().as_str() {
                "http" => "hxxp",
                "https" => "hxxps",
                "ftp" => "fxp",
                _ => scheme,
            };
            // Only the host's dots: a path's are no link.
            let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            format!("{scheme}[://]{}{}", rest[..host_end].replace('.', "[.]"), &rest[host_end..])
        }
        IndicatorKind::Email => {
            let (local, domain) = found.rsplit_once('@').unwrap_or((found, ""));
            format!("{local}[@]{}", domain.replace('.', "[.]"))
        }
        IndicatorKind::Ipv6 => found.replace(':', "[:]"),
        _ => found.replace('.', "[.]"),
    }
}

/// Defang indicators so they cannot be clicked.
///
/// Rewrites the URLs, e-mail addresses, IPv4 and IPv6 addresses and domain names found in the
/// text (as `text/extract` finds them): `https://evil.example/x` becomes
/// `hxxps[://]evil[.]example/x`, `203.0.113.7` `203[.]0[.]113[.]7`, `bob@evil.example`
/// `bob[@]evil[.]example`, `2001:db8::1` `2001[:]db8[:][:]1`. The rest of the text is left
/// as it was. `text/refang` reads all of these back.
#[op(post "/v1/text/defang" as textDefang, tag = TextAndData, pipe(text -> text),
     rejects = "a type that is not url, email, ipv4, ipv6 or domain",
     example(report, {"text": "Beacon to https://update-check.example.net/api.php from 203.0.113.7; reply to soc@example.org."}),
     example(addresses_only, {"text": "From 203.0.113.7 and 2001:db8::42 to example.com", "types": ["ipv4", "ipv6"]}))]
async fn text_defang(input: DefangInput) -> Result<FangOutput, ApiError> {
    let kinds = input.types.unwrap_or_else(|| DEFANGED.to_vec());
    if let Some(k) = kinds.iter().find(|k| !DEFANGED.contains(k)) {
        return Err(ApiError::invalid(
            "types",
            format!("{k:?} cannot be defanged: give url, email, ipv4, ipv6 or domain"),
        ));
    }
    // Every match, earlier kinds first, then the ones that overlap none already claimed
    // (claims by start; a match overlaps one when the claim starting last before its end
    // reaches past its start).
    let mut claims: std::collections::BTreeMap<usize, Found> = std::collections::BTreeMap::new();
    for kind in DEFANGED.into_iter().filter(|k| kinds.contains(k)) {
        for f in find(&input.text, kind) {
            if claims.range(..f.end).next_back().is_none_or(|(_, c)| c.end <= f.start) {
                claims.insert(f.start, f);
            }
        }
    }
    let claimed: Vec<Found> = claims.into_values().collect();
    let mut text = String::with_capacity(input.text.len() + input.text.len() / 4);
    let mut copied = 0;
    for f in &claimed {
        text.push_str(&input.text[copied..f.start]);
        text.push_str(&defanged(&input.text[f.start..f.end], f.kind));
        copied = f.end;
    }
    text.push_str(&input.text[copied..]);
    Ok(FangOutput { text, changed: claimed.len() })
}

static NOTATIONS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?xi)
        (?P<scheme>\bh(?:xx|\*\*)p(?P<s>s?)\b | \bfxp\b)
        | (?P<sep>\[://\])
        | (?P<dot>[\[(\{]\ ?(?:\.|dot)\ ?[\])\}] | \\\.)
        | (?P<colon>[\[(]\ ?:\ ?[\])])
        | (?P<slash>\[/\])
        | (?P<at>[\[(\{]\ ?(?:@|at)\ ?[\])\}])
        ",
    )
    .expect("valid pattern")
});

/// `text` with the defanging notations read back, and how many there were.
pub(crate) fn refang(text: &str) -> (String, usize) {
    let mut changed = 0;
    let out = NOTATIONS.replace_all(text, |c: &Captures| {
        changed += 1;
        if c.name("scheme").is_some() {
            let written = &c[0];
            if written.eq_ignore_ascii_case("fxp") { "ftp".to_string() } else { format!("http{}", &c["s"]) }
        } else if c.name("sep").is_some() {
            "://".to_string()
        } else if c.name("dot").is_some() {
            ".".to_string()
        } else if c.name("colon").is_some() {
            ":".to_string()
        } else if c.name("slash").is_some() {
            "/".to_string()
        } else {
            "@".to_string()
        }
    });
    (out.into_owned(), changed)
}

/// Refang indicators: read defanged notations back.
///
/// Turns `hxxp`, `hXXp` and `h**p` (and the `s` after them) back into `http`, `fxp` into
/// `ftp`, and the bracketed `[.]`, `(.)`, `{.}`, `[dot]`, `(dot)`, `{dot}` (a space allowed
/// inside), `\.`, `[:]`, `(:)`, `[://]`, `[/]`, `[@]`, `(@)`, `{@}`, `[at]`, `(at)` and `{at}`
/// into what they stand for, anywhere in the text. `changed` counts the notations read back.
#[op(post "/v1/text/refang" as textRefang, tag = TextAndData, pipe(text -> text),
     example(report, {"text": "Beacon to hxxps[://]update-check[.]example[.]net/api from 203[.]0[.]113[.]7; reply to soc(at)example(dot)org."}),
     example(nothing_to_read, {"text": "Plain text: example.com, e.g. (a) and [b]."}))]
async fn text_refang(input: RefangInput) -> Result<FangOutput, ApiError> {
    let (text, changed) = refang(&input.text);
    Ok(FangOutput { text, changed })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defang(text: &str) -> FangOutput {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(text_defang(DefangInput { text: text.into(), types: None })).unwrap()
    }

    /// tests/fixtures/indicators.py: PyPI ioc-fanger's defanging of each text, and a mix of
    /// notations ioc-fanger reads back, both refang to the original; wrench's own defanging
    /// leaves no URL or address linkify would link and no indicator it would defang, and
    /// refangs to the original.
    #[test]
    fn round_trips_with_ioc_fanger() {
        let cases = crate::testing::fixture("indicators.json");
        let finder = linkify::LinkFinder::new();
        for c in cases.as_array().unwrap() {
            let text = c["text"].as_str().unwrap();
            assert_eq!(refang(c["iocFangerDefanged"].as_str().unwrap()).0, text);
            assert_eq!(refang(c["notated"].as_str().unwrap()).0, text);
            let out = defang(text);
            let linked: Vec<&str> = finder.links(&out.text).map(|l| l.as_str()).collect();
            assert!(linked.is_empty(), "{linked:?} in {}", out.text);
            for kind in DEFANGED {
                assert!(find(&out.text, kind).is_empty(), "{kind:?} in {}", out.text);
            }
            assert_eq!(refang(&out.text).0, text);
            assert!(
                out.changed > 0
                    || c["expected"]
                        .as_object()
                        .unwrap()
                        .keys()
                        .all(|k| !["url", "email", "domain", "ipv4", "ipv6"].contains(&k.as_str()))
            );
        }
    }

    #[test]
    fn defangs_each_kind() {
        let out = defang("https://evil.com/a.php?x=1 bob@evil.com 203.0.113.7 2001:db8::1 evil.com (not evil.example)");
        assert_eq!(
            out.text,
            "hxxps[://]evil[.]com/a.php?x=1 bob[@]evil[.]com 203[.]0[.]113[.]7 2001[:]db8[:][:]1 evil[.]com (not evil.example)"
        );
        assert_eq!(out.changed, 5);
        assert_eq!(
            refang("h**ps[://]x(dot)y fXp[://]a{ . }b c\\.d e[:]8080 f [ at ] g").0,
            "https://x.y ftp://a.b c.d e:8080 f @ g"
        );
    }
}
