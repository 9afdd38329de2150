//! UUIDs (RFC 9562) and ULIDs: generation and validation.
//!
//! Random bits come from the operating system's CSPRNG (v4) or a CSPRNG-seeded generator
//! (v7, ULID). v7 and ULIDs are time-ordered and stay strictly increasing within one
//! millisecond in this process.

use std::{
    sync::{LazyLock, Mutex},
    time::{Duration, SystemTime},
};

use uuid::{Uuid, Variant};

use wrench_contract::prelude::*;
use wrench_infra::time;

#[derive(Debug, Serialize, JsonSchema)]
struct UuidOutput {
    /// A random (version 4) UUID, lower-case and hyphenated.
    uuid: String,
}

/// Generate a random UUID (version 4).
///
/// 122 random bits from the operating system's CSPRNG, written lower-case with hyphens. Any
/// body is ignored.
#[op(post "/v1/uuid/v4" as uuidV4, tag = DeveloperUtilities,
     redact(".data.uuid"),
     example(typical, {}),
     example(body_ignored, {"count": 5}))]
async fn uuid_v4() -> Result<UuidOutput, ApiError> {
    Ok(UuidOutput { uuid: Uuid::new_v4().hyphenated().to_string() })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct UuidBatchInput {
    /// How many UUIDs.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 100))]
    count: u32,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Serialize, JsonSchema)]
struct UuidBatchOutput {
    /// Random (version 4) UUIDs.
    uuids: Vec<String>,
    /// How many.
    count: usize,
}

/// Generate up to 100 random UUIDs.
///
/// `count` version 4 UUIDs (1 to 100, default 1), each from the CSPRNG.
#[op(post "/v1/uuid/batch" as uuidBatch, tag = DeveloperUtilities,
     redact(".data.uuids"),
     example(five, {"count": 5}),
     example(default_one, {}),
     example(too_many, {"count": 101}, status = 400))]
async fn uuid_batch(input: UuidBatchInput) -> Result<UuidBatchOutput, ApiError> {
    let uuids: Vec<String> = (0..input.count).map(|_| Uuid::new_v4().hyphenated().to_string()).collect();
    Ok(UuidBatchOutput { count: uuids.len(), uuids })
}

#[derive(Debug, Serialize, JsonSchema)]
struct UlidOutput {
    /// The ULID.
    ulid: String,
    /// Its embedded time, Unix milliseconds.
    timestamp: u64,
    /// Its embedded time (RFC 3339, UTC).
    time: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UuidV7Output {
    /// The UUID, hyphenated, as `uuid/v4` gives its own.
    uuid: String,
    /// Its embedded time, Unix milliseconds.
    timestamp: u64,
    /// Its embedded time (RFC 3339, UTC).
    time: String,
}

/// One generator for the process, so ULIDs made in the same millisecond keep increasing.
static ULIDS: LazyLock<Mutex<ulid::Generator>> = LazyLock::new(|| Mutex::new(ulid::Generator::new()));

/// Generate a ULID.
///
/// 26 characters of Crockford Base32: a 48-bit millisecond timestamp followed by 80 random
/// bits. ULIDs made in the same millisecond by this server are strictly increasing (the random
/// part is incremented), so they sort in creation order.
#[op(post "/v1/uuid/ulid" as uuidUlid, tag = DeveloperUtilities,
     redact(".data.ulid", ".data.timestamp", ".data.time"),
     example(typical, {}),
     example(body_ignored, {"anything": true}))]
async fn uuid_ulid() -> Result<UlidOutput, ApiError> {
    let ulid = {
        let mut generator = ULIDS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        generator.generate().map_err(|_| ApiError::internal("ULID random part overflowed within one millisecond"))?
    };
    let timestamp = ulid.timestamp_ms();
    Ok(UlidOutput {
        ulid: ulid.to_string(),
        timestamp,
        time: time::rfc3339(SystemTime::UNIX_EPOCH + Duration::from_millis(timestamp)),
    })
}

/// Generate a time-ordered UUID (version 7).
///
/// RFC 9562 version 7: a 48-bit Unix millisecond timestamp, then random bits, with a counter
/// that keeps UUIDs from this server strictly increasing within a millisecond. Sorts by
/// creation time, which suits database keys.
#[op(post "/v1/uuid/v7" as uuidV7, tag = DeveloperUtilities,
     redact(".data.uuid", ".data.timestamp", ".data.time"),
     example(typical, {}),
     example(body_ignored, {"anything": true}))]
