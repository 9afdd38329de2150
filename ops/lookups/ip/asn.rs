//! An autonomous system by number or by an address inside it (`asn/lookup`): the
//! organisation and the prefixes the operator's ASN table (`WRENCH_GEOIP_ASN_DB`) holds for
//! it, and its registration (holder, country, dates, abuse contact) from its regional
//! registry over RDAP, through the outbound layer, when that answers.

use std::net::IpAddr;

use crate::lookups::registration::whois::{WhoisInput, WhoisOutput, whois_lookup};
use wrench_contract::prelude::*;

/// Most prefixes listed; `prefixCount` counts them all.
const MAX_PREFIXES: usize = 1000;

/// An AS number as a client sends it: a JSON number (`13335`) or text (`"13335"`,
/// `"AS13335"`, `"as13335"`). Which it was does not matter after decoding; the text is parsed
/// by [`parse_asn`], so that a bad one is refused with a message that names it.
#[derive(Debug)]
enum AsnGiven {
    Number(u64),
    Text(String),
}

/// The longest text form: `AS4294967295` plus room for surrounding spaces.
const MAX_ASN_TEXT: usize = 16;

impl<'de> Deserialize<'de> for AsnGiven {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = AsnGiven;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an AS number, as a number (13335) or as text (\"AS13335\")")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<AsnGiven, E> {
                Ok(AsnGiven::Number(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<AsnGiven, E> {
                u64::try_from(v).map(AsnGiven::Number).map_err(|_| E::custom("an AS number is not negative"))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<AsnGiven, E> {
                if v.is_empty() || v.chars().count() > MAX_ASN_TEXT {
                    return Err(E::custom(format!("must be 1 to {MAX_ASN_TEXT} characters")));
                }
                Ok(AsnGiven::Text(v.to_string()))
            }
        }
        d.deserialize_any(Visit)
    }
}

impl JsonSchema for AsnGiven {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AsNumber".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An AS number, as a number or as text with an optional `AS` prefix.",
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": u32::MAX},
                {"type": "string", "minLength": 1, "maxLength": MAX_ASN_TEXT, "pattern": "^\\s*(?:[Aa][Ss])?[0-9]+\\s*$"}
            ]
        })
    }
}

impl Validate for AsnGiven {
    fn validate(&self, _: &str) -> Result<(), wrench_contract::validate::FieldError> {
        Ok(())
    }
}

impl AsnGiven {
    fn number(&self) -> Result<u32, ApiError> {
        match self {
            AsnGiven::Number(n) => u32::try_from(*n)
                .map_err(|_| ApiError::invalid("asn", format!("{n} is not an AS number (0 to 4294967295)"))),
            AsnGiven::Text(t) => parse_asn(t),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
// Exactly one of the two, and not null (null reads as absent).
#[schemars(extend("oneOf" = [
    {"required": ["asn"], "properties": {"asn": {"not": {"type": "null"}}}},
    {"required": ["ip"], "properties": {"ip": {"not": {"type": "null"}}}}
]))]
struct AsnInput {
    /// An AS number: `13335` (a number), or text: `"13335"`, `"AS13335"` or `"as13335"`. Give
    /// this or `ip`.
    asn: Option<AsnGiven>,
    /// An IPv4 or IPv6 address: its AS is looked up first.
    #[schemars(length(min = 1, max = 64), extend("anyOf" = [{"format": "ipv4"}, {"format": "ipv6"}]))]
    ip: Option<String>,
    /// Ask the regional registry over RDAP for the registration (default true).
    #[serde(default = "yes")]
    registration: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AsnOutput {
    /// `AS13335`.
    asn: String,
    number: u32,
    /// The organisation the ASN table names.
    organisation: Option<String>,
    /// When asked by address: the address and the table's network holding it.
    ip: Option<String>,
    network: Option<String>,
    /// The prefixes the table holds for the AS (at most 1,000), IPv4 first.
    prefixes: Vec<String>,
    /// Every prefix the table holds for it.
    prefix_count: usize,
    /// The ASN table holds the AS.
    in_table: bool,
    /// The RDAP registration (`network.registrant`, `network.country`, `network.abuseEmail`,
    /// dates); null when not asked for.
    registration: Option<WhoisOutput>,
    /// Why the registration is missing, when it was asked for and could not be had.
    registration_error: Option<String>,
}

fn parse_asn(text: &str) -> Result<u32, ApiError> {
    let t = text.trim();
    let digits = match t.get(..2) {
        Some(prefix) if prefix.eq_ignore_ascii_case("as") => &t[2..],
        _ => t,
    };
    digits
        .parse::<u32>()
        .ok()
        .filter(|_| digits.bytes().all(|b| b.is_ascii_digit()))
        .ok_or_else(|| ApiError::invalid("asn", format!("{t:?} is not an AS number (0 to 4294967295, `AS` optional)")))
}

/// Look up an autonomous system.
///
/// By AS number (`asn`) or by an address inside it (`ip`): the organisation and the prefixes
/// the operator's ASN table holds for it (`WRENCH_GEOIP_ASN_DB`; without it 503
/// DATASET_NOT_INSTALLED naming the setting), and the registration from the regional
/// registry over RDAP (holder, country, dates, status, abuse e-mail). The registry not
/// answering does not fail the lookup: `registrationError` says why.
#[op(post "/v1/asn/lookup" as asnLookup, tag = Lookups,
     rejects = "an AS number written as text that is over 4294967295",
     uses(dataset), errors(NOT_FOUND),
     redact(".data.registration.source.queryMs", ".data.registration.source.bootstrap", ".data.registration.checkedAt"),
     example(by_number, {"asn": "AS64500"}),
     example(by_number_value, {"asn": 64500, "registration": false}),
     example(by_address, {"ip": "1.0.0.1", "registration": false}),
     example(neither, {}, status = 400))]
