//! Run-time enforcement of the schema constraints serde cannot check.
//!
//! serde already enforces types, required fields, enums and unknown fields. What it does not
//! check (string and list lengths, numeric ranges, patterns) is declared once with
//! `#[schemars(length(..), range(..), pattern(..))]`; schemars writes it into the document and
//! `#[derive(Validate)]` calls the helpers below with the very same values. Lengths of strings
//! are counted in Unicode code points, as JSON Schema does.

use regex::Regex;
use schemars::Schema;
use serde_json::{Value, json};

pub use wrench_macros::Validate;

use wrench_infra::envelope::ApiError;

/// A rule broken by one field: the path in the client's spelling and what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

impl From<FieldError> for ApiError {
    fn from(e: FieldError) -> ApiError {
        if e.path.is_empty() { ApiError::invalid("body", e.message) } else { ApiError::invalid(&e.path, e.message) }
    }
}

/// Checks the constraints of a decoded input. `path` is the location of `self` (empty at the root).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is read from requests but does not check its constraints",
    label = "add `#[derive(Validate)]` to this type (and to the types of its fields)"
)]
pub trait Validate {
    /// Fields accepted under a second name (`#[serde(alias)]`), as (name, alias) pairs in the
    /// client's spelling. The derive fills it in from the serde attributes.
    const ALIASES: &'static [(&'static str, &'static str)] = &[];

    fn validate(&self, path: &str) -> Result<(), FieldError>;
}

/// A schemars transform that declares a type's aliases in its schema, so that the document
/// lists every name the server accepts: `#[schemars(transform = declare_aliases::<Self>)]` on
/// the type (the derive asks for it wherever a field has an alias). The schema says that
/// exactly one of the two spellings is given when the field is required, at most one otherwise;
/// serde refuses a field given twice.
///
/// Where the alias follows the naming rule (`maxLength` beside the fixed `max_length`, `url`
/// beside `domain`), it becomes a property of its own and a client may use either. Any other
/// alias is a legacy spelling (`custom_slug`, the original service's, beside `customSlug`),
/// kept out of `properties` so that generators, which build fields from them, see one field
/// under one name, while the document still accepts exactly what the server does: the object's
/// `propertyNames` list the legacy spelling beside the properties (in place of
/// `additionalProperties: false`, which would refuse it), and an `if`/`then` rule gives its
/// value the field's schema. (An anchored `patternProperties` entry said the same, but
/// TypeScript generators turn it into an index signature that every field must then satisfy.)
pub fn declare_aliases<T: Validate + ?Sized>(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else { return };
    let mut rules = Vec::new();
    let mut legacy = Vec::new();
    for &(name, alias) in T::ALIASES {
        let Some(properties) = object.get_mut("properties").and_then(Value::as_object_mut) else { return };
        let Some(index) = properties.keys().position(|k| k == name) else { continue };
        let mut aliased = properties[name].clone();
        if let Some(o) = aliased.as_object_mut() {
            o.insert(
                "description".into(),
                Value::String(format!("Another spelling of `{name}`; give one of the two.")),
            );
            // Lets a rendering for generators that cannot hold both spellings drop this one.
            o.insert("x-alias-of".into(), Value::String(name.to_string()));
        }
        if follows_naming_rule(alias) {
            properties.shift_insert(index + 1, alias.to_string(), aliased);
        } else {
            legacy.push((alias, json!({"if": {"required": [alias]}, "then": {"properties": {alias: aliased}}})));
        }
        let required = object.get_mut("required").and_then(Value::as_array_mut);
        let was_required = required.is_some_and(|r| {
            let before = r.len();
            r.retain(|n| n != name);
            r.len() != before
        });
        rules.push(if was_required {
            json!({"oneOf": [{"required": [name]}, {"required": [alias]}]})
        } else {
            json!({"not": {"required": [name, alias]}})
        });
    }
    if !legacy.is_empty() && object.get("additionalProperties") == Some(&Value::Bool(false)) {
        let mut names: Vec<Value> = object
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(|k| Value::String(k.clone())).collect())
            .unwrap_or_default();
        names.extend(legacy.iter().map(|(alias, _)| Value::String(alias.to_string())));
        object.remove("additionalProperties");
        object.insert("propertyNames".into(), json!({"enum": names}));
    }
    rules.extend(legacy.into_iter().map(|(_, rule)| rule));
    if object.get("required").and_then(Value::as_array).is_some_and(Vec::is_empty) {
        object.remove("required");
    }
    if !rules.is_empty() {
        let all = object.entry("allOf").or_insert_with(|| Value::Array(Vec::new()));
        if let Some(all) = all.as_array_mut() {
            all.extend(rules);
        }
    }
}

