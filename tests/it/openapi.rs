//! The OpenAPI document: checked in, complete, and consistent with what the server enforces.

use std::collections::HashSet;

use serde_json::Value;

const FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");

/// Operations the service declares, and the routes they answer on (a GET and a POST form of one
/// operation are two routes). Update when an issue adds operations; a drop is a bug.
const EXPECTED_OPERATIONS: usize = 261;
const EXPECTED_ROUTES: usize = 289;

/// The 3.0.3 rendering, checked in beside it for the generators that read only 3.0.
const FILE_30: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi-3.0.json");

#[test]
fn checked_in_document_is_up_to_date() {
    let doc = wrench::openapi_document();
    let rendered =
        [(FILE, doc.clone(), "openapi"), (FILE_30, wrench_server::openapi::v30::render(&doc), "openapi --spec 3.0")];
    for (file, value, command) in rendered {
        let text = serde_json::to_string_pretty(&value).unwrap() + "\n";
        if std::env::var_os("UPDATE_OPENAPI").is_some() {
            std::fs::write(file, &text).unwrap();
            continue;
        }
        let on_disk = std::fs::read_to_string(file).unwrap_or_default();
        if on_disk != text {
            let diff = similar_lines(&on_disk, &text);
            panic!(
                "{file} is stale. Regenerate it with\n\n    UPDATE_OPENAPI=1 cargo test --test openapi\n\n\
                 (or `cargo run -- {command}`) and commit the result.\nFirst differences:\n{diff}"
            );
        }
    }
}

/// What the image operations' examples produce, checked in so that writing the document runs
/// no operation; rendered again here, so the file cannot fall behind the operations.
#[test]
fn checked_in_image_examples_are_what_the_operations_render() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/image-examples.json");
    let rendered = wrench_server::openapi::samples::render(&wrench::operations());
    assert!(rendered.as_object().is_some_and(|m| m.len() >= 5), "{rendered}");
    let text = serde_json::to_string_pretty(&rendered).unwrap() + "\n";
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(file, &text).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(file).unwrap_or_default();
    assert!(
        on_disk == text,
        "{file} is stale. Regenerate it with\n\n    UPDATE_OPENAPI=1 cargo test --test openapi\n\n\
         and commit the result.\nFirst differences:\n{}",
        similar_lines(&on_disk, &text)
    );
}

/// The first few differing lines, enough to see what changed.
fn similar_lines(a: &str, b: &str) -> String {
    let mut out = String::new();
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate().filter(|(_, (x, y))| x != y).take(5) {
        out.push_str(&format!("line {}:\n  - {x}\n  + {y}\n", i + 1));
    }
    if a.lines().count() != b.lines().count() {
        out.push_str(&format!("({} lines on disk, {} generated)\n", a.lines().count(), b.lines().count()));
    }
    out
}

#[test]
fn every_operation_is_registered_once() {
    let ops = wrench::operations();
    assert_eq!(ops.len(), EXPECTED_OPERATIONS, "operations: {ops:?}");
    let routes: Vec<_> = ops.iter().flat_map(|o| o.routes).collect();
    assert_eq!(routes.len(), EXPECTED_ROUTES, "routes: {ops:?}");
    let mut ids = HashSet::new();
    for route in routes {
        assert!(ids.insert(route.id), "duplicate operationId {}", route.id);
        assert!(route.path.starts_with("/v1/"), "{} is not under /v1", route.path);
    }
    for op in &ops {
        assert!((op.examples)().len() >= 2, "{} needs a typical and an edge-case example", op.id());
        // The summary is the line SDKs and the UI show: a capitalised sentence that fits.
        assert!(op.summary.chars().next().is_some_and(char::is_uppercase), "{}: {:?}", op.id(), op.summary);
        assert!((8..=80).contains(&op.summary.chars().count()), "{}: {:?}", op.id(), op.summary);
    }
    let mut summaries = HashSet::new();
    for op in &ops {
        assert!(summaries.insert(op.summary), "{} repeats the summary {:?}", op.id(), op.summary);
    }
    // Every published tag has an operation under it.
    let doc = wrench::openapi_document();
    for tag in doc["tags"].as_array().unwrap() {
        let name = tag["name"].as_str().unwrap();
        assert!(ops.iter().any(|o| o.tag.name() == name), "tag {name} has no operation");
    }
}

