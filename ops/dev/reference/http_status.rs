//! `http/status`: the registered HTTP status codes, one by number, those a search finds, or all.

use wrench_contract::prelude::*;

use super::http_status_table::STATUSES;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct HttpStatusInput {
    /// A status code, 100 to 599: its entry, or its class's when the code is not registered.
    #[serde(default)]
    #[schemars(range(min = 100, max = 599))]
    code: Option<u16>,
    /// Words to find in reason phrases and descriptions, any letter case (`redirect`, `too`).
    #[serde(default)]
    #[schemars(length(min = 1, max = 100))]
    q: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HttpStatus {
    code: u16,
    /// The reason phrase as its defining document writes it; null for a code not registered.
    reason: Option<&'static str>,
    /// `informational`, `successful`, `redirection`, `clientError` or `serverError`.
    class: &'static str,
    /// What the code means; for a code not registered, what its class means.
    description: &'static str,
    /// The defining document and section; null for a code not registered.
    spec: Option<&'static str>,
    /// Whether IANA's registry lists the code.
    registered: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
struct HttpStatusOutput {
    /// The entries, by code.
    statuses: Vec<HttpStatus>,
    count: usize,
}

fn class(code: u16) -> (&'static str, &'static str) {
    match code / 100 {
        1 => ("informational", "Informational: the request was received and is being processed."),
        2 => ("successful", "Successful: the request was received, understood and accepted."),
        3 => ("redirection", "Redirection: the client must take further action to complete the request."),
        4 => ("clientError", "Client error: the request is wrong or cannot be fulfilled."),
        _ => ("serverError", "Server error: the server failed to fulfil a request that looks valid."),
    }
}

fn entry(&(code, reason, spec, description): &(u16, &'static str, &'static str, &'static str)) -> HttpStatus {
    HttpStatus { code, reason: Some(reason), class: class(code).0, description, spec: Some(spec), registered: true }
}

/// Look up HTTP status codes.
///
/// Every code of IANA's HTTP Status Code Registry with its reason phrase, class, defining
/// document and section (RFC 9110 and the RFCs that added codes) and what it means. Give `code`
/// for one (a code in 100 to 599 that is not registered answers its class), `q` to search
/// phrases and descriptions, or neither for the whole list.
#[op(post "/v1/http/status" as httpStatus,
     get "/v1/http/status" as httpStatusGet,
     tag = DeveloperUtilities,
     example(one, {"code": 418}),
     example(search, {"q": "redirect"}),
     example(unregistered, {"code": 299}),
     example(out_of_range, {"code": 600}, status = 400))]
async fn http_status(input: HttpStatusInput) -> Result<HttpStatusOutput, ApiError> {
    let needle = input.q.as_deref().map(|q| q.trim().to_lowercase());
    let mut statuses: Vec<HttpStatus> = STATUSES
        .iter()
        .filter(|s| input.code.is_none_or(|c| c == s.0))
        .filter(|s| needle.as_deref().is_none_or(|n| s.1.to_lowercase().contains(n) || s.3.to_lowercase().contains(n)))
        .map(entry)
        .collect();
    if let Some(code) = input.code
        && statuses.is_empty()
        && needle.is_none()
    {
        let (name, description) = class(code);
        statuses.push(HttpStatus { code, reason: None, class: name, description, spec: None, registered: false });
    }
    Ok(HttpStatusOutput { count: statuses.len(), statuses })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `http.HTTPStatus` (tests/fixtures/http_status.json, from Python 3.13) lists the
    /// same codes with the same phrases, but for two places where the registry is followed
    /// instead: 418's phrase is written as RFC 2324 writes it ("I'm a teapot"), and the registry
    /// also lists 306 (unused) and 510 as obsoleted, which Python keeps under its old phrase.
    #[tokio::test]
    async fn pythons_codes_and_phrases() {
        let f = crate::testing::fixture("http_status.json");
        let python = f.as_object().unwrap();
        let all = http_status(HttpStatusInput { code: None, q: None }).await.unwrap();
        for s in &all.statuses {
            let theirs = python.get(&s.code.to_string()).and_then(|v| v.as_str());
            match s.code {
                306 => assert_eq!(theirs, None),
                418 => assert_eq!(theirs, Some("I'm a Teapot")),
                510 => assert_eq!(theirs, Some("Not Extended")),
                _ => assert_eq!(s.reason, theirs, "{}", s.code),
            }
        }
        assert_eq!(python.len(), all.count - 1, "Python has every code but 306");
        let redirects = http_status(HttpStatusInput { code: None, q: Some("REDIRECT".into()) }).await.unwrap();
        let codes: Vec<u16> = redirects.statuses.iter().map(|s| s.code).collect();
        assert_eq!(codes, [307, 308]);
        let unknown = http_status(HttpStatusInput { code: Some(299), q: None }).await.unwrap();
        assert_eq!((unknown.statuses[0].registered, unknown.statuses[0].class), (false, "successful"));
        assert!(STATUSES.windows(2).all(|w| w[0].0 < w[1].0), "the table is in order");
    }
}
