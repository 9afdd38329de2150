// A pipe names a field of the input and a field of the output, and needs both an input and a
// JSON answer.
use wrench_contract::prelude::*;

#[derive(Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "camelCase")]
struct In {
    plain_text: String,
}

#[derive(Serialize, JsonSchema)]
struct Out {
    encoded: String,
}

/// Encode it.
#[op(post "/v1/encode" as encodeIt, tag = TextAndData, pipe(plainText -> encoded),
     example(typical, {"plainText": "a"}))]
async fn encode_it(input: In) -> Result<Out, ApiError> {
    Ok(Out { encoded: input.plain_text })
}

/// Encode it, with a misspelt input field.
#[op(post "/v1/encode2" as encodeTwo, tag = TextAndData, pipe(text -> encoded),
     example(typical, {"plainText": "a"}))]
async fn encode_two(input: In) -> Result<Out, ApiError> {
    Ok(Out { encoded: input.plain_text })
}

/// Encode it, with a misspelt output field.
#[op(post "/v1/encode3" as encodeThree, tag = TextAndData, pipe(plainText -> encodedText),
     example(typical, {"plainText": "a"}))]
async fn encode_three(input: In) -> Result<Out, ApiError> {
    Ok(Out { encoded: input.plain_text })
}

/// Nothing to pipe into.
#[op(post "/v1/make" as makeIt, tag = TextAndData, pipe(text -> encoded),
     example(typical, {}))]
async fn make_it() -> Result<Out, ApiError> {
    Ok(Out { encoded: String::new() })
}

/// Written the wrong way.
#[op(post "/v1/encode4" as encodeFour, tag = TextAndData, pipe(plainText, encoded),
     example(typical, {"plainText": "a"}))]
async fn encode_four(input: In) -> Result<Out, ApiError> {
    Ok(Out { encoded: input.plain_text })
}

fn main() {}