#[test]
fn document_basics() {
    let doc = wrench::openapi_document();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "1.0.0");
    assert_eq!(doc["components"]["securitySchemes"]["apiKey"]["name"], "X-API-Key");
    let mut count = 0;
    for (_, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            count += 1;
            assert!(op["operationId"].is_string());
            assert!(op["responses"]["500"].is_object(), "every operation documents 500");
            let raw = op["requestBody"]["content"]["application/octet-stream"].is_object();
            assert!(raw || op["responses"]["401"].is_object(), "every keyed operation documents 401");
        }
    }
    assert_eq!(count, EXPECTED_ROUTES);
}

/// The error codes a documented response allows, following its `$ref`s.
fn codes_of(doc: &Value, response: &Value) -> Vec<String> {
    let name = response["$ref"].as_str().unwrap().trim_start_matches("#/components/responses/");
    let schema_ref = doc["components"]["responses"][name]["content"]["application/json"]["schema"]["$ref"]
        .as_str()
        .unwrap()
        .trim_start_matches("#/components/schemas/");
    let codes = &doc["components"]["schemas"][schema_ref]["properties"]["error"]["properties"]["code"]["enum"];
    codes.as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect()
}

/// Each route documents exactly the codes it can answer, each under its own status, and a code
/// that no operation answers appears nowhere in the document.
#[test]
fn every_operation_lists_the_error_codes_it_answers_and_no_others() {
    use wrench_infra::envelope::ErrorCode;
    let doc = wrench::openapi_document();
    let mut used = HashSet::new();
    for op in wrench::operations() {
        for route in op.routes {
            let responses = &doc["paths"][route.template().document_path()][route.method.lower()]["responses"];
            let mut documented: Vec<String> = Vec::new();
            for (status, response) in responses.as_object().unwrap() {
                // `default` is a configured answer (a webhook inbox's), not an error group.
                if status.starts_with('2') || status.starts_with('3') || status == "default" {
                    continue;
                }
                for code in codes_of(&doc, response) {
                    let c = ErrorCode::ALL.iter().find(|c| c.as_str() == code).unwrap();
                    assert_eq!(c.status().as_str(), status, "{}: {code} under {status}", route.id);
                    documented.push(code);
                }
            }
            documented.sort();
            let mut expected: Vec<String> = op.error_codes(route).iter().map(|c| c.as_str().to_string()).collect();
            expected.sort();
            assert_eq!(documented, expected, "{}", route.id);
            used.extend(expected);
        }
    }
    // Stateful operations say they can meet a store outage; nothing else does.
    assert!(used.contains("STORE_UNAVAILABLE") && used.contains("INBOX_NOT_FOUND"));
    let text = serde_json::to_string(&doc).unwrap();
    for code in ErrorCode::ALL {
        let routing = matches!(code, ErrorCode::NotFound | ErrorCode::MethodNotAllowed);
        if !used.contains(code.as_str()) && !routing {
            assert!(!text.contains(code.as_str()), "{code} is published but no operation answers it");
        }
    }
}

/// Every component is used: a schema, response or header nobody refers to is noise in SDKs.
#[test]
fn every_component_is_referenced() {
    let doc = wrench::openapi_document();
    let mut all = Vec::new();
    refs_full(&doc, &mut all);
    for kind in ["schemas", "responses", "headers"] {
        for name in doc["components"][kind].as_object().unwrap().keys() {
            let target = format!("#/components/{kind}/{name}");
            assert!(all.contains(&target), "{target} is never referred to");
        }
    }
}

fn refs_full(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                out.push(r.to_string());
            }
            map.values().for_each(|c| refs_full(c, out));
        }
        Value::Array(items) => items.iter().for_each(|c| refs_full(c, out)),
        _ => {}
    }
}

