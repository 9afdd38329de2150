//! The detector (`detect`): what a blob of text or bytes may be encoded as, found by trying
//! decodings up to three deep (hex, Base64 and its URL-safe form, Base32, Base58, Ascii85,
//! percent-encoding, HTML entities, quoted-printable, gzip, zlib, raw DEFLATE, decimal and
//! binary char codes, ROT13, JWT), ranked by how much the result reads like text, with each candidate's recipe
//! ready for `recipes/run`.
//!
//! Every trial is the operation itself, run as a recipe step through the server, so a
//! candidate's recipe gives its output by construction. A cheap look at the data (its
//! alphabet, a signature) comes first, so that only plausible decodings run; trials are not
//! charged against the rate limit (they are this operation's own work) and are bounded in
//! number.

use std::collections::HashSet;

use base64::Engine;
use wrench_contract::{op::Steps, prelude::*};
use wrench_kit::byte_encoding::{self, InputEncoding, UsedEncoding};

/// Most decodings tried for one request.
const MAX_TRIALS: usize = 200;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[schemars(rename = "DetectInput")]
struct DetectInput {
    /// The data: text, or bytes written as `inputEncoding` says.
    input: String,
    /// How `input` carries its bytes: `utf-8` (the default), `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// How many decodings deep to look, 1 to 3.
    #[serde(default = "three")]
    #[schemars(range(min = 1, max = 3))]
    depth: u8,
    /// Text the decoded data should hold: candidates that hold it rank first.
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    crib: Option<String>,
    /// Most candidates answered, 1 to 50.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 50))]
    limit: u8,
}

fn three() -> u8 {
    3
}

fn ten() -> u8 {
    10
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "DetectOutput")]
struct DetectOutput {
    /// The candidates, best first; the input itself, undecoded, is one of them.
    candidates: Vec<Candidate>,
    /// How many decodings were tried.
    tried: usize,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "DetectCandidate")]
struct Candidate {
    /// The decodings, in order (`base64`, `gzip`); empty for the input itself.
    decodings: Vec<&'static str>,
    /// The recipe that gives `output`: send it to `POST /v1/recipes/run` as it is (`null`
    /// for the input itself).
    recipe: Value,
    /// The decoded bytes, as text when they are text, else in Base64.
    output: String,
    /// How `output` is written: `utf-8` or `base64`.
    output_encoding: UsedEncoding,
    /// Size of the decoded bytes.
    bytes: usize,
    /// The rank: higher reads more like meaningful text (printable, letters and spaces, English
    /// letter frequencies, low entropy, parses as JSON, came out of a structural decoding as
    /// text), with a large bonus for holding the crib and a small cost per decoding.
    score: f64,
    /// Share of the characters that are printable (0 to 1).
    printable: f64,
    /// Shannon entropy in bits per byte (0 to 8).
    entropy: f64,
    /// Whether the bytes are UTF-8.
    valid_utf8: bool,
    /// Whether the output holds the crib (`null` without one).
    matches_crib: Option<bool>,
}

/// One decoding the detector tries.
struct Decoding {
    name: &'static str,
    op: &'static str,
    /// The step's arguments beside its primary input (the fields the step reads and writes
    /// are the operation's declared pipe, from the catalog).
    args: fn() -> Value,
    /// Whether the data may be this: a look at its alphabet or signature.
    fits: fn(&[u8]) -> bool,
    /// Takes any bytes (in Base64 with `inputEncoding`), not only text.
    bytes_in: bool,
}

fn none() -> Value {
    json!({})
}

fn text_of(bytes: &[u8]) -> Option<&str> {
    byte_encoding::is_text(bytes).then(|| std::str::from_utf8(bytes).ok()).flatten()
}

/// `text` with whitespace removed, if every other character is one of `alphabet`.
fn only(bytes: &[u8], alphabet: impl Fn(u8) -> bool, least: usize) -> bool {
    let mut n = 0;
    for &b in bytes {
        if b.is_ascii_whitespace() {
            continue;
        }
        if !alphabet(b) {
            return false;
        }
        n += 1;
    }
    n >= least
}

