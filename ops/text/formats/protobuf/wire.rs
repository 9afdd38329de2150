//! The protobuf wire format read without a schema: tags, varints, fixed 32- and 64-bit values,
//! length-delimited runs and groups, as the encoding guide describes them
//! (protobuf.dev/programming-guides/encoding).
//!
//! Without a schema a length-delimited run is ambiguous: a string, bytes, a packed array or a
//! nested message. Like `protoc --decode_raw`, a non-empty run is taken for a message when the
//! whole run reads as one, at most [`NESTED_BUDGET`] levels of runs and groups deep (deeper runs
//! stay bytes), so that one byte is read at most that many times over whatever the input.

use std::ops::Range;

/// How many length-delimited runs deep a run is still tried as a message: protoc's own budget
/// for printing unknown fields, so that the text form matches `protoc --decode_raw`.
pub(super) const NESTED_BUDGET: usize = 10;
/// How deep groups may nest in the input itself: the protobuf runtimes' default recursion
/// limit.
pub(super) const MAX_GROUP_DEPTH: usize = 100;

/// One field as it stands on the wire, with absolute offsets into the input.
#[derive(Debug)]
pub(super) struct Field {
    pub number: u32,
    /// Where the tag starts.
    pub offset: usize,
    /// Where the field ends (exclusive): after the payload, or after a group's end tag.
    pub end: usize,
    pub payload: Payload,
}

#[derive(Debug)]
pub(super) enum Payload {
    Varint(u64),
    I64(u64),
    /// A length-delimited run: where its bytes are, and its fields when it reads as a message.
    Len(Range<usize>, Option<Vec<Field>>),
    /// A group's fields (wire types 3 and 4, deprecated but still on the wire in proto2 data).
    Group(Vec<Field>),
    I32(u32),
}

/// Why bytes are not a message, and at which absolute offset.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Fault {
    pub offset: usize,
    pub reason: String,
}

fn fault(offset: usize, reason: impl Into<String>) -> Fault {
    Fault { offset, reason: reason.into() }
}

/// Reads a base-128 varint at `*pos`, no further than `end`. As the protobuf runtimes do, a
/// tenth byte ends it whatever its value, and bits past the 64th are dropped.
pub(super) fn read_varint(buf: &[u8], pos: &mut usize, end: usize) -> Result<u64, Fault> {
    let start = *pos;
    let mut value = 0u64;
    for i in 0..10 {
        let Some(&b) = buf.get(*pos).filter(|_| *pos < end) else {
            return Err(fault(start, "a varint runs past the end of its bytes"));
        };
        *pos += 1;
        value |= u64::from(b & 0x7f).checked_shl(7 * i).unwrap_or(0);
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(fault(start, "a varint is longer than 10 bytes"))
}

fn read_fixed<const N: usize>(buf: &[u8], pos: &mut usize, end: usize) -> Result<[u8; N], Fault> {
    if end - *pos < N {
        return Err(fault(*pos, format!("a {}-bit value needs {N} bytes, {} remain", N * 8, end - *pos)));
    }
    let bytes: [u8; N] = buf[*pos..*pos + N].try_into().expect("the length was checked");
    *pos += N;
    Ok(bytes)
}

/// How deep the reading may still go.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Groups that may still open inside the bytes being read.
    pub groups: usize,
    /// Length-delimited runs inside these bytes are tried as messages while this is above 0.
    pub nested: usize,
}

/// Reads `buf[range]` as one message: its fields in wire order.
pub(super) fn read_message(buf: &[u8], range: Range<usize>, limits: Limits) -> Result<Vec<Field>, Fault> {
    let mut pos = range.start;
    read_fields(buf, &mut pos, range.end, None, limits)
}

/// Reads fields from `*pos` until `end`, or, inside the group numbered `group`, until its end
/// tag (which is consumed).
fn read_fields(
    buf: &[u8],
    pos: &mut usize,
    end: usize,
    group: Option<(u32, usize)>,
    limits: Limits,
) -> Result<Vec<Field>, Fault> {
    let mut fields = Vec::new();
    loop {
        if *pos == end {
            return match group {
                Some((number, at)) => Err(fault(at, format!("group {number} has no end-group tag"))),
                None => Ok(fields),
            };
        }
        let offset = *pos;
        let tag = read_varint(buf, pos, end)?;
        if tag > u64::from(u32::MAX) {
            return Err(fault(offset, "a tag is larger than 32 bits"));
        }
        let number = (tag >> 3) as u32;
        if number == 0 {
            return Err(fault(offset, "field number 0 is not allowed"));
        }
        let payload = match tag & 7 {
            0 => Payload::Varint(read_varint(buf, pos, end)?),
            1 => Payload::I64(u64::from_le_bytes(read_fixed::<8>(buf, pos, end)?)),
            2 => {
                let at = *pos;
                let len = read_varint(buf, pos, end)?;
                if len > (end - *pos) as u64 {
                    return Err(fault(at, format!("field {number} claims {len} bytes, {} remain", end - *pos)));
                }
                let run = *pos..*pos + len as usize;
                *pos = run.end;
                let nested = if !run.is_empty() && limits.nested > 0 {
                    read_message(buf, run.clone(), Limits { groups: limits.nested, nested: limits.nested - 1 }).ok()
                } else {
                    None
                };
                Payload::Len(run, nested)
            }
            3 => {
                if limits.groups == 0 {
                    return Err(fault(offset, "groups nest deeper than allowed"));
                }
                // As in protoc's printer, a group spends one level of the runs' budget too.
                let inner = Limits { groups: limits.groups - 1, nested: limits.nested.saturating_sub(1) };
                Payload::Group(read_fields(buf, pos, end, Some((number, offset)), inner)?)
            }
            4 => {
                return match group {
                    Some((open, _)) if open == number => Ok(fields),
                    Some((open, _)) => {
                        Err(fault(offset, format!("an end-group tag for field {number} closes group {open}")))
                    }
                    None => Err(fault(offset, format!("an end-group tag for field {number} without its group"))),
                };
            }
            5 => Payload::I32(u32::from_le_bytes(read_fixed::<4>(buf, pos, end)?)),
            other => return Err(fault(offset, format!("wire type {other} does not exist (field {number})"))),
        };
        fields.push(Field { number, offset, end: *pos, payload });
    }
}

