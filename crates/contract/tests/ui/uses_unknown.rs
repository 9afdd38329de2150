// What an operation uses is one of a fixed list, each named once.
use wrench_contract::prelude::*;

#[derive(Deserialize, JsonSchema, Validate)]
struct In {
    key: String,
}

#[derive(Serialize, JsonSchema)]
struct Out {
    value: String,
}

/// Read a value.
#[op(post "/v1/read" as readValue, tag = Storage, uses(database),
     example(typical, {"key": "a"}))]
async fn read_value(ctx: &Ctx, input: In) -> Result<Out, ApiError> {
    let _ = ctx;
    Ok(Out { value: input.key })
}

/// Read it twice.
#[op(post "/v1/read-twice" as readTwice, tag = Storage, uses(store, store),
     example(typical, {"key": "a"}))]
async fn read_twice(ctx: &Ctx, input: In) -> Result<Out, ApiError> {
    let _ = ctx;
    Ok(Out { value: input.key })
}

fn main() {}
