//! Arithmetic expressions evaluated safely: no variables, no code, bounded size and nesting.
//! The language is in `math_expr`.

use wrench_contract::prelude::*;
use wrench_kit::math_expr::{Angle, evaluate};

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
enum AngleUnit {
    #[default]
    Radians,
    Degrees,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct MathInput {
    /// The expression, e.g. `2 * (3 + 4) ^ 2 / sqrt(16)`.
    #[schemars(length(min = 1, max = 1000))]
    expression: String,
    /// How sin, cos, tan read angles and asin, acos, atan, atan2 return them.
    #[serde(default)]
    angle: AngleUnit,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MathOutput {
    /// The expression as given.
    expression: String,
    /// The value (an IEEE 754 double).
    result: f64,
    /// The value to 15 significant digits, without float noise (`0.1 + 0.2` gives `0.3`).
    result_text: String,
}

/// `v` to 15 significant digits, trailing zeros removed; plain notation for moderate
/// magnitudes, scientific otherwise.
pub(crate) fn to_text(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let magnitude = v.abs().log10().floor() as i32;
    if (-7..21).contains(&magnitude) {
        let decimals = (14 - magnitude).max(0) as usize;
        let s = format!("{v:.decimals$}");
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s }
    } else {
        let s = format!("{v:.14e}");
        let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let mantissa =
            if mantissa.contains('.') { mantissa.trim_end_matches('0').trim_end_matches('.') } else { mantissa };
        format!("{mantissa}e{exp}")
    }
}

/// Evaluate an arithmetic expression.
///
/// Numbers (`2`, `1.5`, `.5`, `1e-3`), `+ - * / %`, `^` or `**` for powers (right-associative,
/// binding tighter than unary minus: `-2^2` is -4), parentheses, the constants pi, e and tau,
/// and the functions sqrt, cbrt, abs, sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh,
/// ln, log (base 10, or log(x, base)), log10, log2, exp, pow, min, max, round (half away from
/// zero, optional digits), floor, ceil, trunc, sign and hypot. Names are case-insensitive.
/// Angles are radians unless `angle` is `degrees`. At most 1,000 characters and 100 levels of
/// nesting. Division by zero, domain errors (sqrt(-1), ln(0), asin(2)), unknown names and
/// results beyond the double range are 400s giving the position.
#[op(post "/v1/math/evaluate" as mathEvaluate, tag = DeveloperUtilities, pipe(expression -> result),
     rejects = "an expression that does not parse, divides by zero, leaves a function's domain or overflows",
     example(precedence, {"expression": "2 * (3 + 4) ^ 2 / sqrt(16)"}),
     example(float_noise, {"expression": "0.1 + 0.2"}),
     example(degrees, {"expression": "sin(30) + cos(60)", "angle": "degrees"}),
     example(division_by_zero, {"expression": "1 / (2 - 2)"}, status = 400))]
async fn math_evaluate(input: MathInput) -> Result<MathOutput, ApiError> {
    let angle = match input.angle {
        AngleUnit::Radians => Angle::Radians,
        AngleUnit::Degrees => Angle::Degrees,
    };
    let result = evaluate(&input.expression, angle)
        .map_err(|e| ApiError::invalid("expression", format!("{} (at position {})", e.message, e.position)))?;
    Ok(MathOutput { result_text: to_text(result), result, expression: input.expression })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_text_hides_float_noise_only() {
        assert_eq!(to_text(0.1 + 0.2), "0.3");
        assert_eq!(to_text(1.0 / 3.0), "0.333333333333333");
        assert_eq!(to_text(2.0), "2");
        assert_eq!(to_text(-1500.5), "-1500.5");
        assert_eq!(to_text(1e25), "1e25");
        assert_eq!(to_text(1.5e-9), "1.5e-9");
        assert_eq!(to_text(123456789012345.0), "123456789012345");
        assert_eq!(to_text(0.49999999999999994), "0.5");
    }

    #[test]
    fn the_description_names_every_function_and_constant() {
        let op = crate::operations().into_iter().find(|o| o.id() == "mathEvaluate").unwrap();
        for (name, _, _) in wrench_kit::math_expr::FUNCTIONS {
            assert!(op.description.contains(name), "{name} is not documented");
        }
        for (name, _) in wrench_kit::math_expr::CONSTANTS {
            assert!(op.description.contains(name), "{name} is not documented");
        }
    }
}
