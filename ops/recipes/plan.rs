//! The check of a whole recipe before any of it runs, against the catalog: every operation
//! exists and may be a step, every literal fits the operation's input schema, every pointer
//! names an earlier step and a field its output schema declares, with a type the receiving
//! field takes, and every required input is given. A mistake is refused with 400 and `field`
//! naming its place in the recipe (`steps[3].from.json`). What passes becomes a [`Plan`].

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, OnceLock},
};

use serde_json::{Map, Value};
use wrench_contract::{
    prelude::*,
    recipes::{Catalog, Entry},
};

use super::{
    model::{Recipe, ResultShape, Source, StepDecl},
    pointer::{self, Ref},
};

/// A recipe ready to run.
#[derive(Debug)]
pub(crate) struct Plan<'c> {
    pub(crate) steps: Vec<Planned<'c>>,
    pub(crate) result: Option<PlannedResult>,
}

/// One step ready to run.
#[derive(Debug)]
pub(crate) struct Planned<'c> {
    pub(crate) id: String,
    /// The operationId as the recipe names it.
    pub(crate) op: String,
    pub(crate) entry: &'c Entry,
    pub(crate) args: Map<String, Value>,
    pub(crate) from: Vec<(String, Ref)>,
    /// The input field the pipe feeds, and from where.
    pub(crate) pipe: Option<(String, PipeSource)>,
    pub(crate) for_each: Option<Ref>,
    pub(crate) when: Option<(Ref, Value, bool)>,
}

/// Where a pipe's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PipeSource {
    /// The recipe's input (the first step).
    Input,
    /// The primary output of the step at this index.
    Previous(usize),
    /// The current element of the step's `forEach`.
    Item,
}

#[derive(Debug)]
pub(crate) enum PlannedResult {
    Pointer(Ref),
    Fields(Vec<(String, Ref)>),
}

/// Checks `recipe` against `catalog`, with the run's `input` when it is known (a batch checks
/// each input as its item runs), and at most `max_steps` steps.
pub(crate) fn plan<'c>(
    recipe: &Recipe,
    input: Option<&Value>,
    catalog: &'c Catalog,
    max_steps: usize,
) -> Result<Plan<'c>, ApiError> {
    if recipe.steps.len() > max_steps {
        return Err(ApiError::invalid(
            "steps",
            format!(
                "a recipe has at most {max_steps} steps (WRENCH_RECIPE_MAX_STEPS); this one has {}",
                recipe.steps.len()
            ),
        ));
    }
    let mut steps: Vec<Planned<'c>> = Vec::with_capacity(recipe.steps.len());
    // Every step's id, so that a pointer to a later step is named as such.
    let mut ids: HashMap<String, usize> = HashMap::new();
    for (index, decl) in recipe.steps.iter().enumerate() {
        let id = match decl {
            StepDecl::Full(s) => s.id.clone().unwrap_or_else(|| index.to_string()),
            StepDecl::Name(_) => index.to_string(),
        };
        ids.entry(id).or_insert(index);
    }
    for (index, decl) in recipe.steps.iter().enumerate() {
        let planned = plan_step(index, decl, input, catalog, &steps, &ids)?;
        steps.push(planned);
    }
    let resolve = |field: &str, s: &Source| {
        let r = reference(field, s, &ids, steps.len(), false)?;
        check_output_pointer(field, &r, &steps)?;
        Ok::<Ref, ApiError>(r)
    };
    let result = match &recipe.result {
        None => None,
        Some(ResultShape::Pointer(p)) => Some(PlannedResult::Pointer(resolve("result", p)?)),
        Some(ResultShape::Fields(fields)) => Some(PlannedResult::Fields(
            fields
                .iter()
                .map(|(k, p)| Ok((k.clone(), resolve(&format!("result.{k}"), p)?)))
                .collect::<Result<_, ApiError>>()?,
        )),
    };
    Ok(Plan { steps, result })
}