/// Keywords that the runtime enforces (serde or the derived `Validate`). A request schema that
/// used any other keyword would promise a check nobody makes.
const ENFORCED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "const",
    "oneOf",
    "anyOf",
    // One name or its alias, never both: serde refuses a field given twice or missing.
    "allOf",
    "not",
    "items",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    // Only on schemas whose Validate is written by hand and counts the members (a key given as
    // a JWK object: ops/security/keys/load.rs, tested there).
    "maxProperties",
    "format",
    "default",
    "description",
    "$ref",
    "title",
    "examples",
    // An annotation: this property is a second spelling of the one it names.
    "x-alias-of",
    // A legacy second spelling: the names an object takes, and its value's schema when given.
    "propertyNames",
    "if",
    "then",
];

fn walk(v: &Value, path: &str, bad: &mut Vec<String>) {
    if let Value::Object(map) = v {
        for (k, child) in map {
            match k.as_str() {
                "properties" | "patternProperties" => {
                    for (name, s) in child.as_object().unwrap() {
                        walk(s, &format!("{path}.{name}"), bad);
                    }
                }
                "default" | "examples" | "const" | "enum" | "description" | "title" | "x-alias-of" => {}
                _ => {
                    if !ENFORCED.contains(&k.as_str()) {
                        bad.push(format!("{path}: {k}"));
                    }
                    walk(child, path, bad);
                }
            }
        }
    } else if let Value::Array(items) = v {
        for i in items {
            walk(i, path, bad);
        }
    }
}

fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                out.push(r.rsplit('/').next().unwrap().to_string());
            }
            // Examples are data: a JSON Schema given as an example may hold `$ref`s of its own.
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "example" | "examples" | "default"))
                .for_each(|(_, c)| refs(c, out));
        }
        Value::Array(items) => items.iter().for_each(|c| refs(c, out)),
        _ => {}
    }
}

#[test]
fn request_schemas_use_only_enforced_keywords() {
    let doc = wrench::openapi_document();
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    // Every schema reachable from a request body or parameter.
    let mut todo = Vec::new();
    for (_, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            refs(&op["requestBody"], &mut todo);
            refs(&op["parameters"], &mut todo);
        }
    }
    let mut seen = HashSet::new();
    let mut bad = Vec::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let schema = &schemas[&name];
        walk(schema, &name, &mut bad);
        refs(schema, &mut todo);
    }
    assert!(seen.len() >= 20, "only {} request schemas found", seen.len());
    assert!(bad.is_empty(), "unenforced keywords: {bad:?}");
}

/// Request fields the spec names in snake_case keep its spelling (clients of the original
/// service send them); each is also accepted in camelCase, declared beside it.
const SNAKE_REQUEST_NAMES: &[&str] = &[
    "allowed_tags",
    "bg_color",
    "expires_in",
    "has_header",
    "include_header",
    "max_length",
    "show_text",
    "text_color",
    "user_agent",
    "vat_number",
    "version_a",
    "version_b",
];

/// Answer fields the spec names in snake_case (sections 2.2 and 4.7).
const SNAKE_ANSWER_NAMES: &[&str] = &["dependencies_count", "payload_count", "received_at"];

fn camel_case(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && name.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The snake_case spelling's camelCase twin.
fn camel_of(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// The alias a legacy-spelling rule admits, when `rule` is one for a property among `siblings`.
fn legacy_spelling<'a>(rule: &'a Value, siblings: &[String]) -> Option<&'a str> {
    let props = rule.get("then")?.get("properties")?.as_object()?;
    let (alias, schema) = props.iter().next().filter(|_| props.len() == 1)?;
    let of = schema.get("x-alias-of")?.as_str()?;
    (siblings.iter().any(|n| n == of) && rule["if"] == serde_json::json!({"required": [alias]}))
        .then_some(alias.as_str())
}

