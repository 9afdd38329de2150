//! `sql/format`: SQL laid out one clause per line with indented arguments, or on one line, by
//! the sqlformat crate's token-level formatter. It reads tokens, not a grammar: any dialect's
//! statements come out with every token kept, in order and unchanged apart from the case of
//! keywords and the whitespace between tokens (the property the test checks against sqlparse),
//! and a statement that is not valid SQL is laid out all the same rather than refused. The few
//! tokens the formatter would damage are set aside around it (`sql_shield.rs`).

use wrench_contract::prelude::*;

use super::sql_shield::{Quoting, TooCostly, statements};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SqlFormatInput {
    /// One or more SQL statements, separated by semicolons.
    sql: String,
    /// Whose quoting and placeholders to read: `generic` (ANSI SQL, SQLite: no backslash
    /// escapes), `mysql` (MySQL and MariaDB: backslash escapes in strings, `#` comments),
    /// `postgresql` (`::` casts, `$1`, `E'…'` and dollar-quoted strings) or `sqlserver`
    /// (`[names]`, `@variables`). Backticks quote names in all of them.
    #[serde(default)]
    dialect: SqlDialect,
    /// The case of reserved words: `upper` (the default), `lower`, or `preserve` as written.
    /// Identifiers, strings and comments are never changed.
    #[serde(default)]
    keyword_case: KeywordCase,
    /// Spaces per indentation level (default 2); ignored with `tabs`.
    #[serde(default = "two")]
    #[schemars(range(min = 1, max = 8))]
    indent: u8,
    /// Indent with tabs instead of spaces.
    #[serde(default)]
    tabs: bool,
    /// Blank lines between statements (default 1 means each starts on the next line).
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 5))]
    lines_between_queries: u8,
    /// Write each statement on one line, whitespace between tokens collapsed to one space. A
    /// `--` comment keeps the line break that ends it, so the SQL means the same.
    #[serde(default)]
    minify: bool,
}

fn two() -> u8 {
    2
}

fn one() -> u8 {
    1
}

#[derive(Debug, Default, Deserialize, JsonSchema, Validate, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum SqlDialect {
    #[default]
    Generic,
    Mysql,
    Postgresql,
    Sqlserver,
}

#[derive(Debug, Default, Deserialize, JsonSchema, Validate, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum KeywordCase {
    #[default]
    Upper,
    Lower,
    Preserve,
}

#[derive(Debug, Serialize, JsonSchema)]
struct SqlFormatOutput {
    /// The statements, formatted (or minified).
    formatted: String,
}

/// Format or minify SQL.
///
/// Lays statements out one clause per line (`SELECT`, `FROM`, `WHERE`, joins, `GROUP BY` and
/// so on), their arguments indented beneath, parenthesised subqueries nested, short groups
/// kept inline; or writes each statement on one line with `minify`. Keywords are upper-cased,
/// lower-cased or left as written; identifiers, strings, comments, placeholders and numbers
/// are kept exactly. The formatter reads tokens rather than a grammar, so it accepts any
/// dialect's statements and does not check that they are valid SQL.
#[op(post "/v1/sql/format" as sqlFormat, tag = TextAndData, pipe(sql -> formatted), cpu,
     example(select, {"sql": "select u.id, u.name, count(o.id) as orders from users u left join orders o on o.user_id = u.id where u.active = true and o.created_at > now() - interval '30 days' group by u.id, u.name having count(o.id) > 2 order by orders desc limit 10;"}),
     example(postgresql, {"sql": "insert into events (id, payload) values ($1, $2::jsonb) on conflict (id) do nothing", "dialect": "postgresql", "keywordCase": "lower", "indent": 4}),
     example(minify, {"sql": "SELECT a,\n       b -- the second column\nFROM   t\nWHERE  a = 1;", "minify": true}))]
