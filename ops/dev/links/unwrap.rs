//! `url/unwrap`: the destination of a link that a mail filter (Microsoft Safe Links, Proofpoint
//! URL Defense, Barracuda), a search engine (Google, Bing, DuckDuckGo, Yahoo) or a social or
//! chat site (Facebook, Instagram, LinkedIn, YouTube, Slack, Steam, VK, Reddit) has wrapped
//! around it. Every wrapper carries its destination in its own text, so this is offline: the
//! wrapper is never visited. Wrappers inside wrappers are peeled one layer at a time.
//!
//! Proofpoint's three formats follow the decoder Proofpoint publishes for its customers: v1
//! percent-encodes the destination in `u`; v2 writes `%` as `-` and `/` as `_` first; v3 keeps
//! the destination in the path and replaces the characters it cannot carry there with `*`
//! (one character) or `**` and a run-length letter, the characters themselves following in
//! URL-safe Base64 after `__;`.

use std::sync::LazyLock;

use base64::Engine;
use regex::Regex;
use wrench_contract::prelude::*;

use super::query::{first, unescape};

/// At most this many wrappers are peeled from one link; a link wrapped deeper is answered
/// with what the tenth layer holds.
pub(super) const MAX_LAYERS: usize = 10;

/// The longest link read, in bytes: mail filters' links are long (Safe Links carries the
/// recipient and a signature), but not this long.
const MAX_URL: usize = 32_768;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Wrapper {
    /// Microsoft Defender Safe Links (`*.safelinks.protection.outlook.com`, and its Teams form).
    OutlookSafelinks,
    /// Proofpoint URL Defense, first format (`urldefense.proofpoint.com/v1/url?u=`).
    ProofpointV1,
    /// Proofpoint URL Defense, second format (`urldefense.proofpoint.com/v2/url?u=`).
    ProofpointV2,
    /// Proofpoint URL Defense, third format (`urldefense.com/v3/__…__;…!…$`).
    ProofpointV3,
    /// Barracuda Link Protection (`linkprotect.cudasvc.com/url?a=`).
    Barracuda,
    /// Google's redirect (`www.google.<tld>/url?q=` or `url=`).
    Google,
    /// Bing's click tracker (`www.bing.com/ck/a?u=a1<Base64>`).
    Bing,
    /// DuckDuckGo's redirect (`duckduckgo.com/l/?uddg=`).
    Duckduckgo,
    /// Yahoo search's redirect (`r.search.yahoo.com/…/RU=<destination>/…`).
    Yahoo,
    /// Facebook's link shim (`l.facebook.com/l.php?u=`).
    Facebook,
    /// Instagram's link shim (`l.instagram.com/?u=`).
    Instagram,
    /// LinkedIn's redirect (`www.linkedin.com/redir/redirect?url=`, `/safety/go?url=`).
    Linkedin,
    /// YouTube's redirect (`www.youtube.com/redirect?q=`).
    Youtube,
    /// Slack's redirect (`slack-redir.net/link?url=`).
    Slack,
    /// Steam's link filter (`steamcommunity.com/linkfilter/?url=`).
    Steam,
    /// VK's away page (`vk.com/away.php?to=`).
    Vk,
    /// Reddit's outbound redirect (`out.reddit.com/…?url=`).
    Reddit,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct UnwrapInput {
    /// The link, as received.
    #[schemars(length(min = 1, max = 32768))]
    url: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(super) struct Layer {
    /// Who wrapped it.
    pub wrapper: Wrapper,
    /// What the wrapper held: the next layer, or the destination.
    pub url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UnwrapOutput {
    /// The destination: the link with every wrapper peeled off (the link itself when it was
    /// not wrapped).
    original: String,
    /// The outermost wrapper; null when the link was not wrapped.
    wrapper: Option<Wrapper>,
    /// Every wrapper peeled, outermost first, with what each held.
    layers: Vec<Layer>,
}

/// Find the destination of a wrapped link.
///
/// Reads the destination out of links rewritten by mail filters (Microsoft Safe Links,
/// Proofpoint URL Defense v1, v2 and v3, Barracuda), search engines (Google, Bing, DuckDuckGo,
/// Yahoo) and social or chat sites (Facebook, Instagram, LinkedIn, YouTube, Slack, Steam, VK,
/// Reddit). Offline: the wrapper is never visited. Wrappers inside wrappers are peeled too, up
/// to 10 layers, each listed in `layers`. A link no wrapper claims comes back as it is, with
/// `wrapper` null. A link that is a wrapper's but holds no readable destination is a 400.
#[op(post "/v1/url/unwrap" as urlUnwrap, tag = DeveloperUtilities, pipe(url -> original),
     rejects = "text that is not an absolute URL, or a wrapper's link without a readable destination",
     example(safelinks, {"url": "https://nam02.safelinks.protection.outlook.com/?url=https%3A%2F%2Fexample.com%2Freport%3Fid%3D7&data=05%7C02%7Cuser%40example.org&reserved=0"}),
     example(proofpoint_v3, {"url": "https://urldefense.com/v3/__https://google.com:443/search?q=a*test&gs=ps__;Kw!-612Flbf0JvQ3kNJkRi5Jg!Ue6tQudNKaShHg93trcdjqDP8se2ySE65jyCIe2K1D_uNjZ1Lnf6YLQERujngZv9UWf66ujQIQ$"}),
     example(not_wrapped, {"url": "https://example.com/plain"}),
     example(empty_destination, {"url": "https://www.google.com/url?sa=t"}, status = 400),
     example(relative, {"url": "/not/absolute"}, status = 400))]
async fn url_unwrap(input: UnwrapInput) -> Result<UnwrapOutput, ApiError> {
    let layers = peel(&input.url)?;
    Ok(UnwrapOutput {
        original: layers.last().map_or_else(|| input.url.trim().to_string(), |l| l.url.clone()),
        wrapper: layers.first().map(|l| l.wrapper),
        layers,
    })
}

/// Every wrapper around `link`, outermost first; empty when no wrapper claims it.
pub(super) fn peel(link: &str) -> Result<Vec<Layer>, ApiError> {
    let mut current = link.trim().to_string();
    if current.len() > MAX_URL {
        return Err(ApiError::invalid("url", format!("is longer than {MAX_URL} bytes")));
    }
    let mut layers = Vec::new();
    let mut first_layer = true;
    while layers.len() < MAX_LAYERS {
        let parsed = match url::Url::parse(&current) {
            Ok(u) => u,
            // The link itself must be a URL; what a wrapper holds need not be (Safe Links
            // wraps `mailto:` and plain text too), and ends the peeling.
            Err(e) if first_layer => {
                return Err(ApiError::invalid("url", format!("is not an absolute URL: {e}")));
            }
            Err(_) => break,
        };
        first_layer = false;
        let Some(wrapper) = wrapper_of(&parsed) else { break };
        let inner = destination(wrapper, &parsed, &current).filter(|d| !d.trim().is_empty()).ok_or_else(|| {
            ApiError::invalid("url", format!("{} link holds no readable destination", wrapper_name(wrapper)))
        })?;
        current = inner.trim().to_string();
        layers.push(Layer { wrapper, url: current.clone() });
    }
    Ok(layers)
}

fn wrapper_name(w: Wrapper) -> &'static str {
    match w {
        Wrapper::OutlookSafelinks => "a Safe Links",
        Wrapper::ProofpointV1 | Wrapper::ProofpointV2 | Wrapper::ProofpointV3 => "a Proofpoint URL Defense",
        Wrapper::Barracuda => "a Barracuda Link Protection",
        Wrapper::Google => "a Google redirect",
        Wrapper::Bing => "a Bing click-tracking",
        Wrapper::Duckduckgo => "a DuckDuckGo redirect",
        Wrapper::Yahoo => "a Yahoo redirect",
        Wrapper::Facebook => "a Facebook link-shim",
        Wrapper::Instagram => "an Instagram link-shim",
        Wrapper::Linkedin => "a LinkedIn redirect",
        Wrapper::Youtube => "a YouTube redirect",
        Wrapper::Slack => "a Slack redirect",
        Wrapper::Steam => "a Steam link-filter",
        Wrapper::Vk => "a VK away-page",
        Wrapper::Reddit => "a Reddit outbound",
    }
}