/// Every property name under `schema`, with the names of its sibling properties.
fn property_names(doc: &Value, schema: &Value, seen: &mut HashSet<String>, out: &mut Vec<(String, Vec<String>)>) {
    match schema {
        Value::Object(map) => {
            if let Some(name) =
                map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"))
                && seen.insert(name.to_string())
            {
                property_names(doc, &doc["components"]["schemas"][name], seen, out);
            }
            if let Some(props) = map.get("properties").and_then(Value::as_object) {
                let siblings: Vec<String> = props.keys().cloned().collect();
                for name in props.keys() {
                    out.push((name.clone(), siblings.clone()));
                }
                // A legacy spelling is a rule `if: {required: [alias]}, then: {properties:
                // {alias: ...}}` whose schema names a sibling property it stands for; any other
                // `patternProperties`, `propertyNames` or rule with `then` is reported.
                if let Some(p) = map.get("patternProperties") {
                    out.push((format!("patternProperties {p}"), siblings.clone()));
                }
                let legacy: Vec<&str> = map
                    .get("allOf")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|r| legacy_spelling(r, &siblings))
                    .collect();
                let rules = map
                    .get("allOf")
                    .and_then(Value::as_array)
                    .map_or(0, |r| r.iter().filter(|r| r.get("then").is_some()).count());
                if rules != legacy.len() {
                    out.push((format!("a rule with `then` that is not a legacy spelling: {map:?}"), siblings.clone()));
                }
                if let Some(names) = map.get("propertyNames") {
                    let expected: Vec<Value> = siblings
                        .iter()
                        .map(|n| serde_json::json!(n))
                        .chain(legacy.iter().map(|n| serde_json::json!(n)))
                        .collect();
                    if names["enum"].as_array() != Some(&expected) {
                        out.push((
                            format!("propertyNames {names} (not the properties and their legacy spellings)"),
                            siblings.clone(),
                        ));
                    }
                }
                // Everything but the legacy rules, whose snake_case names are the point.
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("allOf", Value::Array(rules)) => rules
                            .iter()
                            .filter(|r| legacy_spelling(r, &siblings).is_none())
                            .for_each(|r| property_names(doc, r, seen, out)),
                        _ => property_names(doc, v, seen, out),
                    }
                }
                return;
            }
            map.values().for_each(|v| property_names(doc, v, seen, out));
        }
        Value::Array(items) => items.iter().for_each(|v| property_names(doc, v, seen, out)),
        _ => {}
    }
}

/// One rule for wire names, written in the README: camelCase, in requests and in answers, with
/// the spec's own snake_case names as the only exceptions, each accepted in camelCase too.
#[test]
fn wire_names_follow_one_rule() {
    let doc = wrench::openapi_document();
    let (mut requests, mut answers) = (Vec::new(), Vec::new());
    for (_, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            property_names(&doc, &op["requestBody"], &mut HashSet::new(), &mut requests);
            for p in op["parameters"].as_array().into_iter().flatten() {
                let siblings =
                    op["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_string());
                requests.push((p["name"].as_str().unwrap().to_string(), siblings.collect()));
            }
            property_names(&doc, &op["responses"], &mut HashSet::new(), &mut answers);
        }
    }
    assert!(requests.len() > 200 && answers.len() > 200, "the walk over the document found too little");
    let mut bad = Vec::new();
    for (name, siblings) in &requests {
        if camel_case(name) {
            continue;
        }
        if !SNAKE_REQUEST_NAMES.contains(&name.as_str()) {
            bad.push(format!("request field {name}"));
        } else if !siblings.contains(&camel_of(name)) {
            bad.push(format!("request field {name} is not also accepted as {}", camel_of(name)));
        }
    }
    for (name, _) in &answers {
        if !camel_case(name) && !SNAKE_ANSWER_NAMES.contains(&name.as_str()) {
            bad.push(format!("answer field {name}"));
        }
    }
    bad.sort();
    bad.dedup();
    assert!(bad.is_empty(), "names that break the rule (camelCase; see README, Wire names):\n{}", bad.join("\n"));
}

