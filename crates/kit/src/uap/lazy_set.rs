//! An ordered list of regexes that answers "which is the first to match", compiling each
//! regex only when a string could match it.
//!
//! uap-core has about 1,300 rules, and the regex engine spends about 19 KB of heap on each
//! compiled pattern: 25 MB to keep all of them ready, for a service where most processes see
//! a few dozen browsers. Instead, each pattern is reduced at load time to a few
//! *requirements*: sets of literals such that every match contains a literal of each set
//! (`; (Acer |ACER )[^;/]+ Build` requires one of `acer ` and also ` build`). All the
//! literals go into one case-insensitive Aho-Corasick automaton, a search runs it once over
//! the string, and only the patterns whose every requirement was met (plus the few with no
//! usable literal) are candidates; a candidate is compiled the first time it is one. The
//! answer is the same as trying every pattern in order: a pattern skipped could not match.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::{Captures, Regex, RegexBuilder};
use regex_syntax::hir::{
    Hir, HirKind,
    literal::{ExtractKind, Extractor, Seq},
};

/// Shortest literal worth filtering on: a two-byte literal occurs in most strings.
const MIN_LITERAL: usize = 3;
/// Most literals in one requirement; a larger set is not used. uap-core's crawler rules are
/// alternations of about 200 names, which filter well and are the costliest to try.
const MAX_LITERALS: usize = 512;
/// Longest literal kept: a literal's start is as necessary as the literal, and the automaton
/// grows with every byte (uap-core's literals run to 60 bytes).
const MAX_LITERAL: usize = 10;
/// Most requirements kept per pattern (bits of a `u8`).
const MAX_REQUIREMENTS: usize = 8;

/// A set of lower-cased literals of which every match contains one.
type Requirement = Vec<Vec<u8>>;

/// One pattern: its text, compiled on first use.
struct Pattern {
    source: String,
    case_insensitive: bool,
    compiled: OnceLock<Result<Regex, String>>,
}

/// The set; see the module's paragraph.
pub struct LazySet {
    patterns: Vec<Pattern>,
    /// Per pattern, one bit per requirement; 0 for a pattern tried on every string.
    full: Vec<u8>,
    /// The automaton over every distinct (lower-cased) literal.
    literals: AhoCorasick,
    /// For each literal of the automaton, the requirements it meets: (pattern, bit).
    owners: Vec<Vec<(u32, u8)>>,
}

/// What a set holds and what one string would cost it, for the tests and BENCHMARKS.md.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    /// Patterns in the set.
    pub patterns: usize,
    /// Patterns compiled so far.
    pub compiled: usize,
    /// Patterns without a usable literal, tried on every string.
    pub unfiltered: usize,
    /// Candidates for the probe string.
    pub candidates: usize,
    /// Heap bytes of the literal automaton.
    pub automaton_bytes: usize,
}

impl std::ops::Add for Figures {
    type Output = Figures;
    fn add(self, o: Figures) -> Figures {
        Figures {
            patterns: self.patterns + o.patterns,
            compiled: self.compiled + o.compiled,
            unfiltered: self.unfiltered + o.unfiltered,
            candidates: self.candidates + o.candidates,
            automaton_bytes: self.automaton_bytes + o.automaton_bytes,
        }
    }
}

/// Collects patterns in order; [`LazySetBuilder::build`] makes the automaton.
#[derive(Default)]
pub struct LazySetBuilder {
    patterns: Vec<Pattern>,
    full: Vec<u8>,
    literal_index: std::collections::HashMap<Vec<u8>, usize>,
    literal_list: Vec<Vec<u8>>,
    owners: Vec<Vec<(u32, u8)>>,
}

impl LazySetBuilder {
    /// Adds a pattern after those already added and returns how many capture groups it
    /// declares. It is parsed (so a syntax error shows now, not on the request path) but not
    /// compiled.
    pub fn push(&mut self, source: &str, case_insensitive: bool) -> Result<usize, String> {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(case_insensitive)
            .build()
            .parse(source)
            .map_err(|e| format!("pattern {}: {e}", self.patterns.len()))?;
        let index = u32::try_from(self.patterns.len()).map_err(|_| "too many patterns".to_string())?;
        let requirements = requirements(&hir);
        let mut full = 0u8;
        for (n, requirement) in requirements.into_iter().enumerate() {
            let bit = 1u8 << n;
            full |= bit;
            for literal in requirement {
                let slot = *self.literal_index.entry(literal.clone()).or_insert_with(|| {
                    self.literal_list.push(literal);
                    self.owners.push(Vec::new());
                    self.literal_list.len() - 1
                });
                self.owners[slot].push((index, bit));
            }
        }
        self.full.push(full);
        self.patterns.push(Pattern { source: source.to_string(), case_insensitive, compiled: OnceLock::new() });
        Ok(hir.properties().explicit_captures_len())
    }