/// Whether `host` is `domain` or one of its subdomains.
fn under(host: &str, domain: &str) -> bool {
    host == domain || host.strip_suffix(domain).is_some_and(|rest| rest.ends_with('.'))
}

/// Whether `host` is Google's: `google.<tld>` or `google.<sld>.<tld>` (`google.co.uk`), with or
/// without `www.`.
fn is_google(host: &str) -> bool {
    let host = host.strip_prefix("www.").unwrap_or(host);
    let Some(rest) = host.strip_prefix("google.") else { return false };
    let labels: Vec<&str> = rest.split('.').collect();
    (1..=2).contains(&labels.len()) && labels.iter().all(|l| (2..=3).contains(&l.len()))
}

/// Which wrapper a link is, from its host and path.
fn wrapper_of(u: &url::Url) -> Option<Wrapper> {
    let host = u.host_str()?.to_ascii_lowercase();
    let path = u.path();
    let w = if under(&host, "safelinks.protection.outlook.com")
        || under(&host, "safelinks.protection.office365.us")
        || (host == "statics.teams.cdn.office.net" && path.ends_with("/atp-safelinks.html"))
    {
        Wrapper::OutlookSafelinks
    } else if host == "urldefense.proofpoint.com" && path == "/v1/url" {
        Wrapper::ProofpointV1
    } else if host == "urldefense.proofpoint.com" && path == "/v2/url" {
        Wrapper::ProofpointV2
    } else if (host == "urldefense.com" || host == "urldefense.proofpoint.com") && path.starts_with("/v3/__") {
        Wrapper::ProofpointV3
    } else if host == "linkprotect.cudasvc.com" && path == "/url" {
        Wrapper::Barracuda
    } else if is_google(&host) && path == "/url" {
        Wrapper::Google
    } else if (host == "www.bing.com" || host == "bing.com") && path == "/ck/a" {
        Wrapper::Bing
    } else if (host == "duckduckgo.com" || host == "html.duckduckgo.com") && path.starts_with("/l/") {
        Wrapper::Duckduckgo
    } else if host == "r.search.yahoo.com" && path.contains("/RU=") {
        Wrapper::Yahoo
    } else if (host == "l.facebook.com" || host == "lm.facebook.com") && path == "/l.php" {
        Wrapper::Facebook
    } else if host == "l.instagram.com" {
        Wrapper::Instagram
    } else if under(&host, "linkedin.com") && (path == "/redir/redirect" || path == "/safety/go") {
        Wrapper::Linkedin
    } else if (host == "www.youtube.com" || host == "youtube.com" || host == "m.youtube.com") && path == "/redirect" {
        Wrapper::Youtube
    } else if host == "slack-redir.net" && path == "/link" {
        Wrapper::Slack
    } else if host == "steamcommunity.com" && path.starts_with("/linkfilter") {
        Wrapper::Steam
    } else if (host == "vk.com" || host == "m.vk.com") && path == "/away.php" {
        Wrapper::Vk
    } else if host == "out.reddit.com" {
        Wrapper::Reddit
    } else {
        return None;
    };
    Some(w)
}

