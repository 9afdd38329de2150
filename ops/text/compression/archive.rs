//! Archives (`archive/list`, `archive/extract`): zip, tar, tar.gz and tar.zst read from the
//! request's bytes, never from or to a disk, so an entry named `../x` or `/etc/passwd` is
//! only a name in the listing.
//!
//! What an archive may cost is bounded three ways: the entries listed ([`MAX_ENTRIES`]), the
//! bytes a compressed tar is inflated to while it is walked ([`MAX_TAR_BYTES`]), and an
//! extracted entry, which stops one byte past what the answer can hold.

use std::io::{Cursor, Read};

use wrench_contract::prelude::*;
use wrench_infra::bounds;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

use super::formats::ZSTD_WINDOW_LOG_MAX;

/// Most entries an answer lists.
pub const MAX_ENTRIES: usize = 10_000;
/// Most bytes a tar.gz or tar.zst is inflated to while its entries are walked.
pub const MAX_TAR_BYTES: u64 = 128 << 20;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
enum ArchiveFormat {
    /// By the signature: zip, gzip (tar.gz), Zstandard (tar.zst) or tar's `ustar`.
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "zip")]
    Zip,
    #[serde(rename = "tar")]
    Tar,
    #[serde(rename = "tar.gz")]
    TarGz,
    #[serde(rename = "tar.zst")]
    TarZst,
}

fn auto() -> ArchiveFormat {
    ArchiveFormat::Auto
}

fn sniff(bytes: &[u8]) -> Option<ArchiveFormat> {
    match bytes {
        [b'P', b'K', 3, 4, ..] | [b'P', b'K', 5, 6, ..] => Some(ArchiveFormat::Zip),
        [0x1f, 0x8b, ..] => Some(ArchiveFormat::TarGz),
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(ArchiveFormat::TarZst),
        _ if bytes.get(257..262) == Some(b"ustar") => Some(ArchiveFormat::Tar),
        _ => None,
    }
}

/// The format named, or found; a 400 when neither.
fn format_of(bytes: &[u8], asked: ArchiveFormat) -> Result<ArchiveFormat, ApiError> {
    match asked {
        ArchiveFormat::Auto => sniff(bytes).ok_or_else(|| {
            ApiError::invalid("input", "is not an archive known here by its signature (zip, tar, tar.gz, tar.zst)")
        }),
        named => Ok(named),
    }
}

#[derive(Debug, Serialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum EntryKind {
    File,
    Directory,
    Symlink,
    Hardlink,
    Other,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Entry {
    /// The name as the archive holds it, `../` and leading `/` included.
    path: String,
    /// `file`, `directory`, `symlink`, `hardlink` or `other`.
    kind: EntryKind,
    /// Bytes once extracted.
    size: u64,
    /// Bytes as stored (zip only; a tar stores entries as they are).
    compressed_size: Option<u64>,
    /// Last modified, RFC 3339 in UTC, when the archive says.
    modified: Option<String>,
    /// Unix permission bits in octal (`644`), when the archive says.
    mode: Option<String>,
    /// CRC-32 of the contents in hex (zip only).
    crc32: Option<String>,
    /// Whether the entry is encrypted (zip only; it cannot be extracted here).
    encrypted: bool,
    /// Where a link points (tar only).
    link_target: Option<String>,
}

