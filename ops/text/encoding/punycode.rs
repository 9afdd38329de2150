//! Internationalized domain names (`punycode/encode`, `punycode/decode`): UTS #46 processing
//! as browsers do it (the WHATWG URL standard's domain to ASCII and to Unicode), or bare
//! RFC 3492 Punycode of one string.

use wrench_contract::prelude::*;

/// UTS #46 says only that processing failed, not where.
fn refused() -> ApiError {
    ApiError::invalid(
        "domain",
        "is not a name UTS #46 accepts: a disallowed character, a label with broken Punycode, or one that breaks \
         the bidirectional or joiner rules",
    )
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PunycodeEncodeInput {
    /// A domain name in Unicode (`bücher.example`), or with `raw`, any string.
    #[schemars(length(min = 1, max = 1024))]
    domain: String,
    /// Bare RFC 3492 Punycode of the whole string: no mapping, no `xn--`, no labels.
    #[serde(default)]
    raw: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct PunycodeEncodeOutput {
    /// The ASCII form: `xn--bcher-kva.example`.
    ascii: String,
}

/// Convert a Unicode domain name to its ASCII form (Punycode, `xn--`).
///
/// Processes the name as browsers do (UTS #46, non-transitional, as the WHATWG URL standard
/// asks): mapped to lower case and compatibility forms (`Bücher.EXAMPLE` and
/// `bu\u{308}cher.example` both give `xn--bcher-kva.example`), each label that is not ASCII
/// written as `xn--` and its Punycode; a name UTS #46 refuses (a disallowed character, a
/// label that breaks the bidirectional rules) is a 400 naming what. With `raw`, the whole
/// string is written as RFC 3492 Punycode, without any of that.
#[op(post "/v1/punycode/encode" as punycodeEncode, tag = TextAndData, pipe(domain -> ascii),
     rejects = "a name that UTS #46 refuses, or a string bare Punycode cannot write",
     example(domain, {"domain": "Bücher.example"}),
     example(emoji, {"domain": "☕.example"}),
     example(raw_rfc_3492, {"domain": "bücher", "raw": true}),
     example(disallowed, {"domain": "a\u{2028}b.example"}, status = 400))]
async fn punycode_encode(input: PunycodeEncodeInput) -> Result<PunycodeEncodeOutput, ApiError> {
    let ascii = if input.raw {
        idna::punycode::encode_str(&input.domain)
            .ok_or_else(|| ApiError::invalid("domain", "is too long for Punycode to write"))?
    } else {
        idna::domain_to_ascii(&input.domain).map_err(|_| refused())?
    };
    Ok(PunycodeEncodeOutput { ascii })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PunycodeDecodeInput {
    /// A domain name with `xn--` labels (`xn--bcher-kva.example`), or with `raw`, bare
    /// Punycode.
    #[schemars(length(min = 1, max = 1024))]
    domain: String,
    /// Read the whole string as bare RFC 3492 Punycode.
    #[serde(default)]
    raw: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct PunycodeDecodeOutput {
    /// The Unicode form: `bücher.example`.
    unicode: String,
}

/// Convert an ASCII domain name (`xn--`) to Unicode.
///
/// Decodes each `xn--` label and processes the name as browsers do (UTS #46, non-transitional):
/// a label whose Punycode is broken, or whose characters UTS #46 refuses, is a 400. With `raw`,
/// the whole string is read as bare RFC 3492 Punycode.
#[op(post "/v1/punycode/decode" as punycodeDecode, tag = TextAndData, pipe(domain -> unicode),
     rejects = "a label whose Punycode is broken or whose characters UTS #46 refuses",
     example(domain, {"domain": "xn--bcher-kva.example"}),
     example(raw_rfc_3492, {"domain": "egbpdaj6bu4bxfgehfvwxn", "raw": true}),
     example(broken, {"domain": "xn--a-ecp.xn--99999999999"}, status = 400))]
async fn punycode_decode(input: PunycodeDecodeInput) -> Result<PunycodeDecodeOutput, ApiError> {
    let unicode = if input.raw {
        idna::punycode::decode_to_string(&input.domain)
            .ok_or_else(|| ApiError::invalid("domain", "is not valid Punycode"))?
    } else {
        let (unicode, result) = idna::domain_to_unicode(&input.domain);
        result.map_err(|_| refused())?;
        unicode
    };
    Ok(PunycodeDecodeOutput { unicode })
}

#[cfg(test)]
mod tests {
    /// PyPI `idna` 3.10 (UTS #46, non-transitional) on the same names, and RFC 3492 section
    /// 7.1's sample strings for bare Punycode (tests/fixtures/text_transforms.py).
    #[test]
    fn pypi_idna_and_rfc_3492_agree() {
        let fixture = crate::testing::fixture("text_transforms.json");
        let cases = fixture["idna"].as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let name = case["name"].as_str().unwrap();
            let want = case["ascii"].as_str();
            assert_eq!(idna::domain_to_ascii(name).ok().as_deref(), want, "{name}");
            if let Some(ascii) = want {
                assert_eq!(idna::domain_to_unicode(ascii).0, case["unicode"].as_str().unwrap(), "{ascii}");
            }
        }
        for case in fixture["punycode"].as_array().unwrap() {
            let (text, code) = (case["text"].as_str().unwrap(), case["punycode"].as_str().unwrap());
            assert_eq!(idna::punycode::encode_str(text).unwrap(), code, "{text}");
            assert_eq!(idna::punycode::decode_to_string(code).unwrap(), text);
        }
    }
}

#[cfg(test)]
mod browsers {
    /// Where PyPI `idna` (IDNA 2008) refuses what UTS #46 as the URL standard applies it takes,
    /// browsers follow the latter, and so does wrench: symbols such as emoji, and hyphens in
    /// the third and fourth places (CheckHyphens is off).
    #[test]
    fn the_url_standard_takes_what_idna_2008_refuses() {
        assert_eq!(idna::domain_to_ascii("☕.example").unwrap(), "xn--53h.example");
        assert_eq!(idna::domain_to_ascii("ab--cd.example").unwrap(), "ab--cd.example");
        assert!(idna::domain_to_ascii("a\u{2028}b.example").is_err());
    }
}