/// What `wrapper` holds; `raw` is the link as written (Proofpoint v3 needs its characters
/// before URL parsing normalises them).
fn destination(wrapper: Wrapper, u: &url::Url, raw: &str) -> Option<String> {
    let query = u.query().unwrap_or("");
    match wrapper {
        Wrapper::OutlookSafelinks | Wrapper::Linkedin | Wrapper::Slack | Wrapper::Reddit => first(query, "url"),
        Wrapper::ProofpointV1 | Wrapper::Facebook | Wrapper::Instagram => first(query, "u"),
        Wrapper::ProofpointV2 => first(query, "u").map(|u| unescape(&u.replace('-', "%").replace('_', "/"), false)),
        Wrapper::ProofpointV3 => proofpoint_v3(raw),
        Wrapper::Barracuda => first(query, "a"),
        Wrapper::Google => first(query, "url").filter(|d| !d.is_empty()).or_else(|| first(query, "q")),
        Wrapper::Bing => bing(&first(query, "u")?),
        Wrapper::Duckduckgo => first(query, "uddg"),
        Wrapper::Yahoo => {
            let segment = u.path().split('/').find_map(|s| s.strip_prefix("RU="))?;
            Some(unescape(segment, false))
        }
        Wrapper::Youtube => first(query, "q"),
        Wrapper::Steam => first(query, "url").or_else(|| first(query, "u")),
        Wrapper::Vk => first(query, "to"),
    }
}

/// Bing writes `a1` and the destination in URL-safe Base64 without padding.
fn bing(u: &str) -> Option<String> {
    let encoded = u.strip_prefix("a1")?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(encoded.trim_end_matches('=')).ok()?;
    String::from_utf8(bytes).ok()
}

static V3: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^https?://urldefense(?:\.proofpoint)?\.com/v3/__(?<url>.+?)__;(?<chars>[^!]*)!").expect("pattern")
});