async fn uuid_v7() -> Result<UuidV7Output, ApiError> {
    let uuid = Uuid::now_v7();
    let (secs, nanos) = uuid.get_timestamp().map(|t| t.to_unix()).unwrap_or((0, 0));
    let timestamp = secs * 1000 + u64::from(nanos / 1_000_000);
    Ok(UuidV7Output {
        uuid: uuid.hyphenated().to_string(),
        timestamp,
        time: time::rfc3339(SystemTime::UNIX_EPOCH + Duration::from_millis(timestamp)),
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct UuidValidateInput {
    /// A UUID: hyphenated, 32 plain hex digits, `{braced}` or `urn:uuid:`; any letter case.
    #[schemars(length(max = 100))]
    uuid: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UuidValidateOutput {
    /// Whether the text is a UUID.
    valid: bool,
    /// Version 1 to 8 for RFC 9562 UUIDs; null for nil, max, other variants or invalid text.
    version: Option<u8>,
    /// `rfc9562` (the usual one), `ncs`, `microsoft` or `future`; null when invalid.
    variant: Option<String>,
    /// The nil UUID (all zeros).
    nil: bool,
    /// The max UUID (all ones).
    max: bool,
    /// Lower-case hyphenated form; null when invalid.
    normalized: Option<String>,
    /// Why the text is not a UUID; null when valid.
    error: Option<String>,
}

/// Validate a UUID and tell its version and variant.
///
/// Accepts the hyphenated form, 32 plain hex digits, `{braced}` and `urn:uuid:`, in any letter
/// case. Reports the version (1 to 8) and variant as RFC 9562 defines them, and recognises
/// the nil and max UUIDs. Text that is not a UUID is `valid: false` with the reason, not an
/// error.
#[op(post "/v1/uuid/validate" as uuidValidate, tag = DeveloperUtilities,
     example(v7, {"uuid": "017F22E2-79B0-7CC3-98C4-DC0C0C07398F"}),
     example(max, {"uuid": "ffffffff-ffff-ffff-ffff-ffffffffffff"}),
     example(invalid, {"uuid": "not-a-uuid"}))]
async fn uuid_validate(input: UuidValidateInput) -> Result<UuidValidateOutput, ApiError> {
    Ok(match Uuid::try_parse(input.uuid.trim()) {
        Ok(u) => {
            let variant = match u.get_variant() {
                Variant::NCS => "ncs",
                Variant::RFC4122 => "rfc9562",
                Variant::Microsoft => "microsoft",
                _ => "future",
            };
            let version = u.get_version_num() as u8;
            let rfc = u.get_variant() == Variant::RFC4122 && (1..=8).contains(&version);
            UuidValidateOutput {
                valid: true,
                version: rfc.then_some(version),
                variant: Some(variant.to_string()),
                nil: u.is_nil(),
                max: u.is_max(),
                normalized: Some(u.hyphenated().to_string()),
                error: None,
            }
        }
        Err(e) => UuidValidateOutput {
            valid: false,
            version: None,
            variant: None,
            nil: false,
            max: false,
            normalized: None,
            error: Some(e.to_string()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn validate(s: &str) -> UuidValidateOutput {
        uuid_validate(UuidValidateInput { uuid: s.into() }).await.unwrap()
    }

    #[tokio::test]
    async fn versions_of_rfc_9562_examples() {
        // Example UUIDs from RFC 9562, appendices A and B.
        let cases = [
            ("C232AB00-9414-11EC-B3C8-9F6BDECED846", 1),
            ("5df41881-3aed-3515-88a7-2f4a814cf09e", 3),
            ("919108f7-52d1-4320-9bac-f847db4148a8", 4),
            ("2ed6657d-e927-568b-95e1-2665a8aea6a2", 5),
            ("1EC9414C-232A-6B00-B3C8-9F6BDECED846", 6),
            ("017F22E2-79B0-7CC3-98C4-DC0C0C07398F", 7),
            ("2489E9AD-2EE2-8E00-8EC9-32D5F69181C0", 8),
        ];
        for (text, version) in cases {
            let out = validate(text).await;
            assert!(out.valid, "{text}");
            assert_eq!((out.version, out.variant.as_deref()), (Some(version), Some("rfc9562")), "{text}");
            assert_eq!(out.normalized.as_deref(), Some(text.to_lowercase().as_str()));
        }
        let nil = validate("00000000-0000-0000-0000-000000000000").await;
        assert!(nil.valid && nil.nil && !nil.max && nil.version.is_none());
        let max = validate("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF").await;
        assert!(max.valid && max.max && max.version.is_none());
        for form in [
            "{919108f7-52d1-4320-9bac-f847db4148a8}",
            "urn:uuid:919108f7-52d1-4320-9bac-f847db4148a8",
            "919108f752d143209bacf847db4148a8",
        ] {
            assert_eq!(validate(form).await.version, Some(4), "{form}");
        }
        for bad in ["", "919108f7-52d1-4320-9bac-f847db4148a", "919108f7-52d1-4320-9bac-f847db4148ag", "hello"] {
            let out = validate(bad).await;
            assert!(!out.valid && out.error.is_some(), "{bad}");
        }
    }

    #[tokio::test]
    async fn generated_uuids_are_v4_and_distinct() {
        let out = uuid_batch(UuidBatchInput { count: 100 }).await.unwrap();
        let mut seen = std::collections::HashSet::new();
        for u in &out.uuids {
            let v = validate(u).await;
            assert_eq!((v.version, v.variant.as_deref()), (Some(4), Some("rfc9562")));
            assert!(seen.insert(u.clone()));
        }
    }

    #[tokio::test]
    async fn ulids_and_v7_are_time_ordered_and_strictly_increasing() {
        const CROCKFORD: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
        let now = wrench_infra::time::unix_ms(SystemTime::now());
        let mut last_ulid = String::new();
        let mut last_v7 = String::new();
        for _ in 0..2000 {
            let u = uuid_ulid().await.unwrap();
            assert_eq!(u.ulid.len(), 26);
            assert!(u.ulid.chars().all(|c| CROCKFORD.contains(c)), "{}", u.ulid);
            assert!(u.ulid > last_ulid, "{} after {last_ulid}", u.ulid);
            assert!(u.timestamp.abs_diff(now) < 60_000);
            last_ulid = u.ulid;
            let v = uuid_v7().await.unwrap();
            assert!(v.uuid > last_v7, "{} after {last_v7}", v.uuid);
            assert_eq!(validate(&v.uuid).await.version, Some(7));
            assert!(v.timestamp.abs_diff(now) < 60_000);
            last_v7 = v.uuid;
        }
    }
}
