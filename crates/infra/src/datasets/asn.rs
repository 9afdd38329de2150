//! IP to autonomous system, from MaxMind DB files in the GeoLite2 ASN schema
//! (`autonomous_system_number`, `autonomous_system_organization`) or from CSV range files as
//! the ip-location-db packages ship them (`start,end,asn,organisation`, no header; an
//! organisation with commas is quoted). Either way the table is also indexed by AS number,
//! so `asn/lookup` can list the prefixes an AS holds.

use std::{
    collections::HashMap,
    net::{IpAddr, Ipv6Addr},
    path::PathBuf,
};

use ipnet::IpNet;
use serde_json::Value;

use super::{
    city::open_mmdb,
    slot::{Dataset, Summary},
};

/// One range of the table. IPv4 ranges are kept as IPv4-mapped IPv6 numbers.
#[derive(Debug, Clone, Copy)]
struct Range {
    start: u128,
    end: u128,
    asn: u32,
    org: u32,
    /// For a segment: the table range it comes from.
    origin: u32,
}

/// What the table says of an address.
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct AsnHit {
    pub asn: u32,
    pub organisation: Option<String>,
    /// The table's range holding the address, as CIDR prefixes (one unless the range does not
    /// fall on a prefix boundary).
    pub networks: Vec<String>,
}

pub struct AsnDb {
    /// The table's ranges as given (nested and overlapping ones included), for listing what
    /// an AS holds.
    ranges: Vec<Range>,
    /// The same flattened into ranges that do not overlap, sorted by start, each answered by
    /// the most specific range of the table that holds it (a more specific prefix announced
    /// by another AS wins inside it), for lookups.
    segments: Vec<Range>,
    orgs: Vec<String>,
    by_asn: HashMap<u32, Vec<u32>>,
}

fn to_u128(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(v6),
    }
}

fn from_u128(n: u128, v4: bool) -> IpAddr {
    let v6 = Ipv6Addr::from(n);
    match (v4, v6.to_ipv4_mapped()) {
        (true, Some(a)) => IpAddr::V4(a),
        _ => IpAddr::V6(v6),
    }
}

const MAPPED_START: u128 = 0xffff_0000_0000;
const MAPPED_END: u128 = 0xffff_ffff_ffff;

/// The fewest CIDR prefixes covering `start..=end` exactly.
pub(crate) fn prefixes(start: u128, end: u128) -> Vec<IpNet> {
    let v4 = (MAPPED_START..=MAPPED_END).contains(&start) && (MAPPED_START..=MAPPED_END).contains(&end);
    let mut out = Vec::new();
    let mut at = start;
    loop {
        // The largest block that starts at `at` (alignment) and stays within `end`.
        let mut size_bits = if at == 0 { 128 } else { at.trailing_zeros() };
        loop {
            let fits = if size_bits == 128 {
                end == u128::MAX
            } else {
                at.checked_add((1u128 << size_bits) - 1).is_some_and(|last| last <= end)
            };
            if fits || size_bits == 0 {
                break;
            }
            size_bits -= 1;
        }
        let last = if size_bits == 128 { u128::MAX } else { at + ((1u128 << size_bits) - 1) };
        let prefix = 128 - size_bits as u8;
        let net = if v4 {
            IpNet::new(from_u128(at, true), prefix - 96)
        } else {
            IpNet::new(IpAddr::V6(Ipv6Addr::from(at)), prefix)
        };
        if let Ok(n) = net {
            out.push(n);
        }
        if last >= end || out.len() >= 64 {
            break;
        }
        at = last + 1;
    }
    out
}

impl AsnDb {
    pub fn lookup(&self, ip: IpAddr) -> Option<AsnHit> {
        let n = to_u128(ip);
        let i = self.segments.partition_point(|r| r.start <= n).checked_sub(1)?;
        let r = self.segments[i];
        (n <= r.end).then(|| self.hit(self.ranges[r.origin as usize]))
    }

    fn hit(&self, r: Range) -> AsnHit {
        AsnHit {
            asn: r.asn,
            organisation: self.orgs.get(r.org as usize).filter(|o| !o.is_empty()).cloned(),
            networks: prefixes(r.start, r.end).iter().map(ToString::to_string).collect(),
        }
    }

