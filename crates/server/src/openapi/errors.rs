//! Error responses in the document: for each operation, exactly the codes it can answer.
//!
//! The codes come from the same `ErrorCode` enum the server renders, grouped by status. Each
//! distinct group (say 400 with `INVALID_JSON`, `VALIDATION_ERROR` and `RESULT_TOO_LARGE`) is
//! one shared response under `components.responses` and one envelope schema under
//! `components.schemas` whose `error.code` lists that group's codes and nothing else, so a
//! generated SDK has a named type per group and contract fuzzing fails on any code an
//! operation sends without declaring it.

use std::collections::BTreeMap;

use heck::ToUpperCamelCase;
use serde_json::{Map, Value, json};

use wrench_infra::envelope::ErrorCode;

/// The component name of a group: `NotFoundError`, `ValidationOrResultTooLargeError`.
pub(super) fn group_name(codes: &[ErrorCode]) -> String {
    let parts: Vec<String> = codes
        .iter()
        .map(|c| {
            let pascal = c.as_str().to_upper_camel_case();
            pascal.strip_suffix("Error").map(str::to_string).unwrap_or(pascal)
        })
        .collect();
    parts.join("Or") + "Error"
}

/// The codes of one operation grouped by status, in status order.
pub(super) fn by_status(codes: &[ErrorCode]) -> BTreeMap<u16, Vec<ErrorCode>> {
    let mut groups: BTreeMap<u16, Vec<ErrorCode>> = BTreeMap::new();
    for &c in codes {
        groups.entry(c.status().as_u16()).or_default().push(c);
    }
    groups
}

/// The shared response of a group, for `components.responses`.
pub(super) fn response(codes: &[ErrorCode]) -> Value {
    let status = codes[0].status();
    let lines: Vec<String> = codes.iter().map(|c| format!("`{}`: {}", c.as_str(), c.describe())).collect();
    let mut headers = Map::new();
    headers.insert("X-Request-Id".into(), json!({"$ref": "#/components/headers/X-Request-Id"}));
    if codes.contains(&ErrorCode::RateLimited) {
        for name in RATE_HEADERS.iter().map(|(n, _)| n) {
            headers.insert((*name).into(), json!({"$ref": format!("#/components/headers/{name}")}));
        }
    }
    // The other answers that say when to come back: a spent provider budget, a full store.
    if codes.iter().any(|c| matches!(c, ErrorCode::ProviderBusy | ErrorCode::StoreFull)) {
        headers.insert("Retry-After".into(), json!({"$ref": "#/components/headers/Retry-After"}));
    }
    json!({
        "description": format!("{}. {}", status.canonical_reason().unwrap_or("Error"), lines.join(" ")),
        "headers": headers,
        "content": {"application/json": {
            "schema": {"$ref": format!("#/components/schemas/{}", group_name(codes))},
            "examples": examples(codes)
        }}
    })
}

/// One example envelope per code of a group, so each status shows the codes it really
/// carries.
fn examples(codes: &[ErrorCode]) -> Value {
    let mut out = Map::new();
    for &c in codes {
        let mut error = json!({"code": c.as_str(), "message": c.describe()});
        match c {
            ErrorCode::ValidationError => {
                error["message"] = json!("text: is required");
                error["field"] = json!("text");
            }
            ErrorCode::InvalidJson => {
                error["message"] = json!("body is not valid JSON: expected value at line 1 column 2");
                error["line"] = json!(1);
                error["column"] = json!(2);
            }
            _ => {}
        }
        out.insert(
            c.as_str().into(),
            json!({
                "summary": c.as_str(),
                "value": {
                    "success": false,
                    "error": error,
                    "meta": {"requestId": "01JDQ7ZQ6K8V3N5R2T4W6Y8A0C", "duration": 0.4}
                }
            }),
        );
    }
    Value::Object(out)
}

