//! User-Agent strings (`useragent/parse`): browser, OS and device by the uap-core
//! regexes (`wrench_kit::uap`),
//! bots by uap-core's `Spider` device family, the rendering engine and the device type by
//! rules of our own (`wrench_kit::useragent`), and the `Sec-CH-UA*` client hints when the
//! caller's own headers are described.

use wrench_contract::prelude::*;
use wrench_kit::{
    uap::{self, REGEXES_VERSION},
    useragent::{ClientHints, Engine, device_type, engine, hints},
};

/// Longest string parsed.
const MAX_LENGTH: usize = 2048;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct UserAgentInput {
    /// The User-Agent string; the caller's own `User-Agent` header (and `Sec-CH-UA*` client
    /// hints) when absent. At most 2,048 characters.
    #[serde(rename = "user_agent", alias = "userAgent")]
    #[schemars(length(max = 2048))]
    user_agent: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Version {
    /// The family (`Chrome`, `Mac OS X`); `Other` when no rule matches.
    family: String,
    /// The version joined with dots, or null.
    version: Option<String>,
    major: Option<String>,
    minor: Option<String>,
    patch: Option<String>,
    patch_minor: Option<String>,
}

fn version(family: String, parts: [Option<String>; 4]) -> Version {
    let joined: Vec<&str> = parts.iter().map_while(|p| p.as_deref()).collect();
    let version = (!joined.is_empty()).then(|| joined.join("."));
    let [major, minor, patch, patch_minor] = parts;
    Version { family, version, major, minor, patch, patch_minor }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Device {
    /// uap-core's device family (`iPhone`, `Samsung SM-G991B`, `Spider`, `Other`).
    family: String,
    brand: Option<String>,
    model: Option<String>,
    /// `desktop`, `mobile`, `tablet`, `tv`, `console`, `wearable`, `bot` or `unknown`.
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Bot {
    /// uap-core classifies the string as a crawler, spider or other automated client.
    is_bot: bool,
    /// Its name (the browser family uap-core gives it), when it is one.
    name: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UserAgentOutput {
    /// The string parsed.
    user_agent: String,
    /// `input` (given in the request) or `header` (the caller's own).
    source: &'static str,
    browser: Version,
    engine: Option<Engine>,
    os: Version,
    device: Device,
    bot: Bot,
    /// The caller's `Sec-CH-UA*` headers, read (only when describing the caller).
    client_hints: Option<ClientHints>,
    /// The regexes the answer comes from.
    regexes: &'static str,
}

/// Parse a User-Agent string.
///
/// Browser, OS and device (family, brand, model) by the uap-core regexes, a bot flag and name
/// (uap-core's crawler rules), the rendering engine (Blink, Gecko, WebKit, Trident, EdgeHTML,
/// Presto: every iOS browser is WebKit) and a device type (desktop, mobile, tablet, tv,
/// console, wearable, bot or unknown; our rules over the device, OS and platform tokens).
/// Without `user_agent`, the caller's own `User-Agent` header is parsed and its `Sec-CH-UA*`
/// client hints are read too (brands, mobile, platform and its version, model).
#[op(post "/v1/useragent/parse" as useragentParse,
     get "/v1/useragent/parse" as useragentParseGet,
     tag = Lookups,
     rejects = "a string over 2,048 characters, or no string and no User-Agent header",
     example(chrome_on_windows, {"user_agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"}),
     example(safari_on_iphone, {"user_agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"}),
     example(googlebot, {"userAgent": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"}),
     example(misspelled_field, {"useragent": "curl/8.5.0"}, status = 400))]
async fn useragent_parse(ctx: &Ctx, input: UserAgentInput) -> Result<UserAgentOutput, ApiError> {
    let header = |name: &str| ctx.headers.get(name).and_then(|v| v.to_str().ok());
    let (text, source) = match input.user_agent {
        Some(s) => (s, "input"),
        None => (
            header("user-agent")
                .map(str::to_string)
                .ok_or_else(|| ApiError::invalid("user_agent", "give `user_agent`, or send a User-Agent header"))?,
            "header",
        ),
    };
    if text.chars().count() > MAX_LENGTH {
        return Err(ApiError::invalid("user_agent", format!("at most {MAX_LENGTH} characters")));
    }
    let text = text.trim().to_string();
    let out = describe(&text);
    let client_hints = (source == "header").then(|| hints(&ctx.headers)).flatten();
    Ok(UserAgentOutput { user_agent: text, source, client_hints, ..out })
}

fn describe(text: &str) -> UserAgentOutput {
    let parsed = uap::parse(text);
    let ua = parsed.browser.unwrap_or_default();
    let os = parsed.os.unwrap_or_default();
    let dev = parsed.device.unwrap_or_default();
    let or_other = |s: String| if s.is_empty() { "Other".to_string() } else { s };
    let is_bot = dev.family == "Spider";
    let browser = version(or_other(ua.family), [ua.major, ua.minor, ua.patch, ua.patch_minor]);
    let os = version(or_other(os.family), [os.major, os.minor, os.patch, os.patch_minor]);
    let device_family = or_other(dev.family);
    let kind = device_type(text, &device_family, &os.family, is_bot);
    UserAgentOutput {
        user_agent: text.to_string(),
        source: "input",
        engine: engine(text, &os.family),
        bot: Bot { is_bot, name: is_bot.then(|| browser.family.clone()) },
        browser,
        os,
        device: Device { family: device_family, brand: dev.brand, model: dev.model, kind },
        client_hints: None,
        regexes: REGEXES_VERSION,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Cases {
        test_cases: Vec<Value>,
    }

    fn cases(text: &str) -> Vec<Value> {
        serde_saphyr::from_str::<Cases>(text).unwrap().test_cases
    }

    fn field(v: &Value, key: &str) -> Option<String> {
        v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string)
    }

    /// uap-core's own test cases for the same commit as the regexes
    /// (`tests/fixtures/uap-core`: every browser and OS case, every 8th device case).
    #[test]
    fn passes_uap_cores_own_test_cases() {
        let mut failures = Vec::new();
        let ua = cases(include_str!("../../tests/fixtures/uap-core/test_ua.yaml"));
        for c in &ua {
            let s = c["user_agent_string"].as_str().unwrap();
            let got = describe(s).browser;
            let want = (field(c, "family").unwrap(), field(c, "major"), field(c, "minor"), field(c, "patch"));
            if (got.family.clone(), got.major, got.minor, got.patch) != want {
                failures.push(format!("browser of {s:?}: want {want:?}"));
            }
        }
        let os = cases(include_str!("../../tests/fixtures/uap-core/test_os.yaml"));
        for c in &os {
            let s = c["user_agent_string"].as_str().unwrap();
            let got = describe(s).os;
            let want = (
                field(c, "family").unwrap(),
                field(c, "major"),
                field(c, "minor"),
                field(c, "patch"),
                field(c, "patch_minor"),
            );
            if (got.family.clone(), got.major, got.minor, got.patch, got.patch_minor) != want {
                failures.push(format!("OS of {s:?}: want {want:?}"));
            }
        }
        let devices = cases(include_str!("../../tests/fixtures/uap-core/test_device.yaml"));
        for c in &devices {
            let s = c["user_agent_string"].as_str().unwrap();
            let got = describe(s).device;
            let want = (field(c, "family").unwrap(), field(c, "brand"), field(c, "model"));
            if (got.family.clone(), got.brand, got.model) != want {
                failures.push(format!("device of {s:?}: want {want:?}"));
            }
        }
        assert!(ua.len() > 1500 && os.len() > 400 && devices.len() > 2000);
        assert!(
            failures.is_empty(),
            "{} of {} cases fail:\n{}",
            failures.len(),
            ua.len() + os.len() + devices.len(),
            failures[..failures.len().min(20)].join("\n")
        );
    }

    #[test]
    fn engines_types_and_bots() {
        let chrome = describe(
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        );
        assert_eq!((chrome.browser.family.as_str(), chrome.browser.version.as_deref()), ("Chrome", Some("124.0.0.0")));
        assert_eq!(chrome.engine.unwrap().name, "Blink");
        assert_eq!(chrome.device.kind, "desktop");
        let iphone_chrome = describe(
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1",
        );
        assert_eq!((iphone_chrome.engine.unwrap().name, iphone_chrome.device.kind), ("WebKit", "mobile"));
        let firefox = describe("Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0");
        let e = firefox.engine.unwrap();
        assert_eq!((e.name, e.version.as_deref()), ("Gecko", Some("125.0")));
        let ie = describe("Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko");
        assert_eq!(ie.engine.unwrap().name, "Trident");
        let ipad = describe(
            "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
        );
        assert_eq!(ipad.device.kind, "tablet");
        let tab = describe(
            "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
        );
        assert_eq!(tab.device.kind, "tablet");
        let phone = describe(
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
        );
        assert_eq!(phone.device.kind, "mobile");
        let bot = describe("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)");
        assert!(bot.bot.is_bot && bot.bot.name.as_deref() == Some("Googlebot") && bot.device.kind == "bot");
        let gpt = describe(
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
        );
        assert!(gpt.bot.is_bot, "{:?}", gpt.bot);
        let ps5 = describe(
            "Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15",
        );
        assert_eq!(ps5.device.kind, "console");
        let other = describe("curl/8.5.0");
        assert_eq!((other.browser.family.as_str(), other.bot.is_bot), ("curl", false));
    }

    #[tokio::test]
    async fn the_callers_headers_are_the_default() {
        let mut ctx = crate::testing::fake_ctx(&[]);
        for (name, value) in [
            (
                "user-agent",
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
            ),
            ("sec-ch-ua", r#""Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99""#),
            ("sec-ch-ua-mobile", "?0"),
            ("sec-ch-ua-platform", r#""Windows""#),
            ("sec-ch-ua-platform-version", r#""15.0.0""#),
        ] {
            ctx.headers.insert(name, value.parse().unwrap());
        }
        let out = useragent_parse(&ctx, UserAgentInput { user_agent: None }).await.unwrap();
        assert_eq!(out.source, "header");
        let h = out.client_hints.unwrap();
        let brands: Vec<&str> = h.brands.iter().map(|b| b.brand.as_str()).collect();
        assert_eq!(brands, ["Chromium", "Google Chrome"]);
        assert_eq!(
            (h.mobile, h.platform.as_deref(), h.platform_version.as_deref()),
            (Some(false), Some("Windows"), Some("15.0.0"))
        );
        assert_eq!(h.windows_release.as_deref(), Some("Windows 11"));
        ctx.headers.clear();
        let e = useragent_parse(&ctx, UserAgentInput { user_agent: None }).await.unwrap_err();
        assert!(e.to_string().contains("User-Agent"));
        let long = useragent_parse(&ctx, UserAgentInput { user_agent: Some("a".repeat(2049)) }).await.unwrap_err();
        assert!(long.to_string().contains("2048"));
    }
}
