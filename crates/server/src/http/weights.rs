//! Weighted lists in request headers (`Accept`, `Accept-Encoding`): each item's token and its
//! `q` weight (RFC 9110 section 12.4.2), for the places that choose an answer by them, and the
//! choice between a page and JSON that the home makes by `Accept`.

/// The items of `list` (`text/html, */*;q=0.8`): each token in lower case with its weight, 1
/// when it gives none or an unreadable one.
pub(crate) fn weighted(list: &str) -> impl Iterator<Item = (String, f32)> + '_ {
    list.split(',').map(|item| {
        let mut parts = item.split(';');
        let token = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
        let q = parts
            .filter_map(|p| p.trim().strip_prefix("q=").and_then(|q| q.trim().parse::<f32>().ok()))
            .next()
            .unwrap_or(1.0);
        (token, q)
    })
}

/// Whether a request's `Accept` header asks for a page rather than JSON: it names `text/html`
/// with a weight at least that of `application/json` (or of `*/*` when JSON is not named).
/// Browsers send `text/html` first; API clients send `application/json`, `*/*` or nothing.
pub(crate) fn wants_html(accept: Option<&str>) -> bool {
    let Some(accept) = accept else { return false };
    let (mut html, mut json, mut any) = (None::<f32>, None::<f32>, None::<f32>);
    for (media, q) in weighted(accept) {
        let slot = match media.as_str() {
            "text/html" => &mut html,
            "application/json" => &mut json,
            "*/*" => &mut any,
            _ => continue,
        };
        *slot = Some(slot.map_or(q, |s| s.max(q)));
    }
    match html {
        Some(h) if h > 0.0 => h >= json.or(any).unwrap_or(0.0),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_get_the_page_and_api_clients_json() {
        let chromium = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
        let firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert!(wants_html(Some(chromium)) && wants_html(Some(firefox)));
        for api in [None, Some("*/*"), Some("application/json"), Some("application/json, text/html;q=0.5")] {
            assert!(!wants_html(api), "{api:?}");
        }
        assert!(!wants_html(Some("text/html;q=0")));
        assert!(wants_html(Some("TEXT/HTML")));
    }
}