/// The envelope of a group, for `components.schemas`: `error` holds only the group's codes, and
/// the members only those codes carry (`field` with `VALIDATION_ERROR`, `line` and `column`
/// with `INVALID_JSON`).
pub(super) fn schema(codes: &[ErrorCode]) -> Value {
    let mut properties = Map::new();
    properties.insert(
        "code".into(),
        json!({
            "type": "string",
            "enum": codes.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
            "description": "Machine-readable code; each is always sent with the same status."
        }),
    );
    properties.insert(
        "message".into(),
        json!({"type": "string", "description": "Human-readable explanation, naming the field at fault."}),
    );
    if codes.contains(&ErrorCode::ValidationError) {
        properties.insert(
            "field".into(),
            json!({"type": "string", "description": "The input field at fault, as the client spelled it."}),
        );
    }
    if codes.contains(&ErrorCode::InvalidJson) {
        properties.insert(
            "line".into(),
            json!({"type": "integer", "minimum": 1, "description": "Line of the syntax error."}),
        );
        properties.insert(
            "column".into(),
            json!({"type": "integer", "minimum": 1, "description": "Column of the syntax error."}),
        );
    }
    json!({
        "type": "object",
        "required": ["success", "error", "meta"],
        "properties": {
            "success": {"type": "boolean", "description": "Always `false` here: the call failed."},
            "error": {"type": "object", "required": ["code", "message"], "properties": properties},
            "meta": {"$ref": "#/components/schemas/Meta"}
        }
    })
}

/// Headers sent with 429, beside `X-Request-Id` (`Retry-After` also with 503 `PROVIDER_BUSY`
/// and 507).
pub(super) const RATE_HEADERS: &[(&str, &str)] = &[
    (
        "Retry-After",
        "Seconds to wait before trying again: until the exhausted window resets (429), the provider's budget renews (503 `PROVIDER_BUSY`), or the store may have room again (507).",
    ),
    ("RateLimit-Limit", "Requests allowed in the tighter window (per minute or per day)."),
    ("RateLimit-Remaining", "Requests left in that window."),
    ("RateLimit-Reset", "Seconds until that window resets."),
];

/// `components.headers`: the request id and the rate-limit headers.
pub(super) fn headers() -> Value {
    let mut out = Map::new();
    out.insert(
        "X-Request-Id".into(),
        json!({"description": "The request identifier, also in `meta.requestId`.", "schema": {"type": "string"}}),
    );
    for (name, what) in RATE_HEADERS {
        out.insert((*name).into(), json!({"description": what, "schema": {"type": "integer"}}));
    }
    Value::Object(out)
}

/// The table of codes for the document's description: the codes the listed operations answer,
/// plus the two the router gives to requests that match no operation.
pub(super) fn table(used: &[ErrorCode]) -> String {
    let mut codes: Vec<ErrorCode> =
        used.iter().copied().chain([ErrorCode::NotFound, ErrorCode::MethodNotAllowed]).collect();
    codes.sort();
    codes.dedup();
    codes
        .iter()
        .map(|c| format!("- `{}` ({}): {}", c.as_str(), c.status().as_u16(), c.describe()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_names_read_as_their_codes() {
        assert_eq!(group_name(&[ErrorCode::NotFound]), "NotFoundError");
        assert_eq!(group_name(&[ErrorCode::InternalError]), "InternalError");
        assert_eq!(
            group_name(&[ErrorCode::InvalidJson, ErrorCode::ValidationError, ErrorCode::ResultTooLarge]),
            "InvalidJsonOrValidationOrResultTooLargeError"
        );
    }

    #[test]
    fn a_group_schema_allows_its_codes_only() {
        let s = schema(&[ErrorCode::ValidationError, ErrorCode::ResultTooLarge]);
        let error = &s["properties"]["error"]["properties"];
        assert_eq!(error["code"]["enum"], json!(["VALIDATION_ERROR", "RESULT_TOO_LARGE"]));
        assert!(error["field"].is_object() && error["line"].is_null());
    }
}
