// The other items: path templates, example names and statuses, redactions, error codes.
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
#[op(get "/v1/things/:id" as readThing, tag = Storage,
     errors(not_found), redact("data.id"),
     example(typical, {"id": "a"}),
     example(typical, {"id": "b"}, status = 700))]
async fn read(input: In) -> Result<Out, ApiError> {
    Ok(Out { id: input.id })
}

/// Read nothing at all.
#[op(fetch "/v1/none" as readNone, tag = Storage, input = query, colour = "red")]
async fn read_none() -> Result<Out, ApiError> {
    Ok(Out { id: String::new() })
}

fn main() {}
