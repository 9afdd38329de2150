// A second spelling the document would not show is refused: the schema must declare it.
use wrench_contract::prelude::*;

#[derive(Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "camelCase")]
struct In {
    #[serde(rename = "max_length", alias = "maxLength")]
    max_length: u32,
}

fn main() {}
