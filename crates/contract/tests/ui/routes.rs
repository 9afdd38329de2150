// Routes: what each method can read, unique operationIds, and the grammar's order.
use wrench_contract::prelude::*;

#[derive(Deserialize, JsonSchema, Validate)]
struct In {
    id: String,
}

#[derive(Serialize, JsonSchema)]
struct Out {
    id: String,
}

/// Read a thing.
#[op(post "/v1/things/{id...}" as readThing,
     get "/v1/things/{id}" as readThing,
     tag = Storage, errors(NOT_FOND),
     example(typical, {"id": "a"}))]
async fn read(input: In) -> Result<Out, ApiError> {
    Ok(Out { id: input.id })
}

/// Read another thing.
#[op(get "/v1/others/{id}" as readOther, tag = Storage, input = body, input = query,
     example(typical, {"id": "a"}), get "/v1/late" as late)]
async fn read_other(input: In) -> Result<Out, ApiError> {
    Ok(Out { id: input.id })
}

/// Read a third thing.
#[op(post "/v1/third", id = "readThird", tag = Storage, example(typical, {"id": "a"}))]
async fn read_third(input: In) -> Result<Out, ApiError> {
    Ok(Out { id: input.id })
}

fn main() {}