fn is_hex(b: &[u8]) -> bool {
    let digits = b.iter().filter(|c| c.is_ascii_hexdigit()).count();
    let text = String::from_utf8_lossy(b).replace("0x", "").replace("\\x", "");
    only(text.as_bytes(), |c| c.is_ascii_hexdigit() || b":,-".contains(&c), 4) && digits % 2 == 0
}

fn is_base64(b: &[u8]) -> bool {
    let body: Vec<u8> = b.iter().copied().filter(|c| !c.is_ascii_whitespace()).collect();
    let trimmed = body.iter().rposition(|&c| c != b'=').map_or(&body[..0], |i| &body[..=i]);
    body.len() - trimmed.len() <= 2
        && trimmed.len() % 4 != 1
        && only(trimmed, |c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/', 4)
}

fn is_base64url(b: &[u8]) -> bool {
    let trimmed = b.iter().rposition(|&c| c != b'=').map_or(&b[..0], |i| &b[..=i]);
    b.iter().any(|c| *c == b'-' || *c == b'_')
        && trimmed.len() % 4 != 1
        && only(trimmed, |c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_', 4)
}

fn is_base32(b: &[u8]) -> bool {
    let trimmed = b.iter().rposition(|&c| c != b'=').map_or(&b[..0], |i| &b[..=i]);
    only(trimmed, |c| c.is_ascii_uppercase() || (b'2'..=b'7').contains(&c), 8)
}

fn is_base58(b: &[u8]) -> bool {
    only(b, |c| c.is_ascii_alphanumeric() && !b"0OIl".contains(&c), 6)
}

fn is_ascii85(b: &[u8]) -> bool {
    b.starts_with(b"<~")
        || (only(b, |c| (b'!'..=b'u').contains(&c) || c == b'z', 5) && !only(b, |c| c.is_ascii_alphanumeric(), 1))
}

/// Printable ASCII in lines, with an `=XX` in upper-case hex (as encoders write it) or a soft
/// line break.
fn is_quoted_printable(b: &[u8]) -> bool {
    let upper_hex = |c: u8| c.is_ascii_digit() || (b'A'..=b'F').contains(&c);
    b.iter().all(|&c| (b' '..=b'~').contains(&c) || matches!(c, b'\t' | b'\r' | b'\n'))
        && (b.windows(3).any(|w| w[0] == b'=' && upper_hex(w[1]) && upper_hex(w[2]))
            || b.windows(2).any(|w| w == b"=\n"))
}

fn has_percent(b: &[u8]) -> bool {
    b.windows(3).any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
}

fn has_entity(b: &[u8]) -> bool {
    let text = String::from_utf8_lossy(b);
    text.split('&').skip(1).any(|rest| {
        rest.split_once(';').is_some_and(|(name, _)| {
            !name.is_empty()
                && name.len() <= 32
                && name.trim_start_matches('#').chars().all(|c| c.is_ascii_alphanumeric())
        })
    })
}

fn is_decimal_codes(b: &[u8]) -> bool {
    let text = String::from_utf8_lossy(b);
    let numbers: Vec<&str> =
        text.split(|c: char| c.is_whitespace() || c == ',' || c == ';').filter(|s| !s.is_empty()).collect();
    numbers.len() >= 2 && numbers.iter().all(|n| n.len() <= 3 && n.parse::<u16>().is_ok_and(|v| v <= 255))
}

fn is_binary_codes(b: &[u8]) -> bool {
    let text = String::from_utf8_lossy(b);
    let groups: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == ',').filter(|s| !s.is_empty()).collect();
    !groups.is_empty() && groups.iter().all(|g| g.len() == 8 && g.bytes().all(|c| c == b'0' || c == b'1'))
}

fn has_letters(b: &[u8]) -> bool {
    b.iter().filter(|c| c.is_ascii_alphabetic()).count() >= 4
}

fn is_jwt(b: &[u8]) -> bool {
    let parts: Vec<&[u8]> = b.split(|c| *c == b'.').collect();
    parts.len() == 3
        && parts[..2]
            .iter()
            .all(|p| p.len() >= 2 && only(p, |c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_', 2))
        && parts[0].starts_with(b"ey")
}

fn is_gzip(b: &[u8]) -> bool {
    b.starts_with(&[0x1f, 0x8b, 0x08])
}

fn is_zlib(b: &[u8]) -> bool {
    b.len() > 2 && b[0] & 0x0f == 8 && b[0] >> 4 <= 7 && (u16::from(b[0]) << 8 | u16::from(b[1])) % 31 == 0
}

fn is_binary(b: &[u8]) -> bool {
    b.len() >= 2 && !byte_encoding::is_text(b)
}

const DECODINGS: &[Decoding] = &[
    Decoding { name: "hex", op: "hexDecode", args: none, fits: is_hex, bytes_in: false },
    Decoding { name: "base64", op: "base64Decode", args: none, fits: is_base64, bytes_in: false },
    Decoding {
        name: "base64url",
        op: "base64Decode",
        args: || json!({"urlSafe": true}),
        fits: is_base64url,
        bytes_in: false,
    },
    Decoding { name: "base32", op: "base32Decode", args: none, fits: is_base32, bytes_in: false },
    Decoding { name: "base58", op: "base58Decode", args: none, fits: is_base58, bytes_in: false },
    Decoding {
        name: "ascii85",
        op: "base85Decode",
        args: || json!({"variant": "adobe"}),
        fits: |b| b.starts_with(b"<~"),
        bytes_in: false,
    },
    Decoding {
        name: "ascii85",
        op: "base85Decode",
        args: || json!({"variant": "ascii85"}),
        fits: |b| !b.starts_with(b"<~") && is_ascii85(b),
        bytes_in: false,
    },
    Decoding { name: "url", op: "urlDecode", args: none, fits: has_percent, bytes_in: false },
    Decoding { name: "html-entities", op: "htmlEntitiesDecode", args: none, fits: has_entity, bytes_in: false },
    Decoding {
        name: "quoted-printable",
        op: "quotedPrintableDecode",
        args: none,
        fits: is_quoted_printable,
        bytes_in: false,
    },
    Decoding {
        name: "charcodes",
        op: "bytesConvert",
        args: || json!({"from": "decimal"}),
        fits: is_decimal_codes,
        bytes_in: false,
    },
    Decoding {
        name: "binary",
        op: "bytesConvert",
        args: || json!({"from": "binary"}),
        fits: is_binary_codes,
        bytes_in: false,
    },
    Decoding { name: "rot13", op: "rot", args: || json!({"variant": "rot13"}), fits: has_letters, bytes_in: false },
    Decoding { name: "jwt", op: "jwtDecode", args: none, fits: is_jwt, bytes_in: false },
    Decoding { name: "gzip", op: "decompress", args: || json!({"format": "gzip"}), fits: is_gzip, bytes_in: true },
    Decoding { name: "zlib", op: "decompress", args: || json!({"format": "zlib"}), fits: is_zlib, bytes_in: true },
    Decoding {
        name: "deflate",
        op: "decompress",
        args: || json!({"format": "deflate"}),
        fits: |b| is_binary(b) && !is_gzip(b) && !is_zlib(b),
        bytes_in: true,
    },
];

/// Something found: its bytes and the decodings that gave them.
struct Found {
    bytes: Vec<u8>,
    path: Vec<&'static Decoding>,
}

/// Detect how data is encoded.
///
/// Tries decodings of `input` up to `depth` deep (1 to 3): hex, Base64 (standard and URL-safe),
/// Base32, Base58, Ascii85, percent-encoding, HTML entities, decimal and binary char codes,
/// ROT13, JWT, gzip, zlib and raw DEFLATE, each only where the data looks like it could be
/// one (its alphabet, its signature). Every result is a candidate, ranked by how much it reads
/// like meaningful text; a `crib` the result holds ranks it first. Each candidate carries the
/// recipe that gives it, ready for `POST /v1/recipes/run` (every trial runs that very
/// operation), with its output, printable share, entropy and whether it is UTF-8. At most 200
/// decodings are tried; they do not count against the rate limit.
#[op(post "/v1/detect" as detectEncoding, tag = Recipes, cpu,
     rejects = "`input` that is not in its `inputEncoding`",
     example(base64_of_gzip, {"input": "H4sIAAAAAAACA6tWSlSyMtRRSlKyii4pKk3VySvNyYmtBQBZPKdFFwAAAA=="}),
     example(hex_with_crib, {"input": "48656c6c6f2c20576f726c6421", "crib": "World"}),
     example(one_deep, {"input": "aGVsbG8gd29ybGQ=", "depth": 1, "limit": 3}),
     example(bad_hex, {"input": "zz", "inputEncoding": "hex"}, status = 400))]
async fn detect_encoding(ctx: &Ctx, input: DetectInput) -> Result<DetectOutput, ApiError> {
    let steps: &dyn Steps =
        ctx.steps.as_deref().ok_or_else(|| ApiError::internal("the detector runs only inside a server"))?;
    let root = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
    let mut seen: HashSet<Vec<u8>> = HashSet::from([root.clone()]);
    let mut found = vec![Found { bytes: root, path: Vec::new() }];
    let mut frontier = vec![0usize];
    let mut tried = 0;
    for _ in 0..input.depth {
        let mut next = Vec::new();
        for &at in &frontier {
            for decoding in DECODINGS {
                let here = &found[at];
                if tried >= MAX_TRIALS || !(decoding.fits)(&here.bytes) {
                    continue;
                }
                let pipe = steps
                    .catalog()
                    .get(decoding.op)
                    .and_then(|e| e.primary_input.as_ref().zip(e.primary_output.as_ref()));
                let Some((field_in, field_out)) = pipe else { continue };
                let Some(call) = step_input(decoding, field_in, &here.bytes) else { continue };
                tried += 1;
                let Ok(answer) = steps.run(ctx, decoding.op, &call, false, ctx.config.response_limit).await else {
                    continue;
                };
                let Some(bytes) = output_bytes(&answer.data, field_out) else { continue };
                if bytes.is_empty() || !seen.insert(bytes.clone()) {
                    continue;
                }
                let mut path = here.path.clone();
                path.push(decoding);
                next.push(found.len());
                found.push(Found { bytes, path });
            }
        }
        frontier = next;
    }
    let mut candidates: Vec<Candidate> =
        found.iter().map(|f| candidate(f, &input.input, input.input_encoding, input.crib.as_deref())).collect();
    candidates.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.decodings.len().cmp(&b.decodings.len())));
    candidates.truncate(usize::from(input.limit));
    Ok(DetectOutput { candidates, tried })
}

