//! CyberChef recipes translated into wrench recipes (`recipes/from-cyberchef`): a table from
//! CyberChef's operation names to wrench operations, each row reading the operation's
//! positional arguments (CyberChef's export format) into the wrench operation's arguments.
//! What has no faithful translation (an argument value wrench has no equivalent for, an
//! operation it lacks, CyberChef's flow control) is listed with the reason, never guessed.
//!
//! Each row is checked in the tests against the npm `cyberchef` package itself: the original
//! recipe baked by CyberChef and the translation run by wrench give the same bytes.

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "FromCyberChefInput")]
struct FromCyberChefInput {
    /// The recipe as CyberChef exports it (its "JSON" or "Clean JSON" form): operations in
    /// order, each `{"op": name, "args": [...]}` with its arguments by position, or a name
    /// alone. `disabled` steps are left out; `breakpoint` is ignored.
    #[schemars(length(min = 1, max = 256))]
    recipe: Vec<ChefStep>,
}

/// One operation of a CyberChef recipe: its name alone, or in full.
#[derive(Debug)]
struct ChefStep(ChefStepFull);

/// One operation of a CyberChef recipe in full.
#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CyberChefStepFull")]
struct ChefStepFull {
    /// CyberChef's name of the operation (`From Base64`).
    #[schemars(length(min = 1, max = 128))]
    op: String,
    /// Its arguments by position, as CyberChef exports them; missing ones take CyberChef's
    /// defaults.
    #[serde(default)]
    #[schemars(length(max = 32))]
    args: Vec<Value>,
    /// Left out of the translation when true.
    #[serde(default)]
    disabled: bool,
    /// CyberChef's breakpoint; it has no meaning here.
    #[serde(default)]
    breakpoint: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "FromCyberChefOutput")]
struct FromCyberChefOutput {
    /// The wrench steps, ready for `recipes/run` (`{"input": ..., "steps": ...}`): the
    /// translated operations, in order.
    steps: Vec<Value>,
    /// Whether every operation was translated; if not, `steps` leaves the others out and
    /// would not give what CyberChef gives.
    complete: bool,
    /// The operations that could not be translated, with why.
    unsupported: Vec<Unsupported>,
    /// Operations that have no effect on the data (`Comment`, disabled steps) and were left
    /// out.
    ignored: Vec<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[schemars(rename = "CyberChefUnsupported")]
struct Unsupported {
    /// Its position in the CyberChef recipe.
    index: usize,
    op: String,
    reason: String,
}

impl<'de> Deserialize<'de> for ChefStep {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{MapAccess, Visitor, value::MapAccessDeserializer};
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = ChefStep;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an operation's name, or an object with `op` and `args`")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<ChefStep, E> {
                Ok(ChefStep(ChefStepFull { op: v.to_string(), args: Vec::new(), disabled: false, breakpoint: false }))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ChefStep, A::Error> {
                ChefStepFull::deserialize(MapAccessDeserializer::new(map)).map(ChefStep)
            }
        }
        d.deserialize_any(Visit)
    }
}

impl JsonSchema for ChefStep {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CyberChefStep".into()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let full = g.subschema_for::<ChefStepFull>();
        schemars::json_schema!({
            "description": "A CyberChef operation: its name alone, or `{op, args}`.",
            "anyOf": [{"type": "string", "minLength": 1, "maxLength": 128}, full]
        })
    }
}

impl Validate for ChefStep {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        self.0.validate(path)
    }
}

/// A step's positional arguments with CyberChef's defaults.
struct Args<'a>(&'a [Value]);

impl Args<'_> {
    fn get(&self, i: usize) -> Option<&Value> {
        self.0.get(i).filter(|v| !v.is_null())
    }

    /// A text argument (an editable option exports its text; an untouched one its list).
    fn text(&self, i: usize, default: &str) -> String {
        match self.get(i) {
            Some(Value::String(s)) => s.clone(),
            _ => default.to_string(),
        }
    }

    fn flag(&self, i: usize, default: bool) -> bool {
        self.get(i).and_then(Value::as_bool).unwrap_or(default)
    }

    fn number(&self, i: usize, default: f64) -> f64 {
        match self.get(i) {
            Some(Value::Number(n)) => n.as_f64().unwrap_or(default),
            Some(Value::String(s)) => s.trim().parse().unwrap_or(default),
            _ => default,
        }
    }

    /// A toggle string: `{"string": ..., "option": "UTF8" | "Hex" | ...}`.
    fn toggle(&self, i: usize) -> (String, String) {
        let v = self.get(i);
        let text = v.and_then(|v| v.get("string")).and_then(Value::as_str).unwrap_or("").to_string();
        let option = v.and_then(|v| v.get("option")).and_then(Value::as_str).unwrap_or("UTF8").to_string();
        (text, option)
    }
}

