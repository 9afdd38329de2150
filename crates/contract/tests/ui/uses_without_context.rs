// An operation that declares what it uses reaches it through its context: a function without
// `&Ctx` cannot, so the declaration is wrong about the function.
use wrench_contract::prelude::*;

#[derive(Deserialize, JsonSchema, Validate)]
struct In {
    url: String,
}

#[derive(Serialize, JsonSchema)]
struct Out {
    status: u16,
}

/// Fetch a page.
#[op(post "/v1/fetch" as fetchPage, tag = Lookups, uses(network),
     example(typical, {"url": "https://example.com/"}))]
async fn fetch_page(input: In) -> Result<Out, ApiError> {
    Ok(Out { status: input.url.len() as u16 })
}

fn main() {}