/// The input of a step of `decoding` on `bytes`, given in its primary input `field`: text
/// decoders take the text (and need it to be text), byte decoders take Base64.
fn step_input(decoding: &Decoding, field: &str, bytes: &[u8]) -> Option<Value> {
    let mut call = (decoding.args)();
    if decoding.bytes_in {
        call[field] = json!(base64::engine::general_purpose::STANDARD.encode(bytes));
        call["inputEncoding"] = json!("base64");
    } else {
        call[field] = json!(text_of(bytes)?);
    }
    Some(call)
}

/// The bytes a step answered in `field`: a string in its `outputEncoding`, or any other JSON
/// value as its compact text.
fn output_bytes(data: &Value, field: &str) -> Option<Vec<u8>> {
    match data.get(field)? {
        Value::String(s) => {
            let encoding = match data.get("outputEncoding").and_then(Value::as_str) {
                Some("hex") => InputEncoding::Hex,
                Some("base64") => InputEncoding::Base64,
                Some("base64url") => InputEncoding::Base64Url,
                _ => InputEncoding::Utf8,
            };
            byte_encoding::decode(s, encoding, field).ok()
        }
        other => serde_json::to_vec(other).ok(),
    }
}

/// The recipe that gives `found` from the request's input (`null` for the input itself).
fn recipe(found: &Found, input: &str, encoding: InputEncoding) -> Value {
    if found.path.is_empty() {
        return Value::Null;
    }
    let mut steps = Vec::new();
    // The first step reads the input as given: a byte decoder through its inputEncoding, a text
    // decoder as text (the bytes were text, or it would not have been tried).
    let mut recipe_input = json!(input);
    for (i, d) in found.path.iter().enumerate() {
        let mut args = (d.args)();
        if i == 0 {
            if d.bytes_in {
                args["inputEncoding"] = json!(encoding_name(encoding));
            } else if encoding != InputEncoding::Utf8 {
                let bytes = byte_encoding::decode(input, encoding, "input").unwrap_or_default();
                recipe_input = json!(String::from_utf8_lossy(&bytes));
            }
        }
        steps.push(if args == json!({}) { json!(d.op) } else { json!({"op": d.op, "args": args}) });
    }
    json!({"input": recipe_input, "steps": steps})
}

