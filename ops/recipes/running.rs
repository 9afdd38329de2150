//! The operations that run recipes: one input through a recipe (`recipes/run`), and up to a
//! hundred inputs through the same recipe, each answered on its own (`recipes/batch`).

use wrench_contract::prelude::*;

use super::{
    model::{OnError, Recipe, ResultShape, StepDecl},
    plan,
    run::{self, Budget, RunOutput},
};

/// Most inputs of one batch.
const MAX_BATCH: usize = 100;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "RecipeRunInput")]
struct RunInput {
    /// The recipe's input, any JSON value: read by `from` pointers as `/input/...`, and, when
    /// it is not `null`, fed to the first step's primary input unless that step gives it.
    #[serde(default)]
    input: Value,
    /// The steps, run in order. A step is an operationId alone (`"base64Decode"`), or an
    /// object naming the operation in `op` with its literal `args`, its `from` mappings, and
    /// optionally `forEach` and `when`. At most `WRENCH_RECIPE_MAX_STEPS` (32 by default).
    #[schemars(length(min = 1, max = 256))]
    steps: Vec<StepDecl>,
    /// What to answer: a JSON Pointer into the run (`/steps/pretty/formatted`), or an object
    /// whose members are pointers. Without it, the data of the last step.
    #[serde(default)]
    result: Option<ResultShape>,
    /// Answer every step's built input and full data as well.
    #[serde(default)]
    trace: bool,
    /// `stop` (the default) or `continue` when a step fails.
    #[serde(default)]
    on_error: OnError,
}

/// Run a recipe: operations chained in one call.
///
/// Each step names an operation by operationId (`GET /v1/operations` lists them, with
/// `recipeable`). Its input is built from literal `args`, from `from` pointers into the run
/// (`/input/...`, `/steps/{id}/...`), and from the pipe: a step that does not give its primary
/// input gets the previous step's primary output (the first step, the recipe's input). Bytes
/// passed through the pipe keep their `outputEncoding` as the next step's `inputEncoding`
/// unless the step sets one.
///
/// The whole recipe is checked against the operations' schemas before anything runs: an
/// unknown operation, a literal the schema refuses, a pointer to a later step or to a field
/// the step's output does not declare, a type that does not fit, or a missing required field
/// is 400 `VALIDATION_ERROR` with `field` naming the place (`steps[2].from.json`).
///
/// A step that fails ends the recipe with its own status and code; the message and `field`
/// name the step, and the error adds `step` (`index`, `id`, `op`, the operation's own
/// `field`, and `item` for a forEach) and `completed` (the ids of the steps that ran). With
/// `onError: continue` the answer is 200, the failed step carries its `error`, and steps that
/// read from it are skipped. `forEach` runs a step once per element of an array (`$item`,
/// `$index` in `from`); `when` runs it only if a value equals another.
///
/// Each operation run after the first counts against the caller's rate limit as a request;
/// network steps keep the address policy and provider budgets. Bounds:
/// `WRENCH_RECIPE_MAX_STEPS` (32), `WRENCH_RECIPE_MAX_EXECUTIONS` (2,000 runs),
/// `WRENCH_RECIPE_MAX_ITEMS` (1,000 per forEach), `WRENCH_RECIPE_TIME_BUDGET` (10 s), and all
/// the steps' data together at most four times the response limit.
#[op(post "/v1/recipes/run" as runRecipe, tag = Recipes, redact(".data.steps[].ms"),
     uses(network, provider, dataset), errors(DECRYPTION_FAILED, NOT_FOUND, PAYLOAD_TOO_LARGE, RATE_LIMITED),
     rejects = "a recipe that names an unknown operation, a later step or an undeclared field, and any step's own refusal",
     example(pipe, {"input": "H4sIAAAAAAACA6tWSlSyMtRRSlKyii4pKk3VySvNyYmtBQBZPKdFFwAAAA==",
                    "steps": ["base64Decode", {"op": "decompress", "args": {"format": "gzip"}}, "jsonFormat"]}),
     example(mapped, {"input": {"text": "hello", "secret": "s3cret"},
                      "steps": [{"id": "up", "op": "textCase", "from": {"text": "/input/text"}, "args": {"to": "upper"}},
                                {"id": "sig", "op": "hashHmac", "from": {"text": "/steps/up/converted", "key": "/input/secret"},
                                 "args": {"algorithm": "sha256"}}],
                      "result": {"upper": "/steps/up/converted", "signature": "/steps/sig/signature"}}),
     example(for_each, {"input": {"words": ["a", "bb"]},
                        "steps": [{"id": "h", "op": "hashText", "forEach": "/input/words", "args": {"algorithm": "md5"}}]}),
     example(unknown_field, {"input": "aGk=", "steps": ["base64Decode", {"op": "textCase", "from": {"text": "/steps/0/decodd"}, "args": {"to": "upper"}}]}, status = 400),
     example(failing_step, {"input": "not base64!", "steps": ["base64Decode", "textSlugify"]}, status = 400))]
