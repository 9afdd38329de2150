//! `mime/lookup`: media types by file extension, file name or type, from npm mime-db 1.54.0
//! (`data/mime/types.tsv`), with the type an extension resolves to when several claim it as
//! npm mime-types 3.0.2 resolves it (`data/mime/extensions.tsv`).

use std::{collections::HashMap, sync::LazyLock};

use wrench_contract::prelude::*;

/// One media type of mime-db.
struct MediaType {
    source: &'static str,
    compressible: Option<bool>,
    charset: &'static str,
    extensions: Vec<&'static str>,
}

struct Tables {
    types: HashMap<&'static str, MediaType>,
    by_extension: HashMap<&'static str, &'static str>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut types = HashMap::new();
    for line in wrench_infra::blobs::MIME_TYPES.leak_text().lines() {
        let f: Vec<&'static str> = line.split('\t').collect();
        let [name, source, compressible, charset, extensions] = f[..] else { continue };
        let compressible = match compressible {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        };
        let extensions = extensions.split(',').filter(|e| !e.is_empty()).collect();
        types.insert(name, MediaType { source, compressible, charset, extensions });
    }
    let by_extension =
        wrench_infra::blobs::MIME_EXTENSIONS.leak_text().lines().filter_map(|l| l.split_once('\t')).collect();
    Tables { types, by_extension }
});

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MimeLookupInput {
    /// An extension, with or without its dot (`json`, `.tar.gz` takes the last one).
    #[serde(default)]
    #[schemars(length(min = 1, max = 255))]
    extension: Option<String>,
    /// A file name or path (`report.PDF`, `dir/archive.tar.gz`); its last extension counts.
    #[serde(default)]
    #[schemars(length(min = 1, max = 1024))]
    filename: Option<String>,
    /// A media type (`image/png`; parameters such as `; charset=utf-8` are ignored).
    #[serde(default)]
    #[schemars(length(min = 1, max = 255))]
    mime_type: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MimeLookupOutput {
    /// Whether the extension or type is known.
    found: bool,
    /// The media type; null when not found.
    mime_type: Option<String>,
    /// Its extensions, the usual one first.
    extensions: Vec<String>,
    /// Whether it is worth compressing in transit; null when mime-db does not say.
    compressible: Option<bool>,
    /// Its default charset, when mime-db gives one.
    charset: Option<String>,
    /// Where mime-db has it from: `iana`, `apache` or `nginx`; null for its own additions.
    source: Option<String>,
}

/// The extension a name resolves by: what follows its last dot, in its last path segment,
/// lower case; a leading dot alone (`.bashrc`) is the whole segment, as npm mime-types reads
/// `extname("x." + name)`.
fn extension_of(name: &str) -> String {
    let prefixed = format!("x.{name}");
    let segment = prefixed.rsplit('/').next().unwrap_or_default();
    segment.rsplit_once('.').map(|(_, e)| e.to_lowercase()).unwrap_or_default()
}

fn entry(name: &str) -> MimeLookupOutput {
    match TABLES.types.get_key_value(name) {
        Some((name, t)) => MimeLookupOutput {
            found: true,
            mime_type: Some(name.to_string()),
            extensions: t.extensions.iter().map(|e| e.to_string()).collect(),
            compressible: t.compressible,
            charset: (!t.charset.is_empty()).then(|| t.charset.to_string()),
            source: (!t.source.is_empty()).then(|| t.source.to_string()),
        },
        None => MimeLookupOutput {
            found: false,
            mime_type: None,
            extensions: Vec::new(),
            compressible: None,
            charset: None,
            source: None,
        },
    }
}

/// Look up a media (MIME) type by extension, file name or type.
///
/// From mime-db's 2,522 media types (IANA's registry, Apache's and nginx's lists): the type a
/// file extension or name maps to (when several types claim an extension, the one npm
/// mime-types chooses), or a type's extensions, compressibility, default charset and source.
/// Give exactly one of `extension`, `filename` and `mimeType`. An unknown one answers
/// `found: false`.
#[op(post "/v1/mime/lookup" as mimeLookup, tag = DeveloperUtilities,
     rejects = "none or more than one of extension, filename and mimeType",
     example(by_extension, {"extension": "webp"}),
     example(by_filename, {"filename": "backups/site.tar.gz"}),
     example(by_type, {"mimeType": "text/html; charset=utf-8"}),
     example(unknown, {"extension": "wrenchx"}),
     example(two_given, {"extension": "png", "mimeType": "image/png"}, status = 400))]
async fn mime_lookup(input: MimeLookupInput) -> Result<MimeLookupOutput, ApiError> {
    let given = [input.extension.is_some(), input.filename.is_some(), input.mime_type.is_some()];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(ApiError::invalid("extension", "give exactly one of extension, filename and mimeType"));
    }
    if let Some(t) = input.mime_type {
        let name = t.split(';').next().unwrap_or_default().trim().to_lowercase();
        return Ok(entry(&name));
    }
    let ext = match (input.extension, input.filename) {
        (Some(e), _) => extension_of(e.trim()),
        (_, Some(f)) => extension_of(f.trim()),
        _ => unreachable!("one was given"),
    };
    Ok(match TABLES.by_extension.get(ext.as_str()) {
        Some(t) => entry(t),
        None => entry(""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// npm mime-types 3.0.2 (tests/fixtures/mime.mjs): `lookup` of 210 file names, paths and
    /// bare extensions, and `extension` of every one of mime-db's types.
    #[tokio::test]
    async fn mime_types_answers() {
        let f = crate::testing::fixture("mime.json");
        for c in f["lookups"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            let out = mime_lookup(MimeLookupInput { extension: None, filename: Some(name.into()), mime_type: None })
                .await
                .unwrap();
            assert_eq!(out.mime_type.as_deref(), c["type"].as_str(), "{name}");
        }
        let types = f["types"].as_array().unwrap();
        assert_eq!(types.len(), TABLES.types.len());
        for c in types {
            let t = c["type"].as_str().unwrap();
            let out =
                mime_lookup(MimeLookupInput { extension: None, filename: None, mime_type: Some(t.to_uppercase()) })
                    .await
                    .unwrap();
            assert!(out.found, "{t}");
            assert_eq!(out.extensions.first().map(String::as_str), c["extension"].as_str(), "{t}");
        }
    }
}
