//! The public holidays of 251 countries and their subdivisions, 2000 to 2050, from a table
//! generated from the Python library `holidays` 0.108 (`data/holidays/generate.py`): each
//! holiday with its name in the country's language and in English, and the days that stand in
//! for a holiday falling on a rest day. `holidays/list` answers from it, and `date/diff` and
//! `date/add` count business days with it.
//!
//! The table (1 MB compressed, 15 MB as text) is unpacked on first use and packed again block
//! by block (a country, or a subdivision's changes): 1.9 MB kept, and a request unpacks only
//! its country's block, at most 100 KB of text.

use std::{
    collections::HashMap,
    io::{BufRead, Read},
    sync::OnceLock,
};

use wrench_infra::envelope::ApiError;

const TABLE_GZ: &[u8] = include_bytes!("../../../../data/holidays/holidays.tsv.gz");
pub const SOURCE: &str = "Python library holidays 0.108 (MIT), public holidays";

pub struct Block {
    pub language: Box<str>,
    pub first_year: i16,
    pub last_year: i16,
    pub subdivisions: Vec<Box<str>>,
    /// The block's lines, deflated on their own: a request unpacks only its country's (and
    /// subdivision's) lines.
    packed: Vec<u8>,
}

struct Table {
    blocks: HashMap<String, Block>,
}

/// Builds the embedded table now (the warm-up and `wrench tables` call it).
pub fn warm() {
    let _ = table();
}

fn deflate(text: &str) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = e.write_all(text.as_bytes());
    let mut packed = e.finish().unwrap_or_default();
    packed.shrink_to_fit();
    packed
}

/// How many countries the table holds.
pub fn country_count() -> usize {
    table().blocks.keys().filter(|k| k.len() == 2).count()
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        // Read line by line, each block packed as soon as it ends: the 15 MB of text are never
        // held at once.
        let mut reader = std::io::BufReader::new(flate2::read::GzDecoder::new(TABLE_GZ));
        let mut blocks = HashMap::new();
        let mut current: Option<(String, Block)> = None;
        let mut lines = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            let read = reader.read_line(&mut line).expect("the embedded holiday table unpacks (checked by the tests)");
            let header = line.strip_prefix('@');
            if (read == 0 || header.is_some())
                && let Some((key, mut b)) = current.take()
            {
                b.packed = deflate(&lines);
                blocks.insert(key, b);
                lines.clear();
            }
            if read == 0 {
                break;
            }
            match header {
                Some(header) => {
                    let mut f = header.trim_end().split('\t');
                    let key = f.next().unwrap_or_default().to_string();
                    let language = f.next().unwrap_or_default().into();
                    let (first, last) = f.next().and_then(|y| y.split_once('-')).unwrap_or(("2000", "2050"));
                    let subdivisions = f
                        .next()
                        .map(|s| s.split(',').filter(|s| !s.is_empty()).map(Into::into).collect())
                        .unwrap_or_default();
                    let block = Block {
                        language,
                        first_year: first.parse().unwrap_or(2000),
                        last_year: last.parse().unwrap_or(2050),
                        subdivisions,
                        packed: Vec::new(),
                    };
                    current = Some((key, block));
                }
                None if current.is_some() => lines.push_str(&line),
                None => {}
            }
        }
        Table { blocks }
    })
}

/// A holiday: date, local name, English name, kind (`public`, `observed`, or `-` for a
/// national holiday a subdivision does not keep).
pub type Row = (String, String, String, String);

/// The rows of `b` for `year` (`YYYY-`): date, local name, English name, kind.
fn parse_lines(b: &Block, year: &str) -> Vec<Row> {
    let mut text = String::new();
    if flate2::read::DeflateDecoder::new(b.packed.as_slice()).read_to_string(&mut text).is_err() {
        return Vec::new();
    }
    text.lines()
        .filter(|l| l.starts_with(year))
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((f.next()?.to_string(), f.next()?.to_string(), f.next()?.to_string(), f.next()?.to_string()))
        })
        .collect()
}

/// The country's block, the subdivision as the table spells it, and the rows whose date starts
/// with `prefix` (`2025-`, or empty for every year), the subdivision's own added and the
/// national ones it does not keep removed.
pub fn rows_of(
    country: &str,
    subdivision: Option<&str>,
    prefix: &str,
) -> Result<(&'static Block, Option<String>, Vec<Row>), ApiError> {
    let t = table();
    let cc = country.trim().to_ascii_uppercase();
    let block = t.blocks.get(&cc).filter(|_| cc.len() == 2).ok_or_else(|| {
        ApiError::invalid(
            "country",
            format!("{country:?} is not a country the holiday table holds (ISO 3166-1 alpha-2)"),
        )
    })?;
    let mut rows: Vec<Row> = parse_lines(block, prefix);
    let subdivision = match subdivision.map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => {
            let code = block.subdivisions.iter().find(|c| c.eq_ignore_ascii_case(s)).ok_or_else(|| {
                let known =
                    if block.subdivisions.is_empty() { "none".to_string() } else { block.subdivisions.join(", ") };
                ApiError::invalid("subdivision", format!("{s:?} is not a subdivision of {cc} (known: {known})"))
            })?;
            if let Some(sub) = t.blocks.get(&format!("{cc}-{code}")) {
                for (date, local, en, kind) in parse_lines(sub, prefix) {
                    if kind == "-" {
                        rows.retain(|r| !(r.0 == date && r.2 == en));
                    } else {
                        rows.push((date, local, en, kind));
                    }
                }
            }
            Some(code.to_string())
        }
    };
    Ok((block, subdivision, rows))
}

/// Days off with their English names, in date order, and the years they are known for.
pub type DaysOff = (Vec<(jiff::civil::Date, String)>, std::ops::RangeInclusive<i16>);

/// The days off of a country (and subdivision) for business-day arithmetic: every holiday and
/// every day observed in a holiday's place, with its English name, and the years the table
/// covers for the country.
pub fn days_off(country: &str, subdivision: Option<&str>) -> Result<DaysOff, ApiError> {
    let (block, _, rows) = rows_of(country, subdivision, "")?;
    let mut days: Vec<(jiff::civil::Date, String)> =
        rows.into_iter().filter_map(|(date, _, name, _)| Some((date.parse().ok()?, name))).collect();
    days.sort();
    days.dedup_by(|a, b| a.0 == b.0);
    Ok((days, block.first_year..=block.last_year))
}
