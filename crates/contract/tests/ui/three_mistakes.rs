// A declaration with three mistakes gives three messages, each at its mistake.
use wrench_contract::prelude::*;

#[derive(Deserialize, JsonSchema, Validate)]
struct In {
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct Out {
    text: String,
}

/// Echo the text.
#[op(post "/v1/echo" as echo_text, tag = Imagse,
     example(typical, [1]))]
async fn echo(input: In) -> Result<Out, ApiError> {
    Ok(Out { text: input.text })
}

fn main() {}
