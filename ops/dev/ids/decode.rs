//! `id/decode`: an identifier of any common format, its format detected (or named), read back
//! to its bytes, embedded time and parts by the readers of `formats.rs`.

use wrench_contract::prelude::*;

use super::formats::{self, Decoded, IdParts};

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "kebab-case")]
enum IdType {
    /// Detect the format from the text's length and alphabet.
    #[default]
    Auto,
    Uuid,
    Ulid,
    Objectid,
    Ksuid,
    Xid,
    /// A snowflake on Twitter's epoch (the default reading of a decimal).
    SnowflakeTwitter,
    /// A snowflake on Discord's epoch.
    SnowflakeDiscord,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct IdDecodeInput {
    /// The identifier: a UUID (any form), ULID, ObjectId, KSUID, XID or snowflake.
    #[schemars(length(min = 1, max = 64))]
    id: String,
    /// Its format; `auto` (the default) detects it.
    #[serde(default, rename = "type")]
    kind: IdType,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct IdDecodeOutput {
    /// `uuid`, `ulid`, `objectid`, `ksuid`, `xid`, `snowflake-twitter` or `snowflake-discord`.
    #[serde(rename = "type")]
    kind: &'static str,
    /// The identifier in its format's usual spelling (UUIDs hyphenated and lower-case, ULIDs
    /// upper-case, ObjectIds and XIDs lower-case).
    normalized: String,
    /// Its bytes, hex (a snowflake's 8, big-endian).
    hex: String,
    /// UUIDs of the RFC 9562 variant: the version, 1 to 8.
    version: Option<u8>,
    /// UUIDs: `rfc9562`, `ncs`, `microsoft` or `future`.
    variant: Option<&'static str>,
    /// The embedded time, Unix milliseconds (rounded down); null when the identifier has none
    /// (UUID versions 2 to 5 and 8).
    timestamp: Option<i64>,
    /// The embedded time, RFC 3339 in UTC, to the identifier's own precision; null also past
    /// the year 9999.
    time: Option<String>,
    /// The format's named fields.
    parts: IdParts,
}

/// The format of `text` by its shape, for `auto`.
fn detect(text: &str) -> Result<Decoded, ApiError> {
    let hexish = text.bytes().all(|c| c.is_ascii_hexdigit());
    let read = match text.len() {
        1..=19 if text.bytes().all(|c| c.is_ascii_digit()) => formats::snowflake(text, false),
        20 => formats::xid(text),
        24 if hexish => formats::object_id(text),
        26 => formats::ulid(text),
        27 => formats::ksuid(text),
        32 | 36 | 38 | 45 => formats::uuid(text),
        _ => {
            return Err(ApiError::invalid(
                "id",
                "is not a UUID, ULID, ObjectId, KSUID, XID or snowflake by its length and characters",
            ));
        }
    };
    read.map_err(|why| ApiError::invalid("id", why))
}

/// Decode an identifier: UUID, ULID, ObjectId, KSUID, XID, snowflake.
///
/// Detects the format from the text's length and characters (or takes `type`) and answers the
/// identifier's bytes, its embedded creation time (Unix milliseconds and RFC 3339) and its
/// named parts: a UUID's version, variant, clock sequence and node; a ULID's or ObjectId's
/// random part; an XID's machine and process; a snowflake's worker, sequence and epoch. A
/// decimal is read as a Twitter snowflake unless `type` says `snowflake-discord`.
#[op(post "/v1/id/decode" as idDecode, tag = DeveloperUtilities,
     rejects = "text that is none of the formats, or not the one named",
     example(uuid_v1, {"id": "C232AB00-9414-11EC-B3C8-9F6BDECED846"}),
     example(ulid, {"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV"}),
     example(objectid, {"id": "507f1f77bcf86cd799439011"}),
     example(discord, {"id": "175928847299117063", "type": "snowflake-discord"}),
     example(unknown, {"id": "hello"}, status = 400))]
