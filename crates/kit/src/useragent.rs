//! What uap-core does not say of a User-Agent string, by rules of our own: the rendering
//! engine, the device type, and the `Sec-CH-UA*` client hints.
//!
//! Engines, from the tokens each engine's browsers send: Trident (`Trident/`, `MSIE`),
//! EdgeHTML (`Edge/` of Edge 12-18), Presto (`Presto/`), WebKit for every browser on iOS and
//! iPadOS (Apple requires it there, whatever the browser's name), Blink for WebKit-derived
//! strings that carry `Chrome/`, `Chromium/` or `HeadlessChrome/` (Chrome 28 and later; the
//! engine's version is Chrome's), WebKit for other `AppleWebKit/` strings, Gecko for
//! `Gecko/` with `rv:` (the version is `rv:`'s).

use wrench_contract::prelude::*;

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Engine {
    /// `Blink`, `Gecko`, `WebKit`, `Trident`, `EdgeHTML` or `Presto`.
    pub name: &'static str,
    pub version: Option<String>,
}

/// The version after `token` (digits and dots).
fn after(text: &str, token: &str) -> Option<String> {
    let at = text.find(token)? + token.len();
    let v: String = text[at..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    (!v.is_empty()).then_some(v)
}

pub fn engine(text: &str, os_family: &str) -> Option<Engine> {
    let e = |name, version| Some(Engine { name, version });
    if text.contains("Trident/") {
        return e("Trident", after(text, "Trident/"));
    }
    if text.contains("MSIE ") {
        return e("Trident", None);
    }
    if text.contains("Edge/") && !text.contains("Edg/") {
        return e("EdgeHTML", after(text, "Edge/"));
    }
    if text.contains("Presto/") {
        return e("Presto", after(text, "Presto/"));
    }
    if text.contains("AppleWebKit/") {
        if os_family == "iOS" || ["iPhone", "iPad", "iPod"].iter().any(|d| text.contains(d)) {
            return e("WebKit", after(text, "AppleWebKit/"));
        }
        for token in ["HeadlessChrome/", "Chrome/", "Chromium/"] {
            if let Some(v) = after(text, token)
                && v.split('.').next().and_then(|m| m.parse::<u32>().ok()).is_some_and(|m| m >= 28)
            {
                return e("Blink", Some(v));
            }
        }
        return e("WebKit", after(text, "AppleWebKit/"));
    }
    if text.contains("Gecko/") && text.contains("rv:") {
        return e("Gecko", after(text, "rv:"));
    }
    None
}

/// The kind of device: uap-core's device family and OS, then platform tokens.
pub fn device_type(text: &str, device: &str, os: &str, bot: bool) -> &'static str {
    let has = |needles: &[&str]| needles.iter().any(|n| text.contains(n) || device.contains(n));
    if bot {
        "bot"
    } else if has(&["PlayStation", "Xbox", "Nintendo", "Nintendo Switch"]) {
        "console"
    } else if has(&[
        "SmartTV",
        "SMART-TV",
        "Smart TV",
        "AppleTV",
        "Apple TV",
        "CrKey",
        "Roku",
        "BRAVIA",
        "GoogleTV",
        "Android TV",
        "AFT",
        "HbbTV",
        "Tizen TV",
        "webOS.TV",
        "NetCast",
    ]) {
        "tv"
    } else if has(&["Watch", "watchOS", "Wear OS"]) {
        "wearable"
    } else if has(&["iPad", "Tablet", "Kindle", "Silk/", "PlayBook"]) || (os == "Android" && !text.contains("Mobile")) {
        if os == "Android" || has(&["iPad", "Tablet", "Kindle", "Silk/", "PlayBook"]) { "tablet" } else { "mobile" }
    } else if has(&["iPhone", "iPod", "Mobile", "Android", "Windows Phone", "BlackBerry", "Opera Mini", "KaiOS"]) {
        "mobile"
    } else if matches!(
        os,
        "Windows"
            | "Mac OS X"
            | "Linux"
            | "Ubuntu"
            | "Fedora"
            | "Chrome OS"
            | "FreeBSD"
            | "OpenBSD"
            | "NetBSD"
            | "Debian"
    ) || text.contains("X11;")
    {
        "desktop"
    } else {
        "unknown"
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Brand {
    pub brand: String,
    pub version: String,
}

/// The caller's client hints (RFC 8942; the `Sec-CH-UA` headers of the User-Agent Client
/// Hints draft), as sent.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientHints {
    /// `Sec-CH-UA` (or `Sec-CH-UA-Full-Version-List` when sent), without the deliberately
    /// meaningless "GREASE" brand.
    pub brands: Vec<Brand>,
    /// `Sec-CH-UA-Mobile`.
    pub mobile: Option<bool>,
    /// `Sec-CH-UA-Platform`.
    pub platform: Option<String>,
    /// `Sec-CH-UA-Platform-Version`.
    pub platform_version: Option<String>,
    /// For Windows: `Windows 11` when the platform version is 13 or more, `Windows 10` for 1
    /// to 10 (the User-Agent string says 10 for both).
    pub windows_release: Option<String>,
    /// `Sec-CH-UA-Model`.
    pub model: Option<String>,
    /// `Sec-CH-UA-Arch`, `Sec-CH-UA-Bitness`.
    pub architecture: Option<String>,
    pub bitness: Option<String>,
}

/// A structured-field string (`"Windows"`), unquoted.
fn sf_string(v: &str) -> String {
    let v = v.trim();
    v.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(v).replace("\\\"", "\"").replace("\\\\", "\\")
}

/// The quoted string an item starts with (unescaped) and what follows it.
fn leading_string(item: &str) -> (String, &str) {
    let Some(body) = item.strip_prefix('"') else {
        return match item.split_once(';') {
            Some((token, rest)) => (token.trim().to_string(), rest),
            None => (item.trim().to_string(), ""),
        };
    };
    let (mut out, mut escaped) = (String::new(), false);
    for (i, c) in body.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return (out, &body[i + 1..]),
            _ => {
                out.push(c);
                escaped = false;
            }
        }
    }
    (out, "")
}

