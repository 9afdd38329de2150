//! Locale-aware number formatting that matches JavaScript's `Intl.NumberFormat`.
//!
//! Digits, separators, grouping (including Indian lakh/crore grouping), percent and currency
//! patterns, currency symbols and digits, and compact forms come from Unicode CLDR through
//! ICU4X's compiled data; unit patterns from CLDR as embedded by `number_units`. Rounding and
//! the fraction-digit defaults follow ECMA-402 (`SetNumberFormatDigitOptions`): half away from
//! zero, on the shortest decimal form of the input double.

use std::str::FromStr;

use fixed_decimal::{Decimal, SignedRoundingMode, UnsignedRoundingMode};
use icu_decimal::{CompactDecimalFormatter, DecimalFormatter};
use icu_experimental::dimension::{
    currency::{CurrencyType, formatter::CurrencyFormatter},
    percent::formatter::PercentFormatter,
};
use icu_locale::Locale;
use icu_plurals::{PluralCategory, PluralRules};
use writeable::Writeable;

use wrench_contract::prelude::*;
use wrench_kit::number_units;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Style {
    #[default]
    Decimal,
    Currency,
    Percent,
    Unit,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum Notation {
    #[default]
    Standard,
    Compact,
    Scientific,
    Engineering,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum UnitDisplay {
    #[default]
    Short,
    Long,
    Narrow,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NumberFormatInput {
    /// The number.
    number: f64,
    /// A BCP 47 language tag, e.g. `en-US`, `de-DE`, `hi-IN`, `ar-EG`, `de-CH-u-nu-latn`.
    #[serde(default = "en_us")]
    #[schemars(length(min = 2, max = 64))]
    locale: String,
    /// decimal, currency, percent (the number times 100) or unit.
    #[serde(default)]
    style: Style,
    /// ISO 4217 code; required when style is currency.
    #[serde(default)]
    #[schemars(regex(pattern = r"^[A-Za-z]{3}$"))]
    currency: Option<String>,
    /// A unit as `Intl.NumberFormat` names it (`kilometer`, `megabyte`, `kilometer-per-hour`);
    /// required when style is unit.
    #[serde(default)]
    #[schemars(length(max = 64))]
    unit: Option<String>,
    /// How units are written: short (`5 km`), long (`5 kilometers`) or narrow (`5km`).
    #[serde(default)]
    unit_display: UnitDisplay,
    /// standard, compact (`1.2M`), scientific (`1.235E6`) or engineering (`1.235E6`, exponent a
    /// multiple of 3).
    #[serde(default)]
    notation: Notation,
    /// Fewest fraction digits (0-20); the default depends on the style, as in Intl.
    #[serde(default)]
    #[schemars(range(min = 0, max = 20))]
    minimum_fraction_digits: Option<u8>,
    /// Most fraction digits (0-20); the default depends on the style, as in Intl.
    #[serde(default)]
    #[schemars(range(min = 0, max = 20))]
    maximum_fraction_digits: Option<u8>,
}

fn en_us() -> String {
    "en-US".into()
}

#[derive(Debug, Serialize, JsonSchema)]
struct NumberFormatOutput {
    /// The formatted number, with the locale's digits, separators and spaces (often U+00A0 or
    /// U+202F, as Intl uses them).
    formatted: String,
    /// The locale as given.
    locale: String,
    /// The style used.
    style: Style,
    /// The notation used.
    notation: Notation,
}

fn invalid(field: &str, message: impl std::fmt::Display) -> ApiError {
    ApiError::invalid(field, message)
}

fn data_error(e: impl std::fmt::Debug) -> ApiError {
    invalid("locale", format!("no number-formatting data for this locale ({e:?})"))
}

/// `n` as its shortest decimal (Rust prints the shortest representation that reads back to
/// the same double, as ICU does).
fn decimal_of(n: f64) -> Decimal {
    Decimal::from_str(&format!("{n}")).unwrap_or_else(|_| Decimal::from(0))
}

/// `d` times 10^`pow`, sign kept.
fn scaled(d: &Decimal, pow: i16) -> Decimal {
    let mut x = d.clone();
    x.absolute.multiply_pow10(pow);
    x.absolute.trim_start();
    x
}

/// Rounds half away from zero to at most `max` and pads to at least `min` fraction digits.
fn with_fraction_digits(mut d: Decimal, min: u8, max: u8) -> Decimal {
    d.round_with_mode(-(max as i16), SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfExpand));
    d.absolute.trim_end();
    d.absolute.pad_end(-(min as i16));
    d
}

/// ECMA-402 SetNumberFormatDigitOptions for fraction digits: the defaults apply unless given;
/// a lone minimum raises the maximum, a lone maximum lowers the minimum.
fn fraction_digits(min: Option<u8>, max: Option<u8>, default: (u8, u8)) -> Result<(u8, u8), ApiError> {
    match (min, max) {
        (None, None) => Ok(default),
        (Some(lo), None) => Ok((lo, lo.max(default.1))),
        (None, Some(hi)) => Ok((default.0.min(hi), hi)),
        (Some(lo), Some(hi)) if lo > hi => {
            Err(invalid("minimumFractionDigits", format!("{lo} is more than maximumFractionDigits {hi}")))
        }
        (Some(lo), Some(hi)) => Ok((lo, hi)),
    }
}

fn plural_name(c: PluralCategory) -> &'static str {
    match c {
        PluralCategory::Zero => "zero",
        PluralCategory::One => "one",
        PluralCategory::Two => "two",
        PluralCategory::Few => "few",
        PluralCategory::Many => "many",
        PluralCategory::Other => "other",
    }
}

/// Format a number for a locale, as Intl.NumberFormat does.
///
/// `locale` is any BCP 47 tag (default `en-US`; `-u-nu-` selects a numbering system). Styles:
/// decimal; percent (the number times 100); currency (ISO 4217 `currency` required, its CLDR
/// symbol and digits, e.g. `¥1,235`, `1.234,50 €`, `₹12,34,567.89`); unit (`unit` required:
/// the 45 units Intl sanctions, such as kilometer, liter, celsius, megabyte, hour, and `x-per-y`
/// pairs of them, in short, long or narrow `unitDisplay`; unit names are available for 39
/// locales, listed in the error for others). Notations: standard, compact (decimal and
/// currency), scientific and engineering (decimal). `minimumFractionDigits` and
/// `maximumFractionDigits` (0-20) default as in Intl: 0-3 for decimal and unit, 0-0 for percent,
/// the currency's digits for currency, CLDR's significant-digit rounding for compact. Rounding
/// is half away from zero. Outputs are checked against Node's Intl (ICU 78, CLDR 48) for en-US,
/// de-DE, fr-FR, ja-JP and hi-IN.
#[op(post "/v1/number/format" as numberFormat, tag = DeveloperUtilities,
     rejects = "an invalid locale tag, a missing currency or unit, an unsupported unit, or a style and notation that do not combine",
     example(indian_grouping, {"number": 1234567.891, "locale": "hi-IN"}),
     example(euro, {"number": 1234.5, "locale": "de-DE", "style": "currency", "currency": "EUR"}),
     example(compact, {"number": 1234567, "locale": "ja-JP", "notation": "compact"}),
     example(unit_long, {"number": 42, "locale": "fr-FR", "style": "unit", "unit": "kilometer-per-hour", "unitDisplay": "long"}),
     example(missing_currency, {"number": 1, "style": "currency"}, status = 400))]
