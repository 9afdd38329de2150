//! uap-core's rule file read into three ordered rule lists (browser, OS, device), each a
//! [`LazySet`] of patterns and, per rule, how each answer field is filled from the match.
//!
//! The fields follow uap-core's specification (`docs/specification.md` in uap-core): a
//! replacement given in the rule wins, and may refer to the match's groups as `$1`..`$9`; an
//! absent one falls back to a group by position (family from group 1, versions from groups
//! 2 to 5; a device's model from group 1; a device's brand has no fallback). Two details
//! follow the Rust `ua-parser` crate, which the tests keep as a second implementation: a
//! browser family's replacement substitutes only `$1`, and templates are trimmed, an empty
//! result meaning no value.

use regex::Captures;
use serde::Deserialize;

use super::lazy_set::{Figures, LazySet, LazySetBuilder};

/// How one answer field is filled from a rule's match.
enum Field {
    /// The rule's replacement, as written.
    Fixed(Box<str>),
    /// The text of a capture group (no value when the group is empty or did not take part).
    Group(usize),
    /// A replacement with `$n` references, expanded and trimmed.
    Template(Box<str>),
    /// A browser family's replacement, in which only `$1` is substituted.
    FamilyTemplate(Box<str>),
    /// No value.
    Absent,
}

fn group<'h>(c: &Captures<'h>, i: usize) -> Option<&'h str> {
    c.get(i).map(|m| m.as_str()).filter(|s| !s.is_empty())
}

fn has_reference(s: &str) -> bool {
    s.as_bytes().windows(2).any(|w| w[0] == b'$' && w[1].is_ascii_digit())
}

impl Field {
    /// OS and device fields: a non-blank replacement (a template when it refers to a
    /// group), else group `index` when the pattern has it.
    fn templated(replacement: Option<String>, groups: usize, index: usize) -> Self {
        match replacement {
            Some(r) if !r.trim().is_empty() && has_reference(&r) => Self::Template(r.into()),
            Some(r) if !r.trim().is_empty() => Self::Fixed(r.into()),
            _ if groups >= index => Self::Group(index),
            _ => Self::Absent,
        }
    }

    /// Browser versions: a non-empty replacement as written, else group `index`.
    fn plain(replacement: Option<String>, groups: usize, index: usize) -> Self {
        match replacement {
            Some(r) if !r.is_empty() => Self::Fixed(r.into()),
            _ if groups >= index => Self::Group(index),
            _ => Self::Absent,
        }
    }

    /// Browser family: `$1` in the replacement stands for group 1.
    fn family(replacement: Option<String>, groups: usize) -> Result<Self, String> {
        Ok(match replacement {
            Some(r) if r.contains("$1") && groups == 0 => {
                return Err(format!("family replacement {r:?} refers to a group the pattern lacks"));
            }
            Some(r) if r.contains("$1") => Self::FamilyTemplate(r.into()),
            Some(r) if !r.is_empty() => Self::Fixed(r.into()),
            _ if groups >= 1 => Self::Group(1),
            _ => Self::Absent,
        })
    }

    fn resolve(&self, c: &Captures<'_>) -> Option<String> {
        match self {
            Self::Fixed(s) => Some(s.to_string()),
            Self::Group(i) => group(c, *i).map(str::to_string),
            Self::Template(t) => {
                let mut out = String::new();
                c.expand(t, &mut out);
                let trimmed = out.trim();
                (!trimmed.is_empty()).then(|| trimmed.to_string())
            }
            Self::FamilyTemplate(t) => Some(t.replace("$1", group(c, 1).unwrap_or(""))),
            Self::Absent => None,
        }
    }
}

/// One rule list: the patterns and, per pattern, its `N` fields.
struct Domain<const N: usize> {
    set: LazySet,
    fields: Vec<[Field; N]>,
}

impl<const N: usize> Domain<N> {
    fn extract(&self, text: &str) -> Option<[Option<String>; N]> {
        let (index, captures) = self.set.first_match(text)?;
        Some(self.fields[index].each_ref().map(|f| f.resolve(&captures)))
    }
}

#[derive(Deserialize)]
struct RuleFile {
    user_agent_parsers: Vec<BrowserRule>,
    os_parsers: Vec<OsRule>,
    device_parsers: Vec<DeviceRule>,
}

#[derive(Deserialize)]
struct BrowserRule {
    regex: String,
    family_replacement: Option<String>,
    v1_replacement: Option<String>,
    v2_replacement: Option<String>,
    v3_replacement: Option<String>,
    v4_replacement: Option<String>,
}