/// A brand list: `"Chromium";v="124", "Not-A.Brand";v="99"` (an RFC 8941 list of strings
/// with a `v` parameter). Commas inside quotes do not split.
fn brands(v: &str) -> Vec<Brand> {
    let mut items = Vec::new();
    let (mut current, mut quoted, mut escaped) = (String::new(), false, false);
    for c in v.chars() {
        match c {
            '\\' if quoted && !escaped => escaped = true,
            '"' if !escaped => quoted = !quoted,
            ',' if !quoted => items.push(std::mem::take(&mut current)),
            _ => escaped = false,
        }
        if c != ',' || quoted {
            current.push(c);
        }
    }
    items.push(current);
    items
        .iter()
        .filter_map(|item| {
            let (brand, params) = leading_string(item.trim());
            let version =
                params.split(';').find_map(|p| p.trim().strip_prefix("v=").map(sf_string)).unwrap_or_default();
            // GREASE brands are made to look unlike any real brand ("Not-A.Brand",
            // "Not)A;Brand"): they carry no information.
            let grease = brand.contains("Not") && brand.contains("Brand");
            (!brand.is_empty() && !grease).then_some(Brand { brand, version })
        })
        .take(16)
        .collect()
}

pub fn hints(headers: &http::HeaderMap) -> Option<ClientHints> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let text = |name: &str| get(name).map(sf_string).filter(|s| !s.is_empty());
    if !headers.keys().any(|n| n.as_str().starts_with("sec-ch-ua")) {
        return None;
    }
    let platform = text("sec-ch-ua-platform");
    let platform_version = text("sec-ch-ua-platform-version");
    let windows_release = match (platform.as_deref(), &platform_version) {
        (Some("Windows"), Some(v)) => v.split('.').next().and_then(|m| m.parse::<u32>().ok()).map(|m| match m {
            13.. => "Windows 11".to_string(),
            1..=10 => "Windows 10".to_string(),
            _ => "Windows 8.1 or earlier".to_string(),
        }),
        _ => None,
    };
    Some(ClientHints {
        brands: brands(get("sec-ch-ua-full-version-list").or(get("sec-ch-ua")).unwrap_or("")),
        mobile: get("sec-ch-ua-mobile").and_then(|v| match v.trim() {
            "?1" => Some(true),
            "?0" => Some(false),
            _ => None,
        }),
        platform,
        platform_version,
        windows_release,
        model: text("sec-ch-ua-model"),
        architecture: text("sec-ch-ua-arch"),
        bitness: text("sec-ch-ua-bitness"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brand_lists_are_read_as_structured_fields() {
        let b = brands(r#""Not)A;Brand";v="8", "Chromium";v="138", "Google Chrome";v="138""#);
        let names: Vec<(&str, &str)> = b.iter().map(|b| (b.brand.as_str(), b.version.as_str())).collect();
        assert_eq!(names, [("Chromium", "138"), ("Google Chrome", "138")]);
        let odd = brands(r#""A, \"quoted\" brand";v="1.2""#);
        assert_eq!((odd[0].brand.as_str(), odd[0].version.as_str()), ("A, \"quoted\" brand", "1.2"));
        assert!(brands("").is_empty());
    }
}
