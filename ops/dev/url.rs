//! URL encoding and decoding as JavaScript does it, and URL parsing as browsers do it.
//!
//! Encoding follows ECMAScript's `encodeURIComponent` (component) and `encodeURI` (whole URI)
//! exactly: UTF-8 bytes, upper-case hex, and the same unescaped sets. Decoding refuses what
//! `decodeURIComponent` refuses (a `%` without two hex digits, bytes that are not UTF-8), and
//! the whole-URI form keeps escapes of reserved characters as `decodeURI` does. Parsing is the
//! WHATWG URL standard (the `url` crate), so hosts are normalised and IDNs become punycode.

use indexmap::IndexMap;

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

/// Characters `encodeURIComponent` leaves alone besides letters and digits.
const COMPONENT_SAFE: &[u8] = b"-_.!~*'()";
/// Characters `encodeURI` also leaves alone: the URI reserved set and `#`.
const URI_RESERVED: &[u8] = b";,/?:@&=+$#";

fn encode(bytes: &[u8], component: bool) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        let keep =
            b.is_ascii_alphanumeric() || COMPONENT_SAFE.contains(&b) || (!component && URI_RESERVED.contains(&b));
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The bytes the escapes stand for; a malformed escape is an error naming its position.
fn decode(text: &str, component: bool) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'%' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let pair = bytes.get(i + 1..i + 3).and_then(|p| Some(hex_value(p[0])? * 16 + hex_value(p[1])?));
        let Some(byte) = pair else {
            return Err(format!("malformed escape at position {i}: % must be followed by two hex digits"));
        };
        if !component && byte.is_ascii() && URI_RESERVED.contains(&byte) {
            // decodeURI keeps escaped reserved characters as they are.
            out.extend_from_slice(&bytes[i..i + 3]);
        } else {
            out.push(byte);
        }
        i += 3;
    }
    Ok(out)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UrlEncodeInput {
    /// What to encode: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// true: a URI component (`encodeURIComponent`); false: a whole URI (`encodeURI`), which
    /// leaves `;,/?:@&=+$#` alone.
    #[serde(default = "wrench_contract::decode::yes")]
    component: bool,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct UrlDecodeInput {
    /// The percent-encoded text.
    text: String,
    /// true: a URI component (`decodeURIComponent`); false: a whole URI (`decodeURI`), which
    /// keeps escapes of `;,/?:@&=+$#` as they are.
    #[serde(default = "wrench_contract::decode::yes")]
    component: bool,
    /// How to write the decoded bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8` (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UrlEncodeOutput {
    /// The percent-encoded text.
    encoded: String,
}

/// Percent-encode text as JavaScript does.
///
/// With `component` (default) exactly `encodeURIComponent`: everything but letters, digits and
/// `-_.!~*'()` is written as UTF-8 bytes in `%XX` form. With `component: false` exactly
/// `encodeURI`, which also leaves the reserved characters `;,/?:@&=+$#` as they are. Bytes that
/// are not text (a Latin-1 form value, a binary token) are given in hex or Base64 with
/// `inputEncoding`, and each is escaped as it is.
#[op(post "/v1/url/encode" as urlEncode, tag = DeveloperUtilities, pipe(text -> encoded),
     rejects = "`text` that is not in its `inputEncoding`, naming the position",
     example(component, {"text": "a b&c=d/é?😀"}),
     example(whole_uri, {"text": "https://example.com/a path?q=ü&x=1#top", "component": false}),
     example(latin1_bytes, {"text": "e9740e", "inputEncoding": "hex"}))]
async fn url_encode(input: UrlEncodeInput) -> Result<UrlEncodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    Ok(UrlEncodeOutput { encoded: encode(&bytes, input.component) })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UrlDecodeOutput {
    /// The decoded bytes, written as `outputEncoding` says.
    decoded: String,
    /// How `decoded` is written: `utf-8`, `hex`, `base64` or `base64url`.
    output_encoding: UsedEncoding,
}