async fn run_recipe(ctx: &Ctx, input: RunInput) -> Result<RunOutput, ApiError> {
    let recipe = Recipe { steps: input.steps, result: input.result, trace: input.trace, on_error: input.on_error };
    run::run_one(ctx, &recipe, &input.input).await
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "RecipeBatchInput")]
struct BatchInput {
    /// The inputs, each run through the recipe on its own, as `input` is in `recipes/run`.
    #[schemars(length(min = 1, max = 100))]
    inputs: Vec<Value>,
    /// The steps, as in `recipes/run`.
    #[schemars(length(min = 1, max = 256))]
    steps: Vec<StepDecl>,
    /// What each run answers, as in `recipes/run`.
    #[serde(default)]
    result: Option<ResultShape>,
    /// Answer every step's input and data for each run.
    #[serde(default)]
    trace: bool,
    /// What a failing step does inside each run, as in `recipes/run`.
    #[serde(default)]
    on_error: OnError,
}

#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "RecipeBatchOutput")]
struct BatchOutput {
    /// One per input, in order.
    results: Vec<RecipeBatchItem>,
    /// How many inputs ran through without an error.
    succeeded: usize,
    /// How many ended with one.
    failed: usize,
}

/// One input's answer in a batch.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum RecipeBatchItem {
    Done {
        /// Always true here.
        success: bool,
        data: RunOutput,
    },
    Failed {
        /// Always false here.
        success: bool,
        error: RecipeRunError,
    },
}

/// The error a run ended with, as `recipes/run` answers it, with its status.
#[derive(Debug, Serialize, JsonSchema)]
struct RecipeRunError {
    code: String,
    status: u16,
    message: String,
    /// Where the fault lies in the recipe.
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    /// The step that failed, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    step: Option<FailedStep>,
    /// The ids of the steps that ran before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    completed: Option<Vec<String>>,
}

/// Which step failed.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct FailedStep {
    index: usize,
    id: String,
    op: String,
    /// The operation's own field at fault.
    field: Option<String>,
    /// The forEach item that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    item: Option<usize>,
}

/// Run one recipe over many inputs.
///
/// Up to 100 inputs, each run through the same recipe as `recipes/run` runs one, and answered
/// on its own: `{success: true, data}` or `{success: false, error}` with the status that
/// run would have had. The recipe itself is checked once before any input runs (a mistake
/// in it is 400 for the whole batch); what depends on an input (`/input/...` pointers, the
/// piped input) is checked as that input runs. Every operation run after the batch's first
/// counts against the rate limit; the time budget is the batch's, and the other bounds each
/// run's.
#[op(post "/v1/recipes/batch" as runRecipeBatch, tag = Recipes, redact(".data.results[].data.steps[].ms"),
     uses(network, provider, dataset), errors(DECRYPTION_FAILED, NOT_FOUND, PAYLOAD_TOO_LARGE, RATE_LIMITED),
     rejects = "a recipe that names an unknown operation, a later step or an undeclared field",
     example(typical, {"inputs": ["aGVsbG8=", "d29ybGQ=", "not base64!"], "steps": ["base64Decode", "textSlugify"]}),
     example(bad_recipe, {"inputs": ["x"], "steps": ["noSuchOperation"]}, status = 400))]
async fn run_recipe_batch(ctx: &Ctx, input: BatchInput) -> Result<BatchOutput, ApiError> {
    let steps = run::steps_of(ctx)?;
    let recipe = Recipe { steps: input.steps, result: input.result, trace: input.trace, on_error: input.on_error };
    debug_assert!(input.inputs.len() <= MAX_BATCH);
    plan::plan(&recipe, None, steps.catalog(), ctx.config.recipes.max_steps)?;
    let mut budget = Budget::new(ctx);
    let mut room = wrench_infra::bounds::OutputBudget::new(ctx.config.response_limit);
    let (mut results, mut succeeded) = (Vec::with_capacity(input.inputs.len()), 0);
    for value in &input.inputs {
        budget.executions = 0;
        budget.data_bytes = 0;
        let ran = match plan::plan(&recipe, Some(value), steps.catalog(), ctx.config.recipes.max_steps) {
            Ok(p) => run::execute(ctx, &p, value, recipe.trace, recipe.on_error, &mut budget).await,
            Err(e) => Err(e),
        };
        // Items from now on are no longer prepaid by the request.
        budget.prepaid = 0;
        let item = match ran {
            Ok(data) => {
                succeeded += 1;
                RecipeBatchItem::Done { success: true, data }
            }
            Err(e) => RecipeBatchItem::Failed { success: false, error: run_error(&e) },
        };
        room.add(wrench_infra::bounds::json_size(&item))?;
        results.push(item);
    }
    let failed = results.len() - succeeded;
    Ok(BatchOutput { results, succeeded, failed })
}

/// An error as the envelope writes it, with its status.
fn run_error(e: &ApiError) -> RecipeRunError {
    let detail = |k: &str| e.detail.as_ref().and_then(|d| d.get(k)).cloned();
    RecipeRunError {
        code: e.code.as_str().to_string(),
        status: e.status().as_u16(),
        message: e.message.to_string(),
        field: e.field.clone(),
        step: detail("step").and_then(|v| serde_json::from_value(v).ok()),
        completed: detail("completed").and_then(|v| serde_json::from_value(v).ok()),
    }
}