async fn id_decode(input: IdDecodeInput) -> Result<IdDecodeOutput, ApiError> {
    let text = input.id.trim();
    let decoded = match input.kind {
        IdType::Auto => detect(text)?,
        kind => {
            let read = match kind {
                IdType::Uuid => formats::uuid(text),
                IdType::Ulid => formats::ulid(text),
                IdType::Objectid => formats::object_id(text),
                IdType::Ksuid => formats::ksuid(text),
                IdType::Xid => formats::xid(text),
                IdType::SnowflakeDiscord => formats::snowflake(text, true),
                _ => formats::snowflake(text, false),
            };
            read.map_err(|why| ApiError::invalid("id", why))?
        }
    };
    let time = decoded.time();
    Ok(IdDecodeOutput {
        kind: decoded.kind,
        normalized: decoded.normalized,
        hex: hex::encode(&decoded.bytes),
        version: decoded.version,
        variant: decoded.variant,
        timestamp: time.as_ref().map(|t| t.0),
        time: time.and_then(|t| t.1),
        parts: decoded.parts,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    async fn decode(id: &str, kind: &str) -> Value {
        let input = IdDecodeInput { id: id.into(), kind: serde_json::from_value(json!(kind)).unwrap() };
        serde_json::to_value(id_decode(input).await.unwrap()).unwrap()
    }

    /// Published examples: RFC 9562's version 1, 6 and 7 UUIDs (appendix A), the ULID
    /// specification's (its time as python-ulid reads it), MongoDB's ObjectId, rs/xid's test
    /// identifier and Discord's documented snowflake.
    #[tokio::test]
    async fn published_examples() {
        let v1 = decode("C232AB00-9414-11EC-B3C8-9F6BDECED846", "auto").await;
        assert_eq!((v1["version"].as_u64(), v1["time"].as_str()), (Some(1), Some("2022-02-22T19:22:22Z")));
        assert_eq!(v1["parts"]["clockSequence"], 0x33c8);
        assert_eq!(v1["parts"]["node"], "9f:6b:de:ce:d8:46");
        let v6 = decode("1EC9414C-232A-6B00-B3C8-9F6BDECED846", "auto").await;
        assert_eq!(
            (v6["time"].as_str(), v6["parts"]["gregorianTicks"].as_str()),
            (v1["time"].as_str(), v1["parts"]["gregorianTicks"].as_str())
        );
        let v7 = decode("017F22E2-79B0-7CC3-98C4-DC0C0C07398F", "auto").await;
        assert_eq!(
            (v7["timestamp"].as_i64(), v7["time"].as_str()),
            (Some(0x017F22E279B0), Some("2022-02-22T19:22:22Z"))
        );
        let v4 = decode("919108f7-52d1-4320-9bac-f847db4148a8", "uuid").await;
        assert_eq!((v4["version"].as_u64(), v4["timestamp"].as_i64()), (Some(4), None));
        let discord = decode("175928847299117063", "snowflake-discord").await;
        assert_eq!(discord["time"], "2016-04-30T11:18:25.796Z");
        assert_eq!(
            (
                discord["parts"]["workerId"].as_u64(),
                discord["parts"]["processId"].as_u64(),
                discord["parts"]["sequence"].as_u64()
            ),
            (Some(1), Some(0), Some(7))
        );
        let xid = decode("9m4e2mr0ui3e8a215n4g", "auto").await;
        assert_eq!(xid["hex"], "4d88e15b60f486e428412dc9");
        assert_eq!(
            (xid["timestamp"].as_i64(), xid["parts"]["machineId"].as_str()),
            (Some(1_300_816_219_000), Some("60f486"))
        );
        assert_eq!(
            (xid["parts"]["processId"].as_u64(), xid["parts"]["counter"].as_u64()),
            (Some(0xe428), Some(4_271_561))
        );
        let ulid = decode("01arz3ndektsv4rrffq69g5fav", "auto").await;
        assert_eq!(
            (ulid["type"].as_str(), ulid["normalized"].as_str(), ulid["timestamp"].as_i64()),
            (Some("ulid"), Some("01ARZ3NDEKTSV4RRFFQ69G5FAV"), Some(1_469_922_850_259))
        );
        let oid = decode("507f1f77bcf86cd799439011", "auto").await;
        assert_eq!(oid["time"], "2012-10-17T21:13:27Z");
    }

    /// Python's readings (tests/fixtures/ids.py): `uuid` and `uuid6` for UUIDs of versions 1 to
    /// 7, python-ulid, pymongo's `bson.ObjectId` and svix-ksuid, each on generated identifiers.
    #[tokio::test]
    async fn pythons_readings() {
        let f = crate::testing::fixture("ids.json");
        let cases = f["decode"].as_array().unwrap();
        assert!(cases.len() >= 100);
        for c in cases {
            let id = c["id"].as_str().unwrap();
            let got = decode(id, "auto").await;
            assert_eq!(got["type"], c["type"], "{id}");
            assert_eq!(got["hex"], c["hex"], "{id}");
            assert_eq!(got["timestamp"], c["timestamp"], "{id}");
            for (key, want) in c["parts"].as_object().unwrap() {
                assert_eq!(&got["parts"][key], want, "{id} {key}");
            }
            if let Some(v) = c.get("version") {
                assert_eq!(&got["version"], v, "{id}");
            }
        }
    }

    #[tokio::test]
    async fn refusals_name_the_id() {
        for (id, kind) in [
            ("hello", "auto"),
            ("81ARZ3NDEKTSV4RRFFQ69G5FAV", "auto"),
            ("01ARZ3NDEKTSV4RRFFQ69G5FAU!", "auto"),
            ("9223372036854775808", "auto"),
            ("9m4e2mr0ui3e8a215n4w", "auto"),
            ("507f1f77bcf86cd79943901", "objectid"),
            ("zzzzzzzzzzzzzzzzzzzzzzzzzzz", "ksuid"),
        ] {
            let input = IdDecodeInput { id: id.into(), kind: serde_json::from_value(json!(kind)).unwrap() };
            let e = id_decode(input).await.unwrap_err();
            assert_eq!(e.field.as_deref(), Some("id"), "{id}");
        }
    }
}