/// Whether an alias follows the naming rule (camelCase: `maxLength`, `url`), so that it may be
/// a property of its own. Snake-case names are admitted only where the contract fixes them, and
/// those are never the alias.
fn follows_naming_rule(alias: &str) -> bool {
    !alias.contains('_')
}

pub fn join(path: &str, field: &str) -> String {
    if path.is_empty() { field.to_string() } else { format!("{path}.{field}") }
}

fn fail(path: &str, message: String) -> Result<(), FieldError> {
    Err(FieldError { path: path.to_string(), message })
}

/// Things with a length in the JSON Schema sense.
pub trait Measure {
    /// `None` when there is nothing to measure (an absent optional value).
    fn measure(&self) -> Option<(usize, &'static str)>;
}

impl Measure for String {
    fn measure(&self) -> Option<(usize, &'static str)> {
        Some((self.chars().count(), "characters"))
    }
}

impl<T> Measure for Vec<T> {
    fn measure(&self) -> Option<(usize, &'static str)> {
        Some((self.len(), "items"))
    }
}

/// A map's length is its member count (`minProperties`/`maxProperties` in the document).
impl<V> Measure for std::collections::BTreeMap<String, V> {
    fn measure(&self) -> Option<(usize, &'static str)> {
        Some((self.len(), "members"))
    }
}

impl<T: Measure> Measure for Option<T> {
    fn measure(&self) -> Option<(usize, &'static str)> {
        self.as_ref().and_then(Measure::measure)
    }
}

pub fn check_length<T: Measure>(v: &T, path: &str, min: Option<usize>, max: Option<usize>) -> Result<(), FieldError> {
    let Some((n, unit)) = v.measure() else {
        return Ok(());
    };
    match (min, max) {
        (Some(lo), Some(hi)) if n < lo || n > hi => {
            if lo == hi {
                fail(path, format!("must have exactly {lo} {unit} (got {n})"))
            } else {
                fail(path, format!("must have between {lo} and {hi} {unit} (got {n})"))
            }
        }
        (Some(lo), None) if n < lo => fail(path, format!("must have at least {lo} {unit} (got {n})")),
        (None, Some(hi)) if n > hi => fail(path, format!("must have at most {hi} {unit} (got {n})")),
        _ => Ok(()),
    }
}

/// Numbers with a range.
pub trait Bounded {
    fn number(&self) -> Option<f64>;
}

macro_rules! bounded {
    ($($t:ty),*) => {$(
        impl Bounded for $t {
            fn number(&self) -> Option<f64> { Some(*self as f64) }
        }
    )*};
}
bounded!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64);

impl<T: Bounded> Bounded for Option<T> {
    fn number(&self) -> Option<f64> {
        self.as_ref().and_then(Bounded::number)
    }
}

fn show(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 { format!("{}", n as i64) } else { format!("{n}") }
}

pub fn check_range<T: Bounded>(v: &T, path: &str, min: Option<f64>, max: Option<f64>) -> Result<(), FieldError> {
    let Some(n) = v.number() else { return Ok(()) };
    let bad = min.is_some_and(|lo| n < lo) || max.is_some_and(|hi| n > hi) || n.is_nan();
    if !bad {
        return Ok(());
    }
    match (min, max) {
        (Some(lo), Some(hi)) => fail(path, format!("must be between {} and {} (got {})", show(lo), show(hi), show(n))),
        (Some(lo), None) => fail(path, format!("must be at least {} (got {})", show(lo), show(n))),
        (None, Some(hi)) => fail(path, format!("must be at most {} (got {})", show(hi), show(n))),
        (None, None) => Ok(()),
    }
}

