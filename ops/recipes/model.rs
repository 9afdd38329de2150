//! A recipe as clients write it: its steps (an operationId alone, or an object with `args`,
//! `from`, `forEach` and `when`), what to answer (`result`), whether to trace, and what to do
//! when a step fails. Run, batch and stored recipes all read this one shape.

use std::collections::BTreeMap;

use serde::de::{self, Deserializer, MapAccess, Visitor, value::MapAccessDeserializer};
use wrench_contract::{prelude::*, validate::FieldError};

/// The steps and the answer's shape: everything of a recipe but its input.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "Recipe")]
pub(crate) struct Recipe {
    /// The steps, run in order. A step is an operationId alone (`"base64Decode"`), or an
    /// object naming the operation in `op` with its literal `args`, its `from` mappings, and
    /// optionally `forEach` and `when`. At most `WRENCH_RECIPE_MAX_STEPS` (32 by default).
    #[schemars(length(min = 1, max = 256))]
    pub(crate) steps: Vec<StepDecl>,
    /// What to answer: a JSON Pointer into the run (`/steps/pretty/formatted`), or an object
    /// whose members are pointers (`{"body": "/steps/pretty/formatted"}`). Without it, the
    /// data of the last step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<ResultShape>,
    /// Answer every step's built input and full data as well (`trace`).
    // Left out when false, and `onError` when `stop`, so that the recipe has one schema both as
    // a request takes it and as a stored recipe answers it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(extend("default" = false))]
    pub(crate) trace: bool,
    /// `stop` (the default): the first failing step ends the recipe with its own status and
    /// code. `continue`: the answer is 200, failed steps carry their error, and steps that
    /// read from a failed or skipped step are skipped.
    #[serde(default, skip_serializing_if = "OnError::is_stop")]
    #[schemars(extend("default" = "stop"))]
    pub(crate) on_error: OnError,
}

/// What a failing step does to the recipe.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "RecipeOnError")]
pub(crate) enum OnError {
    #[default]
    Stop,
    Continue,
}

impl OnError {
    fn is_stop(&self) -> bool {
        *self == OnError::Stop
    }
}

/// A step as written: an operationId alone, or in full.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum StepDecl {
    Name(String),
    Full(Box<StepSpec>),
}

/// A step in full.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "RecipeStepSpec")]
pub(crate) struct StepSpec {
    /// The name later steps and `result` read this step's data by (`/steps/{id}/...`): a
    /// letter, then letters, digits, `_` or `-`. Without it the step is named by its position
    /// (`/steps/0/...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern("^[A-Za-z][A-Za-z0-9_-]{0,63}$"))]
    pub(crate) id: Option<String>,
    /// The operation to run, by operationId (`GET /v1/operations` lists them and says which a
    /// recipe can run).
    #[schemars(length(min = 1, max = 64))]
    pub(crate) op: String,
    /// Literal input fields of the operation, as its input schema declares them.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub(crate) args: serde_json::Map<String, Value>,
    /// Input fields taken from the run: each names a JSON Pointer into `{input, steps}`
    /// (`/input/secret`, `/steps/raw/decoded`), or, in a `forEach` step, `$item`,
    /// `$item/...` or `$index`. A step reads only earlier steps.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) from: BTreeMap<String, Source>,
    /// Run the step once per element of the array this pointer names; its data is then
    /// `{items, errors}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) for_each: Option<Source>,
    /// Run the step only when the value at `path` equals `equals` (or, with `not`, when it
    /// does not); otherwise it is skipped, and a pipe passes its input on unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) when: Option<When>,
}

/// A pointer into the run.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, Validate, PartialEq, Eq)]
#[serde(transparent)]
#[schemars(rename = "RecipePointer")]
pub(crate) struct Source(
    #[schemars(length(max = 1024), pattern("^(/(input|steps)(/.*)?|\\$item(/.*)?|\\$index)$"))] pub(crate) String,
);

/// A step's condition.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "RecipeWhen")]
pub(crate) struct When {
    /// A pointer into the run (`/steps/check/valid`); a value that is absent reads as `null`.
    pub(crate) path: Source,
    /// The value to compare with, as JSON.
    pub(crate) equals: Value,
    /// Run when the value does not equal `equals`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(extend("default" = false))]
    pub(crate) not: bool,
}

/// What a recipe answers.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum ResultShape {
    Pointer(Source),
    Fields(BTreeMap<String, Source>),
}

impl<'de> Deserialize<'de> for StepDecl {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = StepDecl;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an operationId, or an object with `op`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StepDecl, E> {
                Ok(StepDecl::Name(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<StepDecl, A::Error> {
                StepSpec::deserialize(MapAccessDeserializer::new(map)).map(|s| StepDecl::Full(Box::new(s)))
            }
        }
        d.deserialize_any(Visit)
    }
}

impl JsonSchema for StepDecl {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RecipeStep".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let full = g.subschema_for::<StepSpec>();
        schemars::json_schema!({
            "description": "A step: an operationId alone, which takes the previous step's primary output (or the recipe's input) as its primary input, or the step in full.",
            "anyOf": [{"type": "string", "minLength": 1, "maxLength": 64}, full]
        })
    }
}

impl Validate for StepDecl {
    fn validate(&self, path: &str) -> Result<(), FieldError> {
        match self {
            StepDecl::Name(n) if n.is_empty() || n.chars().count() > 64 => {
                Err(FieldError { path: path.to_string(), message: "an operationId is 1 to 64 characters".into() })
            }
            StepDecl::Name(_) => Ok(()),
            StepDecl::Full(s) => s.validate(path),
        }
    }
}

impl<'de> Deserialize<'de> for ResultShape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = ResultShape;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON Pointer, or an object of JSON Pointers")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ResultShape, E> {
                Ok(ResultShape::Pointer(Source(v.to_string())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ResultShape, A::Error> {
                BTreeMap::deserialize(MapAccessDeserializer::new(map)).map(ResultShape::Fields)
            }
        }
        d.deserialize_any(Visit)
    }
}

impl JsonSchema for ResultShape {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RecipeResult".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let pointer = g.subschema_for::<Source>();
        schemars::json_schema!({
            "description": "A JSON Pointer into the run, or an object whose members are pointers.",
            "anyOf": [pointer, {"type": "object", "additionalProperties": pointer, "maxProperties": 64}]
        })
    }
}

impl Validate for ResultShape {
    fn validate(&self, path: &str) -> Result<(), FieldError> {
        match self {
            ResultShape::Pointer(p) => p.validate(path),
            ResultShape::Fields(f) if f.len() > 64 => {
                Err(FieldError { path: path.to_string(), message: "at most 64 members".into() })
            }
            ResultShape::Fields(f) => f.validate(path),
        }
    }
}
