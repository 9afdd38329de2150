//! `unicode/inspect`: every code point of a text with what the Unicode Character Database says
//! of it (name, general category, script, block) and how it is encoded (UTF-8 bytes, UTF-16
//! units). Names come from unicode_names2 (Unicode 17.0, algorithmic names of CJK ideographs
//! and Hangul syllables included); categories, scripts and blocks from ICU4X's compiled data
//! (Unicode 18.0). A code point with no name (a control, a private-use or unassigned one) gets
//! the code-point label the standard gives such code points (section 4.8), `<control-0007>`.

use icu_properties::props::{Block, GeneralCategory, Script};
use icu_properties::{CodePointMapData, PropertyNamesLong, PropertyNamesShort};
use unicode_segmentation::UnicodeSegmentation;
use wrench_contract::prelude::*;

/// The most code points one request inspects; each takes about 300 bytes of answer.
const MAX_CHARS: usize = 10_000;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct UnicodeInspectInput {
    /// The text, at most 10,000 code points.
    #[schemars(length(min = 1, max = 10000))]
    text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CodePoint {
    /// The character itself.
    char: String,
    /// `U+` and four to six hex digits.
    code_point: String,
    /// The code point as a number.
    decimal: u32,
    /// The character's name; null for code points without one (see `label`).
    name: Option<String>,
    /// The name, or for a code point without one its label: `<control-0007>`,
    /// `<private-use-E000>`, `<noncharacter-FFFF>`, `<reserved-0378>`.
    label: String,
    /// The general category's two-letter code (`Lu`, `Nd`, `So`, `Cn` for unassigned).
    category: String,
    /// The general category's name (`Uppercase Letter`).
    category_name: String,
    /// The script (`Latin`, `Han`, `Common`, `Inherited`, `Unknown`).
    script: String,
    /// The script's ISO 15924 code (`Latn`, `Hani`, `Zyyy`).
    script_code: String,
    /// The block (`Basic Latin`); `No Block` outside every block.
    block: String,
    /// The UTF-8 bytes, upper-case hex separated by spaces.
    utf8: String,
    /// The UTF-16 code units, upper-case hex separated by spaces.
    utf16: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UnicodeInspectOutput {
    /// Code points in the text.
    code_points: usize,
    /// User-perceived characters (extended grapheme clusters).
    graphemes: usize,
    /// Length in UTF-8 bytes.
    utf8_bytes: usize,
    /// Length in UTF-16 code units (what JavaScript's `length` counts).
    utf16_units: usize,
    /// Each code point, in order.
    chars: Vec<CodePoint>,
    /// The Unicode versions the properties come from.
    unicode_version: UnicodeVersions,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UnicodeVersions {
    /// Of the names.
    names: &'static str,
    /// Of categories, scripts and blocks.
    properties: &'static str,
}

/// Inspect the Unicode characters of a text.
///
/// Lists each code point of the text (at most 10,000) with its name (or, for controls,
/// private-use, noncharacter and unassigned code points, its label such as `<control-0007>`),
/// general category, script, block, and its UTF-8 bytes and UTF-16 units; with the text's
/// length in code points, grapheme clusters, UTF-8 bytes and UTF-16 units. Useful for finding
/// look-alike letters, invisible characters and mixed scripts. Names are Unicode 17.0's, the
/// other properties Unicode 18.0's.
#[op(post "/v1/unicode/inspect" as unicodeInspect, tag = TextAndData,
     rejects = "an empty text, or one of more than 10,000 code points",
     example(mixed, {"text": "Aé€😀\u{200B}"}),
     example(lookalike, {"text": "pаypal"}),
     example(empty, {"text": ""}, status = 400))]
async fn unicode_inspect(input: UnicodeInspectInput) -> Result<UnicodeInspectOutput, ApiError> {
    let count = input.text.chars().count();
    if count > MAX_CHARS {
        return Err(ApiError::invalid("text", format!("holds {count} code points; at most {MAX_CHARS} are inspected")));
    }
    let chars: Vec<CodePoint> = input.text.chars().map(inspect).collect();
    Ok(UnicodeInspectOutput {
        code_points: count,
        graphemes: input.text.graphemes(true).count(),
        utf8_bytes: input.text.len(),
        utf16_units: input.text.encode_utf16().count(),
        chars,
        unicode_version: UnicodeVersions { names: "17.0", properties: "18.0" },
    })
}

/// A property value's long name as the database spells it, with spaces for its underscores.
fn spaced(name: Option<&str>) -> String {
    name.unwrap_or("").replace('_', " ")
}

fn inspect(c: char) -> CodePoint {
    let gc = CodePointMapData::<GeneralCategory>::new().get(c);
    let script = CodePointMapData::<Script>::new().get(c);
    let block = CodePointMapData::<Block>::new().get(c);
    let category = PropertyNamesShort::<GeneralCategory>::new().get(gc).unwrap_or("Cn").to_string();
    let name = unicode_names2::name(c).map(|n| n.to_string());
    let cp = c as u32;
    let label = name.clone().unwrap_or_else(|| {
        let kind = match category.as_str() {
            "Cc" => "control",
            "Co" => "private-use",
            "Cs" => "surrogate",
            // Noncharacters: U+FDD0..U+FDEF and the last two code points of every plane.
            _ if (0xFDD0..=0xFDEF).contains(&cp) || cp & 0xFFFE == 0xFFFE => "noncharacter",
            "Cn" => "reserved",
            _ => "unnamed",
        };
        format!("<{kind}-{cp:04X}>")
    });
    let mut utf8 = [0u8; 4];
    let mut utf16 = [0u16; 2];
    CodePoint {
        char: c.to_string(),
        code_point: format!("U+{cp:04X}"),
        decimal: cp,
        name,
        label,
        category_name: spaced(PropertyNamesLong::<GeneralCategory>::new().get(gc)),
        category,
        script: spaced(PropertyNamesLong::<Script>::new().get(script)),
        script_code: PropertyNamesShort::<Script>::new().get(script).unwrap_or("Zzzz").to_string(),
        block: spaced(PropertyNamesLong::<Block>::new().get(block)),
        utf8: c.encode_utf8(&mut utf8).bytes().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(" "),
        utf16: c.encode_utf16(&mut utf16).iter().map(|u| format!("{u:04X}")).collect::<Vec<_>>().join(" "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_points_agree_with_python_and_the_ucd_files() {
        // tests/fixtures/unicode_chars.py: names from PyPI unicodedata2 17.0, categories from
        // unicodedata2 18.0, scripts and blocks from fontTools' copies of Scripts.txt and
        // Blocks.txt 18.0, for every ASCII code point and 5,000 others across all planes.
        let fixture = crate::testing::fixture("unicode_chars.json");
        let cases = fixture.as_array().expect("cases");
        assert!(cases.len() > 5_000, "{}", cases.len());
        let mut mismatches = Vec::new();
        for case in cases {
            let cp = case[0].as_u64().unwrap() as u32;
            let c = char::from_u32(cp).unwrap();
            let got = inspect(c);
            // Scripts and blocks are compared as UAX #44 matches property values (LM3: case,
            // spaces, underscores and hyphens ignored): the files write `Latin-1 Supplement`,
            // the aliases ICU4X names them by `Latin_1_Supplement`.
            let loose =
                |s: &str| s.chars().filter(|c| !matches!(c, ' ' | '_' | '-')).collect::<String>().to_lowercase();
            let same = got.name.as_deref() == case[1].as_str()
                && got.category == case[2].as_str().unwrap()
                && loose(&got.script) == loose(case[3].as_str().unwrap())
                && loose(&got.block) == loose(case[4].as_str().unwrap());
            if !same {
                mismatches.push(format!(
                    "U+{cp:04X}: {:?} {} {} {} != {case}",
                    got.name, got.category, got.script, got.block
                ));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{} mismatches:\n{}",
            mismatches.len(),
            mismatches[..mismatches.len().min(20)].join("\n")
        );
    }

    #[test]
    fn labels_lengths_and_encodings() {
        let c = inspect('\u{7}');
        assert_eq!((c.name, c.label.as_str(), c.category.as_str()), (None, "<control-0007>", "Cc"));
        assert_eq!(inspect('\u{E000}').label, "<private-use-E000>");
        assert_eq!(inspect('\u{FFFF}').label, "<noncharacter-FFFF>");
        assert_eq!(inspect('\u{10FFFE}').label, "<noncharacter-10FFFE>");
        assert_eq!(inspect('\u{0378}').label, "<reserved-0378>");
        let e = inspect('😀');
        assert_eq!((e.utf8.as_str(), e.utf16.as_str(), e.code_point.as_str()), ("F0 9F 98 80", "D83D DE00", "U+1F600"));
        assert_eq!(e.name.as_deref(), Some("GRINNING FACE"));
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let out = rt.block_on(unicode_inspect(UnicodeInspectInput { text: "e\u{301}👩‍💻".into() })).unwrap();
        assert_eq!((out.code_points, out.graphemes, out.utf8_bytes, out.utf16_units), (5, 2, 14, 7));
        let long = "a".repeat(MAX_CHARS + 1);
        assert!(rt.block_on(unicode_inspect(UnicodeInspectInput { text: long })).is_err());
    }
}
