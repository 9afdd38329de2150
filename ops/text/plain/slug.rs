//! URL slugs of any text (`text/slugify`): transliterated to ASCII, lower-cased, words joined by
//! the separator asked for.

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq)]
enum Separator {
    #[serde(rename = "-")]
    #[schemars(rename = "-")]
    Dash,
    #[serde(rename = "_")]
    #[schemars(rename = "_")]
    Underscore,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct SlugifyInput {
    /// The text to turn into a slug.
    text: String,
    /// Character between words.
    #[serde(default = "dash")]
    separator: Separator,
}

fn dash() -> Separator {
    Separator::Dash
}

#[derive(Debug, Serialize, JsonSchema)]
struct SlugifyOutput {
    /// Lower-case ASCII letters and digits joined by the separator; empty when the text has none.
    slug: String,
}

pub(crate) fn slugify(text: &str, sep: char) -> String {
    let ascii = deunicode::deunicode(text);
    let mut out = String::with_capacity(ascii.len());
    let mut pending = false;
    for c in ascii.chars() {
        if c.is_ascii_alphanumeric() {
            if pending && !out.is_empty() {
                out.push(sep);
            }
            pending = false;
            out.push(c.to_ascii_lowercase());
        } else if c != '\'' {
            // Apostrophes join ("don't" -> "dont"); everything else separates.
            pending = true;
        }
    }
    out
}

/// Turn text into a URL slug.
///
/// Transliterates to ASCII first ("Crème Brûlée" becomes "creme-brulee", "Straße" becomes
/// "strasse", "北京" becomes "bei-jing"), lower-cases, and joins the runs of letters and digits
/// with the separator. Apostrophes are dropped without a break ("don't" becomes "dont").
#[op(post "/v1/text/slugify" as textSlugify, tag = TextAndData, pipe(text -> slug),
     example(accents, {"text": "Crème Brûlée: the recipe!"}),
     example(underscore_and_scripts, {"text": "Straße nach 北京 — don't stop", "separator": "_"}),
     example(nothing_left, {"text": "!!! ???"}))]
async fn text_slugify(input: SlugifyInput) -> Result<SlugifyOutput, ApiError> {
    let sep = if input.separator == Separator::Dash { '-' } else { '_' };
    Ok(SlugifyOutput { slug: slugify(&input.text, sep) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slugify("Crème Brûlée", '-'), "creme-brulee");
        assert_eq!(slugify("  Hello,   World!  ", '_'), "hello_world");
        assert_eq!(slugify("don't stop", '-'), "dont-stop");
        assert_eq!(slugify("Straße", '-'), "strasse");
    }
}
