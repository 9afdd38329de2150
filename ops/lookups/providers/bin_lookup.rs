//! A card's issuer identification number (`bin/lookup`): scheme, brand, lengths and
//! check-digit rule from the embedded prefix table (the same one `validate/credit-card` uses),
//! and issuer, country, card type and prepaid flag from a binlist-compatible BIN service
//! (`WRENCH_PROVIDER_BIN_URL`), cached in the store for 30 days since such services allow few
//! calls. Without the service those parts are null and `issuerSource` says why; nothing is
//! guessed.
//!
//! Only the first 6 to 8 digits are read, sent or kept: a full card number given by mistake is
//! cut to its BIN before anything else happens to it.

use reqwest::header::{HeaderMap, HeaderValue};

use wrench_infra::{outbound::provider, providers::BINLIST};
use wrench_kit::card_brands::brand_of;

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct BinInput {
    /// The first 6 to 8 digits of a card number (more are accepted and cut to 8; spaces and
    /// dashes are ignored).
    #[schemars(length(min = 6, max = 32))]
    bin: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema, Clone, Default)]
#[serde(rename_all = "camelCase")]
struct Issuer {
    /// The issuing bank, where the service knows it.
    bank: Option<String>,
    bank_url: Option<String>,
    bank_phone: Option<String>,
    bank_city: Option<String>,
    /// ISO 3166-1 alpha-2 of the issuing country.
    country_code: Option<String>,
    country: Option<String>,
    currency: Option<String>,
    /// `debit` or `credit`.
    card_type: Option<String>,
    /// The product (`Visa/Dankort`, `World`).
    product: Option<String>,
    prepaid: Option<bool>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BinOutput {
    /// The digits looked up (6 to 8).
    bin: String,
    /// `visa`, `mastercard`, `amex`, ... or null when no range of the table holds the BIN.
    scheme: Option<&'static str>,
    /// `Visa`, `American Express`, ...
    brand: Option<&'static str>,
    /// Card number lengths the scheme issues.
    lengths: Vec<usize>,
    /// Numbers of the scheme end in a Luhn check digit (ISO/IEC 7812-1).
    luhn: bool,
    /// Digits of the security code printed on such cards.
    security_code_length: Option<u8>,
    /// From the BIN service; every field null when it does not know the BIN or is off.
    issuer: Issuer,
    /// `provider`, `cache` (the provider's answer, kept 30 days), `unknown to the provider`,
    /// or `not configured`.
    issuer_source: &'static str,
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn issuer(v: &Value) -> Issuer {
    Issuer {
        bank: text(&v["bank"]["name"]),
        bank_url: text(&v["bank"]["url"]),
        bank_phone: text(&v["bank"]["phone"]),
        bank_city: text(&v["bank"]["city"]),
        country_code: text(&v["country"]["alpha2"]),
        country: text(&v["country"]["name"]),
        currency: text(&v["country"]["currency"]),
        card_type: text(&v["type"]),
        product: text(&v["brand"]),
        prepaid: v["prepaid"].as_bool(),
    }
}

/// The issuer from the cache or the service: `None` when the service does not know the BIN.
async fn from_provider(ctx: &Ctx, base: &url::Url, bin: &str) -> Result<(Option<Issuer>, bool), ApiError> {
    let key = format!("cache:binlist:{bin}");
    if let Some(hit) = provider::cached(ctx, &key).await {
        let issuer: Option<Issuer> = serde_json::from_slice(&hit).ok().flatten();
        return Ok((issuer, true));
    }
    let url = base.join(bin).map_err(|e| BINLIST.malformed(e))?;
    let mut headers = HeaderMap::new();
    headers.insert("accept-version", HeaderValue::from_static("3"));
    let answer = BINLIST.get(ctx, url, &headers).await?;
    let (status, body) = (answer.status, answer.body);
    let found = match status {
        200 => {
            let v: Value = serde_json::from_slice(&body).map_err(|e| BINLIST.malformed(e))?;
            Some(issuer(&v))
        }
        404 => None,
        429 => {
            return Err(ApiError::new(
                ErrorCode::UpstreamError,
                "the BIN service (WRENCH_PROVIDER_BIN_URL) refused more lookups for now (429); answers it gave are cached for 30 days",
            ));
        }
        other => return Err(BINLIST.malformed(format!("status {other}"))),
    };
    if let Ok(bytes) = serde_json::to_vec(&found) {
        BINLIST.remember(ctx, &key, &bytes).await;
    }
    Ok((found, false))
}

/// Look up a card's BIN (issuer identification number).
///
/// From the first 6 to 8 digits of a card number: the scheme and brand, the lengths its
/// numbers take, whether they carry a Luhn check digit and the security code's length, from
/// the embedded prefix table; and the issuing bank, country, currency, card type (debit or
/// credit), product and prepaid flag from the BIN service configured in
/// `WRENCH_PROVIDER_BIN_URL` (binlist-compatible; answers cached 30 days). When the service is
/// off or does not know the BIN, those fields are null and `issuerSource` says which. The public
/// service takes 5 lookups an hour from this service in all; past them an uncached BIN is 503
/// PROVIDER_BUSY with `Retry-After`. Digits past the eighth are dropped before anything else is
/// done with them.
#[op(post "/v1/bin/lookup" as binLookup, tag = Lookups,
     rejects = "fewer than 6 digits, or characters other than digits, spaces and dashes",
     errors(PROVIDER_BUSY, UPSTREAM_ERROR, UPSTREAM_TIMEOUT),
     redact(".data.issuerSource"),
     example(visa_dankort, {"bin": "45717360"}),
     example(amex_unknown_issuer, {"bin": "378282"}),
     example(too_short, {"bin": "4571"}, status = 400))]