fn plan_step<'c>(
    index: usize,
    decl: &StepDecl,
    input: Option<&Value>,
    catalog: &'c Catalog,
    before: &[Planned<'c>],
    ids: &HashMap<String, usize>,
) -> Result<Planned<'c>, ApiError> {
    let at = |rest: &str| if rest.is_empty() { format!("steps[{index}]") } else { format!("steps[{index}].{rest}") };
    let (id, op, args, from, for_each, when) = match decl {
        StepDecl::Name(op) => (None, op, Map::new(), Default::default(), None, None),
        StepDecl::Full(s) => {
            (s.id.clone(), &s.op, s.args.clone(), s.from.clone(), s.for_each.as_ref(), s.when.as_ref())
        }
    };
    let op_field = if matches!(decl, StepDecl::Name(_)) { at("") } else { at("op") };
    let entry = catalog.get(op).ok_or_else(|| {
        ApiError::invalid(&op_field, format!("there is no operation {op:?}; GET /v1/operations lists them"))
    })?;
    if !entry.recipeable {
        let why = if entry.stateful {
            "it keeps stored state"
        } else if entry.output_schema.is_none() {
            "it does not answer JSON"
        } else if entry.tag == wrench_contract::op::Tag::Recipes.name() {
            "recipes do not run recipe operations"
        } else {
            "it is not a single JSON call"
        };
        return Err(ApiError::invalid(&op_field, format!("{op} cannot be a recipe step: {why}")));
    }
    let id = match id {
        Some(id) => {
            if let Some(other) = ids.get(&id).filter(|&&i| i < index) {
                return Err(ApiError::invalid(&at("id"), format!("{id:?} already names steps[{other}]")));
            }
            id
        }
        None => index.to_string(),
    };
    let empty = Map::new();
    let schema = entry.input_schema.as_ref().unwrap_or(&empty);
    // Read in place: the schemas carry their descriptions, and a copy per step was most of
    // the check's time (BENCHMARKS.md, "A recipe against the same calls one by one").
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let declared = |field: &str| properties.contains_key(field);
    let fields_list = || {
        if properties.is_empty() {
            "none".to_string()
        } else {
            properties.keys().cloned().collect::<Vec<_>>().join(", ")
        }
    };
    for key in args.keys() {
        if !declared(key) {
            return Err(ApiError::invalid(
                &at(&format!("args.{key}")),
                format!("{op} has no input field {key:?}; its fields are {}", fields_list()),
            ));
        }
    }
    let mut mapped = Vec::new();
    for (field, source) in &from {
        let place = at(&format!("from.{field}"));
        if !declared(field) {
            return Err(ApiError::invalid(
                &place,
                format!("{op} has no input field {field:?}; its fields are {}", fields_list()),
            ));
        }
        if args.contains_key(field) {
            return Err(ApiError::invalid(&place, format!("{field} is given both in args and in from; give it once")));
        }
        let r = reference(&place, source, ids, index, for_each.is_some())?;
        let wanted = pointer::types(schema, properties[field].as_object().unwrap_or(&empty));
        check_source_type(&place, &r, &wanted, before, input)?;
        mapped.push((field.clone(), r));
    }
    let for_each = match for_each {
        Some(s) => {
            let place = at("forEach");
            let r = reference(&place, s, ids, index, false)?;
            check_source_type(&place, &r, &Some(vec!["array"]), before, input)?;
            Some(r)
        }
        None => None,
    };
    let when = match when {
        Some(w) => {
            let place = at("when.path");
            let r = reference(&place, &w.path, ids, index, false)?;
            check_output_pointer(&place, &r, before)?;
            Some((r, w.equals.clone(), w.not))
        }
        None => None,
    };
    // The pipe: the primary input, when neither args nor from give it, takes the element of a
    // forEach, else the previous step's primary output, else the recipe's input.
    let mut pipe = None;
    if let Some(primary) = &entry.primary_input
        && !args.contains_key(primary)
        && !from.contains_key(primary)
    {
        let wanted = pointer::types(schema, properties.get(primary).and_then(Value::as_object).unwrap_or(&empty));
        if for_each.is_some() {
            pipe = Some((primary.clone(), PipeSource::Item));
        } else if let Some(prev) = before.last() {
            let place = at("");
            if prev.for_each.is_some() {
                return Err(ApiError::invalid(
                    &place,
                    format!(
                        "steps[{}] runs forEach and passes on no single value; map this step's {primary} with from",
                        index - 1
                    ),
                ));
            }
            let Some(output) = &prev.entry.primary_output else {
                return Err(ApiError::invalid(
                    &place,
                    format!(
                        "steps[{}] ({}) has no primary output to pass on; map this step's {primary} with from",
                        index - 1,
                        prev.op
                    ),
                ));
            };
            let given = output_types(prev, std::slice::from_ref(output));
            if !pointer::fits(&given, &wanted) {
                return Err(ApiError::invalid(
                    &place,
                    format!(
                        "steps[{}] passes on {output}, {}, and {op}'s {primary} takes {}",
                        index - 1,
                        pointer::describe(given.as_deref().unwrap_or_default()),
                        pointer::describe(wanted.as_deref().unwrap_or_default())
                    ),
                ));
            }
            pipe = Some((primary.clone(), PipeSource::Previous(index - 1)));
        } else if input.is_none_or(|v| !v.is_null()) {
            // The input feeds the first step unless there is none (a batch's inputs are not
            // known yet: each will).
            pipe = Some((primary.clone(), PipeSource::Input));
        }
    }
    // Every required field is given one way or another.
    let required = schema.get("required").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for field in required.iter().filter_map(Value::as_str) {
        let given =
            args.contains_key(field) || from.contains_key(field) || pipe.as_ref().is_some_and(|(p, _)| p == field);
        if !given {
            return Err(ApiError::invalid(
                &at(""),
                format!("{op} needs {field}: give it in args, map it with from, or pipe it in"),
            ));
        }
    }
    // Literal values, and the parts of the input known now, against the input schema.
    let mut known = args.clone();
    let mut origin: HashMap<String, String> = args.keys().map(|k| (k.clone(), at(&format!("args.{k}")))).collect();
    if let Some(input) = input {
        for (field, r) in &mapped {
            if let Ref::Input(tokens) = r
                && let Some(v) = pointer::follow(input, tokens)
            {
                known.insert(field.clone(), v.clone());
                origin.insert(field.clone(), at(&format!("from.{field}")));
            }
        }
        if let Some((field, PipeSource::Input)) = &pipe {
            known.insert(field.clone(), input.clone());
            origin.insert(field.clone(), "input".to_string());
        }
    }
    if let Some(schema) = &entry.input_schema {
        check_values(&entry.operation_id, schema, &known, &origin, &at(""))?;
    }
    Ok(Planned { id, op: op.clone(), entry, args, from: mapped, pipe, for_each, when })
}

