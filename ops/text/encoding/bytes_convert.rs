//! Bytes as numbers and back (`bytes/convert`): each byte in binary, octal, decimal or hex, or
//! each character as its code point (a char code), optionally with the bytes of every word
//! swapped first (endianness).

use wrench_contract::prelude::*;
use wrench_infra::bounds::OutputBudget;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum NumberBase {
    /// Eight binary digits a byte: `01001000`.
    Binary,
    /// Three octal digits a byte: `110`.
    Octal,
    /// A byte in decimal: `72`.
    Decimal,
    /// Two hex digits a byte: `48`.
    Hex,
    /// A character's Unicode code point in decimal: `72`, `233`, `128512` (text only).
    Charcode,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct BytesConvertInput {
    /// With `to`: the bytes (text, or as `inputEncoding` says). With `from`: the numbers,
    /// separated by anything that is not a digit of their base (spaces, commas, line breaks).
    input: String,
    /// How `input` carries its bytes when converting `to` numbers: `utf-8` (the default),
    /// `hex`, `base64` or `base64url`.
    #[serde(default)]
    input_encoding: InputEncoding,
    /// Write the bytes as numbers of this base; give this or `from`.
    #[serde(default)]
    to: Option<NumberBase>,
    /// Read numbers of this base back to bytes; give this or `to`.
    #[serde(default)]
    from: Option<NumberBase>,
    /// Between two numbers of a line (with `to`); a space by default.
    #[serde(default = "space")]
    #[schemars(length(max = 16))]
    delimiter: String,
    /// Numbers per line (with `to`); 0, the default, writes one line.
    #[serde(default)]
    #[schemars(range(min = 0, max = 65536))]
    width: u32,
    /// Reverse the bytes of every word of this many bytes (2, 4 or 8) before writing them
    /// (with `to`) or after reading them (with `from`): little- to big-endian and back. The
    /// bytes must be a whole number of words. Not for char codes.
    #[serde(default)]
    #[schemars(range(min = 2, max = 8))]
    swap_endianness: Option<u8>,
    /// With `from`, how to write the bytes: `auto` (the default: text when they are UTF-8
    /// text without control characters other than tab and line breaks, else standard Base64),
    /// `utf-8`, `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

fn space() -> String {
    " ".into()
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct BytesConvertOutput {
    /// The numbers (with `to`), or the bytes read back (with `from`) written as
    /// `outputEncoding` says.
    output: String,
    /// How `output` is written: `utf-8` for numbers; for bytes, `utf-8`, `hex`, `base64` or
    /// `base64url`.
    output_encoding: UsedEncoding,
    /// How many bytes (or, for char codes, characters) were converted.
    count: usize,
}

fn radix(base: NumberBase) -> u32 {
    match base {
        NumberBase::Binary => 2,
        NumberBase::Octal => 8,
        NumberBase::Decimal | NumberBase::Charcode => 10,
        NumberBase::Hex => 16,
    }
}

fn swap(bytes: &mut [u8], word: Option<u8>, field: &str) -> Result<(), ApiError> {
    let Some(word) = word else { return Ok(()) };
    if !matches!(word, 2 | 4 | 8) {
        return Err(ApiError::invalid("swapEndianness", "a word is 2, 4 or 8 bytes"));
    }
    let word = usize::from(word);
    if !bytes.len().is_multiple_of(word) {
        return Err(ApiError::invalid(
            field,
            format!("{} bytes are not a whole number of {word}-byte words", bytes.len()),
        ));
    }
    bytes.chunks_mut(word).for_each(<[u8]>::reverse);
    Ok(())
}

/// Each number as its base writes it, `delimiter` between them, `width` a line.
fn write(numbers: &[u32], base: NumberBase, delimiter: &str, width: usize) -> String {
    let mut out = String::with_capacity(numbers.len() * 4);
    for (i, &n) in numbers.iter().enumerate() {
        if i > 0 {
            out.push_str(if width > 0 && i % width == 0 { "\n" } else { delimiter });
        }
        out.push_str(&match base {
            NumberBase::Binary => format!("{n:08b}"),
            NumberBase::Octal => format!("{n:03o}"),
            NumberBase::Decimal | NumberBase::Charcode => n.to_string(),
            NumberBase::Hex => format!("{n:02x}"),
        });
    }
    out
}

/// The numbers of `text` in `base`, each within `max`, with the position of a fault.
fn read(text: &str, base: NumberBase, max: u32) -> Result<Vec<u32>, String> {
    let radix = radix(base);
    let mut numbers = Vec::new();
    let mut current: Option<(u32, usize)> = None;
    for (i, c) in text.chars().chain(std::iter::once(' ')).enumerate() {
        match (c.to_digit(radix), current) {
            (Some(d), Some((value, start))) => {
                let value = value.checked_mul(radix).and_then(|v| v.checked_add(d)).filter(|v| *v <= max);
                let value = value.ok_or_else(|| format!("the number at position {start} is over {max}"))?;
                current = Some((value, start));
            }
            (Some(d), None) => current = Some((d, i)),
            (None, _) if c.is_ascii_alphanumeric() => {
                return Err(format!("{c:?} at position {i} is not a digit of base {radix}"));
            }
            (None, Some((value, _))) => {
                numbers.push(value);
                current = None;
            }
            (None, None) => {}
        }
    }
    Ok(numbers)
}

/// Convert bytes to binary, octal, decimal or hex numbers, or back.
///
/// With `to`, writes each byte of `input` as eight binary digits, three octal digits, a decimal
/// number or two hex digits (or, with `charcode`, each character as its code point in decimal),
/// `delimiter` between numbers and `width` numbers a line. With `from`, reads such numbers back
/// (anything that is not a letter or digit separates them; each must fit a byte, or be a code
/// point for `charcode`) and answers the bytes in the encoding `outputEncoding` names.
/// `swapEndianness` reverses the bytes of each 2-, 4- or 8-byte word, as converting between
/// little- and big-endian needs.
#[op(post "/v1/bytes/convert" as bytesConvert, tag = TextAndData, pipe(input -> output),
     rejects = "both or neither of `to` and `from`, a number that does not fit, or bytes that are not whole words",
     example(to_binary, {"input": "Hi!", "to": "binary"}),
     example(from_decimal, {"input": "72, 101, 108, 108, 111", "from": "decimal"}),
     example(charcodes, {"input": "héllo 😀", "to": "charcode", "delimiter": ","}),
     example(swap_words, {"input": "12345678", "inputEncoding": "hex", "to": "hex", "swapEndianness": 4}),
     example(both_directions, {"input": "1", "to": "hex", "from": "hex"}, status = 400))]
async fn bytes_convert(ctx: &Ctx, input: BytesConvertInput) -> Result<BytesConvertOutput, ApiError> {
    match (input.to, input.from) {
        (Some(base), None) => {
            let mut bytes = byte_encoding::decode(&input.input, input.input_encoding, "input")?;
            let numbers: Vec<u32> = if base == NumberBase::Charcode {
                if input.swap_endianness.is_some() {
                    return Err(ApiError::invalid("swapEndianness", "char codes are characters, not words of bytes"));
                }
                let text = String::from_utf8(bytes)
                    .map_err(|_| ApiError::invalid("input", "char codes are of text: the bytes are not UTF-8"))?;
                text.chars().map(u32::from).collect()
            } else {
                swap(&mut bytes, input.swap_endianness, "input")?;
                bytes.iter().map(|&b| u32::from(b)).collect()
            };
            let digits = match base {
                NumberBase::Binary => 8,
                NumberBase::Charcode => 7,
                _ => 3,
            };
            OutputBudget::new(ctx.config.response_limit)
                .add(numbers.len().saturating_mul(digits + input.delimiter.len() * 2 + 2))?;
            let output = write(&numbers, base, &input.delimiter, input.width as usize);
            Ok(BytesConvertOutput { output, output_encoding: UsedEncoding::Utf8, count: numbers.len() })
        }
        (None, Some(base)) => {
            let max = if base == NumberBase::Charcode { 0x10FFFF } else { 255 };
            let numbers = read(&input.input, base, max).map_err(|e| ApiError::invalid("input", e))?;
            let mut bytes = Vec::with_capacity(numbers.len());
            if base == NumberBase::Charcode {
                if input.swap_endianness.is_some() {
                    return Err(ApiError::invalid("swapEndianness", "char codes are characters, not words of bytes"));
                }
                for n in &numbers {
                    let c = char::from_u32(*n)
                        .ok_or_else(|| ApiError::invalid("input", format!("{n} is a surrogate, not a character")))?;
                    bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
            } else {
                bytes.extend(numbers.iter().map(|&n| n as u8));
                swap(&mut bytes, input.swap_endianness, "input")?;
            }
            let (output, output_encoding) = byte_encoding::encode(&bytes, input.output_encoding, "outputEncoding")?;
            Ok(BytesConvertOutput { output, output_encoding, count: numbers.len() })
        }
        _ => Err(ApiError::invalid("to", "give one of `to` (bytes to numbers) and `from` (numbers to bytes)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `format(b, '08b')`, `format(b, '03o')`, `str(b)`, `format(b, '02x')` and
    /// `ord(c)` on the same bytes, and `int(x, base)` reading them back
    /// (tests/fixtures/byte_numbers.py).
    #[test]
    fn python_agrees() {
        let fixture = crate::testing::fixture("byte_numbers.json");
        let cases = fixture.as_array().unwrap();
        assert!(cases.len() >= 10);
        for case in cases {
            let bytes = ::hex::decode(case["hex"].as_str().unwrap()).unwrap();
            let numbers: Vec<u32> = bytes.iter().map(|&b| u32::from(b)).collect();
            for (name, base) in [
                ("binary", NumberBase::Binary),
                ("octal", NumberBase::Octal),
                ("decimal", NumberBase::Decimal),
                ("hex_spaced", NumberBase::Hex),
            ] {
                let want = case[name].as_str().unwrap();
                assert_eq!(write(&numbers, base, " ", 0), want, "{name}");
                assert_eq!(read(want, base, 255).unwrap(), numbers, "{name}");
            }
            if let Some(want) = case["charcode"].as_str() {
                let text = std::str::from_utf8(&bytes).unwrap();
                let codes: Vec<u32> = text.chars().map(u32::from).collect();
                assert_eq!(write(&codes, NumberBase::Charcode, ",", 0), want);
                assert_eq!(read(want, NumberBase::Charcode, 0x10FFFF).unwrap(), codes);
            }
            let mut swapped = bytes.clone();
            if swap(&mut swapped, Some(4), "input").is_ok() {
                assert_eq!(::hex::encode(swapped), case["swapped4"].as_str().unwrap());
            }
        }
    }

    #[test]
    fn errors_point() {
        assert_eq!(read("72 256", NumberBase::Decimal, 255).unwrap_err(), "the number at position 3 is over 255");
        assert_eq!(
            read("0101 0102", NumberBase::Binary, 255).unwrap_err(),
            "'2' at position 8 is not a digit of base 2"
        );
        assert_eq!(read("  ,, ", NumberBase::Hex, 255).unwrap(), Vec::<u32>::new());
    }
}