async fn bin_lookup(ctx: &Ctx, input: BinInput) -> Result<BinOutput, ApiError> {
    let written = input.bin.trim();
    if !written.chars().all(|c| c.is_ascii_digit() || c == ' ' || c == '-') {
        return Err(ApiError::invalid("bin", "only digits, spaces and dashes"));
    }
    let digits: String = written.chars().filter(char::is_ascii_digit).take(8).collect();
    if digits.len() < 6 {
        return Err(ApiError::invalid("bin", "give at least the first 6 digits"));
    }
    let brand = brand_of(&digits);
    let (issuer, issuer_source) = match ctx.config.outbound.providers.url(&BINLIST) {
        None => (Issuer::default(), "not configured"),
        Some(base) => match from_provider(ctx, base, &digits).await? {
            (Some(i), cached) => (i, if cached { "cache" } else { "provider" }),
            (None, _) => (Issuer::default(), "unknown to the provider"),
        },
    };
    Ok(BinOutput {
        scheme: brand.map(|b| b.id),
        brand: brand.map(|b| b.name),
        lengths: brand.map(|b| b.lengths.to_vec()).unwrap_or_default(),
        luhn: brand.is_some(),
        security_code_length: brand.map(|b| if b.id == "amex" { 4 } else { 3 }),
        bin: digits,
        issuer,
        issuer_source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fake_ctx;

    fn bin(s: &str) -> BinInput {
        BinInput { bin: s.into() }
    }

    #[tokio::test]
    async fn scheme_from_the_table_and_issuer_from_the_provider_then_the_cache() {
        let ctx = fake_ctx(&[]);
        let out = bin_lookup(&ctx, bin("4571 7360 1234 5678")).await.unwrap();
        assert_eq!((out.bin.as_str(), out.scheme, out.issuer_source), ("45717360", Some("visa"), "provider"));
        assert_eq!(out.issuer.bank.as_deref(), Some("Jyske Bank"));
        assert_eq!((out.issuer.country_code.as_deref(), out.issuer.card_type.as_deref()), (Some("DK"), Some("debit")));
        assert_eq!((out.issuer.prepaid, out.security_code_length), (Some(false), Some(3)));
        let again = bin_lookup(&ctx, bin("45717360")).await.unwrap();
        assert_eq!((again.issuer_source, again.issuer.bank.as_deref()), ("cache", Some("Jyske Bank")));
        let amex = bin_lookup(&ctx, bin("378282")).await.unwrap();
        assert_eq!(
            (amex.scheme, amex.security_code_length, amex.issuer_source),
            (Some("amex"), Some(4), "unknown to the provider")
        );
        assert_eq!(amex.lengths, [15]);
    }

    #[tokio::test]
    async fn without_the_provider_the_issuer_is_unknown_and_limits_are_the_providers() {
        let off = fake_ctx(&[("WRENCH_PROVIDER_BIN_URL", "off")]);
        let out = bin_lookup(&off, bin("54133300")).await.unwrap();
        assert_eq!((out.scheme, out.issuer_source, out.issuer.bank), (Some("mastercard"), "not configured", None));
        let ctx = fake_ctx(&[]);
        for bad in ["4571", "4571a360", ""] {
            assert_eq!(bin_lookup(&ctx, bin(bad)).await.unwrap_err().code, ErrorCode::ValidationError, "{bad}");
        }
        // binlist's 429 (the fake names no time): it is left alone for a minute, on every
        // instance sharing the store, and a BIN it knows waits too.
        let e = bin_lookup(&ctx, bin("99999999")).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderBusy, "{}", e.message);
        assert!(e.headers.iter().any(|(n, v)| n == "retry-after" && v == "60"), "{e:?}");
        let e = bin_lookup(&ctx, bin("45717360")).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderBusy, "{}", e.message);
        let wait: u64 =
            e.headers.iter().find(|(n, _)| n == "retry-after").unwrap().1.to_str().unwrap().parse().unwrap();
        assert!((58..=60).contains(&wait), "{wait}");
        let unknown = bin_lookup(&off, bin("999999")).await.unwrap();
        assert!(unknown.scheme.is_none() && !unknown.luhn);
    }
}
