//! Hex dumps as the two common tools print them, byte for byte, and back (`hexdump`,
//! `hexdump/parse`): `xxd` (offset, grouped hex, text) and `hexdump -C`, the canonical form
//! (offset, sixteen bytes in two halves, text between bars, repeated lines squeezed to `*`).

use std::fmt::Write as _;

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding};

use super::reading::Decoded;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum HexdumpStyle {
    /// `xxd`: `00000000: 4865 6c6c 6f0a  Hello.`
    Xxd,
    /// `hexdump -C`: `00000000  48 65 6c 6c 6f 0a  |Hello.|`, sixteen bytes a line.
    Canonical,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HexdumpInput {
    /// What to dump: text (its UTF-8 bytes), or bytes written as `inputEncoding` says.
    text: String,
    /// How `text` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// `xxd` (the default) or `canonical` (`hexdump -C`).
    #[serde(default = "xxd")]
    style: HexdumpStyle,
    /// Bytes per line, as `xxd -c` (1 to 256; 16 by default). The canonical style is always
    /// 16 bytes a line, as `hexdump -C` prints it.
    #[serde(default = "sixteen")]
    #[schemars(range(min = 1, max = 256))]
    width: u32,
    /// Bytes per group of hex digits, as `xxd -g` (2 by default); xxd style only.
    #[serde(default = "two")]
    #[schemars(range(min = 1, max = 256))]
    group_size: u32,
    /// Upper-case hex digits, as `xxd -u`; xxd style only.
    #[serde(default)]
    uppercase: bool,
    /// Print a line equal to the one before as `*`, as `hexdump -C` does (its `-v` turns this
    /// off); canonical style only.
    #[serde(default = "wrench_contract::decode::yes")]
    squeeze: bool,
}

fn xxd() -> HexdumpStyle {
    HexdumpStyle::Xxd
}

fn sixteen() -> u32 {
    16
}

fn two() -> u32 {
    2
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct HexdumpOutput {
    /// The dump, lines ending in a line feed, as the tool prints it.
    dump: String,
    /// The style used.
    style: HexdumpStyle,
    /// How many bytes were dumped.
    bytes: usize,
}

/// The character the text column shows for a byte: printable ASCII as it is, else `.`.
fn shown(b: u8) -> char {
    if (0x20..0x7f).contains(&b) { b as char } else { '.' }
}

/// `xxd -c width -g group` (with `-u` when `uppercase`).
fn dump_xxd(bytes: &[u8], width: usize, group: usize, uppercase: bool) -> String {
    let group = group.min(width);
    // Every line's hex column is as wide as a full line's: digits and a space after each group.
    let column = 2 * width + width.div_ceil(group);
    let mut out = String::new();
    for (n, line) in bytes.chunks(width).enumerate() {
        let _ = write!(out, "{:08x}: ", n * width);
        let start = out.len();
        for (i, b) in line.iter().enumerate() {
            let _ = if uppercase { write!(out, "{b:02X}") } else { write!(out, "{b:02x}") };
            if (i + 1) % group == 0 || i + 1 == line.len() {
                out.push(' ');
            }
        }
        let written = out.len() - start;
        out.extend(std::iter::repeat_n(' ', column - written + 1));
        out.extend(line.iter().map(|&b| shown(b)));
        out.push('\n');
    }
    out
}

/// `hexdump -C` (with `-v` when not `squeeze`).
fn dump_canonical(bytes: &[u8], squeeze: bool) -> String {
    let mut out = String::new();
    let mut previous: Option<&[u8]> = None;
    let mut starred = false;
    for (n, line) in bytes.chunks(16).enumerate() {
        if squeeze && previous == Some(line) {
            if !starred {
                out.push_str("*\n");
                starred = true;
            }
            continue;
        }
        starred = false;
        previous = Some(line);
        let _ = write!(out, "{:08x}  ", n * 16);
        let start = out.len();
        for (i, b) in line.iter().enumerate() {
            let _ = write!(out, "{b:02x} ");
            if i == 7 {
                out.push(' ');
            }
        }
        let written = out.len() - start;
        out.extend(std::iter::repeat_n(' ', 49 - written));
        out.push_str(" |");
        out.extend(line.iter().map(|&b| shown(b)));
        out.push_str("|\n");
    }
    if !bytes.is_empty() {
        let _ = writeln!(out, "{:08x}", bytes.len());
    }
    out
}

/// Dump bytes in hex, as xxd or hexdump -C print them.
///
/// The `xxd` style (the default) is what `xxd` prints: an eight-digit hex offset and a colon,
/// the bytes in groups of `groupSize` (`-g`, 2 by default), `width` bytes a line (`-c`, 16 by
/// default; upper-case digits with `uppercase`, `-u`), and the text column, where bytes outside
/// printable ASCII show as `.`. The `canonical` style is what `hexdump -C` prints: sixteen
/// bytes a line in two halves, the text between bars, a line equal to the one before as `*`
/// (unless `squeeze` is false, `-v`), and the length as the last offset. Both are byte for byte
/// what the tools print, final line feed included; `hexdump/parse` reads either back.
#[op(post "/v1/hexdump" as hexdump, tag = TextAndData, pipe(text -> dump),
     rejects = "`text` that is not in its `inputEncoding`, or a width other than 16 in the canonical style",
     example(xxd, {"text": "Hello, World!\n"}),
     example(canonical_squeezed, {"text": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGFiYw==", "inputEncoding": "base64", "style": "canonical"}),
     example(narrow_bytes, {"text": "Hello, World!", "width": 8, "groupSize": 1}),
     example(canonical_width, {"text": "x", "style": "canonical", "width": 8}, status = 400))]
async fn hexdump(ctx: &Ctx, input: HexdumpInput) -> Result<HexdumpOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.text, input.input_encoding, "text")?;
    let (width, group) = (input.width as usize, input.group_size as usize);
    if input.style == HexdumpStyle::Canonical && width != 16 {
        return Err(ApiError::invalid("width", "the canonical style is 16 bytes a line, as hexdump -C prints it"));
    }
    // The dump's size as the answer holds it, counted before it is built: per line the offset
    // (10), the hex column, the separators and the line feed (two bytes of JSON), and per byte
    // its character (`"` and `\` are two in JSON; the rest is printable ASCII or `.`).
    let lines = bytes.len().div_ceil(width);
    let column = match input.style {
        HexdumpStyle::Xxd => 2 * width + width.div_ceil(group.clamp(1, width)) + 1,
        HexdumpStyle::Canonical => 49 + 3,
    };
    let quoted = bytes.iter().filter(|&&b| b == b'"' || b == b'\\').count();
    OutputBudget::new(ctx.config.response_limit).add(lines * (10 + column + 2) + bytes.len() + quoted + 12)?;
    let dump = match input.style {
        HexdumpStyle::Xxd => dump_xxd(&bytes, width, group, input.uppercase),
        HexdumpStyle::Canonical => dump_canonical(&bytes, input.squeeze),
    };
    Ok(HexdumpOutput { dump, style: input.style, bytes: bytes.len() })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HexdumpParseInput {
    /// A dump as `xxd` or `hexdump -C` prints it (either style, found line by line).
    dump: String,
    /// How to write the bytes: `auto` (the default: text when they are UTF-8 text without
    /// control characters other than tab and line breaks, else standard Base64), `utf-8`
    /// (text, refused when they are not UTF-8), `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

/// One line of a dump, read.
enum Line {
    /// An offset and the bytes printed after it.
    Bytes(usize, Vec<u8>),
    /// `*`: the line before, repeated up to the next offset.
    Repeat,
    /// An offset alone: the length, which `hexdump -C` prints last.
    End(usize),
}

fn read_line(line: &str) -> Result<Line, String> {
    if line == "*" {
        return Ok(Line::Repeat);
    }
    let digits = line.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(line.len());
    let offset =
        usize::from_str_radix(&line[..digits], 16).map_err(|_| "does not start with a hex offset".to_string())?;
    let rest = &line[digits..];
    if rest.trim().is_empty() {
        return Ok(Line::End(offset));
    }
    // xxd: `offset: groups  text`, the hex column ends at the first two spaces. Canonical:
    // `offset  bytes  bytes  |text|`, the hex column ends at the first bar.
    let column = if let Some(after) = rest.strip_prefix(':') {
        after.trim_start_matches(' ').split("  ").next().unwrap_or("")
    } else {
        rest.split('|').next().unwrap_or("")
    };
    let mut bytes = Vec::new();
    for group in column.split_ascii_whitespace() {
        let decoded = ::hex::decode(group).map_err(|_| format!("{group:?} is not whole bytes in hex"))?;
        bytes.extend(decoded);
    }
    Ok(Line::Bytes(offset, bytes))
}

/// The bytes a dump stands for, at most `cap` of them (a `*` line could stand for gigabytes).
fn read_dump(dump: &str, cap: usize) -> Result<Vec<u8>, ApiError> {
    let at = |n: usize, what: String| ApiError::invalid("dump", format!("line {}: {what}", n + 1));
    let mut out: Vec<u8> = Vec::new();
    let mut last: Option<Vec<u8>> = None;
    let mut repeat = false;
    for (n, line) in dump.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let read = read_line(line).map_err(|e| at(n, e))?;
        let offset = match &read {
            Line::Bytes(offset, _) | Line::End(offset) => *offset,
            Line::Repeat => {
                repeat = true;
                continue;
            }
        };
        if repeat {
            let unit = last
                .as_deref()
                .filter(|l| !l.is_empty())
                .ok_or_else(|| at(n, "`*` follows no line of bytes".into()))?;
            let gap = offset.checked_sub(out.len()).filter(|g| g % unit.len() == 0);
            let Some(gap) = gap else {
                return Err(at(
                    n,
                    format!("offset 0x{offset:x} is not a whole number of repeated lines after 0x{:x}", out.len()),
                ));
            };
            if out.len().saturating_add(gap) > cap {
                return Err(wrench_infra::bounds::result_too_large(out.len().saturating_add(gap), true, cap));
            }
            for _ in 0..gap / unit.len() {
                out.extend_from_slice(unit);
            }
            repeat = false;
        }
        if offset != out.len() {
            return Err(at(n, format!("offset 0x{offset:x}, but the lines before hold 0x{:x} bytes", out.len())));
        }
        match read {
            Line::Bytes(_, bytes) => {
                if out.len() + bytes.len() > cap {
                    return Err(wrench_infra::bounds::result_too_large(out.len() + bytes.len(), true, cap));
                }
                out.extend_from_slice(&bytes);
                last = Some(bytes);
            }
            Line::End(_) => last = None,
            Line::Repeat => unreachable!("handled above"),
        }
    }
    if repeat {
        return Err(ApiError::invalid("dump", "ends with `*`: the offset that ends the repeat is missing"));
    }
    Ok(out)
}

/// Read a hex dump back into bytes.
///
/// Reads what `xxd` and `hexdump -C` print (the style is found line by line, so either works,
/// with any width and grouping): the offset, the hex column, and nothing of the text column.
/// Offsets are checked against the bytes read so far, a `*` line repeats the line before up to
/// the next offset, and the bytes come back as text when they are text, else in the encoding
/// the answer's `outputEncoding` names. A `*` that would stand for more than the response
/// limit is refused before anything is built.
#[op(post "/v1/hexdump/parse" as hexdumpParse, tag = TextAndData, pipe(dump -> decoded),
     rejects = "a line that is not a dump line, an offset that does not follow, or bytes over the response limit, naming the line",
     example(xxd, {"dump": "00000000: 4865 6c6c 6f2c 2057 6f72 6c64 210a       Hello, World!.\n"}),
     example(canonical_squeezed, {"dump": "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n00000040  61 62 63                                          |abc|\n00000043\n", "outputEncoding": "hex"}),
     example(wrong_offset, {"dump": "00000010: 4142  AB\n"}, status = 400))]
