//! A text in another case convention (`text/case`): camel, snake, kebab, Pascal or constant
//! case, split into words by heck's rules.

use heck::{ToKebabCase, ToLowerCamelCase, ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate, Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
enum Case {
    /// camelCase
    Camel,
    /// snake_case
    Snake,
    /// kebab-case
    Kebab,
    /// PascalCase
    Pascal,
    /// CONSTANT_CASE
    Constant,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct CaseInput {
    /// The text to convert.
    text: String,
    /// Target case.
    to: Case,
}

#[derive(Debug, Serialize, JsonSchema)]
struct CaseOutput {
    /// The converted text.
    converted: String,
    /// The case it was converted to.
    to: Case,
}

/// Convert text between identifier cases.
///
/// Splits the text into words at spaces, punctuation, underscores, hyphens and lower-to-upper
/// transitions (so `parseHTTPResponse`, `parse_http_response` and `Parse HTTP response` are all
/// three words), then joins them as camelCase, snake_case, kebab-case, PascalCase or
/// CONSTANT_CASE. Letters outside ASCII are kept and cased by Unicode rules.
#[op(post "/v1/text/case" as textCase, tag = TextAndData,
     example(snake, {"text": "parseHTTPResponse body", "to": "snake"}),
     example(camel, {"text": "user-account_ID", "to": "camel"}),
     example(constant_unicode, {"text": "größe der Datei", "to": "constant"}))]
async fn text_case(input: CaseInput) -> Result<CaseOutput, ApiError> {
    let t = &input.text;
    let converted = match input.to {
        Case::Camel => t.to_lower_camel_case(),
        Case::Snake => t.to_snake_case(),
        Case::Kebab => t.to_kebab_case(),
        Case::Pascal => t.to_upper_camel_case(),
        Case::Constant => t.to_shouty_snake_case(),
    };
    Ok(CaseOutput { converted, to: input.to })
}
