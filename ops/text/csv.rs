//! CSV to JSON and JSON to CSV (RFC 4180 quoting).
//!
//! Parsing is strict where guessing would corrupt data: every row must have as many fields as
//! the first, and a field's quotes must be balanced; the error names the row. Header order is
//! kept in the JSON objects, and column order of the objects is kept in the CSV.

use indexmap::IndexMap;

use wrench_contract::prelude::*;
use wrench_infra::bounds::{OutputBudget, json_escaped_len};

/// Printable ASCII other than the double quote, or tab: the characters that can separate.
const DELIMITER_PATTERN: &str = "^[\\t !#-~]$";

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct CsvToJsonInput {
    /// CSV text. A leading byte-order mark is ignored.
    csv: String,
    /// Field separator: one printable ASCII character (not `"`) or a tab.
    #[serde(default = "comma")]
    #[schemars(pattern("^[\\t !#-~]$"))]
    delimiter: String,
    /// Whether the first row names the columns.
    #[serde(default = "wrench_contract::decode::yes", rename = "has_header", alias = "hasHeader")]
    has_header: bool,
}

fn comma() -> String {
    ",".to_string()
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum CsvRecord {
    /// With a header: column name to value, in column order.
    Named(IndexMap<String, String>),
    /// Without a header: the values in order.
    Values(Vec<String>),
}

#[derive(Debug, Serialize, JsonSchema)]
struct CsvToJsonOutput {
    /// One entry per data row: objects with a header, arrays without.
    data: Vec<CsvRecord>,
    /// Number of data rows (the header not counted).
    rows: usize,
    /// Column names (from the header, made unique), or `column_1`... without a header.
    columns: Vec<String>,
}

fn delimiter_byte(field: &str, d: &str) -> Result<u8, ApiError> {
    match d.as_bytes() {
        [b] if *b == b'\t' || (b' '..=b'~').contains(b) && *b != b'"' => Ok(*b),
        _ => Err(ApiError::invalid(field, format!("must match the pattern {DELIMITER_PATTERN}"))),
    }
}

fn csv_error(e: &csv::Error) -> ApiError {
    match e.kind() {
        csv::ErrorKind::UnequalLengths { pos, expected_len, len } => {
            let line = pos.as_ref().map(|p| p.line()).unwrap_or(0);
            ApiError::invalid("csv", format!("line {line} has {len} fields but the first row has {expected_len}"))
        }
        csv::ErrorKind::Utf8 { pos, .. } => {
            let line = pos.as_ref().map(|p| p.line()).unwrap_or(0);
            ApiError::invalid("csv", format!("line {line} is not valid UTF-8"))
        }
        _ => ApiError::invalid("csv", format!("cannot be read: {e}")),
    }
}

/// Names made unique by suffixing `_2`, `_3`...; empty names become `column_N`.
/// Linear in the header: a set of the names taken and, per base name, the next suffix to try
/// (a header of 500,000 equal names must not be quadratic).
fn unique_names(header: &csv::StringRecord) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(header.len());
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut next: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, h) in header.iter().enumerate() {
        let base = if h.trim().is_empty() { format!("column_{}", i + 1) } else { h.to_string() };
        let mut name = base.clone();
        if taken.contains(&name) {
            let n = next.entry(base.clone()).or_insert(2);
            loop {
                name = format!("{base}_{n}");
                *n += 1;
                if !taken.contains(&name) {
                    break;
                }
            }
        }
        taken.insert(name.clone());
        out.push(name);
    }
    out
}