/// Reads `source` as a reference from step `index`: into the input, an earlier step, or (in a
/// forEach step) the element.
fn reference(
    place: &str,
    source: &Source,
    ids: &HashMap<String, usize>,
    index: usize,
    in_for_each: bool,
) -> Result<Ref, ApiError> {
    let text = source.0.as_str();
    if text == "$index" || text == "$item" || text.starts_with("$item/") {
        if !in_for_each {
            return Err(ApiError::invalid(
                place,
                format!("{text} names the element of a forEach, and this is not one"),
            ));
        }
        if text == "$index" {
            return Ok(Ref::Index);
        }
        return Ok(Ref::Item(pointer::tokens(&text[5..]).unwrap_or_default()));
    }
    let bad = || ApiError::invalid(place, format!("{text:?} is not a JSON Pointer into /input or /steps"));
    let tokens = pointer::tokens(text).ok_or_else(bad)?;
    match tokens.split_first() {
        Some((first, rest)) if first == "input" => Ok(Ref::Input(rest.to_vec())),
        Some((first, rest)) if first == "steps" => {
            let (id, rest) = rest.split_first().ok_or_else(|| {
                ApiError::invalid(place, "name a step: /steps/{id}/... (a whole run cannot be passed)")
            })?;
            match ids.get(id) {
                Some(&i) if i < index => Ok(Ref::Step { index: i, rest: rest.to_vec() }),
                Some(&i) => {
                    Err(ApiError::invalid(place, format!("{text} reads steps[{i}], which does not run before this")))
                }
                None => {
                    let known: Vec<&str> = ids.iter().filter(|(_, i)| **i < index).map(|(id, _)| id.as_str()).collect();
                    let hint = if known.is_empty() {
                        "no step runs before this".to_string()
                    } else {
                        let mut k = known;
                        k.sort();
                        format!("steps before this are {}", k.join(", "))
                    };
                    Err(ApiError::invalid(place, format!("{text}: no step has the id {id:?}; {hint}")))
                }
            }
        }
        _ => Err(bad()),
    }
}

/// The types the value a step's data holds at `tokens` may have, as its output schema says.
fn output_types(step: &Planned<'_>, tokens: &[String]) -> pointer::Types {
    let schema = step.entry.output_schema.as_ref()?;
    if step.for_each.is_some() {
        return None;
    }
    match pointer::walk(schema, schema, tokens) {
        Ok(Some(sub)) => pointer::types(schema, sub),
        _ => None,
    }
}