/// Proofpoint's run-length letters: `A` stands for 2 characters, `B` for 3, … `_` for 65.
const RUN_LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn proofpoint_v3(raw: &str) -> Option<String> {
    let caps = V3.captures(raw)?;
    let url = unescape(&caps["url"], false);
    let chars_b64 = caps["chars"].trim_end_matches('=');
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(chars_b64).ok()?;
    let chars: Vec<char> = String::from_utf8(bytes).ok()?.chars().collect();
    let mut taken = 0;
    let mut out = String::with_capacity(url.len());
    let mut rest = url.chars().peekable();
    while let Some(c) = rest.next() {
        if c != '*' {
            out.push(c);
            continue;
        }
        let mut count = 1;
        if rest.peek() == Some(&'*') {
            rest.next();
            let letter = rest.next()?;
            count = RUN_LETTERS.find(letter)? + 2;
        }
        let run = chars.get(taken..taken + count)?;
        out.extend(run);
        taken += count;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unwrap_one(link: &str) -> String {
        let layers = peel(link).unwrap_or_else(|e| panic!("{link}: {}", e.message));
        layers.last().unwrap_or_else(|| panic!("{link} was not unwrapped")).url.clone()
    }

    #[test]
    fn proofpoint_published_examples() {
        // The v3 link is the example of Proofpoint's decoder documentation; the v2 link has
        // the shape its documentation describes, and a run-length token is added to v3.
        assert_eq!(
            unwrap_one(
                "https://urldefense.proofpoint.com/v2/url?u=http-3A__www.example.com_&d=DwMFAg&c=euGZstcaTDllvimEN8b7jXrwqOf-v5A_CdpgnVfiiMM&r=ttqPXgTT9ZPqbIbhvm1ZDtF0e8S-R-zrlptP7QGUlbI&m=hpUZkkNbR8eMrU6g_cYhuQyX0sI1Y6ZKO8hyXkJ-X9g&s=BMZ3hryfDQnpAGH3zpcMhXmdbzdphT75JyXWNnYqsPo&e="
            ),
            "http://www.example.com/"
        );
        assert_eq!(
            unwrap_one(
                "https://urldefense.com/v3/__https://google.com:443/search?q=a*test&gs=ps__;Kw!-612Flbf0JvQ3kNJkRi5Jg!Ue6tQudNKaShHg93trcdjqDP8se2ySE65jyCIe2K1D_uNjZ1Lnf6YLQERujngZv9UWf66ujQIQ$"
            ),
            "https://google.com:443/search?q=a+test&gs=ps"
        );
        assert_eq!(
            unwrap_one("https://urldefense.com/v3/__http://example.com/a**Bz__;Pz8_!!x$"),
            "http://example.com/a???z"
        );
    }

    #[test]
    fn layers_nest_and_plain_links_pass() {
        let inner = "https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.org%2F%3Fa%3D1%26b%3D2&h=AT0";
        let outer = format!(
            "https://eur01.safelinks.protection.outlook.com/?url={}&data=05",
            percent_encoding::utf8_percent_encode(inner, percent_encoding::NON_ALPHANUMERIC)
        );
        let layers = peel(&outer).unwrap();
        assert_eq!(layers.len(), 2);
        assert_eq!((layers[0].wrapper, layers[0].url.as_str()), (Wrapper::OutlookSafelinks, inner));
        assert_eq!((layers[1].wrapper, layers[1].url.as_str()), (Wrapper::Facebook, "https://example.org/?a=1&b=2"));
        assert!(peel("https://example.com/url?q=https://x.example").unwrap().is_empty());
        assert!(peel("https://google.evil.example/url?q=https://x.example").unwrap().is_empty());
        assert!(peel("not a link").is_err());
        assert!(peel("https://l.facebook.com/l.php?h=1").is_err());
    }

    #[test]
    fn a_wrapper_that_holds_itself_stops_after_ten_layers() {
        let mut link = "https://example.com/".to_string();
        for _ in 0..15 {
            link = format!(
                "https://www.google.com/url?q={}",
                percent_encoding::utf8_percent_encode(&link, percent_encoding::NON_ALPHANUMERIC)
            );
        }
        assert_eq!(peel(&link).unwrap().len(), MAX_LAYERS);
    }

    #[test]
    fn bing_and_yahoo_carry_their_destination_in_the_path_or_base64() {
        let encoded = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("https://example.com/ü?x=1");
        assert_eq!(
            unwrap_one(&format!("https://www.bing.com/ck/a?!&&p=abc&u=a1{encoded}&ntb=1")),
            "https://example.com/ü?x=1"
        );
        assert_eq!(
            unwrap_one(
                "https://r.search.yahoo.com/_ylt=AwrE/RV=2/RE=1700000000/RO=10/RU=https%3a%2f%2fexample.com%2fpage/RK=2/RS=abc-"
            ),
            "https://example.com/page"
        );
    }

    #[test]
    fn generated_wrappers_give_back_their_destination() {
        // tests/fixtures/links.py: destinations escaped by Python's urllib.parse and base64 in
        // each wrapper's form, some wrapped twice.
        let cases = crate::testing::fixture("links.json");
        let cases = cases["unwrap"].as_array().expect("cases");
        assert_eq!(cases.len(), 160);
        for case in cases {
            let link = case["link"].as_str().unwrap();
            let layers = peel(link).unwrap_or_else(|e| panic!("{link}: {}", e.message));
            let wrappers: Vec<Value> = layers.iter().map(|l| serde_json::to_value(l.wrapper).unwrap()).collect();
            assert_eq!(Value::Array(wrappers), case["wrappers"], "{link}");
            assert_eq!(layers.last().map(|l| l.url.as_str()), case["destination"].as_str(), "{link}");
        }
    }
}