fn rfc3339(seconds: i64) -> Option<String> {
    jiff::Timestamp::from_second(seconds).ok().map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// What walking an archive found: its entries (at most [`MAX_ENTRIES`]), whether there were
/// more, and the bytes of the entry asked for.
#[derive(Debug)]
struct Walk {
    entries: Vec<Entry>,
    truncated: bool,
    found: Option<Vec<u8>>,
}

/// The entries of a zip, and with `want`, that entry's bytes (at most `cap`).
fn zip_walk(bytes: &[u8], want: Option<&str>, cap: usize) -> Result<Walk, ApiError> {
    let bad = |e: zip::result::ZipError| ApiError::invalid("input", format!("is not a valid zip archive: {e}"));
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).map_err(bad)?;
    let mut entries = Vec::new();
    let mut found = None;
    let total = archive.len();
    for i in 0..total.min(MAX_ENTRIES) {
        let file = archive.by_index_raw(i).map_err(bad)?;
        let kind = if file.is_dir() {
            EntryKind::Directory
        } else if file.is_symlink() {
            EntryKind::Symlink
        } else {
            EntryKind::File
        };
        let modified = file.last_modified().and_then(|t| {
            let date = jiff::civil::date(t.year() as i16, t.month() as i8, t.day() as i8);
            date.at(t.hour() as i8, t.minute() as i8, t.second() as i8, 0)
                .to_zoned(jiff::tz::TimeZone::UTC)
                .ok()
                .map(|z| z.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        });
        entries.push(Entry {
            path: file.name().map_err(bad)?.into_owned(),
            kind,
            size: file.size(),
            compressed_size: Some(file.compressed_size()),
            modified,
            mode: file.unix_mode().map(|m| format!("{:o}", m & 0o7777)),
            crc32: Some(format!("{:08x}", file.crc32())),
            encrypted: file.encrypted(),
            link_target: None,
        });
    }
    if let Some(name) = want {
        let index = archive.index_for_name(name).ok_or_else(|| not_found(name))?;
        if archive.by_index_raw(index).map_err(bad)?.encrypted() {
            return Err(ApiError::invalid("path", "is encrypted; this service does not take archive passwords"));
        }
        let file = archive.by_index(index).map_err(bad)?;
        found = Some(read_capped(file, cap)?);
    }
    Ok(Walk { entries, truncated: total > MAX_ENTRIES, found })
}

fn not_found(name: &str) -> ApiError {
    ApiError::invalid("path", format!("no entry of the archive is named {name:?} (archive/list names them)"))
}

/// At most `cap` bytes of `reader`, or RESULT_TOO_LARGE.
fn read_capped(reader: impl Read, cap: usize) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::new();
    reader
        .take(cap as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| ApiError::invalid("input", format!("an entry could not be read: {e}")))?;
    if out.len() > cap {
        return Err(bounds::result_too_large(cap + 1, true, cap));
    }
    Ok(out)
}

/// The entries of a tar (inflated first for tar.gz and tar.zst, at most [`MAX_TAR_BYTES`]),
/// and with `want`, that entry's bytes (at most `cap`).
fn tar_walk(bytes: &[u8], format: ArchiveFormat, want: Option<&str>, cap: usize) -> Result<Walk, ApiError> {
    let bad = |e: std::io::Error| ApiError::invalid("input", format!("is not a valid tar archive: {e}"));
    let inner: Box<dyn Read + '_> = match format {
        ArchiveFormat::TarGz => Box::new(flate2::read::MultiGzDecoder::new(bytes)),
        ArchiveFormat::TarZst => {
            let mut d = zstd::stream::read::Decoder::new(bytes).map_err(bad)?;
            d.window_log_max(ZSTD_WINDOW_LOG_MAX).map_err(bad)?;
            Box::new(d)
        }
        _ => Box::new(bytes),
    };
    let mut limited = inner.take(MAX_TAR_BYTES);
    let mut archive = tar::Archive::new(&mut limited);
    let (mut entries, mut more, mut found) = (Vec::new(), false, None);
    for entry in archive.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let header = entry.header();
        let path = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        if entries.len() == MAX_ENTRIES {
            more = true;
            if want.is_none() {
                break;
            }
        } else {
            let kind = match header.entry_type() {
                tar::EntryType::Regular | tar::EntryType::Continuous => EntryKind::File,
                tar::EntryType::Directory => EntryKind::Directory,
                tar::EntryType::Symlink => EntryKind::Symlink,
                tar::EntryType::Link => EntryKind::Hardlink,
                _ => EntryKind::Other,
            };
            entries.push(Entry {
                path: path.clone(),
                kind,
                size: entry.size(),
                compressed_size: None,
                modified: header.mtime().ok().and_then(|s| rfc3339(s as i64)),
                mode: header.mode().ok().map(|m| format!("{:o}", m & 0o7777)),
                crc32: None,
                encrypted: false,
                link_target: entry.link_name_bytes().map(|l| String::from_utf8_lossy(&l).into_owned()),
            });
        }
        if want == Some(path.as_str()) && found.is_none() {
            found = Some(read_capped(&mut entry, cap)?);
            if more {
                break;
            }
        }
    }
    if limited_exhausted(&limited) {
        return Err(ApiError::invalid(
            "input",
            format!("inflates past {MAX_TAR_BYTES} bytes before its end; this service walks no more"),
        ));
    }
    if let Some(name) = want
        && found.is_none()
    {
        return Err(not_found(name));
    }
    Ok(Walk { entries, truncated: more, found })
}

