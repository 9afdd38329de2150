//! The steps of `text/lines`, each a function of the list of lines, applied in order.
//!
//! Each step is an object whose `step` names it, with that step's own fields beside it
//! (`{"step": "head", "n": 10}`); unknown fields are refused, as everywhere.

use std::{cmp::Ordering, collections::HashSet};

use wrench_contract::prelude::*;

use super::{fold::fold, order};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "step", rename_all = "camelCase")]
pub(super) enum Step {
    /// Sort the lines.
    Sort(SortStep),
    /// Keep the first of equal lines.
    Unique(UniqueStep),
    /// Reverse their order (`tac`).
    Reverse(NoFields),
    /// Remove whitespace at both ends of each line.
    Trim(NoFields),
    /// Drop lines that are empty or only whitespace.
    RemoveEmpty(NoFields),
    /// Keep the first `n` lines (`head -n`).
    Head(CountStep),
    /// Keep the last `n` lines (`tail -n`).
    Tail(CountStep),
    /// Keep the lines a regular expression matches, or with `invert` those it does not.
    Filter(FilterStep),
    /// Put text before each line.
    Prefix(TextStep),
    /// Put text after each line.
    Suffix(TextStep),
    /// Number the lines (`nl -ba`).
    Number(NumberStep),
    /// Wrap long lines (`fold`).
    Wrap(WrapStep),
    /// Pad short lines to a width.
    Pad(PadStep),
}

