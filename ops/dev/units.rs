//! Unit conversion over ten categories with exact defining factors.
//!
//! Factors are the exact definitions where one exists: the international yard and pound
//! (1959: 1 yd = 0.9144 m, 1 lb = 0.45359237 kg), the US gallon (231 in³), the imperial gallon
//! (4.54609 L), the thermochemical calorie (4.184 J), the IT BTU (1055.05585262 J), the standard
//! atmosphere (101325 Pa), the 2019 SI value of the electronvolt, IEC binary prefixes; and
//! NIST SP 811 (2008) appendix B values otherwise (psi, mmHg, inHg). Temperatures are affine
//! (a factor and an offset to kelvin). Years and months are Gregorian averages (365.2425 days
//! and a twelfth of that).

use super::math::to_text;
use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Category {
    Length,
    Mass,
    Temperature,
    Volume,
    Area,
    Speed,
    Time,
    DigitalStorage,
    Energy,
    Pressure,
}

/// One unit: its category, symbol (matched case-sensitively), name, other spellings (matched
/// case-insensitively), and `value in base unit = x * factor + offset`.
struct Unit {
    category: Category,
    symbol: &'static str,
    name: &'static str,
    aliases: &'static [&'static str],
    factor: f64,
    offset: f64,
}

const fn u(
    category: Category,
    symbol: &'static str,
    name: &'static str,
    aliases: &'static [&'static str],
    factor: f64,
) -> Unit {
    Unit { category, symbol, name, aliases, factor, offset: 0.0 }
}

use Category::*;

/// Inches in metres, and a US gallon in cubic metres (231 cubic inches): the exact bases of the
/// customary units below.
const INCH: f64 = 0.0254;
const US_GALLON: f64 = 231.0 * INCH * INCH * INCH;