/// Every schema in `v`, with the path to it (media-type and error examples are data, not
/// schemas, and are left out).
fn schemas<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                if k == "example" || k == "examples" {
                    continue;
                }
                out.push((format!("{path}/{k}"), child));
                schemas(child, format!("{path}/{k}"), out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                schemas(child, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// What SDK generators stumble on (openapi-python-client rejects echoed `oneOf`/`const`
/// values, openapi-generator refuses `const: true`): no `const` anywhere, and no `oneOf` whose
/// branches are all single strings.
#[test]
fn closed_sets_are_plain_enums_and_nothing_is_const() {
    let doc = wrench::openapi_document();
    let mut all = Vec::new();
    schemas(&doc, String::new(), &mut all);
    for (path, v) in &all {
        assert!(!path.ends_with("/const"), "{path} is a const");
        if path.ends_with("/oneOf") {
            let strings = v.as_array().unwrap().iter().all(|b| b["type"] == "string");
            assert!(!strings, "{path} is a oneOf of strings; write an enum");
        }
    }
    let case = &doc["components"]["schemas"]["Case"];
    // The spec's five styles first, then the others `text/case` has gained.
    let styles = case["enum"].as_array().unwrap();
    assert_eq!(
        styles[..5],
        serde_json::json!(["camel", "snake", "kebab", "pascal", "constant"]).as_array().unwrap()[..]
    );
    assert_eq!(styles.len(), 18, "{styles:?}");
    assert!(case["description"].as_str().unwrap().contains("- `snake`: snake_case"), "{case}");
}

/// Generated SDKs turn each value of a string enum into an identifier, keeping letters and
/// digits and dropping the rest (progenitor stopped on `\\u` and `%u`, which both became `U`):
/// within one enum, no two values that have letters or digits may come to the same identifier.
#[test]
fn enum_values_make_distinct_identifiers() {
    let doc = wrench::openapi_document();
    let mut all = Vec::new();
    schemas(&doc, String::new(), &mut all);
    for (path, v) in &all {
        // `propertyNames` lists field spellings (aliases differ by case on purpose), not values.
        let Some(values) = v.as_array().filter(|_| path.ends_with("/enum") && !path.contains("/propertyNames/")) else {
            continue;
        };
        let mut seen = HashSet::new();
        for value in values.iter().filter_map(Value::as_str) {
            let ident: String = value.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_lowercase();
            // Values of symbols alone (`-`, `_`) are named by the generators' own tables.
            if !ident.is_empty() {
                assert!(seen.insert(ident.clone()), "{path}: {value:?} makes the identifier {ident:?} twice");
            }
        }
    }
}

/// Swagger UI shows an image operation's own SVG, a described PNG, and for each error status
/// one example per code that status carries.
#[test]
fn images_and_errors_carry_examples_of_their_own() {
    let doc = wrench::openapi_document();
    let qr = &doc["paths"]["/v1/qr/generate"]["post"]["responses"]["200"]["content"];
    let svg = qr["image/svg+xml"]["example"].as_str().expect("an SVG example");
    assert!(svg.starts_with("<svg") && svg.contains("shape-rendering"), "{svg}");
    assert_eq!(qr["image/png"]["schema"]["format"], "binary");
    let png = qr["image/png"]["examples"].as_object().expect("a PNG example");
    assert!(png.values().all(|e| e["description"].as_str().unwrap().contains(" bytes")));
    for (name, response) in doc["components"]["responses"].as_object().unwrap() {
        let content = &response["content"]["application/json"];
        let schema = content["schema"]["$ref"].as_str().unwrap().trim_start_matches("#/components/schemas/");
        let allowed = &doc["components"]["schemas"][schema]["properties"]["error"]["properties"]["code"]["enum"];
        let examples = content["examples"].as_object().expect("error examples");
        assert_eq!(examples.len(), allowed.as_array().unwrap().len(), "{name}");
        for e in examples.values() {
            assert!(allowed.as_array().unwrap().contains(&e["value"]["error"]["code"]), "{name}: {e}");
            assert_eq!(e["value"]["success"], false);
        }
    }
}

/// The 3.0.3 rendering has none of 3.1's schema forms and the same operations.
#[test]
fn the_3_0_rendering_speaks_3_0() {
    let doc = wrench::openapi_document();
    let old = wrench_server::openapi::v30::render(&doc);
    assert_eq!(old["openapi"], "3.0.3");
    assert_eq!(old["paths"].as_object().unwrap().len(), doc["paths"].as_object().unwrap().len());
    let mut all = Vec::new();
    schemas(&old, String::new(), &mut all);
    for (path, v) in &all {
        if path.ends_with("/type") && !path.contains("/properties/type") {
            assert!(v.is_string(), "{path}: {v}");
        }
        assert!(!path.ends_with("/contentMediaType"), "{path}");
        if let Some(o) = v.as_object() {
            assert!(!(o.contains_key("$ref") && o.len() > 1), "{path}: a $ref with siblings");
            let null_branch = ["anyOf", "oneOf"]
                .iter()
                .any(|k| o.get(*k).and_then(Value::as_array).is_some_and(|b| b.iter().any(|x| x["type"] == "null")));
            assert!(!null_branch, "{path}: a null branch");
        }
    }
}

/// Every property name under `v`, following references into the components.
fn declared_names(doc: &Value, v: &Value, seen: &mut HashSet<String>, out: &mut HashSet<String>) {
    let mut found = Vec::new();
    property_names(doc, v, seen, &mut found);
    out.extend(found.into_iter().map(|(name, _)| name));
}

/// The names the contract spells (tests/fixtures/spec_fields.tsv) are the names the document
/// declares: each request field the contract's tables list is a property or parameter of that
/// path, and each answer field it spells is in that operation's answer, in the same spelling.
#[test]
fn the_contracts_own_names_are_declared() {
    let doc = wrench::openapi_document();
    let table = include_str!("../fixtures/spec_fields.tsv");
    let mut missing = Vec::new();
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut cells = line.split('\t');
        let (kind, place, names) = (cells.next().unwrap(), cells.next().unwrap(), cells.next().unwrap_or(""));
        let mut declared = HashSet::new();
        match kind {
            "request" => {
                let item = &doc["paths"][place];
                assert!(item.is_object(), "the document has no path {place}");
                for (_, op) in item.as_object().unwrap() {
                    declared_names(&doc, &op["requestBody"], &mut HashSet::new(), &mut declared);
                    for p in op["parameters"].as_array().into_iter().flatten() {
                        declared.insert(p["name"].as_str().unwrap().to_string());
                    }
                }
            }
            "answer" => {
                let op = doc["paths"]
                    .as_object()
                    .unwrap()
                    .values()
                    .flat_map(|item| item.as_object().unwrap().values())
                    .find(|op| op["operationId"] == place)
                    .unwrap_or_else(|| panic!("no operation {place}"));
                declared_names(&doc, &op["responses"]["200"], &mut HashSet::new(), &mut declared);
            }
            other => panic!("unknown kind {other} in spec_fields.tsv"),
        }
        for name in names.split_whitespace() {
            checked += 1;
            if !declared.contains(name) {
                missing.push(format!("{kind} {place}: {name}"));
            }
        }
    }
    assert!(checked > 150, "only {checked} names read from the table");
    assert!(
        missing.is_empty(),
        "names the contract spells that the document does not declare:\n{}",
        missing.join("\n")
    );
}

/// The meanings of patterns (validate.rs) are found by the pattern's text, which the
/// operations write out again in their attributes: a pattern changed there would lose its
/// words without this check.
#[test]
fn every_pattern_with_a_meaning_is_one_the_document_uses() {
    let doc = serde_json::to_string(&wrench::openapi_document()).unwrap();
    for (pattern, meaning) in wrench_contract::validate::PATTERN_MEANINGS {
        let quoted = serde_json::to_string(pattern).unwrap();
        assert!(doc.contains(&format!("\"pattern\":{quoted}")), "no field uses {pattern} ({meaning})");
    }
}

/// A short link at the root of the server may not take the first segment of any operation's
/// route: every one is in the list slugs are checked against.
#[test]
fn every_route_starts_with_a_server_path() {
    for op in wrench::operations() {
        for route in op.routes {
            let first = route.path.trim_start_matches('/').split('/').next().unwrap_or_default();
            assert!(wrench_contract::op::is_server_path(first), "{} is missing from op::SERVER_PATHS", route.path);
        }
    }
}

/// The registry's pages are served by a server that does not know whose they are: each file at
/// its paths, HTML under the policy that runs only the page's own script.
#[tokio::test]
async fn the_registrys_page_files_are_served_where_they_ask() {
    let registry = wrench::registry();
    assert!(registry.pages.len() >= 6, "the inbox and paste pages: {}", registry.pages.len());
    let store = std::sync::Arc::new(wrench_infra::store::embedded::EmbeddedStore::in_memory().unwrap());
    let config = std::sync::Arc::new(wrench_infra::config::Config::default());
    let app = wrench_server::http::app_from_registry(config, store, &registry).unwrap();
    let client = poem::test::TestClient::new(app);
    for file in &registry.pages {
        for path in file.paths {
            let path = path.replace(":id", "abc123");
            let resp = client.get(&path).send().await;
            resp.assert_status_is_ok();
            let headers = resp.0.headers().clone();
            let body = resp.0.into_body().into_string().await.unwrap();
            if file.kind == wrench_contract::op::PageKind::Html {
                // The file as it is, with the shared head lines in place of its head line and
                // the shared header in place of its header line.
                let shared_head = include_str!("../../crates/server/src/ui/head.html").trim_end();
                let (before_head, rest) =
                    file.body.split_once("<!-- head -->").unwrap_or_else(|| panic!("{path}: no head line"));
                let start = rest.find("<!-- header ").unwrap_or_else(|| panic!("{path}: no header line"));
                let end = start + rest[start..].find("-->").unwrap() + 3;
                let (before, after) = (&rest[..start], &rest[end..]);
                let before = format!("{before_head}{shared_head}{before}");
                assert!(body.starts_with(&before) && body.ends_with(after), "{path}");
                let header = &body[before.len()..body.len() - after.len()];
                assert!(
                    header.starts_with("<header class=\"top\">") && header.ends_with("</header>"),
                    "{path}: {header}"
                );
                assert_eq!(header.matches("<nav aria-label=\"Elsewhere\">").count(), 1, "{path}");
                // Every page names the icon wrench serves, so no browser asks for a missing one.
                let head = &body[..body.find("</head>").unwrap_or_else(|| panic!("{path}: no head"))];
                assert_eq!(head.matches("<link rel=\"icon\" href=\"/ui/icon.svg\"").count(), 1, "{path}");
            } else {
                assert_eq!(body, file.body, "{path}");
            }
            let kind = headers["content-type"].to_str().unwrap().to_string();
            let csp = headers.get("content-security-policy").map(|v| v.to_str().unwrap().to_string());
            match file.kind {
                wrench_contract::op::PageKind::Html => {
                    assert!(kind.starts_with("text/html"), "{path}: {kind}");
                    assert!(csp.unwrap_or_default().starts_with("default-src 'none'; script-src 'self'"), "{path}");
                }
                wrench_contract::op::PageKind::Script => assert!(kind.starts_with("text/javascript"), "{path}: {kind}"),
                wrench_contract::op::PageKind::Style => assert!(kind.starts_with("text/css"), "{path}: {kind}"),
                wrench_contract::op::PageKind::Svg => {
                    assert_eq!(kind, "image/svg+xml", "{path}");
                    assert_eq!(csp.as_deref(), Some("default-src 'none'"), "{path}");
                }
            }
        }
    }
    // A page file cannot take a path the server does not own.
    let mut bad = wrench::registry();
    bad.pages.push(wrench_contract::op::PageFile {
        paths: &["/elsewhere/x.css"],
        kind: wrench_contract::op::PageKind::Style,
        body: "",
    });
    let store = std::sync::Arc::new(wrench_infra::store::embedded::EmbeddedStore::in_memory().unwrap());
    let refused =
        wrench_server::http::app_from_registry(std::sync::Arc::new(Default::default()), store, &bad).err().unwrap();
    assert!(refused.contains("/elsewhere/x.css"), "{refused}");
}
