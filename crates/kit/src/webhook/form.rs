//! The fields of a form body, for the inbox's `form`: `application/x-www-form-urlencoded` and
//! `multipart/form-data` (RFC 7578, read with `multer`). A file part is described (name, file
//! name, media type, size, SHA-256), not copied: its bytes stay in the raw body, which is kept
//! whole. Other media types have no form.

use std::convert::Infallible;

use bytes::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Most fields read from one body; a form with more is described as far as this.
pub const MAX_FIELDS: usize = 1000;

/// One form field or file part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FormField {
    /// The field's name.
    pub name: String,
    /// The value of a text field (null for a file, or a part that is not UTF-8).
    pub value: Option<String>,
    /// A file part's file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// A part's declared media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Size of the value in bytes.
    pub size: usize,
    /// SHA-256 of a file part's bytes (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// The fields of `body` when `content_type` is a form; `None` otherwise, and for a multipart
/// body that cannot be read (the raw body still shows what arrived).
pub async fn parse(content_type: Option<&str>, body: &Bytes) -> Option<Vec<FormField>> {
    let ct = content_type?;
    let essence = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match essence.as_str() {
        "application/x-www-form-urlencoded" => Some(
            form_urlencoded::parse(body)
                .take(MAX_FIELDS)
                .map(|(k, v)| FormField {
                    name: k.into_owned(),
                    size: v.len(),
                    value: Some(v.into_owned()),
                    filename: None,
                    content_type: None,
                    sha256: None,
                })
                .collect(),
        ),
        "multipart/form-data" => multipart(ct, body.clone()).await,
        _ => None,
    }
}

async fn multipart(content_type: &str, body: Bytes) -> Option<Vec<FormField>> {
    let boundary = multer::parse_boundary(content_type).ok()?;
    let stream = futures_util::stream::once(async move { Ok::<Bytes, Infallible>(body) });
    let mut parts = multer::Multipart::new(stream, boundary);
    let mut out = Vec::new();
    while out.len() < MAX_FIELDS {
        let field = match parts.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(_) => return if out.is_empty() { None } else { Some(out) },
        };
        let name = field.name().unwrap_or("").to_string();
        let filename = field.file_name().map(str::to_string);
        let part_type = field.content_type().map(|m| m.to_string());
        let bytes = field.bytes().await.ok()?;
        let is_file = filename.is_some();
        out.push(FormField {
            name,
            value: if is_file { None } else { std::str::from_utf8(&bytes).ok().map(str::to_string) },
            sha256: is_file.then(|| hex::encode(Sha256::digest(&bytes))),
            size: bytes.len(),
            filename,
            content_type: part_type,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn urlencoded_fields_in_order_with_repeats() {
        let f = parse(Some("application/x-www-form-urlencoded; charset=utf-8"), &Bytes::from("a=1&b=x+y&a=%C3%A9"))
            .await
            .unwrap();
        let pairs: Vec<(&str, Option<&str>)> = f.iter().map(|f| (f.name.as_str(), f.value.as_deref())).collect();
        assert_eq!(pairs, [("a", Some("1")), ("b", Some("x y")), ("a", Some("é"))]);
        assert_eq!(parse(Some("application/json"), &Bytes::from("{}")).await, None);
    }

    /// A body as curl writes it for `-F name=value -F file=@a.bin;type=application/octet-stream`.
    #[tokio::test]
    async fn multipart_text_fields_and_described_files() {
        let file: Vec<u8> = vec![0, 159, 146, 150, 255];
        let mut body = Vec::new();
        body.extend_from_slice(b"--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n");
        body.extend_from_slice(
            b"--XyZ\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"a.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n",
        );
        body.extend_from_slice(&file);
        body.extend_from_slice(b"\r\n--XyZ--\r\n");
        let f = parse(Some("multipart/form-data; boundary=XyZ"), &Bytes::from(body)).await.unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].name.as_str(), f[0].value.as_deref(), f[0].size), ("note", Some("hello"), 5));
        assert_eq!((f[1].filename.as_deref(), f[1].value.as_deref(), f[1].size), (Some("a.bin"), None, 5));
        assert_eq!(f[1].content_type.as_deref(), Some("application/octet-stream"));
        assert_eq!(f[1].sha256.as_deref(), Some(hex::encode(Sha256::digest(&file)).as_str()));
        // No boundary, or a body that is not multipart at all: no form.
        assert_eq!(parse(Some("multipart/form-data"), &Bytes::from("x")).await, None);
        assert_eq!(parse(Some("multipart/form-data; boundary=q"), &Bytes::from("garbage")).await, None);
    }
}