type Translate = fn(&Args) -> Result<Value, String>;

/// A row's translation, which may carry what the row was made with.
type Row = Box<dyn Fn(&Args) -> Result<Value, String>>;

fn step(op: &str, args: Value) -> Value {
    if args == json!({}) { json!(op) } else { json!({"op": op, "args": args}) }
}

fn only<T: PartialEq + std::fmt::Debug>(what: &str, given: T, allowed: &[T]) -> Result<(), String> {
    if allowed.contains(&given) {
        Ok(())
    } else {
        Err(format!("{what} {given:?} has no equivalent (only {allowed:?})"))
    }
}

/// A byte delimiter of CyberChef's option lists, as text.
fn delimiter(name: &str) -> Result<&'static str, String> {
    Ok(match name {
        "Space" => " ",
        "Comma" => ",",
        "Semi-colon" => ";",
        "Colon" => ":",
        "Line feed" => "\n",
        "CRLF" => "\r\n",
        "None" | "" => "",
        other => return Err(format!("the delimiter {other:?} has no equivalent")),
    })
}

/// A toggle string's option as a wrench byte encoding.
fn key_encoding(option: &str) -> Result<&'static str, String> {
    Ok(match option {
        "UTF8" | "Latin1" => "utf-8",
        "Hex" => "hex",
        "Base64" => "base64",
        other => return Err(format!("a key given as {other} has no equivalent")),
    })
}

fn from_base64(a: &Args) -> Result<Value, String> {
    match a.text(0, "A-Za-z0-9+/=").as_str() {
        "A-Za-z0-9+/=" => Ok(step("base64Decode", json!({}))),
        "A-Za-z0-9-_" | "A-Za-z0-9-_=" => Ok(step("base64Decode", json!({"urlSafe": true}))),
        other => Err(format!("the alphabet {other:?} has no equivalent")),
    }
}

fn to_base64(a: &Args) -> Result<Value, String> {
    match a.text(0, "A-Za-z0-9+/=").as_str() {
        "A-Za-z0-9+/=" => Ok(step("base64Encode", json!({}))),
        "A-Za-z0-9-_" => Ok(step("base64Encode", json!({"urlSafe": true}))),
        other => Err(format!("the alphabet {other:?} has no equivalent")),
    }
}

fn to_hex(a: &Args) -> Result<Value, String> {
    let d = delimiter(&a.text(0, "Space"))?;
    if a.number(1, 0.0) as u64 > 0 {
        // CyberChef ends each line with the delimiter as well; hex/encode does not.
        return Err("bytes per line has no equivalent (CyberChef ends each line with the delimiter)".into());
    }
    Ok(step("hexEncode", json!({"delimiter": d})))
}

fn rot13(a: &Args) -> Result<Value, String> {
    let (lower, upper, numbers) = (a.flag(0, true), a.flag(1, true), a.flag(2, false));
    if !lower || !upper || numbers {
        return Err("only rotating both cases of letters, and not digits, has an equivalent".into());
    }
    let amount = a.number(3, 13.0).rem_euclid(26.0) as u64;
    Ok(if amount == 13 {
        step("rot", json!({"variant": "rot13"}))
    } else {
        step("rot", json!({"variant": "caesar", "shift": amount}))
    })
}

fn rot47(a: &Args) -> Result<Value, String> {
    only("the amount", a.number(0, 47.0) as i64, &[47])?;
    Ok(step("rot", json!({"variant": "rot47"})))
}

fn case(to: &'static str) -> impl Fn(&Args) -> Result<Value, String> {
    move |_| Ok(step("textCase", json!({"to": to})))
}

fn hash(algorithm: &'static str) -> impl Fn(&Args) -> Result<Value, String> {
    move |_| Ok(step("hashText", json!({"algorithm": algorithm})))
}

fn sha1(a: &Args) -> Result<Value, String> {
    only("the number of rounds", a.number(0, 80.0) as i64, &[80])?;
    Ok(step("hashText", json!({"algorithm": "sha1"})))
}

fn sha2(a: &Args) -> Result<Value, String> {
    let size = a.text(0, "512");
    only("the size", size.as_str(), &["224", "256", "384", "512"])?;
    let standard = if matches!(size.as_str(), "384" | "512") { 160.0 } else { 64.0 };
    let rounds_at = if matches!(size.as_str(), "384" | "512") { 2 } else { 1 };
    only("the number of rounds", a.number(rounds_at, standard) as i64, &[standard as i64])?;
    Ok(step("hashText", json!({"algorithm": format!("sha{size}")})))
}

fn sha3(a: &Args) -> Result<Value, String> {
    let size = a.text(0, "512");
    only("the size", size.as_str(), &["224", "256", "384", "512"])?;
    Ok(step("hashText", json!({"algorithm": format!("sha3-{size}")})))
}