impl Validate for Step {
    fn validate(&self, path: &str) -> Result<(), wrench_contract::validate::FieldError> {
        match self {
            Step::Sort(s) => s.validate(path),
            Step::Unique(s) => s.validate(path),
            Step::Reverse(s) | Step::Trim(s) | Step::RemoveEmpty(s) => s.validate(path),
            Step::Head(s) | Step::Tail(s) => s.validate(path),
            Step::Filter(s) => s.validate(path),
            Step::Prefix(s) | Step::Suffix(s) => s.validate(path),
            Step::Number(s) => s.validate(path),
            Step::Wrap(s) => s.validate(path),
            Step::Pad(s) => s.validate(path),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(super) struct NoFields {}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "camelCase")]
pub(super) enum SortOrder {
    /// By bytes, as `LC_ALL=C sort`.
    #[default]
    Lexical,
    /// Digit runs as numbers (`file2` before `file10`), as `LC_ALL=C sort -V`.
    Natural,
    /// By the number each line starts with, as `LC_ALL=C sort -n`.
    Numeric,
    /// By length in characters, equal lengths kept in their order.
    Length,
    /// Shuffled; `seed` makes the order reproducible.
    Random,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct SortStep {
    /// How to compare (default `lexical`).
    #[serde(default)]
    order: SortOrder,
    /// Largest first (`sort -r`).
    #[serde(default)]
    descending: bool,
    /// `lexical` only: ASCII letters compare as capitals (`sort -f`).
    #[serde(default)]
    ignore_case: bool,
    /// `random` only: the same seed gives the same order (with the same version of the
    /// service). Random when absent.
    #[serde(default)]
    #[schemars(range(min = 0, max = 9007199254740991u64))]
    seed: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct UniqueStep {
    /// Lines equal but for letter case (Unicode lower case) are equal.
    #[serde(default)]
    ignore_case: bool,
    /// Only drop a line equal to the one before it, as `uniq` does; otherwise any earlier line
    /// counts.
    #[serde(default)]
    adjacent: bool,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(super) struct CountStep {
    /// How many lines.
    #[schemars(range(min = 0, max = 1000000))]
    n: u32,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct FilterStep {
    /// A regular expression (Rust `regex` syntax, which runs in linear time); a line is kept
    /// when it matches anywhere.
    #[schemars(length(min = 1, max = 1000))]
    pattern: String,
    /// Keep the lines that do not match (`grep -v`).
    #[serde(default)]
    invert: bool,
    /// Match without regard to letter case.
    #[serde(default)]
    ignore_case: bool,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(super) struct TextStep {
    /// The text to add.
    #[schemars(length(max = 1000))]
    text: String,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(super) struct NumberStep {
    /// The first line's number (default 1).
    #[serde(default = "one")]
    #[schemars(range(min = -1000000000, max = 1000000000))]
    start: i64,
    /// The number's width, right-aligned with spaces (default 6, as `nl`).
    #[serde(default = "six")]
    #[schemars(range(min = 1, max = 20))]
    width: usize,
    /// What goes between number and line (default a tab, as `nl`).
    #[serde(default = "tab")]
    #[schemars(length(max = 16))]
    separator: String,
}

fn one() -> i64 {
    1
}

fn six() -> usize {
    6
}

fn tab() -> String {
    "\t".into()
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct WrapStep {
    /// The widest line, in columns (a tab reaches the next multiple of 8).
    #[schemars(range(min = 1, max = 100000))]
    width: usize,
    /// Break after the last space or tab that fits, as `fold -s`.
    #[serde(default)]
    at_spaces: bool,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, Validate)]
#[serde(rename_all = "lowercase")]
pub(super) enum PadSide {
    /// Pad at the start, aligning lines to the right.
    #[default]
    Left,
    /// Pad at the end.
    Right,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
pub(super) struct PadStep {
    /// The length, in characters, to pad shorter lines to.
    #[schemars(range(min = 1, max = 10000))]
    width: usize,
    /// The one character to pad with (default a space).
    #[serde(default = "space", rename = "char")]
    #[schemars(length(min = 1, max = 1))]
    fill: String,
    /// Where the padding goes (default `left`).
    #[serde(default)]
    side: PadSide,
}

fn space() -> String {
    " ".into()
}

/// SplitMix64: a small seeded generator, so a seed's shuffle never changes with a library.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound`, by rejection (no modulo bias).
    fn below(&mut self, bound: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let n = self.next();
            if n < zone {
                return n % bound;
            }
        }
    }
}

fn sort(lines: &mut [String], s: &SortStep, path: &str) -> Result<(), ApiError> {
    if s.seed.is_some() && s.order != SortOrder::Random {
        return Err(ApiError::invalid(&format!("{path}.seed"), "applies to the random order only"));
    }
    if s.ignore_case && s.order != SortOrder::Lexical {
        return Err(ApiError::invalid(&format!("{path}.ignoreCase"), "applies to the lexical order only"));
    }
    let cmp: fn(&String, &String) -> Ordering = match (s.order, s.ignore_case) {
        (SortOrder::Lexical, false) => |a, b| a.as_bytes().cmp(b.as_bytes()),
        (SortOrder::Lexical, true) => |a, b| {
            let fold = |s: &String| s.bytes().map(|c| c.to_ascii_uppercase()).collect::<Vec<_>>();
            fold(a).cmp(&fold(b)).then_with(|| a.as_bytes().cmp(b.as_bytes()))
        },
        (SortOrder::Natural, _) => |a, b| order::version_cmp(a, b),
        (SortOrder::Numeric, _) => |a, b| order::numeric_cmp(a, b),
        (SortOrder::Length, _) => |a, b| a.chars().count().cmp(&b.chars().count()),
        (SortOrder::Random, _) => {
            let seed = match s.seed {
                Some(seed) => seed,
                None => {
                    let mut b = [0u8; 8];
                    getrandom::fill(&mut b).map_err(|e| ApiError::internal(format!("no random source: {e}")))?;
                    u64::from_le_bytes(b)
                }
            };
            let mut rng = SplitMix(seed);
            // Fisher-Yates.
            for i in (1..lines.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                lines.swap(i, j);
            }
            if s.descending {
                lines.reverse();
            }
            return Ok(());
        }
    };
    if s.descending {
        lines.sort_by(|a, b| cmp(b, a));
    } else {
        lines.sort_by(cmp);
    }
    Ok(())
}

fn unique(lines: &mut Vec<String>, s: &UniqueStep) {
    let key = |l: &String| if s.ignore_case { l.to_lowercase() } else { l.clone() };
    if s.adjacent {
        let mut last: Option<String> = None;
        lines.retain(|l| {
            let k = key(l);
            let keep = last.as_ref() != Some(&k);
            last = Some(k);
            keep
        });
    } else {
        let mut seen = HashSet::new();
        lines.retain(|l| seen.insert(key(l)));
    }
}

fn filter(lines: &mut Vec<String>, s: &FilterStep, path: &str) -> Result<(), ApiError> {
    let re = regex::RegexBuilder::new(&s.pattern)
        .case_insensitive(s.ignore_case)
        .size_limit(4 << 20)
        .dfa_size_limit(4 << 20)
        .build()
        .map_err(|e| ApiError::invalid(&format!("{path}.pattern"), format!("not a regular expression: {e}")))?;
    lines.retain(|l| re.is_match(l) != s.invert);
    Ok(())
}

fn number(lines: &mut [String], s: &NumberStep) {
    for (i, line) in lines.iter_mut().enumerate() {
        let n = s.start + i as i64;
        *line = format!("{n:>width$}{}{line}", s.separator, width = s.width);
    }
}

fn pad(lines: &mut [String], s: &PadStep) {
    for line in lines.iter_mut() {
        let short = s.width.saturating_sub(line.chars().count());
        if short > 0 {
            let fill = s.fill.repeat(short);
            *line = match s.side {
                PadSide::Left => format!("{fill}{line}"),
                PadSide::Right => format!("{line}{fill}"),
            };
        }
    }
}

impl Step {
    /// Applies this step; `path` is the step's place in the request (`steps[2]`), for errors.
    pub(super) fn apply(&self, lines: &mut Vec<String>, path: &str) -> Result<(), ApiError> {
        match self {
            Step::Sort(s) => sort(lines, s, path)?,
            Step::Unique(s) => unique(lines, s),
            Step::Reverse(_) => lines.reverse(),
            Step::Trim(_) => lines.iter_mut().for_each(|l| *l = l.trim().to_string()),
            Step::RemoveEmpty(_) => lines.retain(|l| !l.trim().is_empty()),
            Step::Head(s) => lines.truncate(s.n as usize),
            Step::Tail(s) => {
                let drop = lines.len().saturating_sub(s.n as usize);
                lines.drain(..drop);
            }
            Step::Filter(s) => filter(lines, s, path)?,
            Step::Prefix(s) => lines.iter_mut().for_each(|l| l.insert_str(0, &s.text)),
            Step::Suffix(s) => lines.iter_mut().for_each(|l| l.push_str(&s.text)),
            Step::Number(s) => number(lines, s),
            Step::Wrap(s) => *lines = lines.iter().flat_map(|l| fold(l, s.width, s.at_spaces)).collect(),
            Step::Pad(s) => pad(lines, s),
        }
        Ok(())
    }
}