/// Decode percent-encoded text as JavaScript does.
///
/// With `component` (default) exactly `decodeURIComponent`; with `component: false` exactly
/// `decodeURI`, which keeps escapes of `;,/?:@&=+$#` undecoded. A `%` not followed by two hex
/// digits is a 400, as it is a `URIError` in JavaScript. Escapes that are not UTF-8 (which
/// JavaScript refuses) come back as bytes, in the encoding the answer's `outputEncoding` names
/// (Base64 unless another is asked for); `outputEncoding: utf-8` refuses them as JavaScript
/// does. `+` is not a space here (that is form encoding, not URI encoding).
#[op(post "/v1/url/decode" as urlDecode, tag = DeveloperUtilities, pipe(text -> decoded),
     rejects = "malformed percent-encoding, or escapes that are not UTF-8 when `outputEncoding` is `utf-8`",
     example(component, {"text": "a%20b%26c%3Dd%2F%C3%A9"}),
     example(whole_uri_keeps_reserved, {"text": "https://example.com/a%20b%3Fc", "component": false}),
     example(latin1_as_hex, {"text": "%E9t%0E", "outputEncoding": "hex"}),
     example(malformed, {"text": "100%"}, status = 400))]
async fn url_decode(input: UrlDecodeInput) -> Result<UrlDecodeOutput, ApiError> {
    let bytes = decode(&input.text, input.component).map_err(|e| ApiError::invalid("text", e))?;
    let (decoded, output_encoding) = byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding")?;
    Ok(UrlDecodeOutput { decoded, output_encoding })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct UrlParseInput {
    /// An absolute URL.
    #[schemars(length(max = 8192))]
    url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UrlParts {
    /// The URL as normalised by the WHATWG URL standard.
    href: String,
    /// Scheme with its colon, as in JavaScript: `https:`.
    protocol: String,
    /// User name, percent-encoded; empty when absent.
    username: String,
    /// Password, percent-encoded; empty when absent.
    password: String,
    /// Host name with the port when one is written: `example.com:8080`.
    host: String,
    /// Host name alone, in ASCII (IDNs in punycode).
    hostname: String,
    /// Host name in Unicode (IDNs decoded).
    hostname_unicode: String,
    /// The port: the written one, else the scheme's default; null when the scheme has none.
    port: Option<u16>,
    /// Whether the port was written in the URL.
    port_explicit: bool,
    /// The path.
    path: String,
    /// The query string without `?`; empty when absent.
    search: String,
    /// Query parameters decoded; a repeated name keeps every value, in order.
    query: IndexMap<String, Vec<String>>,
    /// The fragment without `#`; null when absent.
    fragment: Option<String>,
    /// Scheme, host and port: `https://example.com`.
    origin: String,
}

/// Parse a URL into its parts.
///
/// Parses as browsers do (WHATWG URL): scheme and host are lower-cased, IDN hosts become
/// punycode (with the Unicode form beside them), the default port is filled in, and query
/// parameters are decoded into a map that keeps every value of a repeated name in order.
/// Relative or malformed URLs are a 400.
#[op(post "/v1/url/parse" as urlParse, tag = DeveloperUtilities,
     rejects = "text that is not an absolute URL",
     example(typical, {"url": "https://user@Example.COM:8443/a/b?x=1&y=two&x=3#frag"}),
     example(idn, {"url": "http://bücher.example/straße?q=ü"}),
     example(relative, {"url": "/just/a/path"}, status = 400))]