/// Base units: metre, kilogram, kelvin, cubic metre, square metre, metre per second, second,
/// byte, joule, pascal.
static UNITS: &[Unit] = &[
    u(Length, "m", "metre", &["meter", "meters", "metres"], 1.0),
    u(Length, "km", "kilometre", &["kilometer", "kilometers", "kilometres"], 1000.0),
    u(Length, "cm", "centimetre", &["centimeter", "centimeters", "centimetres"], 0.01),
    u(Length, "mm", "millimetre", &["millimeter", "millimeters", "millimetres"], 0.001),
    u(Length, "µm", "micrometre", &["um", "micrometer", "micrometers", "micron", "microns"], 1e-6),
    u(Length, "nm", "nanometre", &["nanometer", "nanometers", "nanometres"], 1e-9),
    u(Length, "mi", "mile", &["miles"], 1609.344),
    u(Length, "yd", "yard", &["yards"], 0.9144),
    u(Length, "ft", "foot", &["feet", "'"], 0.3048),
    u(Length, "in", "inch", &["inches", "\""], INCH),
    u(Length, "nmi", "nautical mile", &["nautical miles", "nautical_mile"], 1852.0),
    u(Length, "au", "astronomical unit", &["astronomical units"], 149_597_870_700.0),
    u(Length, "ly", "light-year", &["light year", "light years", "light-years", "lightyear"], 9_460_730_472_580_800.0),
    u(Mass, "kg", "kilogram", &["kilograms", "kilo", "kilos"], 1.0),
    u(Mass, "g", "gram", &["grams", "gramme"], 0.001),
    u(Mass, "mg", "milligram", &["milligrams"], 1e-6),
    u(Mass, "µg", "microgram", &["ug", "mcg", "micrograms"], 1e-9),
    u(Mass, "t", "tonne", &["tonnes", "metric ton", "metric tons"], 1000.0),
    u(Mass, "lb", "pound", &["lbs", "pounds"], 0.453_592_37),
    u(Mass, "oz", "ounce", &["ounces"], 0.453_592_37 / 16.0),
    u(Mass, "st", "stone", &["stones"], 0.453_592_37 * 14.0),
    u(Mass, "ton", "short ton", &["tons", "short tons", "us ton"], 0.453_592_37 * 2000.0),
    u(Mass, "long_ton", "long ton", &["long tons", "imperial ton"], 0.453_592_37 * 2240.0),
    Unit { category: Temperature, symbol: "K", name: "kelvin", aliases: &["kelvins"], factor: 1.0, offset: 0.0 },
    Unit {
        category: Temperature,
        symbol: "°C",
        name: "degree Celsius",
        aliases: &["c", "celsius", "degc"],
        factor: 1.0,
        offset: 273.15,
    },
    Unit {
        category: Temperature,
        symbol: "°F",
        name: "degree Fahrenheit",
        aliases: &["f", "fahrenheit", "degf"],
        factor: 5.0 / 9.0,
        offset: 459.67 * 5.0 / 9.0,
    },
    Unit {
        category: Temperature,
        symbol: "°R",
        name: "degree Rankine",
        aliases: &["r", "rankine", "degr"],
        factor: 5.0 / 9.0,
        offset: 0.0,
    },
    u(Volume, "m³", "cubic metre", &["m3", "cubic meter", "cubic meters", "cubic metres"], 1.0),
    u(Volume, "L", "litre", &["l", "liter", "liters", "litres"], 0.001),
    u(Volume, "mL", "millilitre", &["ml", "milliliter", "milliliters", "millilitres"], 1e-6),
    u(Volume, "cm³", "cubic centimetre", &["cm3", "cc", "cubic centimeter"], 1e-6),
    u(Volume, "gal", "US gallon", &["gallon", "gallons", "us gallon", "us gallons"], US_GALLON),
    u(Volume, "qt", "US quart", &["quart", "quarts"], US_GALLON / 4.0),
    u(Volume, "pt", "US pint", &["pint", "pints"], US_GALLON / 8.0),
    u(Volume, "cup", "US cup", &["cups"], US_GALLON / 16.0),
    u(Volume, "fl_oz", "US fluid ounce", &["fl oz", "floz", "fluid ounce", "fluid ounces"], US_GALLON / 128.0),
    u(Volume, "tbsp", "US tablespoon", &["tablespoon", "tablespoons"], US_GALLON / 256.0),
    u(Volume, "tsp", "US teaspoon", &["teaspoon", "teaspoons"], US_GALLON / 768.0),
    u(Volume, "imp_gal", "imperial gallon", &["imperial gallon", "imperial gallons", "uk gallon"], 0.004_546_09),
    u(Volume, "ft³", "cubic foot", &["ft3", "cubic feet", "cubic foot"], 0.3048 * 0.3048 * 0.3048),
    u(Volume, "in³", "cubic inch", &["in3", "cubic inches", "cubic inch"], INCH * INCH * INCH),
    u(Area, "m²", "square metre", &["m2", "sq m", "square meter", "square meters", "square metres"], 1.0),
    u(Area, "km²", "square kilometre", &["km2", "sq km", "square kilometer", "square kilometers"], 1e6),
    u(Area, "cm²", "square centimetre", &["cm2", "square centimeter", "square centimeters"], 1e-4),
    u(Area, "mm²", "square millimetre", &["mm2", "square millimeter", "square millimeters"], 1e-6),
    u(Area, "ha", "hectare", &["hectares"], 1e4),
    u(Area, "ac", "acre", &["acre", "acres"], 4_046.856_422_4),
    u(Area, "ft²", "square foot", &["ft2", "sq ft", "square feet"], 0.3048 * 0.3048),
    u(Area, "in²", "square inch", &["in2", "sq in", "square inches"], INCH * INCH),
    u(Area, "yd²", "square yard", &["yd2", "sq yd", "square yards"], 0.9144 * 0.9144),
    u(Area, "mi²", "square mile", &["mi2", "sq mi", "square miles"], 1609.344 * 1609.344),
    u(Speed, "m/s", "metre per second", &["mps", "meters per second", "metres per second"], 1.0),
    u(
        Speed,
        "km/h",
        "kilometre per hour",
        &["kph", "kmh", "kmph", "kilometers per hour", "kilometres per hour"],
        1.0 / 3.6,
    ),
    u(Speed, "mph", "mile per hour", &["mi/h", "miles per hour"], 0.447_04),
    u(Speed, "kn", "knot", &["knot", "knots", "kt"], 1852.0 / 3600.0),
    u(Speed, "ft/s", "foot per second", &["fps", "feet per second"], 0.3048),
    u(Time, "ns", "nanosecond", &["nanoseconds"], 1e-9),
    u(Time, "µs", "microsecond", &["us", "microseconds"], 1e-6),
    u(Time, "ms", "millisecond", &["milliseconds"], 1e-3),
    u(Time, "s", "second", &["sec", "secs", "seconds"], 1.0),
    u(Time, "min", "minute", &["mins", "minutes"], 60.0),
    u(Time, "h", "hour", &["hr", "hrs", "hours"], 3600.0),
    u(Time, "d", "day", &["days"], 86_400.0),
    u(Time, "wk", "week", &["weeks"], 604_800.0),
    u(Time, "mo", "month (average Gregorian)", &["month", "months"], 31_556_952.0 / 12.0),
    u(Time, "yr", "year (average Gregorian)", &["year", "years", "y"], 31_556_952.0),
    u(DigitalStorage, "bit", "bit", &["bits"], 0.125),
    u(DigitalStorage, "B", "byte", &["bytes"], 1.0),
    u(DigitalStorage, "kbit", "kilobit", &["kilobits", "Kb"], 125.0),
    u(DigitalStorage, "Mbit", "megabit", &["megabits", "Mb"], 125_000.0),
    u(DigitalStorage, "Gbit", "gigabit", &["gigabits", "Gb"], 125_000_000.0),
    u(DigitalStorage, "kB", "kilobyte", &["kilobytes"], 1e3),
    u(DigitalStorage, "MB", "megabyte", &["megabytes"], 1e6),
    u(DigitalStorage, "GB", "gigabyte", &["gigabytes"], 1e9),
    u(DigitalStorage, "TB", "terabyte", &["terabytes"], 1e12),
    u(DigitalStorage, "PB", "petabyte", &["petabytes"], 1e15),
    u(DigitalStorage, "KiB", "kibibyte", &["kibibytes"], 1024.0),
    u(DigitalStorage, "MiB", "mebibyte", &["mebibytes"], 1_048_576.0),
    u(DigitalStorage, "GiB", "gibibyte", &["gibibytes"], 1_073_741_824.0),
    u(DigitalStorage, "TiB", "tebibyte", &["tebibytes"], 1_099_511_627_776.0),
    u(DigitalStorage, "PiB", "pebibyte", &["pebibytes"], 1_125_899_906_842_624.0),
    u(Energy, "J", "joule", &["joules"], 1.0),
    u(Energy, "kJ", "kilojoule", &["kilojoules"], 1e3),
    u(Energy, "MJ", "megajoule", &["megajoules"], 1e6),
    u(Energy, "cal", "calorie (thermochemical)", &["calorie", "calories"], 4.184),
    u(Energy, "kcal", "kilocalorie", &["kilocalorie", "kilocalories", "Cal"], 4184.0),
    u(Energy, "Wh", "watt-hour", &["watt hour", "watt hours", "watt-hours"], 3600.0),
    u(Energy, "kWh", "kilowatt-hour", &["kilowatt hour", "kilowatt hours", "kilowatt-hours"], 3.6e6),
    u(Energy, "eV", "electronvolt", &["electronvolts", "electron volt"], 1.602_176_634e-19),
    u(Energy, "BTU", "British thermal unit (IT)", &["btu", "btus"], 1_055.055_852_62),
    u(Pressure, "Pa", "pascal", &["pascals"], 1.0),
    u(Pressure, "kPa", "kilopascal", &["kilopascals"], 1e3),
    u(Pressure, "MPa", "megapascal", &["megapascals"], 1e6),
    u(Pressure, "hPa", "hectopascal", &["hectopascals"], 100.0),
    u(Pressure, "bar", "bar", &["bars"], 1e5),
    u(Pressure, "mbar", "millibar", &["millibars"], 100.0),
    u(Pressure, "atm", "standard atmosphere", &["atmosphere", "atmospheres"], 101_325.0),
    u(Pressure, "psi", "pound-force per square inch", &["lbf/in2"], 6_894.757_293_168_361),
    u(Pressure, "mmHg", "millimetre of mercury", &["mm hg", "millimeters of mercury"], 133.322_387_415),
    u(Pressure, "inHg", "inch of mercury", &["in hg", "inches of mercury"], 3386.389),
    u(Pressure, "Torr", "torr", &["torrs"], 101_325.0 / 760.0),
];

