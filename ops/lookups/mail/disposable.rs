//! The embedded list of disposable e-mail domains, searchable and paged (`disposable-email/list`): the same list `email/validate` checks against, with its source
//! and version.

use wrench_contract::prelude::*;
use wrench_kit::mail::lists::disposable_sorted;

/// Largest page.
const MAX_PER_PAGE: u32 = 1000;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct DisposableListInput {
    /// Only domains containing this text (case-insensitive).
    #[schemars(length(max = 253))]
    search: Option<String>,
    /// The page, from 1.
    #[serde(default = "first_page")]
    #[schemars(range(min = 1, max = 100000))]
    page: u32,
    /// Domains per page, 1 to 1000.
    #[serde(default = "default_per_page")]
    #[schemars(range(min = 1, max = 1000))]
    per_page: u32,
}

fn first_page() -> u32 {
    1
}

fn default_per_page() -> u32 {
    100
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DisposableListOutput {
    /// The domains of this page, in alphabetical order.
    domains: Vec<&'static str>,
    /// Domains matching the search (all of them without one).
    total: usize,
    page: u32,
    per_page: u32,
    /// Pages of `perPage` domains that `total` fills.
    pages: usize,
    search: Option<String>,
    /// The list's source and version.
    source: &'static str,
    licence: &'static str,
}

/// List disposable e-mail domains.
///
/// Pages through the embedded list of disposable (throwaway) e-mail domains that
/// `email/validate` uses (disposable-email-domains 0.0.293, 10,181 domains, MIT), in
/// alphabetical order, optionally only those containing `search`. A page past the end is empty.
#[op(post "/v1/disposable-email/list" as disposableEmailList,
     get "/v1/disposable-email/list" as disposableEmailListGet,
     tag = Lookups,
     rejects = "a page below 1, or a page size outside 1 to 1000",
     example(first_page, {"perPage": 5}),
     example(search, {"search": "mailinator", "perPage": 3, "page": 2}),
     example(page_size_too_large, {"perPage": 5000}, status = 400))]
async fn disposable_email_list(input: DisposableListInput) -> Result<DisposableListOutput, ApiError> {
    if !(1..=MAX_PER_PAGE).contains(&input.per_page) {
        return Err(ApiError::invalid("perPage", format!("must be 1 to {MAX_PER_PAGE}")));
    }
    if input.page == 0 {
        return Err(ApiError::invalid("page", "counts from 1"));
    }
    let needle = input.search.as_deref().map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty());
    let all = disposable_sorted();
    let matching: Vec<&'static str> = match &needle {
        Some(n) => all.iter().copied().filter(|d| d.contains(n.as_str())).collect(),
        None => all.to_vec(),
    };
    let per = input.per_page as usize;
    let start = (input.page as usize - 1).saturating_mul(per);
    Ok(DisposableListOutput {
        domains: matching.iter().skip(start).take(per).copied().collect(),
        total: matching.len(),
        page: input.page,
        per_page: input.per_page,
        pages: matching.len().div_ceil(per),
        search: needle,
        source: "disposable-email-domains 0.0.293 (PyPI), taken 2026-11-25",
        licence: "MIT",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn list(search: Option<&str>, page: u32, per_page: u32) -> DisposableListOutput {
        disposable_email_list(DisposableListInput { search: search.map(Into::into), page, per_page }).await.unwrap()
    }

    /// Pages concatenate to the whole list; counts agree with `grep -c` on the data file
    /// (10,181 domains, 20 containing "mailinator").
    #[tokio::test]
    async fn pages_cover_the_list_once() {
        let first = list(None, 1, 1000).await;
        assert_eq!((first.total, first.pages), (10_181, 11));
        let mut all = Vec::new();
        for p in 1..=first.pages as u32 {
            all.extend(list(None, p, 1000).await.domains);
        }
        assert_eq!(all.len(), 10_181);
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert!(list(None, 12, 1000).await.domains.is_empty());
        let m = list(Some("MAILINATOR"), 1, 1000).await;
        assert_eq!(m.total, 20);
        assert!(m.domains.iter().all(|d| d.contains("mailinator")));
    }
}
