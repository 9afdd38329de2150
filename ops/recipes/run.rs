//! Running a checked recipe ([`super::plan::Plan`]): each step's input is built from its
//! literal `args`, its `from` pointers and the pipe, the operation runs through the server
//! ([`wrench_contract::op::Steps`]), and its data joins the run for later steps.
//!
//! Bounds, each from the settings: the number of operation runs (`forEach` items count one
//! each), the items of one `forEach`, a time budget for the whole recipe, and the bytes of all
//! the data the steps produce together (at most four times the response limit; each step's
//! own answer is refused past what is left of it, while it is written). With `trace`, the
//! built inputs the trace keeps count in that sum too.

use std::time::Instant;

use serde_json::{Map, Value, json};
use wrench_contract::{op::Steps, prelude::*};

use super::{
    model::{OnError, Recipe},
    plan::{PipeSource, Plan, Planned, PlannedResult},
    pointer::{self, Ref},
};

/// How many times the response limit all the steps' data may take together.
pub(crate) const DATA_FACTOR: usize = 4;

/// What a recipe answers.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "RecipeRunOutput")]
pub(crate) struct RunOutput {
    /// What `result` chose, or the last step's data.
    pub(crate) result: Value,
    /// Every step, in order: how it went.
    pub(crate) steps: Vec<StepReport>,
    /// With `trace`, each step's built input and its data; otherwise `null`.
    pub(crate) trace: Option<Vec<TraceEntry>>,
}