async fn url_parse(input: UrlParseInput) -> Result<UrlParts, ApiError> {
    let u = url::Url::parse(input.url.trim())
        .map_err(|e| ApiError::invalid("url", format!("is not an absolute URL: {e}")))?;
    let hostname = u.host_str().unwrap_or("").to_string();
    let (unicode, _) = idna::domain_to_unicode(&hostname);
    let mut query: IndexMap<String, Vec<String>> = IndexMap::new();
    for (k, v) in u.query_pairs() {
        query.entry(k.into_owned()).or_default().push(v.into_owned());
    }
    Ok(UrlParts {
        href: u.to_string(),
        protocol: format!("{}:", u.scheme()),
        username: u.username().to_string(),
        password: u.password().unwrap_or("").to_string(),
        host: match u.port() {
            Some(p) => format!("{hostname}:{p}"),
            None => hostname.clone(),
        },
        hostname_unicode: unicode,
        hostname,
        port: u.port_or_known_default(),
        port_explicit: u.port().is_some(),
        path: u.path().to_string(),
        search: u.query().unwrap_or("").to_string(),
        query,
        fragment: u.fragment().map(str::to_string),
        origin: u.origin().ascii_serialization(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode_text(text: &str, component: bool) -> String {
        encode(text.as_bytes(), component)
    }

    fn decode_text(text: &str, component: bool) -> Result<String, String> {
        decode(text, component).map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn encoding_matches_javascript() {
        // Values as JavaScript's encodeURIComponent / encodeURI produce them (ECMA-262 sets).
        assert_eq!(encode_text(";,/?:@&=+$#", true), "%3B%2C%2F%3F%3A%40%26%3D%2B%24%23");
        assert_eq!(encode_text(";,/?:@&=+$#", false), ";,/?:@&=+$#");
        assert_eq!(encode_text("-_.!~*'()", true), "-_.!~*'()");
        assert_eq!(encode_text("ü 😀", true), "%C3%BC%20%F0%9F%98%80");
        assert_eq!(encode_text("[]{}|\\^`\"<>%", false), "%5B%5D%7B%7D%7C%5C%5E%60%22%3C%3E%25");
    }

    #[test]
    fn decoding_matches_javascript_and_round_trips() {
        assert_eq!(decode_text("%3B%2F", true).unwrap(), ";/");
        assert_eq!(decode_text("%3B%2F%20", false).unwrap(), "%3B%2F ");
        assert_eq!(decode_text("a+b", true).unwrap(), "a+b");
        for bad in ["%", "%E0%A4%A", "%ZZ", "%G0"] {
            assert!(decode(bad, true).is_err(), "{bad}");
        }
        for text in ["plain", "a b&c=d/é?😀#", ";,/?:@&=+$#", "100% sure", "\u{0}\u{7f}"] {
            assert_eq!(decode_text(&encode_text(text, true), true).unwrap(), text);
            assert_eq!(decode_text(&encode_text(text, false), false).unwrap(), text);
        }
        // Every byte survives the trip, text or not.
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all, true), true).unwrap(), all);
    }

    /// Escapes that are not UTF-8 are bytes: Base64 by default, hex when asked, and a 400
    /// naming `outputEncoding` only when text is insisted on (JavaScript's `URIError`).
    #[tokio::test]
    async fn escapes_that_are_not_utf8_are_bytes() {
        let run = |text: &str, out: OutputEncoding| {
            url_decode(UrlDecodeInput { text: text.into(), component: true, output_encoding: out })
        };
        let auto = run("%E9t%FF", OutputEncoding::Auto).await.unwrap();
        assert_eq!((auto.decoded.as_str(), auto.output_encoding), ("6XT/", UsedEncoding::Base64));
        let hex = run("%E9t%FF", OutputEncoding::Hex).await.unwrap();
        assert_eq!(hex.decoded, "e974ff");
        let text = run("%C3%A9", OutputEncoding::Utf8).await.unwrap();
        assert_eq!((text.decoded.as_str(), text.output_encoding), ("é", UsedEncoding::Utf8));
        for bad in ["%C3", "%FF"] {
            let e = run(bad, OutputEncoding::Utf8).await.unwrap_err();
            assert_eq!(e.field.as_deref(), Some("outputEncoding"), "{bad}");
        }
        let latin1 =
            url_encode(UrlEncodeInput { text: "e9740e".into(), input_encoding: InputEncoding::Hex, component: true })
                .await
                .unwrap();
        assert_eq!(latin1.encoded, "%E9t%0E");
    }

    #[tokio::test]
    async fn parsing_follows_whatwg() {
        let p = url_parse(UrlParseInput { url: "HTTPS://Bücher.Example:443/p?a=1&a=2&b#f".into() }).await.unwrap();
        assert_eq!(p.protocol, "https:");
        assert_eq!(p.hostname, "xn--bcher-kva.example");
        assert_eq!(p.hostname_unicode, "bücher.example");
        assert_eq!((p.port, p.port_explicit), (Some(443), false), "a default port is not written");
        assert_eq!(p.query["a"], vec!["1", "2"]);
        assert_eq!(p.query["b"], vec![""]);
        assert_eq!(p.fragment.as_deref(), Some("f"));
        assert_eq!(p.origin, "https://xn--bcher-kva.example");
        assert!(url_parse(UrlParseInput { url: "no scheme".into() }).await.is_err());
    }
}