async fn sql_format(input: SqlFormatInput) -> Result<SqlFormatOutput, ApiError> {
    let quoting = match input.dialect {
        SqlDialect::Generic => Quoting::Standard,
        SqlDialect::Mysql => Quoting::MySql,
        SqlDialect::Postgresql => Quoting::PostgreSql,
        SqlDialect::Sqlserver => Quoting::SqlServer,
    };
    let options = sqlformat::FormatOptions {
        indent: if input.tabs { sqlformat::Indent::Tabs } else { sqlformat::Indent::Spaces(input.indent) },
        uppercase: match input.keyword_case {
            KeywordCase::Upper => Some(true),
            KeywordCase::Lower => Some(false),
            KeywordCase::Preserve => None,
        },
        lines_between_queries: input.lines_between_queries,
        inline: input.minify,
        dialect: match input.dialect {
            SqlDialect::Generic | SqlDialect::Mysql => sqlformat::Dialect::Generic,
            SqlDialect::Postgresql => sqlformat::Dialect::PostgreSql,
            SqlDialect::Sqlserver => sqlformat::Dialect::SQLServer,
        },
        ..sqlformat::FormatOptions::default()
    };
    // Whether the formatter takes a word for a reserved one: it upper-cases it alone.
    let mut known = std::collections::HashMap::new();
    let upper = sqlformat::FormatOptions { uppercase: Some(true), inline: true, ..sqlformat::FormatOptions::default() };
    let mut reserved = |word: &str| {
        let lower = word.to_ascii_lowercase();
        *known
            .entry(lower.clone())
            .or_insert_with(|| sqlformat::format(&lower, &sqlformat::QueryParams::None, &upper) != lower)
    };
    let width = if input.tabs { 1 } else { u64::from(input.indent) };
    let statements = statements(&input.sql, quoting, input.minify, options.uppercase, width, &mut reserved).map_err(|e| match e {
        TooCostly::Scan(n) => ApiError::invalid(
            "sql",
            format!(
                "statement {n} is too long to lay out: the bytes after each of its reserved words add up past 10^9 (a statement of 32 KiB always fits); split it"
            ),
        ),
        TooCostly::Output(n, size) => ApiError::invalid(
            "sql",
            format!("statement {n} would format to about {size} bytes, past the 16 MiB bound: it nests too deep; use minify"),
        ),
    })?;
    let separator = "\n".repeat(usize::from(input.lines_between_queries));
    let mut formatted = String::with_capacity(input.sql.len() * 2);
    for statement in &statements {
        let laid_out = sqlformat::format(&statement.sql, &sqlformat::QueryParams::None, &options);
        formatted.push_str(&statement.restore(&laid_out));
        formatted.push_str(&separator);
    }
    formatted.truncate(formatted.trim_end().len());
    Ok(SqlFormatOutput { formatted })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(sql: &str, dialect: SqlDialect, keyword_case: KeywordCase, minify: bool) -> String {
        let input = SqlFormatInput {
            sql: sql.into(),
            dialect,
            keyword_case,
            indent: 4,
            tabs: false,
            lines_between_queries: 1,
            minify,
        };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(sql_format(input)).unwrap().formatted
    }

    /// Whether `formatted` is `tokens` (sqlparse's, whitespace left out) with only whitespace
    /// between them. Unquoted words (keywords, names, word operators) match in any case unless
    /// `exact_case`: the formatter cases a name spelled like a reserved word (`all`, `div`) as
    /// one. A keyword of several words (`ORDER  BY`) matches with any whitespace between them,
    /// and a signed number with whitespace after its sign; every other token exactly, so a `--`
    /// comment must still end with its line break.
    fn kept(formatted: &str, tokens: &[serde_json::Value], exact_case: bool) -> Result<(), String> {
        let mut rest = formatted;
        for token in tokens {
            let (kind, value) = (token[0].as_str().unwrap(), token[1].as_str().unwrap());
            let unquoted_word = value.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && (kind.starts_with("Token.Keyword")
                    || kind.starts_with("Token.Name")
                    || kind.starts_with("Token.Operator"));
            let words: Vec<&str> = if kind.starts_with("Token.Keyword") {
                value.split_whitespace().collect()
            } else if kind.starts_with("Token.Literal.Number") && value.starts_with(['-', '+']) {
                vec![&value[..1], &value[1..]]
            } else {
                vec![value]
            };
            for word in words {
                rest = rest.trim_start();
                let matched = rest.len() >= word.len()
                    && rest.is_char_boundary(word.len())
                    && if unquoted_word && !exact_case {
                        rest[..word.len()].eq_ignore_ascii_case(word)
                    } else {
                        rest.starts_with(word)
                    };
                if !matched {
                    return Err(format!("expected {kind} {word:?} at {:?}", &rest[..rest.len().min(40)]));
                }
                rest = &rest[word.len()..];
            }
        }
        if rest.trim().is_empty() { Ok(()) } else { Err(format!("left over: {rest:?}")) }
    }

    /// sqlglot's identity statements and hand-written ones (tests/fixtures/sql_tokens.py): in
    /// every keyword case, formatted and minified, each comes out as sqlparse's tokens with
    /// whitespace between.
    #[test]
    fn formatting_keeps_every_token() {
        let cases = crate::testing::fixture("sql_tokens.json");
        let cases = cases.as_array().unwrap();
        assert!(cases.len() >= 1_000);
        let mut failures = Vec::new();
        for c in cases {
            let sql = c["sql"].as_str().unwrap();
            let tokens = c["tokens"].as_array().unwrap();
            let dialect: SqlDialect = serde_json::from_value(c["dialect"].clone()).unwrap();
            for case in [KeywordCase::Upper, KeywordCase::Lower, KeywordCase::Preserve] {
                for minify in [false, true] {
                    let out = format(sql, dialect, case, minify);
                    if let Err(e) = kept(&out, tokens, matches!(case, KeywordCase::Preserve)) {
                        failures.push(format!("{sql:?} ({case:?}, minify {minify}): {e}\n{out}"));
                    }
                    // One line per statement, and a line break only after a comment.
                    let breaks = out.trim_end().lines().count() - 1;
                    let allowed = sql.matches(';').count() + sql.matches("--").count() + sql.matches('#').count();
                    if minify && breaks > allowed {
                        failures.push(format!("{sql:?}: minified to {} lines\n{out}", breaks + 1));
                    }
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{} failures:\n{}",
            failures.len(),
            failures.iter().map(|f| f.lines().next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
        );
    }

    /// Formatting statement by statement lays them out as the formatter does all at once:
    /// groups of fixture statements it formats untouched (no token set aside changes them),
    /// joined by semicolons, come out the same either way, but for the stray space the
    /// formatter leaves before a statement that follows one with no clause keyword.
    #[test]
    fn statement_by_statement_is_the_formatters_layout() {
        let cases = crate::testing::fixture("sql_tokens.json");
        let whole = |sql: &str, minify: bool| {
            let options = sqlformat::FormatOptions {
                indent: sqlformat::Indent::Spaces(4),
                uppercase: Some(true),
                inline: minify,
                ..sqlformat::FormatOptions::default()
            };
            sqlformat::format(sql, &sqlformat::QueryParams::None, &options)
        };
        let plain: Vec<&str> = cases
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["dialect"] == "generic")
            .map(|c| c["sql"].as_str().unwrap().trim_end_matches(';'))
            .filter(|sql| {
                !sql.contains([';', '-', '#'])
                    && format(sql, SqlDialect::Generic, KeywordCase::Upper, false) == whole(sql, false)
            })
            .collect();
        assert!(plain.len() > 800, "{}", plain.len());
        let statements =
            |out: &str| out.split(";\n").map(|s| s.trim_start_matches(' ').to_string()).collect::<Vec<_>>();
        for group in plain.chunks(7) {
            let sql = group.join(";\n");
            for minify in [false, true] {
                let ours = format(&sql, SqlDialect::Generic, KeywordCase::Upper, minify);
                assert_eq!(statements(&ours), statements(&whole(&sql, minify)), "{sql}");
                assert_eq!(ours.matches(";\n").count(), group.len() - 1);
            }
        }
    }

    fn attempt(sql: String) -> Result<String, ApiError> {
        let input = SqlFormatInput {
            sql,
            dialect: SqlDialect::Generic,
            keyword_case: KeywordCase::Upper,
            indent: 8,
            tabs: false,
            lines_between_queries: 1,
            minify: false,
        };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(sql_format(input)).map(|o| o.formatted)
    }

    /// Nesting that would multiply the output, and statements the formatter would rescan for
    /// minutes, are refused by name before it runs; what is accepted stays within 16 MiB.
    #[test]
    fn hostile_statements_are_bounded() {
        for depth in [100, 400, 700, 1_000, 1_500, 200_000] {
            let sql = "(".repeat(depth) + "x" + &")".repeat(depth);
            match attempt(sql) {
                Ok(out) => assert!(out.len() as u64 <= super::super::sql_shield::MAX_OUTPUT, "{depth}: {}", out.len()),
                Err(e) => {
                    assert!(e.message.contains("past the 16 MiB bound") && depth >= 700, "{depth}: {}", e.message)
                }
            }
        }
        for n in [1_000, 10_000, 100_000] {
            match attempt("case when ".repeat(n)) {
                Ok(out) => assert!(out.len() as u64 <= super::super::sql_shield::MAX_OUTPUT, "{n}: {}", out.len()),
                Err(e) => assert!(n >= 10_000 && e.message.contains("statement 1"), "{n}: {}", e.message),
            }
        }
        let long_where = "select a from t where ".to_string() + &"x = 1 and ".repeat(100_000) + "1 = 1";
        let refused = attempt(long_where).unwrap_err();
        assert!(refused.message.contains("statement 1 is too long to lay out"), "{}", refused.message);
        // A long INSERT of values is not a long statement of keywords: it is laid out.
        let insert =
            "insert into t values ".to_string() + &"(1, 'abc', null, true), ".repeat(20_000) + "(0, '', false, null)";
        let out = attempt(insert).unwrap();
        assert_eq!(out.matches("NULL").count(), 20_001);
        assert_eq!(out.matches("TRUE").count(), 20_000);
    }
}