fn category_name(c: Category) -> &'static str {
    match c {
        Length => "length",
        Mass => "mass",
        Temperature => "temperature",
        Volume => "volume",
        Area => "area",
        Speed => "speed",
        Time => "time",
        DigitalStorage => "digital_storage",
        Energy => "energy",
        Pressure => "pressure",
    }
}

fn symbols_of(category: Option<Category>) -> String {
    let list: Vec<&str> = UNITS.iter().filter(|u| category.is_none_or(|c| u.category == c)).map(|u| u.symbol).collect();
    list.join(", ")
}

/// The unit `text` names: the exact symbol first, then a unique case-insensitive match of
/// symbol, name or alias (so `KM` and `Kilometres` work, while `mb` must say bit or byte).
fn find(field: &str, text: &str, category: Option<Category>) -> Result<&'static Unit, ApiError> {
    let t = text.trim();
    let in_scope = |u: &&Unit| category.is_none_or(|c| u.category == c);
    if let Some(unit) = UNITS.iter().filter(in_scope).find(|u| u.symbol == t || u.aliases.contains(&t)) {
        return Ok(unit);
    }
    let lower = t.to_lowercase();
    let singular = lower.strip_suffix('s').unwrap_or(&lower).to_string();
    let matches: Vec<&Unit> = UNITS
        .iter()
        .filter(in_scope)
        .filter(|u| {
            [u.symbol, u.name].iter().chain(u.aliases).any(|n| {
                let n = n.to_lowercase();
                n == lower || n == singular
            })
        })
        .collect();
    match matches.as_slice() {
        [one] => Ok(one),
        [] => Err(ApiError::invalid(
            field,
            match category {
                Some(c) => format!("unknown {} unit {t:?}; valid: {}", category_name(c), symbols_of(Some(c))),
                None => format!("unknown unit {t:?}; valid: {}", symbols_of(None)),
            },
        )),
        many => Err(ApiError::invalid(
            field,
            format!(
                "{t:?} is ambiguous: {}",
                many.iter().map(|u| format!("{} ({})", u.symbol, u.name)).collect::<Vec<_>>().join(" or ")
            ),
        )),
    }
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct UnitsInput {
    /// The value to convert.
    value: f64,
    /// The unit it is in: a symbol (`km`, `°F`, `MiB`) or a name (`kilometres`, `fahrenheit`).
    #[schemars(length(min = 1, max = 64))]
    from: String,
    /// The unit to convert to.
    #[schemars(length(min = 1, max = 64))]
    to: String,
    /// Restricts both units to one category (also settles names used in two).
    #[serde(default)]
    category: Option<Category>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct UnitInfo {
    /// The unit's symbol.
    symbol: &'static str,
    /// The unit's name.
    name: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct UnitsOutput {
    /// The value given.
    value: f64,
    /// The converted value, to 15 significant digits.
    result: f64,
    /// The same as text, without float noise.
    result_text: String,
    /// The unit converted from.
    from: UnitInfo,
    /// The unit converted to.
    to: UnitInfo,
    /// The category of both.
    category: Category,
}

/// Convert a value between units.
///
/// Ten categories: length, mass, temperature, volume, area, speed, time, digital_storage,
/// energy and pressure, with SI, US customary and imperial units (US gallons, cups and fluid
/// ounces; `imp_gal` for the imperial gallon). Units are symbols (case-sensitive, so `Mbit`
/// and `MB` differ) or names and other spellings (case-insensitive). Conversion uses exact
/// defining factors; temperatures are affine. Unknown units are a 400 listing the valid ones,
/// units of different categories a 400 naming both, and temperatures below absolute zero a 400.
#[op(post "/v1/units/convert" as unitsConvert, tag = DeveloperUtilities,
     rejects = "an unknown or ambiguous unit, units of different categories, or a temperature below absolute zero",
     example(miles_to_km, {"value": 26.2, "from": "mi", "to": "km"}),
     example(temperature, {"value": 98.6, "from": "fahrenheit", "to": "°C"}),
     example(binary_storage, {"value": 1, "from": "GiB", "to": "MB"}),
     example(incompatible, {"value": 1, "from": "kg", "to": "m"}, status = 400))]