/// A pointer into a step must name a field its output declares.
fn check_output_pointer(place: &str, r: &Ref, steps: &[Planned<'_>]) -> Result<(), ApiError> {
    let Ref::Step { index, rest } = r else { return Ok(()) };
    let step = &steps[*index];
    let Some(schema) = &step.entry.output_schema else { return Ok(()) };
    if step.for_each.is_some() {
        // A forEach step's data is {items: [data...], errors: [...]}.
        return match rest.split_first() {
            None => Ok(()),
            Some((first, _)) if first == "errors" => Ok(()),
            Some((first, more)) if first == "items" => match more.split_first() {
                None => Ok(()),
                Some((n, inner)) if n.parse::<usize>().is_ok() => walk_or_refuse(place, step, schema, inner),
                Some(_) => Err(ApiError::invalid(place, "items of a forEach step are read by position (/items/0/...)")),
            },
            Some((first, _)) => Err(ApiError::invalid(
                place,
                format!("steps[{index}] runs forEach: its data has items and errors, not {first:?}"),
            )),
        };
    }
    walk_or_refuse(place, step, schema, rest)
}

fn walk_or_refuse(
    place: &str,
    step: &Planned<'_>,
    schema: &Map<String, Value>,
    rest: &[String],
) -> Result<(), ApiError> {
    match pointer::walk(schema, schema, rest) {
        Ok(_) => Ok(()),
        Err((at, fields)) => {
            let offered = if fields.is_empty() { String::new() } else { format!("; it has {}", fields.join(", ")) };
            Err(ApiError::invalid(
                place,
                format!(
                    "{}'s output has no field {:?} at {}{offered}",
                    step.op,
                    rest[at],
                    pointer::write(&rest[..=at])
                ),
            ))
        }
    }
}

/// A mapped value must be of a type the field takes: from an earlier step, by its output
/// schema; from the input, by the input itself when it is known.
fn check_source_type(
    place: &str,
    r: &Ref,
    wanted: &pointer::Types,
    steps: &[Planned<'_>],
    input: Option<&Value>,
) -> Result<(), ApiError> {
    check_output_pointer(place, r, steps)?;
    let (given, what) = match r {
        Ref::Step { index, rest } => (output_types(&steps[*index], rest), pointer::write(rest)),
        Ref::Input(tokens) => match input {
            Some(input) => match pointer::follow(input, tokens) {
                Some(v) => (Some(vec![pointer::type_of(v)]), format!("/input{}", pointer::write(tokens))),
                None => {
                    return Err(ApiError::invalid(
                        place,
                        format!("the input has nothing at /input{}", pointer::write(tokens)),
                    ));
                }
            },
            None => (None, String::new()),
        },
        Ref::Index => (Some(vec!["integer"]), "$index".into()),
        Ref::Item(_) => (None, String::new()),
    };
    if !pointer::fits(&given, wanted) {
        return Err(ApiError::invalid(
            place,
            format!(
                "{what} is {}, and this takes {}",
                pointer::describe(given.as_deref().unwrap_or_default()),
                pointer::describe(wanted.as_deref().unwrap_or_default())
            ),
        ));
    }
    Ok(())
}

/// Validators of input schemas without their `required` list (a literal is checked alone;
/// required fields are checked above), built once per operation.
fn validator(operation: &str, schema: &Map<String, Value>) -> Option<Arc<jsonschema::Validator>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().ok()?.get(operation) {
        return Some(v.clone());
    }
    let mut open = schema.clone();
    open.remove("required");
    let built = jsonschema::options().should_validate_formats(false).build(&Value::Object(open)).ok()?;
    let built = Arc::new(built);
    cache.lock().ok()?.insert(operation.to_string(), built.clone());
    Some(built)
}

/// Refuses the first value of `known` the schema refuses, at the place it came from.
fn check_values(
    operation: &str,
    schema: &Map<String, Value>,
    known: &Map<String, Value>,
    origin: &HashMap<String, String>,
    step: &str,
) -> Result<(), ApiError> {
    if known.is_empty() {
        return Ok(());
    }
    let Some(validator) = validator(operation, schema) else { return Ok(()) };
    let instance = Value::Object(known.clone());
    let Some(error) = validator.iter_errors(&instance).next() else { return Ok(()) };
    let path = error.instance_path().to_string();
    let tokens = pointer::tokens(&path).unwrap_or_default();
    let place = match tokens.split_first() {
        Some((field, rest)) => {
            let base = origin.get(field).cloned().unwrap_or_else(|| step.to_string());
            let mut place = base;
            for t in rest {
                if t.parse::<usize>().is_ok() {
                    place.push_str(&format!("[{t}]"));
                } else {
                    place.push('.');
                    place.push_str(t);
                }
            }
            place
        }
        None => step.to_string(),
    };
    Err(ApiError::invalid(&place, format!("{operation} refuses it: {error}")))
}