async fn hexdump_parse(ctx: &Ctx, input: HexdumpParseInput) -> Result<Decoded, ApiError> {
    let bytes = read_dump(&input.dump, ctx.config.response_limit)?;
    Decoded::of(&bytes, input.output_encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Debian's `xxd` (several widths and groupings, `-u`) and `hexdump -C` (with and without
    /// `-v`) on the same bytes, compared byte for byte, and each dump read back
    /// (tests/fixtures/hex_dumps.py).
    #[test]
    fn the_tools_print_the_same_bytes() {
        let fixture = crate::testing::fixture("hex_dumps.json");
        let cases = fixture["dumps"].as_array().unwrap();
        assert!(cases.len() >= 20);
        for case in cases {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            let want = case["dump"].as_str().unwrap();
            let (w, g) = (case["width"].as_u64().unwrap() as usize, case["group"].as_u64().unwrap() as usize);
            let got = match case["tool"].as_str().unwrap() {
                "xxd" => dump_xxd(&bytes, w, g, case["upper"].as_bool().unwrap()),
                "hexdump -C" => dump_canonical(&bytes, true),
                "hexdump -Cv" => dump_canonical(&bytes, false),
                other => panic!("{other}"),
            };
            assert_eq!(got, want, "{case}");
            assert_eq!(read_dump(want, 1 << 20).unwrap(), bytes, "{case}");
        }
    }

    #[test]
    fn a_star_cannot_stand_for_more_than_the_limit() {
        let bomb = "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\nffffffff0\n";
        let e = read_dump(bomb, 8 << 20).unwrap_err();
        assert_eq!(e.code, wrench_infra::envelope::ErrorCode::ResultTooLarge, "{e:?}");
        let e = read_dump("00000000: 4142  AB\n00000003: 43  C\n", 100).unwrap_err();
        assert!(e.message.contains("line 2: offset 0x3, but the lines before hold 0x2 bytes"), "{}", e.message);
        let e = read_dump("*\n00000010\n", 100).unwrap_err();
        assert!(e.message.contains("`*` follows no line"), "{}", e.message);
    }
}