async fn units_convert(input: UnitsInput) -> Result<UnitsOutput, ApiError> {
    if !input.value.is_finite() {
        return Err(ApiError::invalid("value", "must be a finite number"));
    }
    let from = find("from", &input.from, input.category)?;
    // A `to` that is ambiguous on its own is read in the category of `from`.
    let to = find("to", &input.to, input.category).or_else(|e| {
        if input.category.is_none() { find("to", &input.to, Some(from.category)).map_err(|_| e) } else { Err(e) }
    })?;
    if from.category != to.category {
        return Err(ApiError::invalid(
            "to",
            format!(
                "cannot convert {} ({}) to {} ({}); {} units are: {}",
                from.symbol,
                category_name(from.category),
                to.symbol,
                category_name(to.category),
                category_name(from.category),
                symbols_of(Some(from.category))
            ),
        ));
    }
    let base = input.value * from.factor + from.offset;
    if from.category == Temperature && base < 0.0 {
        return Err(ApiError::invalid("value", format!("{} {} is below absolute zero", input.value, from.symbol)));
    }
    let raw = (base - to.offset) / to.factor;
    if !raw.is_finite() {
        return Err(ApiError::invalid("value", "the result is too large for a 64-bit float"));
    }
    let result_text = to_text(raw);
    Ok(UnitsOutput {
        value: input.value,
        result: result_text.parse().unwrap_or(raw),
        result_text,
        from: UnitInfo { symbol: from.symbol, name: from.name },
        to: UnitInfo { symbol: to.symbol, name: to.name },
        category: from.category,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn convert(value: f64, from: &str, to: &str) -> Result<f64, ApiError> {
        units_convert(UnitsInput { value, from: from.into(), to: to.into(), category: None }).await.map(|o| o.result)
    }

    #[tokio::test]
    async fn defining_values_come_out_exact() {
        // Definitions and NIST SP 811 appendix B, to 15 significant digits.
        let cases: &[(f64, &str, &str, f64)] = &[
            (1.0, "mi", "ft", 5280.0),
            (1.0, "in", "cm", 2.54),
            (1.0, "nmi", "m", 1852.0),
            (1.0, "lb", "oz", 16.0),
            (1.0, "lb", "g", 453.59237),
            (1.0, "st", "lb", 14.0),
            (1.0, "gal", "in³", 231.0),
            (1.0, "gal", "L", 3.785411784),
            (1.0, "gal", "fl_oz", 128.0),
            (1.0, "cup", "tbsp", 16.0),
            (1.0, "tbsp", "tsp", 3.0),
            (1.0, "imp_gal", "L", 4.54609),
            (1.0, "ac", "ft²", 43560.0),
            (1.0, "mi²", "ac", 640.0),
            (1.0, "ha", "m²", 10000.0),
            (100.0, "km/h", "m/s", 27.7777777777778),
            (60.0, "mph", "km/h", 96.56064),
            (1.0, "kn", "km/h", 1.852),
            (1.0, "wk", "h", 168.0),
            (1.0, "yr", "d", 365.2425),
            (1.0, "GiB", "MiB", 1024.0),
            (1.0, "GB", "MB", 1000.0),
            (1.0, "MB", "Mbit", 8.0),
            (1.0, "byte", "bits", 8.0),
            (1.0, "kWh", "MJ", 3.6),
            (1.0, "kcal", "kJ", 4.184),
            (1.0, "atm", "Pa", 101325.0),
            (1.0, "atm", "Torr", 760.0),
            (1.0, "bar", "kPa", 100.0),
            (1.0, "psi", "kPa", 6.89475729316836),
        ];
        for (v, from, to, want) in cases {
            assert_eq!(convert(*v, from, to).await.unwrap(), *want, "{v} {from} -> {to}");
        }
    }

    #[tokio::test]
    async fn temperatures_are_affine() {
        let cases: &[(f64, &str, &str, f64)] = &[
            (0.0, "°C", "°F", 32.0),
            (100.0, "C", "F", 212.0),
            (-40.0, "celsius", "fahrenheit", -40.0),
            (0.0, "K", "°C", -273.15),
            (98.6, "F", "C", 37.0),
            (0.0, "°F", "°R", 459.67),
            (300.0, "kelvin", "rankine", 540.0),
        ];
        for (v, from, to, want) in cases {
            assert_eq!(convert(*v, from, to).await.unwrap(), *want, "{v} {from} -> {to}");
        }
        let e = convert(-300.0, "C", "K").await.unwrap_err();
        assert!(e.message.contains("below absolute zero"));
    }

    #[tokio::test]
    async fn unknown_ambiguous_and_incompatible_units_explain_themselves() {
        let e = convert(1.0, "furlong", "m").await.unwrap_err();
        assert_eq!(e.field.as_deref(), Some("from"));
        assert!(e.message.contains("valid:") && e.message.contains("km"));
        let e = convert(1.0, "kg", "m").await.unwrap_err();
        assert!(
            e.message.contains("cannot convert kg (mass) to m (length)") && e.message.contains("lb"),
            "{}",
            e.message
        );
        assert!(convert(1.0, "Kilometres", "MILES").await.is_ok());
        // "mb" could be millibar or megabit: the symbols decide, names need a category.
        let e = convert(1.0, "mb", "kB").await.unwrap_err();
        assert!(e.message.contains("ambiguous: Mbit (megabit) or MB (megabyte)"), "{}", e.message);
        assert_eq!(convert(1.0, "Mb", "kB").await.unwrap(), 125.0);
        let by_category =
            units_convert(UnitsInput { value: 1.0, from: "ton".into(), to: "kg".into(), category: Some(Mass) }).await;
        assert_eq!(by_category.unwrap().result, 907.18474);
        let wrong_category =
            units_convert(UnitsInput { value: 1.0, from: "km".into(), to: "m".into(), category: Some(Mass) }).await;
        assert!(wrong_category.unwrap_err().message.contains("unknown mass unit"));
    }

    #[test]
    fn symbols_and_spellings_are_unique_within_the_table() {
        let mut seen = std::collections::HashSet::new();
        for u in UNITS {
            assert!(seen.insert(u.symbol), "symbol {} twice", u.symbol);
        }
    }
}