    /// The organisation and every prefix the table holds for `asn` (at most `limit`), and how
    /// many prefixes there are in all.
    pub fn by_asn(&self, asn: u32, limit: usize) -> Option<(Option<String>, Vec<String>, usize)> {
        let idx = self.by_asn.get(&asn)?;
        let org = idx.first().and_then(|&i| self.orgs.get(self.ranges[i as usize].org as usize)).cloned();
        let mut all = Vec::new();
        for &i in idx {
            let r = self.ranges[i as usize];
            all.extend(prefixes(r.start, r.end));
        }
        let total = all.len();
        Some((org.filter(|o| !o.is_empty()), all.into_iter().take(limit).map(|n| n.to_string()).collect(), total))
    }

    fn build(mut ranges: Vec<Range>, orgs: Vec<String>) -> Result<AsnDb, String> {
        // Outer ranges before the ranges nested in them.
        ranges.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        for (i, r) in ranges.iter_mut().enumerate() {
            r.origin = i as u32;
        }
        let segments = flatten(&ranges);
        let mut by_asn: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, r) in ranges.iter().enumerate() {
            by_asn.entry(r.asn).or_default().push(i as u32);
        }
        Ok(AsnDb { ranges, segments, orgs, by_asn })
    }
}

/// Non-overlapping segments of `ranges` (sorted by start, outer first), each carrying the
/// innermost range that holds it: a sweep with a stack of the ranges open at the cursor.
fn flatten(ranges: &[Range]) -> Vec<Range> {
    let mut out: Vec<Range> = Vec::with_capacity(ranges.len());
    let mut stack: Vec<Range> = Vec::new();
    // The first address not yet given to a segment; None once the whole space is done.
    let mut cursor: Option<u128> = Some(0);
    let emit = |out: &mut Vec<Range>, cursor: &mut Option<u128>, owner: Range, last: u128| {
        if let Some(c) = *cursor
            && c <= last
        {
            out.push(Range { start: c, end: last, ..owner });
            *cursor = last.checked_add(1);
        }
    };
    for &r in ranges {
        while let Some(&top) = stack.last()
            && top.end < r.start
        {
            emit(&mut out, &mut cursor, top, top.end);
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            emit(&mut out, &mut cursor, top, r.start - 1);
        }
        if cursor.is_some_and(|c| c < r.start) {
            cursor = Some(r.start);
        }
        stack.push(r);
    }
    while let Some(top) = stack.pop() {
        emit(&mut out, &mut cursor, top, top.end);
    }
    out
}

struct Interner {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Interner {
    fn get(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }
}

fn parse_csv(path: &std::path::Path, bytes: &[u8], ranges: &mut Vec<Range>, orgs: &mut Interner) -> Result<(), String> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(bytes);
    for (line, row) in reader.records().enumerate() {
        let row = row.map_err(|e| format!("{} line {}: {e}", path.display(), line + 1))?;
        let bad = |what: &str| format!("{} line {}: {what}", path.display(), line + 1);
        if row.len() < 3 {
            return Err(bad("expected start,end,asn,organisation"));
        }
        let ip = |s: &str| s.trim().parse::<IpAddr>().map_err(|_| bad(&format!("{s:?} is not an address")));
        let (a, b) = (ip(&row[0])?, ip(&row[1])?);
        if a.is_ipv4() != b.is_ipv4() {
            return Err(bad("start and end are of different families"));
        }
        let asn: u32 =
            row[2].trim().trim_start_matches("AS").parse().map_err(|_| bad("the AS number is not a number"))?;
        // An unquoted organisation with commas spills into further fields.
        let org: Vec<&str> = row.iter().skip(3).collect();
        let (start, end) = (to_u128(a), to_u128(b));
        if end < start {
            return Err(bad("the range ends before it starts"));
        }
        ranges.push(Range { start, end, asn, org: orgs.get(org.join(",").trim()), origin: 0 });
    }
    Ok(())
}

fn is_mmdb(bytes: &[u8]) -> bool {
    // The metadata marker sits within the last 128 KiB of every MaxMind DB file.
    const MARKER: &[u8] = b"\xab\xcd\xefMaxMind.com";
    let tail = &bytes[bytes.len().saturating_sub(128 * 1024)..];
    tail.windows(MARKER.len()).any(|w| w == MARKER)
}