/// Convert CSV to JSON.
///
/// Reads RFC 4180 CSV: quoted fields may contain the delimiter, doubled quotes and line
/// breaks. With a header (default) each row becomes an object keyed by the column names, in
/// column order; duplicate names get `_2`, `_3`... and empty names `column_N`. Without a
/// header each row is an array. Values stay strings: no type guessing, so ZIP codes and IDs
/// keep their leading zeros. Every row must have as many fields as the first; a row that does
/// not is a 400 naming its line.
#[op(post "/v1/csv/to-json" as csvToJson, tag = TextAndData, pipe(csv -> data),
     rejects = "rows with a different number of fields than the first row, or text that is not CSV",
     example(typical, {"csv": "id,name,zip\n1,\"Smith, Jane\",02134\n2,\"Line\nbreak \"\"quoted\"\"\",90210"}),
     example(semicolon_no_header, {"csv": "a;b\nc;d", "delimiter": ";", "has_header": false}),
     example(ragged, {"csv": "a,b\n1,2,3"}, status = 400))]
async fn csv_to_json(ctx: &Ctx, input: CsvToJsonInput) -> Result<CsvToJsonOutput, ApiError> {
    let delimiter = delimiter_byte("delimiter", &input.delimiter)?;
    let text = input.csv.strip_prefix('\u{feff}').unwrap_or(&input.csv);
    let mut reader =
        csv::ReaderBuilder::new().delimiter(delimiter).has_headers(input.has_header).from_reader(text.as_bytes());
    let mut columns = Vec::new();
    if input.has_header {
        columns = unique_names(reader.headers().map_err(|e| csv_error(&e))?);
    }
    // Every row repeats the column names: long names over many short rows multiply.
    let mut budget = OutputBudget::new(ctx.config.response_limit);
    let names_size: usize = columns.iter().map(|c| json_escaped_len(c.as_bytes()) + 4).sum();
    let mut data = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(&e))?;
        budget.add(2 + record.iter().map(|v| json_escaped_len(v.as_bytes()) + 3).sum::<usize>())?;
        if input.has_header {
            budget.add(names_size)?;
            data.push(CsvRecord::Named(columns.iter().cloned().zip(record.iter().map(str::to_string)).collect()));
        } else {
            if columns.is_empty() {
                columns = (1..=record.len()).map(|i| format!("column_{i}")).collect();
            }
            data.push(CsvRecord::Values(record.iter().map(str::to_string).collect()));
        }
    }
    Ok(CsvToJsonOutput { rows: data.len(), data, columns })
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
enum LineEnding {
    /// `\n`
    Lf,
    /// `\r\n`, as RFC 4180 writes it
    Crlf,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(transform = wrench_contract::validate::declare_aliases::<Self>)]
struct CsvToCsvInput {
    /// The rows: objects whose keys are column names. At most 100,000.
    #[schemars(length(max = 100000))]
    data: Vec<serde_json::Map<String, Value>>,
    /// Field separator: one printable ASCII character (not `"`) or a tab.
    #[serde(default = "comma")]
    #[schemars(pattern("^[\\t !#-~]$"))]
    delimiter: String,
    /// Whether to write a header row with the column names.
    #[serde(default = "wrench_contract::decode::yes", rename = "include_header", alias = "includeHeader")]
    include_header: bool,
    /// Line terminator.
    #[serde(default = "lf")]
    line_ending: LineEnding,
}

fn lf() -> LineEnding {
    LineEnding::Lf
}

#[derive(Debug, Serialize, JsonSchema)]
struct CsvToCsvOutput {
    /// The CSV text, ending with a line terminator when there is at least one row.
    csv: String,
    /// Number of data rows written.
    rows: usize,
    /// The columns, in order.
    columns: Vec<String>,
}

fn cell(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// Convert JSON objects to CSV.
///
/// Columns are every key that appears, in order of first appearance across the rows; a row
/// without a key gets an empty field. Strings are written as they are, numbers and booleans as
/// JSON writes them, null as an empty field, and nested arrays or objects as compact JSON.
/// Fields are quoted when RFC 4180 requires it (delimiter, quote or line break inside).
#[op(post "/v1/csv/to-csv" as csvToCsv, tag = TextAndData, pipe(data -> csv),
     rejects = "a delimiter that is not a single allowed character",
     example(typical, {"data": [{"id": 1, "name": "Smith, Jane", "tags": ["a", "b"]}, {"id": 2, "name": "He said \"hi\"", "active": true}]}),
     example(tab_crlf_no_header, {"data": [{"a": "x", "b": null}], "delimiter": "\t", "include_header": false, "lineEnding": "crlf"}),
     example(empty, {"data": []}))]