async fn asn_lookup(ctx: &Ctx, input: AsnInput) -> Result<AsnOutput, ApiError> {
    let table = ctx.datasets.asn.get().await?;
    let (number, ip, network) = match (&input.asn, &input.ip) {
        (Some(a), None) => (a.number()?, None, None),
        (None, Some(text)) => {
            let ip: IpAddr = text
                .trim()
                .parse()
                .map_err(|_| ApiError::invalid("ip", format!("{:?} is not an IPv4 or IPv6 address", text.trim())))?;
            let hit = table
                .data
                .lookup(ip)
                .ok_or_else(|| ApiError::not_found(format!("the ASN table holds no network with {ip}")))?;
            (hit.asn, Some(ip.to_string()), hit.networks.first().cloned())
        }
        _ => return Err(ApiError::invalid("asn", "give either `asn` or `ip`")),
    };
    let (organisation, prefixes, prefix_count) = match table.data.by_asn(number, MAX_PREFIXES) {
        Some((org, list, total)) => (org, list, total),
        None => (None, Vec::new(), 0),
    };
    let (registration, registration_error) = if input.registration {
        match whois_lookup(WhoisInput { domain: format!("AS{number}") }, ctx).await {
            Ok(w) => (Some(w), None),
            Err(e) => (None, Some(e.message.to_string())),
        }
    } else {
        (None, None)
    };
    Ok(AsnOutput {
        asn: format!("AS{number}"),
        number,
        in_table: prefix_count > 0,
        organisation,
        ip,
        network,
        prefixes,
        prefix_count,
        registration,
        registration_error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fake_ctx;

    fn input(asn: Option<&str>, ip: Option<&str>, registration: bool) -> AsnInput {
        AsnInput { asn: asn.map(|a| AsnGiven::Text(a.into())), ip: ip.map(Into::into), registration }
    }

    #[tokio::test]
    async fn by_number_with_prefixes_and_registration() {
        let ctx = fake_ctx(&[]);
        let out = asn_lookup(&ctx, input(Some("as64500"), None, true)).await.unwrap();
        assert_eq!((out.asn.as_str(), out.organisation.as_deref()), ("AS64500", Some("Example Transit Ltd")));
        assert_eq!(out.prefixes, ["81.2.69.0/24", "81.2.70.0/23", "2001:db8:100::/48"]);
        let reg = serde_json::to_value(out.registration.unwrap()).unwrap();
        assert_eq!(reg["network"]["registrant"], "Fixture Network Holder");
        assert_eq!(reg["network"]["abuseEmail"], "abuse@fixture-network.test");
        assert_eq!(reg["createdAt"], "2009-09-09T00:00:00Z");
    }

    #[tokio::test]
    async fn by_address_and_the_errors() {
        let ctx = fake_ctx(&[]);
        let out = asn_lookup(&ctx, input(None, Some("89.160.20.150"), false)).await.unwrap();
        assert_eq!((out.number, out.organisation.as_deref()), (64502, Some("Example Hosting GmbH")));
        assert_eq!(out.network.as_deref(), Some("89.160.20.100/30"));
        assert_eq!(out.prefix_count, 6);
        assert!(out.registration.is_none() && out.registration_error.is_none());
        // An AS the table does not hold is still answered, from the registry.
        let unknown = asn_lookup(&ctx, input(Some("64999"), None, false)).await.unwrap();
        assert!(!unknown.in_table && unknown.prefixes.is_empty());
        for (asn, ip) in [(None, None), (Some("1"), Some("1.1.1.1")), (Some("AS-1"), None), (Some("4294967296"), None)]
        {
            assert_eq!(asn_lookup(&ctx, input(asn, ip, false)).await.unwrap_err().code, ErrorCode::ValidationError);
        }
        let e = asn_lookup(&ctx, input(None, Some("8.8.8.8"), false)).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        let none = fake_ctx(&[("WRENCH_GEOIP_ASN_DB", "")]);
        let e = asn_lookup(&none, input(Some("1"), None, false)).await.unwrap_err();
        assert!(e.to_string().contains("WRENCH_GEOIP_ASN_DB"));
    }
}