fn limited_exhausted<R>(limited: &std::io::Take<R>) -> bool {
    limited.limit() == 0
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ArchiveListInput {
    /// The archive's bytes, written as `inputEncoding` says (Base64 unless told otherwise).
    input: String,
    /// How `input` carries its bytes: `base64` (the default here), `base64url`, `hex` or
    /// `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
    /// `auto` (the default, by the signature), `zip`, `tar`, `tar.gz` or `tar.zst`.
    #[serde(default = "auto")]
    format: ArchiveFormat,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ArchiveListOutput {
    /// The format read.
    format: ArchiveFormat,
    /// The entries in the archive's order, at most 10,000.
    entries: Vec<Entry>,
    /// Whether the archive holds more entries than are listed.
    truncated: bool,
}

/// List the entries of a zip, tar, tar.gz or tar.zst archive.
///
/// Reads the archive from the request (Base64 by default; the format by its signature unless
/// named) and lists each entry with its name exactly as stored (`../` and absolute names
/// included: nothing is ever written to a disk here), kind, size, stored size and CRC-32 (zip),
/// modification time, permission bits, link target (tar) and whether it is encrypted (zip). At
/// most 10,000 entries are listed (`truncated` says when there are more), and a compressed tar
/// is inflated to at most 128 MiB while it is walked.
#[op(post "/v1/archive/list" as archiveList, tag = TextAndData,
     rejects = "`input` that is not an archive of the format, or a compressed tar that inflates past 128 MiB",
     example(zip, {"input": "UEsDBBQAAAAAAAAAfV0gMDo2BgAAAAYAAAAJAAAAaGVsbG8udHh0aGVsbG8KUEsBAhQDFAAAAAAAAAB9XSAwOjYGAAAABgAAAAkAAAAAAAAAAAAAAKSBAAAAAGhlbGxvLnR4dFBLBQYAAAAAAQABADcAAAAtAAAAAAA="}),
     example(not_an_archive, {"input": "aGVsbG8="}, status = 400))]
async fn archive_list(ctx: &Ctx, input: ArchiveListInput) -> Result<ArchiveListOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let format = format_of(&bytes, input.format)?;
    let limit = ctx.config.response_limit;
    let Walk { entries, truncated, .. } = wrench_infra::cpu::run(move || match format {
        ArchiveFormat::Zip => zip_walk(&bytes, None, 0),
        _ => tar_walk(&bytes, format, None, 0),
    })
    .await?;
    // Each entry's fields are short, but ten thousand long names add up.
    let mut budget = bounds::OutputBudget::new(limit);
    for e in &entries {
        budget.add_json_string(&e.path)?;
        budget.add(200 + e.link_target.as_ref().map_or(0, String::len) * 6)?;
    }
    Ok(ArchiveListOutput { format, entries, truncated })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ArchiveExtractInput {
    /// The archive's bytes, written as `inputEncoding` says (Base64 unless told otherwise).
    input: String,
    /// How `input` carries its bytes: `base64` (the default here), `base64url`, `hex` or
    /// `utf-8`.
    #[serde(default = "wrench_kit::byte_encoding::base64_input")]
    input_encoding: InputEncoding,
    /// `auto` (the default, by the signature), `zip`, `tar`, `tar.gz` or `tar.zst`.
    #[serde(default = "auto")]
    format: ArchiveFormat,
    /// The entry's name exactly as `archive/list` gives it.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// How to write the entry's bytes: `auto` (the default: text when they are UTF-8 text
    /// without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8`, `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct ArchiveExtractOutput {
    /// The entry's bytes, written as `outputEncoding` says.
    output: String,
    /// How `output` is written: `utf-8`, `hex`, `base64` or `base64url`.
    output_encoding: UsedEncoding,
    /// The entry's name.
    path: String,
    /// Its size in bytes.
    size: usize,
}

/// Extract one entry of a zip, tar, tar.gz or tar.zst archive.
///
/// Reads the entry named `path` (exactly as `archive/list` gives it) from the archive in the
/// request and answers its bytes, as text when they are text, else in the encoding
/// `outputEncoding` names. Nothing touches a disk. An entry that would decompress past what
/// the answer can hold stops there with 400 `RESULT_TOO_LARGE`; encrypted zip entries are
/// refused, as no password is taken.
#[op(post "/v1/archive/extract" as archiveExtract, tag = TextAndData, pipe(input -> output),
     rejects = "`input` that is not an archive of the format, no entry of that name, an encrypted entry, or an entry past the response limit",
     example(zip, {"input": "UEsDBBQAAAAAAAAAfV0gMDo2BgAAAAYAAAAJAAAAaGVsbG8udHh0aGVsbG8KUEsBAhQDFAAAAAAAAAB9XSAwOjYGAAAABgAAAAkAAAAAAAAAAAAAAKSBAAAAAGhlbGxvLnR4dFBLBQYAAAAAAQABADcAAAAtAAAAAAA=", "path": "hello.txt"}),
     example(missing, {"input": "UEsDBBQAAAAAAAAAfV0gMDo2BgAAAAYAAAAJAAAAaGVsbG8udHh0aGVsbG8KUEsBAhQDFAAAAAAAAAB9XSAwOjYGAAAABgAAAAkAAAAAAAAAAAAAAKSBAAAAAGhlbGxvLnR4dFBLBQYAAAAAAQABADcAAAAtAAAAAAA=", "path": "nothing.txt"}, status = 400))]