async fn csv_to_csv(ctx: &Ctx, input: CsvToCsvInput) -> Result<CsvToCsvOutput, ApiError> {
    let delimiter = delimiter_byte("delimiter", &input.delimiter)?;
    let mut columns: IndexMap<&str, ()> = IndexMap::new();
    for row in &input.data {
        for k in row.keys() {
            columns.entry(k.as_str()).or_default();
        }
    }
    // Every row gets a field for every column: rows with distinct keys give rows x columns.
    let mut budget = OutputBudget::new(ctx.config.response_limit);
    budget.add(input.data.len().saturating_mul(columns.len() + 2))?;
    for row in &input.data {
        budget.add(row.values().map(|v| json_escaped_len(cell(Some(v)).as_bytes()) + 2).sum())?;
    }
    let terminator = match input.line_ending {
        LineEnding::Lf => csv::Terminator::Any(b'\n'),
        LineEnding::Crlf => csv::Terminator::CRLF,
    };
    let mut w = csv::WriterBuilder::new().delimiter(delimiter).terminator(terminator).from_writer(Vec::new());
    let write_err = |e: csv::Error| ApiError::internal(format!("writing CSV failed: {e}"));
    if input.include_header && !columns.is_empty() {
        w.write_record(columns.keys()).map_err(write_err)?;
    }
    for row in &input.data {
        w.write_record(columns.keys().map(|k| cell(row.get(*k)))).map_err(write_err)?;
    }
    let bytes = w.into_inner().map_err(|e| ApiError::internal(format!("writing CSV failed: {e}")))?;
    let csv = String::from_utf8(bytes).map_err(|_| ApiError::internal("CSV output was not UTF-8"))?;
    Ok(CsvToCsvOutput { csv, rows: input.data.len(), columns: columns.keys().map(|k| k.to_string()).collect() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn round_trip_keeps_every_value() {
        let data: Vec<serde_json::Map<String, Value>> = serde_json::from_value(json!([
            {"a": "plain", "b": "comma, inside", "c": "quote \" inside", "d": "line\nbreak", "e": "", "f": " spaced "},
            {"a": "ünïcode", "b": "tab\tinside", "c": "'single'", "d": "\r\n", "e": "x", "f": "0042"}
        ]))
        .unwrap();
        for (delimiter, ending) in [(",", LineEnding::Lf), (";", LineEnding::Crlf), ("\t", LineEnding::Lf)] {
            let csv = csv_to_csv(
                &Ctx::for_tests(),
                CsvToCsvInput {
                    data: data.clone(),
                    delimiter: delimiter.into(),
                    include_header: true,
                    line_ending: ending,
                },
            )
            .await
            .unwrap()
            .csv;
            let back =
                csv_to_json(&Ctx::for_tests(), CsvToJsonInput { csv, delimiter: delimiter.into(), has_header: true })
                    .await
                    .unwrap();
            let back = serde_json::to_value(&back.data).unwrap();
            assert_eq!(back, serde_json::to_value(&data).unwrap(), "delimiter {delimiter:?}");
        }
    }

    #[tokio::test]
    async fn headers_are_made_unique_and_rows_checked() {
        let out = csv_to_json(
            &Ctx::for_tests(),
            CsvToJsonInput { csv: "a,a,\n1,2,3".into(), delimiter: ",".into(), has_header: true },
        )
        .await
        .unwrap();
        assert_eq!(out.columns, vec!["a", "a_2", "column_3"]);
        let err = csv_to_json(
            &Ctx::for_tests(),
            CsvToJsonInput { csv: "a,b\n1,2\n3".into(), delimiter: ",".into(), has_header: true },
        )
        .await
        .unwrap_err();
        assert!(err.message.contains("line 3"), "{}", err.message);
    }
}