/// How one step went.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "RecipeStepReport")]
pub(crate) struct StepReport {
    pub(crate) index: usize,
    pub(crate) id: String,
    /// The operationId as the recipe named it.
    pub(crate) op: String,
    /// `ok`, `failed` or `skipped`.
    pub(crate) status: StepStatus,
    /// Milliseconds the step took.
    pub(crate) ms: f64,
    /// Bytes of the step's data as JSON.
    pub(crate) bytes: usize,
    /// Times the operation ran (a forEach runs it once per item).
    pub(crate) runs: usize,
    /// Why a skipped step was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// What a failed step answered (with `onError: continue`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<StepError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "RecipeStepStatus")]
pub(crate) enum StepStatus {
    Ok,
    Failed,
    Skipped,
}

/// An error as a step (or one forEach item) answered it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "RecipeStepError")]
pub(crate) struct StepError {
    pub(crate) code: String,
    pub(crate) status: u16,
    pub(crate) message: String,
    /// Where in the recipe the fault lies (`steps[2].args.format`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) field: Option<String>,
    /// The forEach item that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) item: Option<usize>,
}

/// One step of a trace.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "RecipeTraceEntry")]
pub(crate) struct TraceEntry {
    pub(crate) id: String,
    /// The input the step ran with (a list of them for a forEach); `null` if it did not run.
    pub(crate) input: Value,
    /// What it answered; `null` if it did not run or failed.
    pub(crate) data: Value,
}

/// The settings a run keeps to, and what it has spent.
pub(crate) struct Budget {
    pub(crate) max_items: usize,
    pub(crate) max_executions: usize,
    pub(crate) executions: usize,
    /// Runs that the request itself has paid for (the first of a recipe call).
    pub(crate) prepaid: usize,
    pub(crate) deadline: Instant,
    pub(crate) budget_secs: u64,
    pub(crate) response_limit: usize,
    pub(crate) data_bytes: usize,
}

impl Budget {
    pub(crate) fn new(ctx: &Ctx) -> Budget {
        let r = &ctx.config.recipes;
        Budget {
            max_items: r.max_items,
            max_executions: r.max_executions,
            executions: 0,
            prepaid: 1,
            deadline: Instant::now() + r.time_budget,
            budget_secs: r.time_budget.as_secs(),
            response_limit: ctx.config.response_limit,
            data_bytes: 0,
        }
    }
}

enum Outcome {
    Ran(Value),
    Failed,
    /// Not run; a pipe through it passes on what it would have been given.
    Skipped(Option<Value>),
}

/// A step that could not run, and whether that ends the recipe whatever `onError` says.
struct Fault {
    error: Box<ApiError>,
    item: Option<usize>,
    fatal: bool,
}

impl From<ApiError> for Fault {
    fn from(error: ApiError) -> Fault {
        Fault { error: Box::new(error), item: None, fatal: false }
    }
}

/// The server's operations, which a recipe's steps run through.
pub(crate) fn steps_of(ctx: &Ctx) -> Result<&dyn Steps, ApiError> {
    ctx.steps.as_deref().ok_or_else(|| ApiError::internal("recipes run only inside a server"))
}

/// Checks `recipe` with `input` and runs it, within a fresh budget: one recipe call.
pub(crate) async fn run_one(ctx: &Ctx, recipe: &Recipe, input: &Value) -> Result<RunOutput, ApiError> {
    let plan = super::plan::plan(recipe, Some(input), steps_of(ctx)?.catalog(), ctx.config.recipes.max_steps)?;
    let mut budget = Budget::new(ctx);
    execute(ctx, &plan, input, recipe.trace, recipe.on_error, &mut budget).await
}

/// Runs `plan` on `input`.
pub(crate) async fn execute(
    ctx: &Ctx,
    plan: &Plan<'_>,
    input: &Value,
    trace: bool,
    on_error: OnError,
    budget: &mut Budget,
) -> Result<RunOutput, ApiError> {
    let steps = steps_of(ctx)?;
    let mut outcomes: Vec<Outcome> = Vec::with_capacity(plan.steps.len());
    let mut reports = Vec::with_capacity(plan.steps.len());
    let mut traced = Vec::new();
    for (index, step) in plan.steps.iter().enumerate() {
        let started = Instant::now();
        let mut report = StepReport {
            index,
            id: step.id.clone(),
            op: step.op.clone(),
            status: StepStatus::Ok,
            ms: 0.0,
            bytes: 0,
            runs: 0,
            reason: None,
            error: None,
        };
        let mut built = Value::Null;
        let at = At { all: &plan.steps, index, on_error, trace };
        let outcome = match run_step(ctx, steps, &at, &outcomes, input, budget, &mut built, &mut report).await {
            Ok(o) => o,
            Err(fault) => {
                let field = locate(step, index, fault.error.field.as_deref());
                if on_error == OnError::Stop || fault.fatal {
                    let completed: Vec<&str> = plan
                        .steps
                        .iter()
                        .zip(&outcomes)
                        .filter(|(_, o)| matches!(o, Outcome::Ran(_)))
                        .map(|(s, _)| s.id.as_str())
                        .collect();
                    return Err(stopped(step, index, fault, field, &completed));
                }
                report.status = StepStatus::Failed;
                report.error = Some(StepError {
                    code: fault.error.code.as_str().to_string(),
                    status: fault.error.status().as_u16(),
                    message: fault.error.message.to_string(),
                    field: Some(field),
                    item: fault.item,
                });
                Outcome::Failed
            }
        };
        report.ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
        if trace {
            let data = if let Outcome::Ran(d) = &outcome { d.clone() } else { Value::Null };
            traced.push(TraceEntry { id: step.id.clone(), input: built, data });
        }
        outcomes.push(outcome);
        reports.push(report);
    }
    // `result` reads no element: the plan refuses `$item` and `$index` there.
    let value_at = |r: &Ref| resolve(r, input, &outcomes, None, None).unwrap_or(Value::Null);
    let result = match &plan.result {
        None => match outcomes.last() {
            Some(Outcome::Ran(d)) => d.clone(),
            _ => Value::Null,
        },
        Some(PlannedResult::Pointer(r)) => value_at(r),
        Some(PlannedResult::Fields(fields)) => {
            Value::Object(fields.iter().map(|(k, r)| (k.clone(), value_at(r))).collect::<Map<_, _>>())
        }
    };
    Ok(RunOutput { result, steps: reports, trace: trace.then_some(traced) })
}

/// The step being run, among all of them.
struct At<'p, 'c> {
    all: &'p [Planned<'c>],
    index: usize,
    on_error: OnError,
    /// Keep the step's built inputs for the trace; they are counted in the data budget then.
    trace: bool,
}