async fn number_format(input: NumberFormatInput) -> Result<NumberFormatOutput, ApiError> {
    let formatted = format_number(&input)?;
    Ok(NumberFormatOutput { formatted, locale: input.locale, style: input.style, notation: input.notation })
}

fn format_number(input: &NumberFormatInput) -> Result<String, ApiError> {
    if !input.number.is_finite() {
        return Err(invalid("number", "must be a finite number"));
    }
    let locale = Locale::try_from_str(&input.locale).map_err(|e| {
        invalid("locale", format!("{:?} is not a BCP 47 language tag ({e}); write e.g. en-US", input.locale))
    })?;
    let df = DecimalFormatter::try_new(locale.clone().into(), Default::default()).map_err(data_error)?;
    let value = decimal_of(input.number);
    let (min, max) = (input.minimum_fraction_digits, input.maximum_fraction_digits);
    match (input.style, input.notation) {
        (Style::Decimal, Notation::Standard) => {
            let (lo, hi) = fraction_digits(min, max, (0, 3))?;
            Ok(df.format(&with_fraction_digits(value, lo, hi)).write_to_string().into_owned())
        }
        (Style::Decimal, Notation::Compact) => compact(&locale, value, min, max),
        (Style::Decimal, Notation::Scientific | Notation::Engineering) => {
            let (lo, hi) = fraction_digits(min, max, (0, 3))?;
            Ok(exponential(&df, value, lo, hi, input.notation == Notation::Engineering))
        }
        (Style::Percent, Notation::Standard) => {
            let (lo, hi) = fraction_digits(min, max, (0, 0))?;
            let pf = PercentFormatter::try_new_with_decimal_formatter(locale.into(), df, Default::default())
                .map_err(data_error)?;
            let scaled = with_fraction_digits(scaled(&value, 2), lo, hi);
            Ok(pf.format(&scaled).write_to_string().into_owned())
        }
        (Style::Currency, notation @ (Notation::Standard | Notation::Compact)) => {
            let code =
                input.currency.as_deref().ok_or_else(|| invalid("currency", "is required when style is currency"))?;
            let currency = CurrencyType::try_from_str(&code.to_ascii_lowercase())
                .map_err(|_| invalid("currency", format!("{code:?} is not an ISO 4217 code")))?;
            if notation == Notation::Compact {
                if min.is_some() || max.is_some() {
                    return Err(invalid(
                        "maximumFractionDigits",
                        "fraction digits do not combine with compact currency; CLDR's compact rounding applies",
                    ));
                }
                return compact_currency(&locale, &df, currency, input.number, value);
            }
            // A code without a symbol in CLDR (a new or made-up currency) is written as its code,
            // as Intl does ("1.234,50 BMN").
            let cf = CurrencyFormatter::try_new_symbol(locale.clone().into(), currency, Default::default())
                .or_else(|_| CurrencyFormatter::try_new_code(locale.into(), currency, Default::default()))
                .map_err(data_error)?;
            currency_standard(&df, &cf, input.number, value, min, max)
        }
        (Style::Unit, Notation::Standard) => {
            let unit = input.unit.as_deref().ok_or_else(|| invalid("unit", "is required when style is unit"))?;
            if !number_units::is_supported(unit) {
                return Err(invalid(
                    "unit",
                    format!(
                        "{unit:?} is not a supported unit; use one of {} or x-per-y of two of them",
                        number_units::simple_units().join(", ")
                    ),
                ));
            }
            let data_locale = number_units::resolve_locale(&input.locale).ok_or_else(|| {
                invalid(
                    "locale",
                    format!(
                        "no unit names for {:?}; unit style supports {}",
                        input.locale,
                        number_units::locales().join(", ")
                    ),
                )
            })?;
            let (lo, hi) = fraction_digits(min, max, (0, 3))?;
            let rounded = with_fraction_digits(value, lo, hi);
            let rules = PluralRules::try_new_cardinal(locale.into()).map_err(data_error)?;
            let category = plural_name(rules.category_for(&rounded));
            let number = df.format(&rounded).write_to_string().into_owned();
            let width = match input.unit_display {
                UnitDisplay::Short => "short",
                UnitDisplay::Long => "long",
                UnitDisplay::Narrow => "narrow",
            };
            number_units::apply(data_locale, width, unit, &number, category)
                .ok_or_else(|| invalid("unit", format!("no {width} name for {unit:?} in {data_locale}")))
        }
        (style, notation) => Err(invalid(
            "notation",
            format!(
                "{} notation does not combine with the {} style; compact works with decimal and currency, scientific and engineering with decimal",
                serde_json::to_value(notation).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
                serde_json::to_value(style).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
            ),
        )),
    }
}

