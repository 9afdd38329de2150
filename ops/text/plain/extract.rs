//! The URLs and e-mail addresses in a text (`text/extract-urls`, `text/extract-emails`), found
//! by linkify, in order, each once.

use std::collections::HashSet;

use linkify::{LinkFinder, LinkKind};

use wrench_contract::prelude::*;

use crate::text::indicators::scan::trim_url;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(super) struct ExtractInput {
    /// The text to search.
    pub(super) text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct ExtractUrlsOutput {
    /// Distinct URLs in order of first appearance.
    urls: Vec<String>,
    /// Number of distinct URLs.
    count: usize,
}

fn protocol_relative(text: &str) -> Vec<(usize, String)> {
    static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r#"(?:^|[\s(\[<"'=])(//[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,63}(?::[0-9]{1,5})?(?:[/?#][^\s<>"'`]*)?)"#,
        )
        .expect("valid pattern")
    });
    RE.captures_iter(text).filter_map(|c| c.get(1)).map(|m| (m.start(), trim_url(m.as_str()).to_string())).collect()
}

/// Find the URLs in text.
///
/// Finds `http://` and `https://` URLs (any letter case in the scheme) and protocol-relative
/// ones (`//cdn.example.com/x.js`), in order of first appearance and without duplicates.
/// Punctuation that ends the surrounding sentence is not part of a URL; a closing bracket is
/// kept when the URL itself opened one. Bare domains such as `example.com` are not URLs here.
#[op(post "/v1/text/extract-urls" as textExtractUrls, tag = TextAndData, pipe(text -> urls),
     example(typical, {"text": "See https://example.com/docs?page=2, then http://wiki.example.org/Rust_(language). Assets: //cdn.example.net/app.js and https://example.com/docs?page=2 again."}),
     example(none, {"text": "No links here, just example.com and ftp://old.example.org"}))]
async fn text_extract_urls(input: ExtractInput) -> Result<ExtractUrlsOutput, ApiError> {
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Url]).url_must_have_scheme(true);
    let mut found: Vec<(usize, String)> = finder
        .links(&input.text)
        .filter(|l| {
            let s = l.as_str().to_ascii_lowercase();
            s.starts_with("http://") || s.starts_with("https://")
        })
        .map(|l| (l.start(), trim_url(l.as_str()).to_string()))
        .collect();
    found.extend(protocol_relative(&input.text));
    found.sort_by_key(|(pos, _)| *pos);
    let mut seen = HashSet::new();
    let urls: Vec<String> = found.into_iter().map(|(_, u)| u).filter(|u| seen.insert(u.clone())).collect();
    Ok(ExtractUrlsOutput { count: urls.len(), urls })
}

#[derive(Debug, Serialize, JsonSchema)]
struct ExtractEmailsOutput {
    /// Distinct addresses in order of first appearance, as first written.
    emails: Vec<String>,
    /// Number of distinct addresses.
    count: usize,
}

/// Find the e-mail addresses in text.
///
/// Returns each address once, in order of first appearance, as it was first written;
/// duplicates are recognised regardless of letter case. The domain must contain a dot, so
/// `user@localhost` is not reported.
#[op(post "/v1/text/extract-emails" as textExtractEmails, tag = TextAndData, pipe(text -> emails),
     example(typical, {"text": "Contact sales@example.com or Support <support+eu@example.co.uk>; cc SALES@EXAMPLE.COM."}),
     example(none, {"text": "No addresses: user@localhost, @handle, a@b"}))]
async fn text_extract_emails(input: ExtractInput) -> Result<ExtractEmailsOutput, ApiError> {
    let mut finder = LinkFinder::new();
    finder.kinds(&[LinkKind::Email]).email_domain_must_have_dot(true);
    let mut seen = HashSet::new();
    let emails: Vec<String> =
        finder.links(&input.text).map(|l| l.as_str().to_string()).filter(|e| seen.insert(e.to_lowercase())).collect();
    Ok(ExtractEmailsOutput { count: emails.len(), emails })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn url_extraction() {
        let out = text_extract_urls(ExtractInput {
            text: "x https://a.example/p. (see https://b.example/q) //c.example/r, HTTPS://A.example/p".into(),
        })
        .await
        .unwrap();
        assert_eq!(
            out.urls,
            vec!["https://a.example/p", "https://b.example/q", "//c.example/r", "HTTPS://A.example/p"]
        );
    }
}