fn hmac(a: &Args) -> Result<Value, String> {
    let (key, option) = a.toggle(0);
    let algorithm = match a.text(1, "MD5").as_str() {
        "MD5" => "md5",
        "SHA1" => "sha1",
        "SHA224" => "sha224",
        "SHA256" => "sha256",
        "SHA384" => "sha384",
        "SHA512" => "sha512",
        other => return Err(format!("the hash {other:?} has no equivalent")),
    };
    Ok(step("hashHmac", json!({"key": key, "keyEncoding": key_encoding(&option)?, "algorithm": algorithm})))
}

fn base32(encode: bool) -> impl Fn(&Args) -> Result<Value, String> {
    move |a| {
        only("the alphabet", a.text(0, "A-Z2-7=").as_str(), &["A-Z2-7="])?;
        Ok(step(if encode { "base32Encode" } else { "base32Decode" }, json!({})))
    }
}

fn base58(encode: bool) -> impl Fn(&Args) -> Result<Value, String> {
    move |a| {
        let alphabet = match a.text(0, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz").as_str() {
            "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz" => "bitcoin",
            "rpshnaf39wBUDNEGHJKLM4PQRST7VWXYZ2bcdeCg65jkm8oFqi1tuvAxyz" => "ripple",
            other => return Err(format!("the alphabet {other:?} has no equivalent")),
        };
        Ok(step(if encode { "base58Encode" } else { "base58Decode" }, json!({"alphabet": alphabet})))
    }
}

fn json_beautify(a: &Args) -> Result<Value, String> {
    let indent = a.text(0, "    ");
    if indent.is_empty() || !indent.chars().all(|c| c == ' ') || indent.len() > 8 {
        return Err("only an indent of 1 to 8 spaces has an equivalent".into());
    }
    if a.flag(1, false) {
        return Err("sorting the keys has no equivalent".into());
    }
    Ok(step("jsonFormat", json!({"indent": indent.len()})))
}

fn numbers(base: &'static str, encode: bool) -> impl Fn(&Args) -> Result<Value, String> {
    move |a| {
        let d = delimiter(&a.text(0, "Space"))?;
        if encode {
            Ok(step("bytesConvert", json!({"to": base, "delimiter": d})))
        } else {
            Ok(step("bytesConvert", json!({"from": base})))
        }
    }
}

fn xor(a: &Args) -> Result<Value, String> {
    let (key, option) = a.toggle(0);
    only("the scheme", a.text(1, "Standard").as_str(), &["Standard"])?;
    if a.flag(2, false) {
        return Err("null preserving has no equivalent".into());
    }
    Ok(step("xorBytes", json!({"key": key, "keyEncoding": key_encoding(&option)?})))
}

fn normalise(a: &Args) -> Result<Value, String> {
    let form = a.text(0, "NFD");
    only("the form", form.as_str(), &["NFD", "NFC", "NFKD", "NFKC"])?;
    Ok(step("textNormalize", json!({"form": form})))
}

fn punycode(encode: bool) -> impl Fn(&Args) -> Result<Value, String> {
    move |a| {
        let raw = !a.flag(0, false);
        Ok(step(if encode { "punycodeEncode" } else { "punycodeDecode" }, json!({"raw": raw})))
    }
}

fn fixed(op: &'static str, args: fn() -> Value) -> impl Fn(&Args) -> Result<Value, String> {
    move |_| Ok(step(op, args()))
}

/// CyberChef's flow control: recipes here have `forEach` and `when` instead.
const FLOW: &[(&str, &str)] = &[
    ("Fork", "use forEach over a split list in the full form"),
    ("Merge", "use forEach and result in the full form"),
    ("Subsection", "use forEach over regex matches in the full form"),
    ("Register", "use from pointers to earlier steps"),
    ("Conditional Jump", "use when"),
    ("Jump", "recipes have no loops"),
    ("Label", "recipes have no loops"),
    ("Return", "recipes end after their last step"),
    ("Magic", "use POST /v1/detect"),
];