/// Runs one step (once, or once per forEach item), or says why it was skipped.
#[allow(clippy::too_many_arguments)]
async fn run_step(
    ctx: &Ctx,
    steps: &dyn Steps,
    at: &At<'_, '_>,
    outcomes: &[Outcome],
    input: &Value,
    budget: &mut Budget,
    built: &mut Value,
    report: &mut StepReport,
) -> Result<Outcome, Fault> {
    let (step, index) = (&at.all[at.index], at.index);
    // What the pipe brings, if the step it comes from ran (or was skipped past).
    let piped = match step.pipe.as_ref().map(|(_, s)| *s) {
        Some(PipeSource::Input) => Some(input.clone()),
        Some(PipeSource::Previous(j)) => match &outcomes[j] {
            Outcome::Ran(data) => {
                let output = at.all[j].entry.primary_output.as_deref().and_then(|f| data.get(f));
                Some(output.cloned().unwrap_or(Value::Null))
            }
            Outcome::Skipped(Some(v)) => Some(v.clone()),
            _ => return Ok(skip(report, format!("steps[{j}] did not run, and its output is this step's input"), None)),
        },
        Some(PipeSource::Item) | None => None,
    };
    // A step reads only steps that ran.
    let reads = step.from.iter().map(|(_, r)| r).chain(&step.for_each).chain(step.when.as_ref().map(|(r, _, _)| r));
    for r in reads {
        if let Ref::Step { index: j, .. } = r
            && !matches!(outcomes[*j], Outcome::Ran(_))
        {
            return Ok(skip(report, format!("it reads steps[{j}], which did not run"), piped));
        }
    }
    if let Some((r, equals, not)) = &step.when {
        let value = resolve(r, input, outcomes, None, None).unwrap_or(Value::Null);
        if (value == *equals) == *not {
            return Ok(skip(report, "its when does not hold".to_string(), piped));
        }
    }
    let hand_off = match step.pipe.as_ref().map(|(_, s)| *s) {
        Some(PipeSource::Previous(j)) => match &outcomes[j] {
            Outcome::Ran(data) => data.get("outputEncoding").and_then(Value::as_str).map(str::to_string),
            _ => None,
        },
        _ => None,
    };
    let Some(each) = &step.for_each else {
        let call = build(step, index, input, outcomes, piped, None, hand_off.as_deref())?;
        if at.trace {
            budget.data_bytes += wrench_infra::bounds::json_size(&call);
            *built = Value::Object(call.clone());
        }
        let (data, bytes) = execute_once(ctx, steps, step, &Value::Object(call), budget, report).await?;
        report.bytes = bytes;
        return Ok(Outcome::Ran(data));
    };
    let list = match resolve(each, input, outcomes, None, None) {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ApiError::invalid(
                &format!("steps[{index}].forEach"),
                format!("is {}, not an array", pointer::describe(&[pointer::type_of(&other)])),
            )
            .into());
        }
        None => {
            return Err(ApiError::invalid(&format!("steps[{index}].forEach"), "names nothing in the run").into());
        }
    };
    if list.len() > budget.max_items {
        return Err(ApiError::invalid(
            &format!("steps[{index}].forEach"),
            format!("has {} items; a forEach runs at most {} (WRENCH_RECIPE_MAX_ITEMS)", list.len(), budget.max_items),
        )
        .into());
    }
    let (mut items, mut errors, mut inputs) = (Vec::with_capacity(list.len()), Vec::new(), Vec::new());
    for (k, item) in list.iter().enumerate() {
        let call = build(step, index, input, outcomes, None, Some((item, k)), None)
            .map_err(|f| Fault { item: Some(k), ..f })?;
        // Only a trace keeps the inputs: a forEach over a large value would otherwise hold a
        // copy of it per item.
        if at.trace {
            budget.data_bytes += wrench_infra::bounds::json_size(&call);
            inputs.push(Value::Object(call.clone()));
        }
        match execute_once(ctx, steps, step, &Value::Object(call), budget, report).await {
            Ok((data, bytes)) => {
                report.bytes += bytes;
                items.push(data);
            }
            Err(fault) if fault.fatal => return Err(Fault { item: Some(k), ..fault }),
            Err(fault) => {
                let e = &fault.error;
                let failed = json!({"index": k, "code": e.code.as_str(), "status": e.status().as_u16(),
                                    "message": e.message, "field": e.field});
                // With `stop`, a failing item fails the step (and so the recipe); with
                // `continue`, the step answers the items that worked and lists the others.
                if at.on_error == OnError::Stop {
                    return Err(Fault { item: Some(k), ..fault });
                }
                errors.push(failed);
                items.push(Value::Null);
            }
        }
    }
    *built = Value::Array(inputs);
    Ok(Outcome::Ran(json!({"items": items, "errors": errors})))
}

fn skip(report: &mut StepReport, reason: String, passthrough: Option<Value>) -> Outcome {
    report.status = StepStatus::Skipped;
    report.reason = Some(reason);
    Outcome::Skipped(passthrough)
}

/// The value `r` names in the run, if there is one.
fn resolve(r: &Ref, input: &Value, outcomes: &[Outcome], item: Option<&Value>, index: Option<usize>) -> Option<Value> {
    match r {
        Ref::Input(t) => pointer::follow(input, t).cloned(),
        Ref::Step { index: j, rest } => match &outcomes[*j] {
            Outcome::Ran(d) => pointer::follow(d, rest).cloned(),
            _ => None,
        },
        Ref::Item(t) => item.and_then(|v| pointer::follow(v, t)).cloned(),
        Ref::Index => index.map(|i| json!(i)),
    }
}