#[derive(Deserialize)]
struct OsRule {
    regex: String,
    os_replacement: Option<String>,
    os_v1_replacement: Option<String>,
    os_v2_replacement: Option<String>,
    os_v3_replacement: Option<String>,
    os_v4_replacement: Option<String>,
}

#[derive(Deserialize)]
struct DeviceRule {
    regex: String,
    regex_flag: Option<String>,
    device_replacement: Option<String>,
    brand_replacement: Option<String>,
    model_replacement: Option<String>,
}

/// A browser or operating system: family (empty when the rule gives none) and version parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Versioned {
    pub family: String,
    pub major: Option<String>,
    pub minor: Option<String>,
    pub patch: Option<String>,
    pub patch_minor: Option<String>,
}

impl Versioned {
    fn from_fields([family, major, minor, patch, patch_minor]: [Option<String>; 5]) -> Self {
        Self { family: family.unwrap_or_default(), major, minor, patch, patch_minor }
    }
}

/// A device: family (empty when the rule gives none), brand and model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Device {
    pub family: String,
    pub brand: Option<String>,
    pub model: Option<String>,
}

/// What the three rule lists say of one string; `None` where no rule matched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub browser: Option<Versioned>,
    pub os: Option<Versioned>,
    pub device: Option<Device>,
}

/// The three rule lists.
pub struct Rules {
    browser: Domain<5>,
    os: Domain<5>,
    device: Domain<3>,
}

impl Rules {
    /// Reads a uap-core rule file (YAML).
    pub fn from_yaml(text: &str) -> Result<Self, String> {
        let file: RuleFile = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        let browser = domain(file.user_agent_parsers, |set, r| {
            let groups = set.push(&rewrite(&r.regex), false)?;
            Ok([
                Field::family(r.family_replacement, groups)?,
                Field::plain(r.v1_replacement, groups, 2),
                Field::plain(r.v2_replacement, groups, 3),
                Field::plain(r.v3_replacement, groups, 4),
                Field::plain(r.v4_replacement, groups, 5),
            ])
        })?;
        let os = domain(file.os_parsers, |set, r| {
            let groups = set.push(&rewrite(&r.regex), false)?;
            Ok([
                Field::templated(r.os_replacement, groups, 1),
                Field::templated(r.os_v1_replacement, groups, 2),
                Field::templated(r.os_v2_replacement, groups, 3),
                Field::templated(r.os_v3_replacement, groups, 4),
                Field::templated(r.os_v4_replacement, groups, 5),
            ])
        })?;
        let device = domain(file.device_parsers, |set, r| {
            let case_insensitive = match r.regex_flag.as_deref() {
                None => false,
                Some("i") => true,
                Some(other) => return Err(format!("unknown regex_flag {other:?}")),
            };
            let groups = set.push(&rewrite(&r.regex), case_insensitive)?;
            Ok([
                Field::templated(r.device_replacement, groups, 1),
                // A brand comes only from the rule: no group fallback.
                Field::templated(r.brand_replacement, 0, 1),
                Field::templated(r.model_replacement, groups, 1),
            ])
        })?;
        Ok(Self { browser, os, device })
    }

    /// Runs the three lists over `text`.
    pub fn parse(&self, text: &str) -> Parsed {
        Parsed {
            browser: self.browser.extract(text).map(Versioned::from_fields),
            os: self.os.extract(text).map(Versioned::from_fields),
            device: self.device.extract(text).map(|[family, brand, model]| Device {
                family: family.unwrap_or_default(),
                brand,
                model,
            }),
        }
    }

    /// Compiles every pattern (the tests' check that the file is sound).
    pub fn compile_all(&self) -> Result<(), String> {
        self.browser.set.compile_all()?;
        self.os.set.compile_all()?;
        self.device.set.compile_all()
    }

    /// Figures summed over the three lists, with `probe`'s candidates.
    pub fn figures(&self, probe: &str) -> Figures {
        self.browser.set.figures(probe) + self.os.set.figures(probe) + self.device.set.figures(probe)
    }
}

/// One rule list: each rule adds its pattern to the set and says how its fields are filled.
fn domain<R, const N: usize>(
    rules: Vec<R>,
    mut add: impl FnMut(&mut LazySetBuilder, R) -> Result<[Field; N], String>,
) -> Result<Domain<N>, String> {
    let mut set = LazySetBuilder::default();
    let fields = rules.into_iter().map(|r| add(&mut set, r)).collect::<Result<Vec<_>, _>>()?;
    Ok(Domain { set: set.build()?, fields })
}

