//! The technologies a site reveals in its response headers and HTML, by a rule set of our
//! own. Each rule names the fact it rests on: a header or a URL path the product documents
//! or always sends. A rule matches evidence, not guesses: what a site hides is not reported,
//! and a match says what was seen.

use reqwest::header::HeaderMap;
use schemars::JsonSchema;
use serde::Serialize;

/// Where a rule looks.
enum Clue {
    /// A header whose value contains the text (empty: the header's presence is enough),
    /// compared without case; a version is read after `prefix/` when the rule says so.
    Header(&'static str, &'static str),
    /// A cookie name set by the answer.
    Cookie(&'static str),
    /// Text in the HTML (compared without case).
    Html(&'static str),
}

struct TechRule {
    name: &'static str,
    /// `server`, `cdn`, `hosting`, `framework`, `cms`, `language`, `analytics`, `library`.
    category: &'static str,
    clues: &'static [Clue],
    /// Read a version after `name/` in the matching header value.
    version_after: Option<&'static str>,
    source: &'static str,
}

use Clue::{Cookie, Header, Html};

const RULES: &[TechRule] = &[
    TechRule {
        name: "nginx",
        category: "server",
        clues: &[Header("server", "nginx")],
        version_after: Some("nginx/"),
        source: "nginx sends `Server: nginx[/version]` (server_tokens directive)",
    },
    TechRule {
        name: "OpenResty",
        category: "server",
        clues: &[Header("server", "openresty")],
        version_after: Some("openresty/"),
        source: "OpenResty's Server header",
    },
    TechRule {
        name: "Apache HTTP Server",
        category: "server",
        clues: &[Header("server", "apache")],
        version_after: Some("apache/"),
        source: "Apache httpd sends `Server: Apache[/version]` (ServerTokens directive)",
    },
    TechRule {
        name: "Microsoft IIS",
        category: "server",
        clues: &[Header("server", "microsoft-iis")],
        version_after: Some("microsoft-iis/"),
        source: "IIS sends `Server: Microsoft-IIS/version`",
    },
    TechRule {
        name: "LiteSpeed",
        category: "server",
        clues: &[Header("server", "litespeed")],
        version_after: None,
        source: "LiteSpeed Web Server's Server header",
    },
    TechRule {
        name: "Caddy",
        category: "server",
        clues: &[Header("server", "caddy")],
        version_after: None,
        source: "Caddy sends `Server: Caddy`",
    },
    TechRule {
        name: "Cloudflare",
        category: "cdn",
        clues: &[Header("cf-ray", ""), Header("server", "cloudflare")],
        version_after: None,
        source: "Cloudflare adds a CF-Ray header to every proxied response",
    },
    TechRule {
        name: "Amazon CloudFront",
        category: "cdn",
        clues: &[Header("x-amz-cf-id", ""), Header("via", "cloudfront")],
        version_after: None,
        source: "CloudFront adds X-Amz-Cf-Id and a Via header naming CloudFront",
    },
    TechRule {
        name: "Fastly",
        category: "cdn",
        clues: &[Header("x-fastly-request-id", ""), Header("fastly-debug-digest", "")],
        version_after: None,
        source: "Fastly's X-Fastly-Request-ID header",
    },
    TechRule {
        name: "Akamai",
        category: "cdn",
        clues: &[Header("x-akamai-transformed", ""), Header("akamai-grn", "")],
        version_after: None,
        source: "Akamai's X-Akamai-Transformed and Akamai-GRN headers",
    },
    TechRule {
        name: "Azure Front Door",
        category: "cdn",
        clues: &[Header("x-azure-ref", "")],
        version_after: None,
        source: "Azure Front Door adds X-Azure-Ref",
    },
    TechRule {
        name: "Vercel",
        category: "hosting",
        clues: &[Header("x-vercel-id", ""), Header("server", "vercel")],
        version_after: None,
        source: "Vercel adds X-Vercel-Id to every response",
    },
    TechRule {
        name: "Netlify",
        category: "hosting",
        clues: &[Header("x-nf-request-id", ""), Header("server", "netlify")],
        version_after: None,
        source: "Netlify adds X-NF-Request-ID",
    },
    TechRule {
        name: "GitHub Pages",
        category: "hosting",
        clues: &[Header("x-github-request-id", "")],
        version_after: None,
        source: "GitHub Pages answers with X-GitHub-Request-Id",
    },
    TechRule {
        name: "PHP",
        category: "language",
        clues: &[Header("x-powered-by", "php"), Cookie("PHPSESSID")],
        version_after: Some("php/"),
        source: "PHP's expose_php setting adds `X-Powered-By: PHP/version`; PHPSESSID is its default session cookie",
    },
    TechRule {
        name: "ASP.NET",
        category: "framework",
        clues: &[Header("x-powered-by", "asp.net"), Header("x-aspnet-version", ""), Cookie("ASP.NET_SessionId")],
        version_after: None,
        source: "ASP.NET's X-Powered-By and X-AspNet-Version headers and its session cookie",
    },
    TechRule {
        name: "Express",
        category: "framework",
        clues: &[Header("x-powered-by", "express")],
        version_after: None,
        source: "Express sends `X-Powered-By: Express` unless disabled",
    },
    TechRule {
        name: "Next.js",
        category: "framework",
        clues: &[Header("x-powered-by", "next.js"), Html("/_next/static/"), Html("__NEXT_DATA__")],
        version_after: None,
        source: "Next.js serves its assets under /_next/static/ and its page data in __NEXT_DATA__",
    },
    TechRule {
        name: "Nuxt",
        category: "framework",
        clues: &[Html("/_nuxt/"), Html("window.__NUXT__")],
        version_after: None,
        source: "Nuxt serves its assets under /_nuxt/",
    },
    TechRule {
        name: "Angular",
        category: "framework",
        clues: &[Html("ng-version=")],
        version_after: None,
        source: "Angular marks its root element with ng-version",
    },
    TechRule {
        name: "Gatsby",
        category: "framework",
        clues: &[Html("id=\"___gatsby\"")],
        version_after: None,
        source: "Gatsby renders into a #___gatsby element",
    },
    TechRule {
        name: "Java servlet container",
        category: "language",
        clues: &[Cookie("JSESSIONID")],
        version_after: None,
        source: "JSESSIONID is the Servlet specification's session cookie",
    },
    TechRule {
        name: "Laravel",
        category: "framework",
        clues: &[Cookie("laravel_session")],
        version_after: None,
        source: "laravel_session is Laravel's default session cookie",
    },
    TechRule {
        name: "WordPress",
        category: "cms",
        clues: &[Html("/wp-content/"), Html("/wp-includes/"), Html("content=\"wordpress")],
        version_after: None,
        source: "WordPress serves themes and plugins under /wp-content/ and its scripts under /wp-includes/",
    },
    TechRule {
        name: "Drupal",
        category: "cms",
        clues: &[Header("x-generator", "drupal"), Html("content=\"drupal"), Html("/sites/default/files/")],
        version_after: None,
        source: "Drupal's X-Generator header and generator meta tag",
    },
    TechRule {
        name: "Joomla",
        category: "cms",
        clues: &[Html("content=\"joomla")],
        version_after: None,
        source: "Joomla's generator meta tag",
    },
    TechRule {
        name: "Ghost",
        category: "cms",
        clues: &[Html("content=\"ghost")],
        version_after: None,
        source: "Ghost's generator meta tag",
    },
    TechRule {
        name: "Hugo",
        category: "cms",
        clues: &[Html("content=\"hugo")],
        version_after: None,
        source: "Hugo's generator meta tag",
    },
    TechRule {
        name: "Shopify",
        category: "cms",
        clues: &[Header("x-shopid", ""), Html("cdn.shopify.com")],
        version_after: None,
        source: "Shopify stores load assets from cdn.shopify.com and answer with X-ShopId",
    },
    TechRule {
        name: "Squarespace",
        category: "cms",
        clues: &[Html("static1.squarespace.com")],
        version_after: None,
        source: "Squarespace sites load assets from static1.squarespace.com",
    },
    TechRule {
        name: "Wix",
        category: "cms",
        clues: &[Header("x-wix-request-id", ""), Html("static.wixstatic.com")],
        version_after: None,
        source: "Wix adds X-Wix-Request-Id and serves media from static.wixstatic.com",
    },
    TechRule {
        name: "Google Analytics",
        category: "analytics",
        clues: &[Html("googletagmanager.com/gtag/js"), Html("google-analytics.com/analytics.js")],
        version_after: None,
        source: "Google Analytics loads gtag.js or analytics.js from these addresses",
    },
    TechRule {
        name: "Google Tag Manager",
        category: "analytics",
        clues: &[Html("googletagmanager.com/gtm.js")],
        version_after: None,
        source: "Google Tag Manager's container script",
    },
    TechRule {
        name: "Plausible",
        category: "analytics",
        clues: &[Html("plausible.io/js/")],
        version_after: None,
        source: "Plausible's script is served from plausible.io/js/",
    },
    TechRule {
        name: "Cloudflare Web Analytics",
        category: "analytics",
        clues: &[Html("static.cloudflareinsights.com/beacon")],
        version_after: None,
        source: "Cloudflare's beacon script",
    },
    TechRule {
        name: "Matomo",
        category: "analytics",
        clues: &[Html("matomo.js"), Html("piwik.js")],
        version_after: None,
        source: "Matomo's tracker script (formerly piwik.js)",
    },
    TechRule {
        name: "Meta Pixel",
        category: "analytics",
        clues: &[Html("connect.facebook.net/en_US/fbevents.js"), Html("fbevents.js")],
        version_after: None,
        source: "The Meta Pixel loads fbevents.js",
    },
    TechRule {
        name: "Hotjar",
        category: "analytics",
        clues: &[Html("static.hotjar.com")],
        version_after: None,
        source: "Hotjar's script comes from static.hotjar.com",
    },
    TechRule {
        name: "Microsoft Clarity",
        category: "analytics",
        clues: &[Html("www.clarity.ms/tag/")],
        version_after: None,
        source: "Clarity's tag is loaded from clarity.ms/tag/",
    },
    TechRule {
        name: "jQuery",
        category: "library",
        clues: &[Html("jquery.min.js"), Html("/jquery-"), Html("code.jquery.com")],
        version_after: None,
        source: "jQuery's file names and CDN",
    },
    TechRule {
        name: "Bootstrap",
        category: "library",
        clues: &[Html("bootstrap.min.css"), Html("bootstrap.bundle.min.js")],
        version_after: None,
        source: "Bootstrap's distribution file names",
    },
];

/// A technology found, with what gave it away.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Technology {
    pub name: &'static str,
    pub category: &'static str,
    pub version: Option<String>,
    /// What was seen: `header server: nginx/1.25.3`, `cookie PHPSESSID`, `html /wp-content/`.
    pub evidence: String,
    /// The fact the rule rests on.
    pub source: &'static str,
}

/// The HTML scanned, at most: markers sit in the head and the first scripts.
pub const HTML_SCANNED: usize = 1 << 20;

/// The cookie names of an answer's Set-Cookie fields.
fn cookie_names(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .filter_map(|v| v.split('=').next().map(|n| n.trim().to_string()))
        .collect()
}

/// The version after `prefix` in `value` (digits and dots).
fn version(value: &str, prefix: &str) -> Option<String> {
    let lower = value.to_ascii_lowercase();
    let at = lower.find(prefix)? + prefix.len();
    let v: String = value[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    (!v.is_empty()).then_some(v)
}

/// Every rule that matches `headers` or `html`, in rule order.
pub fn detect(headers: &HeaderMap, html: &str) -> Vec<Technology> {
    let mut cut = html.len().min(HTML_SCANNED);
    while !html.is_char_boundary(cut) {
        cut -= 1;
    }
    let html = html[..cut].to_ascii_lowercase();
    let cookies = cookie_names(headers);
    let mut out = Vec::new();
    for rule in RULES {
        let mut found: Option<(String, Option<String>)> = None;
        for clue in rule.clues {
            match clue {
                Header(name, needle) => {
                    for value in headers.get_all(*name).iter().filter_map(|v| v.to_str().ok()) {
                        if value.to_ascii_lowercase().contains(needle) {
                            let v = rule.version_after.and_then(|p| version(value, p));
                            found = Some((format!("header {name}: {value}"), v));
                            break;
                        }
                    }
                }
                Cookie(name) => {
                    if cookies.iter().any(|c| c == name) {
                        found = Some((format!("cookie {name}"), None));
                    }
                }
                Html(needle) => {
                    if html.contains(&needle.to_ascii_lowercase()) {
                        found = Some((format!("html {needle}"), None));
                    }
                }
            }
            if found.is_some() {
                break;
            }
        }
        if let Some((evidence, version)) = found {
            out.push(Technology { name: rule.name, category: rule.category, version, evidence, source: rule.source });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_cookies_and_markup_give_technologies_away() {
        let mut h = HeaderMap::new();
        h.insert("server", "nginx/1.25.3".parse().unwrap());
        h.insert("cf-ray", "8a1b2c3d4e5f-LHR".parse().unwrap());
        h.insert("x-powered-by", "PHP/8.3.1".parse().unwrap());
        h.append("set-cookie", "PHPSESSID=abc; path=/".parse().unwrap());
        let html = "<link rel=stylesheet href='/wp-content/themes/x/style.css'>\
                    <script async src='https://www.googletagmanager.com/gtag/js?id=G-X'></script>";
        let techs = detect(&h, html);
        let found: Vec<(&str, Option<&str>)> = techs.iter().map(|t| (t.name, t.version.as_deref())).collect();
        assert_eq!(
            found,
            [
                ("nginx", Some("1.25.3")),
                ("Cloudflare", None),
                ("PHP", Some("8.3.1")),
                ("WordPress", None),
                ("Google Analytics", None)
            ]
        );
        assert!(detect(&HeaderMap::new(), "<p>plain</p>").is_empty());
    }
}
