//! Reading settings: the TOML file and the `WRENCH_*` variables become one table of values
//! (the environment's over the file's), and serde reads that table into [`super::Config`] and
//! the structs it holds. The same code reads both sources; a value's source only changes how a
//! message names it (`WRENCH_BODY_LIMIT` or `body_limit in wrench.toml`).
//!
//! A key that no struct declares stops the start, naming the closest setting, unless
//! `WRENCH_ALLOW_UNKNOWN=1` is set (for environments that share the prefix). Variables that
//! are not settings never count: `WRENCH_CONFIG` (the file's path), `WRENCH_ALLOW_UNKNOWN`
//! itself, `WRENCH_API_KEY` (the key `wrench mcp` sends), and `WRENCH_TEST_*`,
//! `WRENCH_BENCH_*` and `WRENCH_CI_*`, which the tests, benchmarks and CI read.

use std::collections::BTreeMap;

use serde::{
    Deserialize, Deserializer,
    de::{self, DeserializeOwned, Visitor},
};

/// Where a value came from, for messages.
#[derive(Debug, Clone)]
pub(crate) enum Origin {
    Env,
    File(String),
}

/// One value, with where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Given {
    pub(crate) value: toml::Value,
    pub(crate) origin: Origin,
}

/// The name of setting `key` as its source spells it.
pub(crate) fn display(key: &str, origin: &Origin) -> String {
    match origin {
        Origin::Env => env_name(key),
        Origin::File(path) => format!("{key} in {path}"),
    }
}

/// `body_limit` -> `WRENCH_BODY_LIMIT`.
pub(crate) fn env_name(key: &str) -> String {
    format!("WRENCH_{}", key.to_ascii_uppercase())
}

/// Variables with the prefix that are not settings.
pub(crate) fn is_setting_variable(name: &str) -> bool {
    !(["WRENCH_CONFIG", "WRENCH_ALLOW_UNKNOWN", "WRENCH_API_KEY"].contains(&name)
        || name.starts_with("WRENCH_TEST_")
        || name.starts_with("WRENCH_BENCH_")
        || name.starts_with("WRENCH_CI_"))
}

/// The values of the file (if any) and of the variables, the variables winning.
pub(crate) fn gather(file: Option<(&str, &str)>, vars: &[(String, String)]) -> Result<BTreeMap<String, Given>, String> {
    let mut out = BTreeMap::new();
    if let Some((path, text)) = file {
        let table: toml::Table = toml::from_str(text).map_err(|e| format!("config file {path}: {e}"))?;
        for (key, value) in table {
            out.insert(key, Given { value, origin: Origin::File(path.to_string()) });
        }
    }
    for (name, value) in vars {
        if let Some(rest) = name.strip_prefix("WRENCH_")
            && is_setting_variable(name)
        {
            let key = rest.to_ascii_lowercase();
            out.insert(key, Given { value: toml::Value::String(value.clone()), origin: Origin::Env });
        }
    }
    Ok(out)
}

/// Reads `T` from the values, naming the setting whose value it refuses.
pub(crate) fn read<T: DeserializeOwned>(values: &BTreeMap<String, Given>) -> Result<T, String> {
    let table: toml::Table = values.iter().map(|(k, g)| (k.clone(), g.value.clone())).collect();
    serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let key = e.path().iter().next().map(|s| s.to_string()).unwrap_or_default();
        let inner = e.into_inner().to_string();
        match values.get(&key) {
            Some(g) => format!("{}: {inner}", display(&key, &g.origin)),
            None => inner,
        }
    })
}

/// The names of the fields serde reads for `T` (a struct), asked of serde itself so that the
/// list cannot fall behind the struct.
pub(crate) fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    #[derive(Debug)]
    struct Found(&'static [&'static str]);
    impl std::fmt::Display for Found {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("field names")
        }
    }
    impl std::error::Error for Found {}
    impl de::Error for Found {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Found(&[])
        }
    }
    struct Ask;
    impl<'de> Deserializer<'de> for Ask {
        type Error = Found;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Found> {
            Err(Found(&[]))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Found> {
            Err(Found(fields))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    match T::deserialize(Ask) {
        Err(Found(fields)) => fields,
        Ok(_) => &[],
    }
}

/// The known name closest to `key` (by edit distance), when one is close enough to be a typo.
pub(crate) fn closest<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    known.map(|k| (distance(key, k), k)).filter(|(d, k)| *d <= 3.max(k.len() / 4)).min().map(|(_, k)| k)
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev + cost);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// A setting's value as text: environment values are text already; a file's numbers and
/// booleans are written out, and its lists are joined with commas (the variables' spelling of
/// a list). Every parser below reads this text, whichever source gave it.
pub(crate) fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Text(String),
        Int(i64),
        Float(f64),
        Bool(bool),
        List(Vec<Raw>),
    }
    fn flat(r: Raw) -> Result<String, &'static str> {
        Ok(match r {
            Raw::Text(s) => s,
            Raw::Int(i) => i.to_string(),
            Raw::Float(f) => f.to_string(),
            Raw::Bool(b) => b.to_string(),
            Raw::List(items) => items
                .into_iter()
                .map(|i| match i {
                    Raw::List(_) => Err("expected a list of values, not a list of lists"),
                    other => flat(other),
                })
                .collect::<Result<Vec<_>, _>>()?
                .join(","),
        })
    }
    let raw = Raw::deserialize(d).map_err(|_| de::Error::custom("expected text, a number, true/false or a list"))?;
    flat(raw).map_err(de::Error::custom)
}

/// Declares `fn $name(d) -> Result<$t, _>`: the value as [`text`], read by `$parse`, whose
/// message becomes the error (the caller adds the setting's name).
macro_rules! parser {
    ($(#[$doc:meta])* $name:ident -> $t:ty = $parse:expr) => {
        $(#[$doc])*
        pub(crate) fn $name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
            let text = $crate::config::read::text(d)?;
            let parse: fn(&str) -> Result<$t, String> = $parse;
            parse(&text).map_err(serde::de::Error::custom)
        }
    };
}
pub(crate) use parser;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_setting() {
        let known = ["listen", "body_limit", "log", "redis_url"];
        assert_eq!(closest("listn", known.into_iter()), Some("listen"));
        assert_eq!(closest("body_limt", known.into_iter()), Some("body_limit"));
        assert_eq!(closest("something_else_entirely", known.into_iter()), None);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn field_names_come_from_serde() {
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct S {
            a: u8,
            #[serde(rename = "bee")]
            b: u8,
        }
        assert_eq!(field_names::<S>(), ["a", "bee"]);
    }
}
