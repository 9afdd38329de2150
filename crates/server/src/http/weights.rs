//! Weighted lists in request headers (`Accept`, `Accept-Encoding`): each item's token and its
//! `q` weight (RFC 9110 section 12.4.2), for the places that choose an answer by them.

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