impl Dataset for AsnDb {
    fn parse(files: Vec<(PathBuf, Vec<u8>)>) -> Result<(Self, Summary), String> {
        let mut orgs = Interner { names: Vec::new(), index: HashMap::new() };
        let mut ranges = Vec::new();
        let (mmdb, csv): (Vec<_>, Vec<_>) = files.into_iter().partition(|(_, b)| is_mmdb(b));
        let mut summary = if mmdb.is_empty() {
            Summary {
                format: "CSV ranges (start,end,asn,organisation)".into(),
                source: String::new(),
                built: None,
                records: 0,
                licence: "as distributed by its provider (ip-location-db ASN tables are CC-BY-4.0)".into(),
                attribution: None,
            }
        } else {
            let (readers, mut s) = open_mmdb(mmdb)?;
            s.format = "MaxMind DB, GeoLite2 ASN schema".into();
            for r in &readers {
                let it = r.networks(Default::default()).map_err(|e| e.to_string())?;
                for n in it {
                    let n = n.map_err(|e| e.to_string())?;
                    let Some(v) = n.decode::<Value>().map_err(|e| e.to_string())? else { continue };
                    let Some(asn) = v["autonomous_system_number"].as_u64() else { continue };
                    let net: IpNet = n
                        .network()
                        .map_err(|e| e.to_string())?
                        .to_string()
                        .parse()
                        .map_err(|_| "a network does not parse")?;
                    let (start, end) = (to_u128(net.network()), to_u128(net.broadcast()));
                    let org = v["autonomous_system_organization"].as_str().unwrap_or("");
                    ranges.push(Range { start, end, asn: asn as u32, org: orgs.get(org), origin: 0 });
                }
            }
            s
        };
        for (path, bytes) in &csv {
            parse_csv(path, bytes, &mut ranges, &mut orgs)?;
        }
        if !csv.is_empty() {
            let names: Vec<String> =
                csv.iter().map(|(p, _)| p.file_name().unwrap_or_default().to_string_lossy().to_string()).collect();
            summary.source = [summary.source.clone(), names.join(", ")]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("; ");
        }
        summary.records = ranges.len() as u64;
        let db = AsnDb::build(ranges, orgs.names)?;
        Ok((db, summary))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_and_overlapping_ranges_answer_with_the_most_specific() {
        let r = |a: &str, b: &str, asn| Range {
            start: to_u128(a.parse().unwrap()),
            end: to_u128(b.parse().unwrap()),
            asn,
            org: 0,
            origin: 0,
        };
        let db = AsnDb::build(
            vec![
                r("10.0.0.0", "10.255.255.255", 1),
                r("10.1.0.0", "10.1.255.255", 2),
                r("10.1.2.0", "10.1.2.255", 3),
                r("10.200.0.0", "10.200.0.255", 4),
                r("11.0.0.0", "11.0.0.255", 5),
            ],
            vec![String::new()],
        )
        .unwrap();
        let asn = |ip: &str| db.lookup(ip.parse().unwrap()).map(|h| h.asn);
        assert_eq!(
            [
                asn("10.0.0.1"),
                asn("10.1.0.1"),
                asn("10.1.2.3"),
                asn("10.1.3.0"),
                asn("10.200.0.9"),
                asn("10.201.0.0"),
                asn("11.0.0.1"),
                asn("12.0.0.0")
            ],
            [Some(1), Some(2), Some(3), Some(2), Some(4), Some(1), Some(5), None]
        );
        assert!(db.segments.windows(2).all(|w| w[0].end < w[1].start));
        // The network reported is the table's own range, not the piece left around a hole.
        assert_eq!(db.lookup("10.1.3.0".parse().unwrap()).unwrap().networks, ["10.1.0.0/16"]);
        // Listing an AS gives its whole range, holes included.
        assert_eq!(db.by_asn(1, 10).unwrap().1, ["10.0.0.0/8"]);
    }

    #[test]
    fn ranges_split_into_the_fewest_prefixes() {
        let r = |a: &str, b: &str| {
            prefixes(to_u128(a.parse().unwrap()), to_u128(b.parse().unwrap()))
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(r("1.0.0.0", "1.0.0.255"), ["1.0.0.0/24"]);
        assert_eq!(r("81.2.69.0", "81.2.71.255"), ["81.2.69.0/24", "81.2.70.0/23"]);
        assert_eq!(r("89.160.20.100", "89.160.20.200").len(), 6);
        assert_eq!(r("0.0.0.0", "255.255.255.255"), ["0.0.0.0/0"]);
        assert_eq!(r("2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"), ["2001:db8::/32"]);
        assert_eq!(r("::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), ["::/0"]);
        assert_eq!(r("10.0.0.7", "10.0.0.7"), ["10.0.0.7/32"]);
    }
}