fn encoding_name(e: InputEncoding) -> &'static str {
    match e {
        InputEncoding::Utf8 => "utf-8",
        InputEncoding::Hex => "hex",
        InputEncoding::Base64 => "base64",
        InputEncoding::Base64Url => "base64url",
    }
}

fn candidate(found: &Found, input: &str, encoding: InputEncoding, crib: Option<&str>) -> Candidate {
    let bytes = &found.bytes;
    let text = std::str::from_utf8(bytes).ok();
    let printable = printable_share(bytes);
    let entropy = entropy(bytes);
    let matches_crib = crib.map(|c| String::from_utf8_lossy(bytes).contains(c));
    let letters = text.map_or(0.0, letter_share);
    let english = text.map_or(0.0, english_likeness);
    // A structure's decoding (not a letter rotation, which any text survives) that gives text
    // is evidence that the data was that structure.
    let decoded_to_text = found.path.iter().any(|d| d.name != "rot13") && byte_encoding::is_text(bytes);
    let json_bonus =
        if text.is_some_and(|t| serde_json::from_str::<Value>(t).is_ok_and(|v| v.is_object() || v.is_array())) {
            2.0
        } else {
            0.0
        };
    let score = 10.0 * printable
        + 6.0 * letters
        + 8.0 * english
        + (8.0 - entropy) / 2.0
        + json_bonus
        + if decoded_to_text { 2.0 } else { 0.0 }
        + if matches_crib == Some(true) { 100.0 } else { 0.0 }
        - 0.25 * found.path.len() as f64;
    let (output, output_encoding) = if byte_encoding::is_text(bytes) {
        (String::from_utf8_lossy(bytes).into_owned(), UsedEncoding::Utf8)
    } else {
        (base64::engine::general_purpose::STANDARD.encode(bytes), UsedEncoding::Base64)
    };
    Candidate {
        decodings: found.path.iter().map(|d| d.name).collect(),
        recipe: recipe(found, input, encoding),
        output,
        output_encoding,
        bytes: bytes.len(),
        score: (score * 1000.0).round() / 1000.0,
        printable: (printable * 1000.0).round() / 1000.0,
        entropy: (entropy * 1000.0).round() / 1000.0,
        valid_utf8: text.is_some(),
        matches_crib,
    }
}

