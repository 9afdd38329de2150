// Types that lack what the runtime needs are reported at the types.
use wrench_contract::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct In {
    text: String,
}

#[derive(Serialize, JsonSchema)]
struct Out {
    text: String,
}

/// Echo the text.
#[op(post "/v1/echo" as echo, tag = TextAndData, example(typical, {"text": "hi"}))]
async fn echo(input: In) -> Result<Out, ApiError> {
    Ok(Out { text: input.text })
}

#[derive(Deserialize, JsonSchema, Validate)]
struct Seed {
    seed: String,
}

/// Draw something.
#[op(post "/v1/draw" as draw, tag = Images, output = image, example(typical, {"seed": "a"}))]
async fn draw(input: Seed) -> Result<Out, ApiError> {
    Ok(Out { text: input.seed })
}

fn main() {}