    /// The set, ready to search.
    pub fn build(self) -> Result<LazySet, String> {
        let literals = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&self.literal_list)
            .map_err(|e| e.to_string())?;
        Ok(LazySet { patterns: self.patterns, full: self.full, literals, owners: self.owners })
    }
}

impl LazySet {
    /// The patterns that could match `haystack`, in order.
    fn candidates(&self, haystack: &str) -> impl Iterator<Item = usize> + '_ {
        let mut met = vec![0u8; self.patterns.len()];
        for found in self.literals.find_overlapping_iter(haystack) {
            for &(pattern, bit) in &self.owners[found.pattern().as_usize()] {
                met[pattern as usize] |= bit;
            }
        }
        (0..self.patterns.len()).filter(move |&i| met[i] == self.full[i])
    }

    /// The first pattern, in the order they were added, that matches `haystack`, with its
    /// captures. A pattern that fails to compile (never the case for the embedded rules,
    /// which the tests compile one by one) counts as not matching.
    pub fn first_match<'h>(&self, haystack: &'h str) -> Option<(usize, Captures<'h>)> {
        self.candidates(haystack).find_map(|i| self.compiled(i)?.captures(haystack).map(|c| (i, c)))
    }

    fn compiled(&self, index: usize) -> Option<&Regex> {
        let p = &self.patterns[index];
        p.compiled
            .get_or_init(|| {
                RegexBuilder::new(&p.source).case_insensitive(p.case_insensitive).build().map_err(|e| e.to_string())
            })
            .as_ref()
            .ok()
    }

    /// Compiles every pattern, for the tests: an error names the first that does not.
    pub fn compile_all(&self) -> Result<(), String> {
        for (i, p) in self.patterns.iter().enumerate() {
            if self.compiled(i).is_none() {
                return Err(format!("pattern {i} ({}) does not compile", p.source));
            }
        }
        Ok(())
    }

    /// What the set holds, and the candidates `probe` has.
    pub fn figures(&self, probe: &str) -> Figures {
        Figures {
            patterns: self.patterns.len(),
            compiled: self.patterns.iter().filter(|p| p.compiled.get().is_some()).count(),
            unfiltered: self.full.iter().filter(|&&f| f == 0).count(),
            candidates: self.candidates(probe).count(),
            automaton_bytes: self.literals.memory_usage(),
        }
    }
}

fn prefixes(hir: &Hir) -> Option<Requirement> {
    usable(Extractor::new().kind(ExtractKind::Prefix).extract(hir))
}

/// Requirements every match of `hir` meets (all of them at once), the most selective first,
/// at most [`MAX_REQUIREMENTS`]; none when no useful literal is found.
fn requirements(hir: &Hir) -> Vec<Requirement> {
    let mut found: Vec<Requirement> = prefixes(hir).into_iter().collect();
    match hir.kind() {
        // A match of a concatenation contains a match of each part, and of each run of parts
        // to its end: every requirement of those holds for the whole.
        HirKind::Concat(parts) => {
            for (i, part) in parts.iter().enumerate() {
                found.extend(requirements(part));
                if i > 0 {
                    found.extend(prefixes(&Hir::concat(parts[i..].to_vec())));
                }
            }
        }
        HirKind::Capture(c) => found.extend(requirements(&c.sub)),
        HirKind::Repetition(r) if r.min >= 1 => found.extend(requirements(&r.sub)),
        // A match of an alternation matches one branch: the union of one requirement per
        // branch holds, if every branch has one.
        HirKind::Alternation(branches) => {
            let union =
                branches.iter().map(|b| requirements(b).into_iter().next()).collect::<Option<Vec<_>>>().and_then(
                    |sets| {
                        let mut all: Requirement = sets.into_iter().flatten().collect();
                        all.sort();
                        all.dedup();
                        (all.len() <= MAX_LITERALS).then_some(all)
                    },
                );
            found.extend(union);
        }
        _ => {}
    }
    found.sort_by(|a, b| selectivity(b).cmp(&selectivity(a)).then_with(|| a.cmp(b)));
    found.dedup();
    found.truncate(MAX_REQUIREMENTS);
    found
}