/// Strings with a pattern.
pub trait Text {
    fn text(&self) -> Option<&str>;
}

impl Text for String {
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}

impl<T: Text> Text for Option<T> {
    fn text(&self) -> Option<&str> {
        self.as_ref().and_then(Text::text)
    }
}

/// The patterns several operations share, with what they mean in words: a refusal says what
/// was expected rather than quoting a regular expression.
pub const PATTERN_MEANINGS: &[(&str, &str)] = &[
    ("^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$", "is not a hex colour; write #rrggbb or #rgb"),
    // What a WHATWG URL parser reads as http or https: leading spaces and controls are
    // dropped, and the slashes after the scheme are not required.
    ("^[\\x00-\\x20]*[Hh][Tt][Tt][Pp][Ss]?:", "is not an http or https URL"),
    (
        "^[ \\t\\r\\n=-]*(?:[A-Za-z2-7][ \\t\\r\\n=-]*){2,}$",
        "is not Base32 (A-Z and 2-7; case, spaces, hyphens and padding do not matter)",
    ),
    ("^[A-Za-z]{2}$", "is not a two-letter country code"),
    (
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.][0-9]{1,9})?)?$",
        "is not a local date and time such as 2024-06-15T09:00:00, without an offset or Z",
    ),
    (
        "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.][0-9]{1,9})?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$",
        "is not an RFC 3339 instant such as 2024-03-31T01:30:00Z",
    ),
];

pub fn check_pattern<T: Text>(v: &T, path: &str, re: &Regex, pattern: &str) -> Result<(), FieldError> {
    match v.text() {
        Some(s) if !re.is_match(s) => match PATTERN_MEANINGS.iter().find(|(p, _)| *p == pattern) {
            Some((_, meaning)) => {
                let shown: String = s.chars().take(64).collect();
                fail(path, format!("{shown:?} {meaning} (the pattern {pattern})"))
            }
            None => fail(path, format!("must match the pattern {pattern}")),
        },
        _ => Ok(()),
    }
}

macro_rules! leaf {
    ($($t:ty),*) => {$(
        impl Validate for $t {
            fn validate(&self, _: &str) -> Result<(), FieldError> { Ok(()) }
        }
    )*};
}
leaf!(String, bool, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64, serde_json::Value, char);

impl<T: Validate> Validate for Option<T> {
    fn validate(&self, path: &str) -> Result<(), FieldError> {
        match self {
            Some(v) => v.validate(path),
            None => Ok(()),
        }
    }
}

impl<T: Validate> Validate for Vec<T> {
    fn validate(&self, path: &str) -> Result<(), FieldError> {
        for (i, v) in self.iter().enumerate() {
            v.validate(&format!("{path}[{i}]"))?;
        }
        Ok(())
    }
}

impl Validate for serde_json::Map<String, serde_json::Value> {
    fn validate(&self, _: &str) -> Result<(), FieldError> {
        Ok(())
    }
}

impl<V: Validate> Validate for std::collections::BTreeMap<String, V> {
    fn validate(&self, path: &str) -> Result<(), FieldError> {
        for (k, v) in self {
            v.validate(&join(path, k))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_count_code_points() {
        let s = "héllo".to_string();
        assert!(check_length(&s, "t", Some(5), Some(5)).is_ok());
        let e = check_length(&s, "t", None, Some(4)).unwrap_err();
        assert_eq!(e.message, "must have at most 4 characters (got 5)");
    }

    #[test]
    fn ranges_name_the_bounds() {
        let e = check_range(&0u32, "count", Some(1.0), Some(100.0)).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.as_str()), ("count", "must be between 1 and 100 (got 0)"));
        assert!(check_range(&Some(100u32), "count", Some(1.0), Some(100.0)).is_ok());
        assert!(check_range(&None::<u32>, "count", Some(1.0), Some(100.0)).is_ok());
    }
}
