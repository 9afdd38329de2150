// The function itself: async, documented, returning Result<Output, ApiError>, one input.
use wrench_contract::prelude::*;

#[derive(Deserialize, JsonSchema, Validate)]
struct In {
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct Out {
    text: String,
}

#[op(post "/v1/echo" as echo, tag = TextAndData, example(typical, {"text": "hi"}))]
fn echo(input: In, again: In) -> Out {
    Out { text: input.text + &again.text }
}

fn main() {}