/// A step's input: its args, its from values and what the pipe brings.
fn build(
    step: &Planned<'_>,
    index: usize,
    input: &Value,
    outcomes: &[Outcome],
    piped: Option<Value>,
    item: Option<(&Value, usize)>,
    hand_off: Option<&str>,
) -> Result<Map<String, Value>, Fault> {
    let mut call = step.args.clone();
    for (field, r) in &step.from {
        let value = resolve(r, input, outcomes, item.map(|i| i.0), item.map(|i| i.1)).ok_or_else(|| {
            let what = match r {
                Ref::Step { index: j, rest } => format!("steps[{j}] answered nothing at {}", pointer::write(rest)),
                Ref::Input(t) => format!("the input has nothing at /input{}", pointer::write(t)),
                Ref::Item(t) => format!("the item has nothing at $item{}", pointer::write(t)),
                Ref::Index => "no index".to_string(),
            };
            Fault::from(ApiError::invalid(&format!("steps[{index}].from.{field}"), what))
        })?;
        call.insert(field.clone(), value);
    }
    if let Some((field, source)) = &step.pipe {
        let value = match (source, item) {
            (PipeSource::Item, Some((v, _))) => Some(v.clone()),
            _ => piped,
        };
        if let Some(v) = value {
            call.insert(field.clone(), v);
        }
        // Bytes passed on keep the encoding their producer wrote them in, unless the step says.
        if let (Some(encoding), Some(schema)) = (hand_off, &step.entry.input_schema)
            && !call.contains_key("inputEncoding")
            && schema.get("properties").and_then(|p| p.get("inputEncoding")).is_some()
        {
            call.insert("inputEncoding".into(), json!(encoding));
        }
    }
    Ok(call)
}

/// One run of the step's operation, within the run's bounds.
async fn execute_once(
    ctx: &Ctx,
    steps: &dyn Steps,
    step: &Planned<'_>,
    call: &Value,
    budget: &mut Budget,
    report: &mut StepReport,
) -> Result<(Value, usize), Fault> {
    let fatal = |error: ApiError| Fault { error: Box::new(error), item: None, fatal: true };
    if budget.executions >= budget.max_executions {
        return Err(fatal(ApiError::invalid(
            "steps",
            format!(
                "the recipe would run more than {} operations (WRENCH_RECIPE_MAX_EXECUTIONS)",
                budget.max_executions
            ),
        )));
    }
    let total = DATA_FACTOR * budget.response_limit;
    let left = total.saturating_sub(budget.data_bytes);
    if left == 0 {
        return Err(fatal(wrench_infra::bounds::result_too_large(budget.data_bytes, true, total)));
    }
    budget.executions += 1;
    report.runs += 1;
    let charge = budget.executions > budget.prepaid;
    let limit = left.min(budget.response_limit);
    let run = steps.run(ctx, &step.op, call, charge, limit);
    let answer = match tokio::time::timeout_at(budget.deadline.into(), run).await {
        Ok(a) => a,
        Err(_) => {
            return Err(fatal(ApiError::invalid(
                "steps",
                format!("the recipe ran past its time budget of {} s (WRENCH_RECIPE_TIME_BUDGET)", budget.budget_secs),
            )));
        }
    };
    match answer {
        Ok(a) => {
            budget.data_bytes += a.bytes;
            Ok((a.data, a.bytes))
        }
        Err(mut e) => {
            if e.code == ErrorCode::ResultTooLarge && limit < budget.response_limit {
                e.message = format!(
                    "{} (the data of a recipe's steps may take {DATA_FACTOR} times the response limit in all, and {} bytes of it are spent)",
                    e.message, budget.data_bytes
                )
                .into();
            }
            Err(Fault::from(e))
        }
    }
}

/// Where a step's error lies in the recipe: the args or from entry its field came from, the
/// recipe's `input` when the pipe brought it from there, else the step.
fn locate(step: &Planned<'_>, index: usize, field: Option<&str>) -> String {
    let Some(field) = field else { return format!("steps[{index}]") };
    if field.starts_with("steps") {
        return field.to_string();
    }
    let head = field.split(['.', '[']).next().unwrap_or(field);
    if step.args.contains_key(head) {
        format!("steps[{index}].args.{field}")
    } else if step.from.iter().any(|(f, _)| f == head) {
        format!("steps[{index}].from.{field}")
    } else if step.pipe.as_ref().is_some_and(|(f, source)| f == head && *source == PipeSource::Input) {
        "input".to_string()
    } else {
        format!("steps[{index}]")
    }
}

/// The error that ends a recipe at `step`: the step's own code and status, with the step and
/// what completed before it.
fn stopped(step: &Planned<'_>, index: usize, fault: Fault, field: String, completed: &[&str]) -> ApiError {
    let Fault { error, item, .. } = fault;
    let error = *error;
    let name = if step.id == index.to_string() { step.op.clone() } else { format!("{}, {}", step.id, step.op) };
    let mut out = error.clone();
    out.message = format!("steps[{index}] ({name}): {}", error.message).into();
    out.field = Some(field);
    let mut detail = Map::new();
    let mut about = json!({"index": index, "id": step.id, "op": step.op, "field": error.field});
    if let Some(k) = item {
        about["item"] = json!(k);
    }
    detail.insert("step".into(), about);
    detail.insert("completed".into(), json!(completed));
    out.detail = Some(Box::new(detail));
    out
}