/// The table: CyberChef's operation name and its translation.
fn translation(name: &str) -> Option<Row> {
    fn boxed(f: impl Fn(&Args) -> Result<Value, String> + 'static) -> Option<Row> {
        Some(Box::new(f))
    }
    let none = || json!({});
    match name {
        "From Base64" => boxed(from_base64 as Translate),
        "To Base64" => boxed(to_base64 as Translate),
        "From Hex" => boxed(fixed("hexDecode", none)),
        "To Hex" => boxed(to_hex as Translate),
        "From HTML Entity" => boxed(fixed("htmlEntitiesDecode", none)),
        "From Quoted Printable" => boxed(fixed("quotedPrintableDecode", none)),
        "ROT13" => boxed(rot13 as Translate),
        "ROT47" => boxed(rot47 as Translate),
        "Gunzip" => boxed(fixed("decompress", || json!({"format": "gzip"}))),
        "Zlib Inflate" => boxed(fixed("decompress", || json!({"format": "zlib"}))),
        "Raw Inflate" => boxed(fixed("decompress", || json!({"format": "deflate"}))),
        "Bzip2 Decompress" => boxed(fixed("decompress", || json!({"format": "bzip2"}))),
        "To Upper case" => boxed(|a: &Args| {
            only("the scope", a.text(0, "All").as_str(), &["All"])?;
            Ok(step("textCase", json!({"to": "upper"})))
        }),
        "To Lower case" => boxed(case("lower")),
        "To Snake case" => boxed(case("snake")),
        "To Kebab case" => boxed(case("kebab")),
        "To Camel case" => boxed(case("camel")),
        "MD5" => boxed(hash("md5")),
        "SHA1" => boxed(sha1 as Translate),
        "SHA2" => boxed(sha2 as Translate),
        "SHA3" => boxed(sha3 as Translate),
        "HMAC" => boxed(hmac as Translate),
        "From Base32" => boxed(base32(false)),
        "To Base32" => boxed(base32(true)),
        "From Base58" => boxed(base58(false)),
        "To Base58" => boxed(base58(true)),
        "JSON Beautify" => boxed(json_beautify as Translate),
        "JSON Minify" => boxed(fixed("jsonMinify", none)),
        "From Decimal" => boxed(numbers("decimal", false)),
        "To Decimal" => boxed(numbers("decimal", true)),
        "From Binary" => boxed(numbers("binary", false)),
        "To Binary" => boxed(numbers("binary", true)),
        "From Octal" => boxed(numbers("octal", false)),
        "To Octal" => boxed(|_: &Args| {
            Err("CyberChef writes octal without leading zeros; bytes/convert writes three digits".to_string())
        }),
        "XOR" => boxed(xor as Translate),
        "Normalise Unicode" => boxed(normalise as Translate),
        "To Punycode" => boxed(punycode(true)),
        "From Punycode" => boxed(punycode(false)),
        "URL Decode" => boxed(fixed("urlDecode", none)),
        "JWT Decode" => boxed(fixed("jwtDecode", none)),
        "Fang URL" => boxed(fixed("textRefang", none)),
        _ => None,
    }
}

/// Translate a CyberChef recipe.
///
/// Takes a recipe as CyberChef exports it (`[{"op": "From Base64", "args": [...]}, ...]`) and
/// answers the same chain as wrench steps for `POST /v1/recipes/run`, operation by operation
/// from a table of CyberChef's operations and their arguments. What has no faithful
/// equivalent is listed in `unsupported` with the reason (an argument wrench cannot honour,
/// an operation it lacks, CyberChef's flow control and what to use instead), and `complete`
/// says whether the translation gives what CyberChef gives. Nothing is run.
#[op(post "/v1/recipes/from-cyberchef" as translateCyberChefRecipe, tag = Recipes,
     example(typical, {"recipe": [{"op": "From Base64", "args": ["A-Za-z0-9+/=", true, false]},
                                  {"op": "Gunzip", "args": []}, {"op": "JSON Beautify", "args": ["  ", false, true]}]}),
     example(partial, {"recipe": [{"op": "Fork", "args": ["\\n", "\\n", false]}, {"op": "To Hex", "args": ["Space", 0]},
                                  {"op": "Merge", "args": [true]}]}),
     example(empty, {"recipe": []}, status = 400))]
async fn translate_cyberchef_recipe(input: FromCyberChefInput) -> Result<FromCyberChefOutput, ApiError> {
    let (mut steps, mut unsupported, mut ignored) = (Vec::new(), Vec::new(), Vec::new());
    for (index, ChefStep(s)) in input.recipe.iter().enumerate() {
        let _ = s.breakpoint;
        if s.disabled || s.op == "Comment" {
            ignored.push(index);
            continue;
        }
        let refused = |reason: String| Unsupported { index, op: s.op.clone(), reason };
        if let Some((_, instead)) = FLOW.iter().find(|(n, _)| *n == s.op) {
            unsupported.push(refused(format!("CyberChef's flow control: {instead}")));
            continue;
        }
        match translation(&s.op) {
            Some(translate) => match translate(&Args(&s.args)) {
                Ok(step) => steps.push(step),
                Err(reason) => unsupported.push(refused(reason)),
            },
            None => unsupported.push(refused("wrench has no translation of this operation".into())),
        }
    }
    Ok(FromCyberChefOutput { complete: unsupported.is_empty(), steps, unsupported, ignored })
}