/// Adapts a pattern written for uap-core's reference engines to ours.
///
/// - `\d`, `\w` and their negations mean ASCII there (and in the rules' intent); in the
///   `regex` crate they are Unicode classes, much larger to compile. They become explicit
///   ASCII classes.
/// - A bounded repetition `{0,N}` or `{1,N}` with N of three digits or more becomes `*` or
///   `+`: its compiled form grows with N, and the bound (100 or more characters of a token)
///   never decides a real User-Agent string. The Rust `ua-parser` crate does the same, so
///   the two agree.
fn rewrite(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.char_indices().peekable();
    let mut in_class = 0usize;
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'd')) => out.push_str("[0-9]"),
                Some((_, 'D')) => out.push_str("[^0-9]"),
                Some((_, 'w')) => out.push_str("[A-Za-z0-9_]"),
                Some((_, 'W')) => out.push_str("[^A-Za-z0-9_]"),
                Some((_, e)) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push('\\'),
            },
            '[' => {
                in_class += 1;
                out.push(c);
            }
            ']' if in_class > 0 => {
                in_class -= 1;
                out.push(c);
            }
            '{' if in_class == 0 && at > 0 => match long_bound(&pattern[at..]) {
                Some((replacement, len)) => {
                    out.push_str(replacement);
                    // Skip the rest of the `{m,n}` just replaced.
                    while chars.peek().is_some_and(|&(i, _)| i < at + len) {
                        chars.next();
                    }
                }
                None => out.push(c),
            },
            _ => out.push(c),
        }
    }
    out
}

/// For text starting `{0,N}` or `{1,N}` with N of at least three digits: `*` or `+`, and
/// the length of the braces.
fn long_bound(text: &str) -> Option<(&'static str, usize)> {
    let inner = &text[1..text.find('}')?];
    let (min, max) = inner.split_once(',')?;
    let replacement = match min {
        "0" => "*",
        "1" => "+",
        _ => return None,
    };
    (max.len() >= 3 && max.bytes().all(|b| b.is_ascii_digit())).then_some((replacement, inner.len() + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_adapted_to_ascii_classes_and_open_long_bounds() {
        assert_eq!(rewrite(r"(\d+)\.(\w+)"), "([0-9]+)\\.([A-Za-z0-9_]+)");
        assert_eq!(rewrite(r"[\d.]\D\W"), "[[0-9].][^0-9][^A-Za-z0-9_]");
        assert_eq!(rewrite(r"a\\d"), r"a\\d", "an escaped backslash is not a class");
        assert_eq!(rewrite(r"[^;/]{1,100}?x.{0,300}"), "[^;/]+?x.*");
        assert_eq!(rewrite(r" {0,2}x{1,20}y{2,500}"), " {0,2}x{1,20}y{2,500}", "short or other bounds stay");
        assert_eq!(rewrite(r"\{1,100}[{1,100}]"), r"\{1,100}[{1,100}]", "escaped or in a class: a literal");
        assert_eq!(rewrite("{0,100}"), "{0,100}", "nothing to repeat: left for the parser to reject");
    }

    #[test]
    fn fields_follow_the_replacement_rules() {
        let re = regex::Regex::new(r"(\w+) (\w*) ?(\d+)?").unwrap();
        let c = re.captures("Nexus  ").unwrap();
        assert_eq!(Field::templated(Some(" $1 $3 ".into()), 3, 1).resolve(&c).as_deref(), Some("Nexus"));
        assert_eq!(Field::templated(Some("$3".into()), 3, 1).resolve(&c), None, "empty template: no value");
        assert_eq!(Field::templated(None, 3, 2).resolve(&c), None, "empty group: no value");
        assert_eq!(Field::templated(None, 3, 4).resolve(&c), None);
        assert_eq!(Field::templated(Some(" ".into()), 3, 1).resolve(&c).as_deref(), Some("Nexus"), "blank: the group");
        assert_eq!(Field::family(Some("$1 Browser".into()), 3).unwrap().resolve(&c).as_deref(), Some("Nexus Browser"));
        assert!(Field::family(Some("$1".into()), 0).is_err());
        assert_eq!(Field::plain(Some("7".into()), 3, 2).resolve(&c).as_deref(), Some("7"));
    }
}