/// Splits a stream of length-prefixed messages (each preceded by its length as a varint, as
/// `writeDelimitedTo` and `parseDelimitedFrom` frame them) into their byte ranges.
pub(super) fn split_delimited(buf: &[u8]) -> Result<Vec<Range<usize>>, Fault> {
    let mut pos = 0;
    let mut runs = Vec::new();
    while pos < buf.len() {
        let at = pos;
        let len = read_varint(buf, &mut pos, buf.len())?;
        if len > (buf.len() - pos) as u64 {
            return Err(fault(at, format!("a message claims {len} bytes, {} remain", buf.len() - pos)));
        }
        runs.push(pos..pos + len as usize);
        pos += len as usize;
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: Limits = Limits { groups: MAX_GROUP_DEPTH, nested: NESTED_BUDGET };

    fn read(hex: &str) -> Result<Vec<Field>, Fault> {
        let buf = hex::decode(hex).unwrap();
        read_message(&buf, 0..buf.len(), TOP)
    }

    /// The encoding guide's own examples: `08 96 01` is field 1 = 150, and `12 07 74 65 73 74
    /// 69 6e 67` field 2 = "testing".
    #[test]
    fn the_encoding_guides_examples() {
        let f = read("089601").unwrap();
        assert!(matches!(f[..], [Field { number: 1, offset: 0, end: 3, payload: Payload::Varint(150) }]));
        let f = read("120774657374696e67").unwrap();
        assert!(matches!(&f[0].payload, Payload::Len(r, None) if *r == (2..9)), "{f:?}");
        // Field 3 holding field 1 = 150 as a nested message.
        let f = read("1a03089601").unwrap();
        let Payload::Len(_, Some(inner)) = &f[0].payload else { panic!("{f:?}") };
        assert!(matches!(inner[..], [Field { number: 1, offset: 2, payload: Payload::Varint(150), .. }]));
    }

    #[test]
    fn faults_name_their_offset() {
        for (hex, offset, words) in [
            ("08", 1, "past the end"),
            ("0a05ab", 1, "claims 5 bytes"),
            ("0c", 0, "without its group"),
            ("0b", 0, "no end-group tag"),
            ("0b14", 1, "closes group 1"),
            ("0e", 0, "wire type 6"),
            ("00", 0, "field number 0"),
            ("0d0102", 1, "needs 4 bytes"),
            ("08ffffffffffffffffffff01", 1, "longer than 10 bytes"),
        ] {
            let e = read(hex).unwrap_err();
            assert_eq!(e.offset, offset, "{hex}: {e:?}");
            assert!(e.reason.contains(words), "{hex}: {e:?}");
        }
        let deep = "0b".repeat(MAX_GROUP_DEPTH + 1) + &"0c".repeat(MAX_GROUP_DEPTH + 1);
        assert!(read(&deep).unwrap_err().reason.contains("deeper"));
        assert!(read(&("0b".repeat(MAX_GROUP_DEPTH) + &"0c".repeat(MAX_GROUP_DEPTH))).is_ok());
    }

    #[test]
    fn runs_nested_past_the_budget_stay_bytes() {
        // Eleven runs inside each other, innermost field 1 = 1.
        let mut msg = vec![0x08, 0x01];
        for _ in 0..11 {
            let mut outer = vec![0x0a, msg.len() as u8];
            outer.extend(&msg);
            msg = outer;
        }
        let f = read_message(&msg, 0..msg.len(), TOP).unwrap();
        let mut depth = 0;
        let mut fields = &f;
        while let Payload::Len(_, Some(inner)) = &fields[0].payload {
            depth += 1;
            fields = inner;
        }
        assert_eq!(depth, NESTED_BUDGET);
    }

    #[test]
    fn delimited_streams_split_by_their_prefixes() {
        assert_eq!(split_delimited(&[2, 8, 1, 0, 3, 8, 0x96, 1]).unwrap(), vec![1..3, 4..4, 5..8]);
        assert_eq!(split_delimited(&[5, 8]).unwrap_err().offset, 0);
    }
}