/// Share of the characters (bytes, when not UTF-8) that are printable: not control characters
/// other than tab and line breaks, and not the replacement character.
fn printable_share(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    match std::str::from_utf8(bytes) {
        Ok(t) => {
            let total = t.chars().count() as f64;
            let good = t.chars().filter(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\r')).count() as f64;
            good / total
        }
        Err(_) => {
            bytes.iter().filter(|b| (0x20..0x7f).contains(*b) || matches!(b, b'\t' | b'\n' | b'\r')).count() as f64
                / bytes.len() as f64
        }
    }
}

/// Share of the characters that are letters, digits, spaces or common punctuation: how much a
/// text reads like words rather than an encoding's alphabet soup.
fn letter_share(text: &str) -> f64 {
    let total = text.chars().count();
    if total == 0 {
        return 0.0;
    }
    let spaces = text.chars().filter(|c| *c == ' ').count() as f64 / total as f64;
    let words =
        text.chars().filter(|c| c.is_alphabetic() || *c == ' ' || ",.'!?".contains(*c)).count() as f64 / total as f64;
    // Prose has a space every five or six characters; an encoding has none.
    words * 0.5 + (spaces * 5.0).min(1.0) * 0.5
}

/// How closely the letters of `text` follow English's letter frequencies: the cosine of the
/// two frequency vectors (0 to 1), 0 below three letters. Relative frequencies of English
/// letters in percent, a to z, from Lewand, "Cryptological Mathematics" (2000), table 1.1.
fn english_likeness(text: &str) -> f64 {
    const ENGLISH: [f64; 26] = [
        8.167, 1.492, 2.782, 4.253, 12.702, 2.228, 2.015, 6.094, 6.966, 0.153, 0.772, 4.025, 2.406, 6.749, 7.507,
        1.929, 0.095, 5.987, 6.327, 9.056, 2.758, 0.978, 2.360, 0.150, 1.974, 0.074,
    ];
    let mut counts = [0.0f64; 26];
    for c in text.chars().filter(char::is_ascii_alphabetic) {
        counts[(c.to_ascii_lowercase() as u8 - b'a') as usize] += 1.0;
    }
    if counts.iter().sum::<f64>() < 3.0 {
        return 0.0;
    }
    let dot: f64 = counts.iter().zip(ENGLISH).map(|(a, b)| a * b).sum();
    let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
    dot / (norm(&counts) * norm(&ENGLISH))
}

/// Shannon entropy in bits per byte.
fn entropy(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0usize; 256];
    for &b in bytes {
        counts[b as usize] += 1;
    }
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_looks_tell_encodings_apart() {
        assert!(is_hex(b"48656c6c6f") && is_hex(b"48 65 6c") && is_hex(b"0x48,0x65") && !is_hex(b"4865z"));
        assert!(!is_hex(b"486"), "an odd number of digits");
        assert!(is_base64(b"aGVsbG8=") && is_base64(b"aGVs\nbG8") && !is_base64(b"a===") && !is_base64(b"a-b_"));
        assert!(is_base64url(b"aGk-_w") && !is_base64url(b"aGVsbG8="));
        assert!(is_base32(b"NBSWY3DP") && !is_base32(b"nbswy3dp"));
        assert!(is_base58(b"StV1DL6CwTryKyV") && !is_base58(b"0OIl00"));
        assert!(has_percent(b"a%20b") && !has_percent(b"100%"));
        assert!(is_quoted_printable(b"caf=C3=A9") && is_quoted_printable(b"a=\nb") && !is_quoted_printable(b"aGk="));
        assert!(!is_quoted_printable(b"caf=c3=a9") && !is_quoted_printable("caf=C3=A9 é".as_bytes()));
        assert!(has_entity(b"a &amp; b") && has_entity(b"&#x41;") && !has_entity(b"a & b; c"));
        assert!(is_decimal_codes(b"72 101 108") && !is_decimal_codes(b"72 256") && !is_decimal_codes(b"72"));
        assert!(is_binary_codes(b"01001000 01101001") && !is_binary_codes(b"0100100"));
        assert!(is_jwt(b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig") && !is_jwt(b"a.b.c"));
        assert!(is_gzip(&[0x1f, 0x8b, 8, 0]) && is_zlib(&[0x78, 0x9c, 1]) && !is_zlib(&[0x78, 0x9d]));
    }

    #[test]
    fn entropy_and_shares() {
        assert_eq!(entropy(b"aaaa"), 0.0);
        assert!((entropy(&(0..=255).collect::<Vec<u8>>()) - 8.0).abs() < 1e-9);
        assert_eq!(printable_share(b"ab\x01\x02"), 0.5);
        assert!(letter_share("the quick brown fox") > letter_share("dGhlIHF1aWNr"));
        let plain = "It was the best of times, it was the worst of times";
        let rot13 = "Vg jnf gur orfg bs gvzrf, vg jnf gur jbefg bs gvzrf";
        assert!(
            english_likeness(plain) > english_likeness(rot13) + 0.2,
            "{} {}",
            english_likeness(plain),
            english_likeness(rot13)
        );
    }
}