/// A prefix sequence as a requirement: finite, small, and no literal shorter than
/// [`MIN_LITERAL`] (a shorter one would be met by almost every string).
fn usable(seq: Seq) -> Option<Requirement> {
    // Lower-cased first: a case-insensitive literal arrives as every spelling of its case.
    let mut out: Requirement =
        seq.literals()?.iter().map(|l| l.as_bytes()[..l.len().min(MAX_LITERAL)].to_ascii_lowercase()).collect();
    out.sort();
    out.dedup();
    let fits = !out.is_empty() && out.len() <= MAX_LITERALS && out.iter().all(|l| l.len() >= MIN_LITERAL);
    fits.then_some(out)
}

/// How selective a requirement is likely to be: a longer shortest literal, then fewer.
fn selectivity(r: &Requirement) -> (usize, std::cmp::Reverse<usize>) {
    (r.iter().map(Vec::len).min().unwrap_or(0), std::cmp::Reverse(r.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(patterns: &[(&str, bool)]) -> LazySet {
        let mut b = LazySetBuilder::default();
        for (p, ci) in patterns {
            b.push(p, *ci).unwrap();
        }
        b.build().unwrap()
    }

    fn reqs(pattern: &str) -> Vec<Vec<String>> {
        let hir = regex_syntax::parse(pattern).unwrap();
        requirements(&hir).into_iter().map(|r| r.into_iter().map(|l| String::from_utf8(l).unwrap()).collect()).collect()
    }

    #[test]
    fn requirements_come_from_every_part() {
        assert_eq!(reqs(r"(Chrome)/(\d+)")[0], ["chrome/"]);
        assert_eq!(reqs(r"[^;]+ (Firefox|Fennec)/(\d+)")[0], [" fennec/", " firefox/"]);
        // Both parts are required: the brand and the build marker.
        let acer = reqs(r"; {0,2}(Acer |ACER )([^;/]+?)(?: Build|\) AppleWebKit)");
        assert!(acer.contains(&vec!["acer ".to_string()]), "{acer:?}");
        assert!(acer.contains(&vec![" build".to_string(), ") appleweb".to_string()]), "{acer:?}");
        // A bare alternative without literals leaves the whole pattern unfiltered.
        assert!(reqs(r"(abc|\d+)").is_empty());
        assert!(reqs(r"^.*$").is_empty());
        // Too short to be worth it.
        assert!(reqs(r"ab\d").is_empty());
    }

    #[test]
    fn the_first_matching_pattern_wins_and_only_candidates_compile() {
        let s = set(&[
            (r"(Opera)/(\d+)", false),
            (r"(Chrome)/(\d+)", false),
            (r"(\w+)/(\d+)", false),
            (r"(?:kindle)", true),
        ]);
        let (i, c) = s.first_match("Mozilla/5.0 Chrome/124.0").unwrap();
        assert_eq!((i, &c[1], &c[2]), (1, "Chrome", "124"));
        // Opera's pattern was never a candidate; the catch-all was not reached.
        let f = s.figures("");
        assert_eq!((f.patterns, f.compiled), (4, 1));
        assert_eq!(s.first_match("curl/8").unwrap().0, 2);
        // Case-insensitive patterns are found through the case-insensitive automaton.
        assert_eq!(s.first_match("a KINDLE").unwrap().0, 3);
        assert!(s.first_match("nothing here").is_none());
    }

    #[test]
    fn non_ascii_literals_filter_by_their_exact_bytes() {
        let s = set(&[("ΛΜΝΟΠ", false), ("(?i)ΣΤΥ", false)]);
        assert_eq!(s.first_match("xΛΜΝΟΠ").map(|m| m.0), Some(0));
        assert!(s.first_match("λμνοπ").is_none());
        assert_eq!(s.first_match("στυ").map(|m| m.0), Some(1));
    }
}
