//! `uuid/v3` and `uuid/v5`: name-based UUIDs (RFC 9562 sections 5.3 and 5.5). The same
//! namespace and name always give the same UUID, so they name things reproducibly: a URL, a
//! domain, a row of another system.

use uuid::Uuid;

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{InputEncoding, decode};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NamedUuidInput {
    /// The namespace: `dns`, `url`, `oid` or `x500` (the four RFC 9562 section 6.6 defines), or
    /// any UUID in a form `uuid/validate` reads.
    #[schemars(length(min = 1, max = 100))]
    namespace: String,
    /// The name; its bytes (read as `nameEncoding` says) are hashed after the namespace's 16.
    #[schemars(length(max = 65536))]
    name: String,
    /// How `name` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    name_encoding: InputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NamedUuidOutput {
    /// The UUID, lower-case and hyphenated.
    uuid: String,
    /// 3 (MD5) or 5 (SHA-1).
    version: u8,
    /// The namespace as a UUID.
    namespace: String,
}

/// The namespace a caller names, or a 400.
fn namespace(text: &str) -> Result<Uuid, ApiError> {
    Ok(match text.trim().to_ascii_lowercase().as_str() {
        "dns" => Uuid::NAMESPACE_DNS,
        "url" => Uuid::NAMESPACE_URL,
        "oid" => Uuid::NAMESPACE_OID,
        "x500" => Uuid::NAMESPACE_X500,
        other => Uuid::try_parse(other)
            .map_err(|e| ApiError::invalid("namespace", format!("is neither dns, url, oid, x500 nor a UUID ({e})")))?,
    })
}

fn named(input: NamedUuidInput, version: u8) -> Result<NamedUuidOutput, ApiError> {
    let space = namespace(&input.namespace)?;
    let name = decode(&input.name, input.name_encoding, "name")?;
    let uuid = if version == 3 { Uuid::new_v3(&space, &name) } else { Uuid::new_v5(&space, &name) };
    Ok(NamedUuidOutput { uuid: uuid.hyphenated().to_string(), version, namespace: space.hyphenated().to_string() })
}

/// Make a name-based UUID with MD5 (version 3).
///
/// The MD5 of the namespace's 16 bytes followed by the name's bytes, with the version and
/// variant bits set (RFC 9562 section 5.3). Deterministic: equal inputs give equal UUIDs, as
/// Python's `uuid.uuid3` gives them. Prefer version 5 for new uses.
#[op(post "/v1/uuid/v3" as uuidV3, tag = DeveloperUtilities,
     rejects = "a namespace that is neither a known name nor a UUID",
     example(dns_name, {"namespace": "dns", "name": "www.example.com"}),
     example(custom_namespace, {"namespace": "6ba7b811-9dad-11d1-80b4-00c04fd430c8", "name": "https://example.com/"}),
     example(bad_namespace, {"namespace": "mail", "name": "x"}, status = 400))]
async fn uuid_v3(input: NamedUuidInput) -> Result<NamedUuidOutput, ApiError> {
    named(input, 3)
}

/// Make a name-based UUID with SHA-1 (version 5).
///
/// The first 16 bytes of the SHA-1 of the namespace's 16 bytes followed by the name's bytes,
/// with the version and variant bits set (RFC 9562 section 5.5), as Python's `uuid.uuid5`.
/// `name` may carry any bytes through `nameEncoding`.
#[op(post "/v1/uuid/v5" as uuidV5, tag = DeveloperUtilities,
     rejects = "a namespace that is neither a known name nor a UUID, or a name not in its encoding",
     example(dns_name, {"namespace": "dns", "name": "www.example.com"}),
     example(hex_name, {"namespace": "oid", "name": "2b0601", "nameEncoding": "hex"}),
     example(bad_hex, {"namespace": "url", "name": "zz", "nameEncoding": "hex"}, status = 400))]
async fn uuid_v5(input: NamedUuidInput) -> Result<NamedUuidOutput, ApiError> {
    named(input, 5)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(namespace: &str, name: &str, name_encoding: &str) -> NamedUuidInput {
        NamedUuidInput {
            namespace: namespace.into(),
            name: name.into(),
            name_encoding: serde_json::from_value(serde_json::json!(name_encoding)).unwrap(),
        }
    }

    /// RFC 9562 appendices A.2 and A.4, and Python's `uuid3`/`uuid5` on generated names in every
    /// namespace, some of them bytes that are not UTF-8 (tests/fixtures/ids.py).
    #[tokio::test]
    async fn rfc_vectors_and_pythons_uuids() {
        let v3 = uuid_v3(input("dns", "www.example.com", "utf-8")).await.unwrap();
        assert_eq!(v3.uuid, "5df41881-3aed-3515-88a7-2f4a814cf09e");
        let v5 = uuid_v5(input("DNS", "www.example.com", "utf-8")).await.unwrap();
        assert_eq!(v5.uuid, "2ed6657d-e927-568b-95e1-2665a8aea6a2");
        let f = crate::testing::fixture("ids.json");
        let cases = f["named"].as_array().unwrap();
        assert!(cases.len() >= 100);
        for c in cases {
            let (ns, name, enc) =
                (c["namespace"].as_str().unwrap(), c["name"].as_str().unwrap(), c["nameEncoding"].as_str().unwrap());
            assert_eq!(uuid_v3(input(ns, name, enc)).await.unwrap().uuid, c["v3"].as_str().unwrap(), "{ns} {name}");
            assert_eq!(uuid_v5(input(ns, name, enc)).await.unwrap().uuid, c["v5"].as_str().unwrap(), "{ns} {name}");
        }
        assert!(uuid_v5(input("{6ba7b810-9dad-11d1-80b4-00c04fd430c8}", "a", "utf-8")).await.is_ok());
        let e = uuid_v5(input("ldap", "a", "utf-8")).await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("namespace"));
    }
}