async fn archive_extract(ctx: &Ctx, input: ArchiveExtractInput) -> Result<ArchiveExtractOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let format = format_of(&bytes, input.format)?;
    let cap = ctx.config.response_limit.saturating_sub(256) / 4 * 3;
    let path = input.path;
    let wanted = path.clone();
    let Walk { found, .. } = wrench_infra::cpu::run(move || match format {
        ArchiveFormat::Zip => zip_walk(&bytes, Some(&wanted), cap),
        _ => tar_walk(&bytes, format, Some(&wanted), cap),
    })
    .await?;
    let data = found.unwrap_or_default();
    let (output, output_encoding) = byte_encoding::encode(&data, input.output_encoding, "outputEncoding")?;
    Ok(ArchiveExtractOutput { output, output_encoding, path, size: data.len() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Archives written by Python's `zipfile` and `tarfile` (plain, gzip) and by Debian's
    /// `tar --zstd`, hostile names included (`../evil`, `/etc/passwd`): every entry listed as
    /// they list it, and every file read back (tests/fixtures/archives.py).
    #[test]
    fn python_and_tar_agree() {
        let fixture = crate::testing::fixture("archives.json");
        let archives = fixture.as_array().unwrap();
        assert!(archives.len() >= 4);
        for archive in archives {
            let bytes = ::hex::decode(archive["hex"].as_str().unwrap()).unwrap();
            let format = sniff(&bytes).unwrap();
            let name = archive["format"].as_str().unwrap();
            let Walk { entries, truncated, .. } = match format {
                ArchiveFormat::Zip => zip_walk(&bytes, None, 0),
                _ => tar_walk(&bytes, format, None, 0),
            }
            .unwrap();
            assert!(!truncated);
            let want = archive["entries"].as_array().unwrap();
            assert_eq!(entries.len(), want.len(), "{name}");
            for (got, want) in entries.iter().zip(want) {
                // tarfile lists a directory without the `/` the header holds; wrench lists
                // names as they are stored.
                let stored = if got.kind == EntryKind::Directory { got.path.trim_end_matches('/') } else { &got.path };
                assert_eq!(stored, want["path"].as_str().unwrap().trim_end_matches('/'), "{name}");
                assert_eq!(got.size, want["size"].as_u64().unwrap(), "{name} {}", got.path);
                assert_eq!(got.kind == EntryKind::Directory, want["dir"].as_bool().unwrap(), "{name} {}", got.path);
                if let Some(crc) = want["crc32"].as_str() {
                    assert_eq!(got.crc32.as_deref(), Some(crc), "{name} {}", got.path);
                }
                if let Some(contents) = want["hex"].as_str() {
                    let read = match format {
                        ArchiveFormat::Zip => zip_walk(&bytes, Some(&got.path), 1 << 20),
                        _ => tar_walk(&bytes, format, Some(&got.path), 1 << 20),
                    }
                    .unwrap()
                    .found
                    .unwrap();
                    assert_eq!(::hex::encode(read), contents, "{name} {}", got.path);
                }
            }
        }
    }

    #[test]
    fn bombs_and_missing_entries_are_refused() {
        let zeros = vec![0u8; 4 << 20];
        let mut zip_bytes = Cursor::new(Vec::new());
        {
            let mut w = zip::ZipWriter::new(&mut zip_bytes);
            let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
            w.start_file("zeros.bin", options).unwrap();
            std::io::Write::write_all(&mut w, &zeros).unwrap();
            w.finish().unwrap();
        }
        let bytes = zip_bytes.into_inner();
        assert!(bytes.len() < 16 << 10);
        let e = zip_walk(&bytes, Some("zeros.bin"), 1 << 20).unwrap_err();
        assert_eq!(e.code, wrench_infra::envelope::ErrorCode::ResultTooLarge);
        let e = zip_walk(&bytes, Some("nope"), 1 << 20).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("path"));
    }
}