/// Currency in standard notation with fraction digits under our control: the locale's
/// currency pattern is read off the formatter's output for 1 and -1 (the symbol, its side and
/// spacing do not depend on the value), and the number is put in place of the 1.
fn currency_standard(
    df: &DecimalFormatter,
    cf: &CurrencyFormatter<DecimalFormatter>,
    number: f64,
    value: Decimal,
    min: Option<u8>,
    max: Option<u8>,
) -> Result<String, ApiError> {
    let sample = |v: i32| cf.format_fixed_decimal(&Decimal::from(v)).write_to_string().into_owned();
    let (positive, negative) = (sample(1), sample(-1));
    // The currency's digits: the longest padded 1 that appears in the sample.
    let one_with = |digits: u8| {
        let mut one = Decimal::from(1);
        one.absolute.pad_end(-(digits as i16));
        df.format(&one).write_to_string().into_owned()
    };
    let (digits, one) = (0..=4u8)
        .rev()
        .map(|d| (d, one_with(d)))
        .find(|(_, one)| positive.contains(one.as_str()))
        .unwrap_or_else(|| (2, one_with(2)));
    let (lo, hi) = fraction_digits(min, max, (digits, digits))?;
    let mut rounded = with_fraction_digits(value, lo, hi);
    let pattern = if number.is_sign_negative() { negative } else { positive };
    rounded.sign = fixed_decimal::Sign::None;
    let body = df.format(&rounded).write_to_string().into_owned();
    Ok(pattern.replacen(&one, &body, 1))
}

/// Compact currency: CLDR's compact rounding (integers from two digits on, else two
/// significant digits), half away from zero. Amounts too small to compact that need more
/// fraction digits than the currency has (0.000123 EUR) keep their two significant digits, as
/// Intl does, instead of ICU4X's rounding to the currency's digits.
fn compact_currency(
    locale: &Locale,
    df: &DecimalFormatter,
    currency: CurrencyType,
    number: f64,
    value: Decimal,
) -> Result<String, ApiError> {
    let decimal =
        CompactDecimalFormatter::try_new_short(locale.clone().into(), Default::default()).map_err(data_error)?;
    let magnitude = value.absolute.nonzero_magnitude_start();
    let exponent = decimal.compact_exponent_for_magnitude(magnitude) as i16;
    if !value.absolute.is_zero() && exponent == 0 && magnitude < -2 {
        let cf = CurrencyFormatter::try_new_symbol(locale.clone().into(), currency, Default::default())
            .map_err(data_error)?;
        let significant = (1 - magnitude).clamp(0, 20) as u8;
        return currency_standard(df, &cf, number, value, None, Some(significant));
    }
    let at = if magnitude > exponent { exponent } else { magnitude - 1 };
    let mut v = value;
    if !v.absolute.is_zero() {
        v.round_with_mode(at, SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfExpand));
    }
    let cf = CurrencyFormatter::try_new_compact_symbol(locale.clone().into(), currency, Default::default())
        .map_err(data_error)?;
    Ok(cf.format_fixed_decimal(&v).write_to_string().into_owned())
}

/// Compact notation: CLDR's rounding (integers from two digits on, else two significant
/// digits) unless fraction digits are given, which then apply to the scaled number.
fn compact(locale: &Locale, value: Decimal, min: Option<u8>, max: Option<u8>) -> Result<String, ApiError> {
    let cf = CompactDecimalFormatter::try_new_short(locale.clone().into(), Default::default()).map_err(data_error)?;
    if min.is_none() && max.is_none() {
        // Round half away from zero at the magnitude ICU4X would round at (it rounds half to
        // even), so its own rounding finds nothing left to do.
        let magnitude = value.absolute.nonzero_magnitude_start();
        let exponent = cf.compact_exponent_for_magnitude(magnitude) as i16;
        let at = if magnitude > exponent { exponent } else { magnitude - 1 };
        let mut v = value;
        if !v.absolute.is_zero() {
            v.round_with_mode(at, SignedRoundingMode::Unsigned(UnsignedRoundingMode::HalfExpand));
        }
        return Ok(cf.format(&v).write_to_string().into_owned());
    }
    let (lo, hi) = fraction_digits(min, max, (0, 0))?;
    let mut magnitude = value.absolute.nonzero_magnitude_start();
    for _ in 0..2 {
        let exponent = cf.compact_exponent_for_magnitude(magnitude);
        let significand = with_fraction_digits(scaled(&value, -(exponent as i16)), lo, hi);
        let new_magnitude = significand.absolute.nonzero_magnitude_start() + exponent as i16;
        if (new_magnitude == magnitude || significand.absolute.is_zero())
            && let Ok(out) = cf.format_with_exponent(&significand, exponent)
        {
            return Ok(out.write_to_string().into_owned());
        }
        // Rounding carried into the next power of ten (999.95K -> 1000K): pick its exponent.
        magnitude = new_magnitude;
    }
    Err(ApiError::internal("compact formatting did not settle on an exponent"))
}

/// Scientific (`1.235E6`) or engineering (exponent a multiple of three) notation.
fn exponential(df: &DecimalFormatter, value: Decimal, lo: u8, hi: u8, engineering: bool) -> String {
    let step = if engineering { 3 } else { 1 };
    let mut exponent = if value.absolute.is_zero() { 0 } else { value.absolute.nonzero_magnitude_start() };
    exponent = exponent.div_euclid(step) * step;
    let mut mantissa = with_fraction_digits(scaled(&value, -exponent), lo, hi);
    // Rounding can carry the mantissa to the next power (9.9996 -> 10.000).
    if !mantissa.absolute.is_zero() && mantissa.absolute.nonzero_magnitude_start() >= step {
        exponent += step;
        mantissa = with_fraction_digits(scaled(&value, -exponent), lo, hi);
    }
    format!(
        "{}E{}",
        df.format(&mantissa).write_to_string(),
        df.format(&Decimal::from(exponent as i32)).write_to_string()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Fixture {
        node: String,
        cldr: String,
        cases: Vec<Case>,
    }

    #[derive(Deserialize)]
    struct Case {
        locale: String,
        number: f64,
        options: serde_json::Map<String, Value>,
        expected: String,
    }

    #[test]
    fn matches_javascript_intl_number_format() {
        // Expected strings printed by Node's Intl.NumberFormat (tests/fixtures/number_format_intl.js).
        let fixture: Fixture =
            serde_json::from_str(include_str!("../../tests/fixtures/number_format_intl.json")).unwrap();
        let mut failures = Vec::new();
        for case in &fixture.cases {
            let mut body = case.options.clone();
            body.insert("number".into(), json!(case.number));
            body.insert("locale".into(), json!(case.locale));
            let input: NumberFormatInput = serde_json::from_value(Value::Object(body.clone())).unwrap();
            match format_number(&input) {
                Ok(got) if got == case.expected => {}
                // ICU4X's compiled data is CLDR 49, Node 20's ICU 78 is CLDR 48: the French
                // symbol for the yen is the one difference among these cases.
                Ok(got) if case.locale == "fr-FR" && got == case.expected.replace("JPY", "JP¥") => {}
                Ok(got) => failures.push(format!("{body:?}: got {got:?}, Intl {:?}", case.expected)),
                Err(e) => failures.push(format!("{body:?}: error {}", e.message)),
            }
        }
        assert!(
            failures.is_empty(),
            "{} of {} differ from Intl ({} with CLDR {}):\n{}",
            failures.len(),
            fixture.cases.len(),
            fixture.node,
            fixture.cldr,
            failures.join("\n")
        );
    }

    #[test]
    fn bad_combinations_and_inputs_name_the_field() {
        let cases = [
            (json!({"number": 1, "locale": "en_US"}), "locale"),
            (json!({"number": 1, "style": "unit"}), "unit"),
            (json!({"number": 1, "style": "unit", "unit": "furlong"}), "unit"),
            (json!({"number": 1, "style": "unit", "unit": "meter", "locale": "ka-GE"}), "locale"),
            (json!({"number": 1, "style": "percent", "notation": "compact"}), "notation"),
            (
                json!({"number": 1, "style": "currency", "currency": "EUR", "notation": "compact", "maximumFractionDigits": 1}),
                "maximumFractionDigits",
            ),
            (json!({"number": 1, "minimumFractionDigits": 3, "maximumFractionDigits": 1}), "minimumFractionDigits"),
        ];
        for (body, field) in cases {
            let input: NumberFormatInput = serde_json::from_value(body.clone()).unwrap();
            let e = format_number(&input).expect_err(&body.to_string());
            assert_eq!(e.field.as_deref(), Some(field), "{body}: {}", e.message);
        }
        // A currency code CLDR has no symbol for is written as the code, as Intl prints it.
        for (locale, want) in [("de-DE", "1.234,50\u{a0}BMN"), ("en-US", "BMN\u{a0}1,234.50")] {
            let input: NumberFormatInput = serde_json::from_value(
                json!({"number": 1234.5, "locale": locale, "style": "currency", "currency": "BMN"}),
            )
            .unwrap();
            assert_eq!(format_number(&input).unwrap(), want);
        }
        // Other numbering systems and extreme magnitudes still format.
        let arabic: NumberFormatInput = serde_json::from_value(json!({"number": 1234.5, "locale": "ar-EG"})).unwrap();
        assert_eq!(format_number(&arabic).unwrap(), "١٬٢٣٤٫٥");
        let huge: NumberFormatInput =
            serde_json::from_value(json!({"number": 1e300, "notation": "scientific"})).unwrap();
        assert_eq!(format_number(&huge).unwrap(), "1E300");
    }

    #[test]
    fn fraction_digit_defaults_follow_ecma_402() {
        assert_eq!(fraction_digits(None, None, (0, 3)).unwrap(), (0, 3));
        assert_eq!(fraction_digits(Some(5), None, (0, 3)).unwrap(), (5, 5));
        assert_eq!(fraction_digits(None, Some(0), (2, 2)).unwrap(), (0, 0));
        assert!(fraction_digits(Some(3), Some(1), (0, 3)).is_err());
    }
}
