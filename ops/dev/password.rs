//! Passwords: generation from the operating system's CSPRNG and strength estimation with
//! zxcvbn (Dropbox's estimator, as its paper and reference implementation define score,
//! guesses, crack times, warnings and suggestions).

use wrench_contract::prelude::*;
use wrench_infra::random;

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const SYMBOLS: &str = "!@#$%^&*()-_=+[]{};:,.<>?/~|";
/// Characters easily confused with one another in many fonts.
const AMBIGUOUS: &str = "0OIl1|";

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PasswordGenerateInput {
    /// Characters per password.
    #[serde(default = "sixteen")]
    #[schemars(range(min = 4, max = 256))]
    length: u32,
    /// How many passwords.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 50))]
    count: u32,
    /// Include upper-case letters A-Z.
    #[serde(default = "wrench_contract::decode::yes")]
    uppercase: bool,
    /// Include lower-case letters a-z.
    #[serde(default = "wrench_contract::decode::yes")]
    lowercase: bool,
    /// Include digits 0-9.
    #[serde(default = "wrench_contract::decode::yes")]
    numbers: bool,
    /// Include the symbols `!@#$%^&*()-_=+[]{};:,.<>?/~|`.
    #[serde(default)]
    symbols: bool,
    /// Leave out `0 O I l 1 |`, which are easily confused.
    #[serde(default)]
    exclude_ambiguous: bool,
}

fn sixteen() -> u32 {
    16
}

fn one() -> u32 {
    1
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PasswordGenerateOutput {
    /// The first (or only) password.
    password: String,
    /// All generated passwords.
    passwords: Vec<String>,
    /// Characters per password.
    length: u32,
    /// How many distinct characters each position could take.
    charset_size: usize,
    /// length x log2(charset_size): the entropy of a uniformly random password of this
    /// length and alphabet (an upper bound here, since each chosen class is guaranteed).
    entropy_bits: f64,
}

/// Generate random passwords.
///
/// Every character is drawn uniformly from the operating system's CSPRNG. Each enabled class
/// (upper case, lower case, numbers, symbols) appears at least once: one character of each
/// class is placed first, the rest drawn from the union, and the whole shuffled (Fisher-Yates).
/// Length 4-256 (16), count 1-50 (1). Enabling no class at all is a 400.
#[op(post "/v1/password/generate" as passwordGenerate, tag = DeveloperUtilities,
     rejects = "a request with every character class turned off",
     redact(".data.password", ".data.passwords"),
     example(typical, {"length": 20, "symbols": true}),
     example(several_unambiguous, {"length": 12, "count": 3, "excludeAmbiguous": true}),
     example(no_class, {"uppercase": false, "lowercase": false, "numbers": false}, status = 400))]
async fn password_generate(input: PasswordGenerateInput) -> Result<PasswordGenerateOutput, ApiError> {
    let keep = |set: &str| -> Vec<char> {
        set.chars().filter(|c| !(input.exclude_ambiguous && AMBIGUOUS.contains(*c))).collect()
    };
    let classes: Vec<Vec<char>> =
        [(input.uppercase, UPPER), (input.lowercase, LOWER), (input.numbers, DIGITS), (input.symbols, SYMBOLS)]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, set)| keep(set))
            .collect();
    if classes.is_empty() {
        return Err(ApiError::invalid(
            "uppercase",
            "every character class is off; enable at least one of uppercase, lowercase, numbers, symbols",
        ));
    }
    let all: Vec<char> = classes.iter().flatten().copied().collect();
    let pick = |set: &[char]| -> Result<char, ApiError> { Ok(set[random::below(set.len() as u32)? as usize]) };
    let mut passwords = Vec::with_capacity(input.count as usize);
    for _ in 0..input.count {
        let mut chars = Vec::with_capacity(input.length as usize);
        for class in &classes {
            chars.push(pick(class)?);
        }
        while chars.len() < input.length as usize {
            chars.push(pick(&all)?);
        }
        for i in (1..chars.len()).rev() {
            let j = random::below(i as u32 + 1)? as usize;
            chars.swap(i, j);
        }
        passwords.push(chars.into_iter().collect::<String>());
    }
    let entropy_bits = (input.length as f64 * (all.len() as f64).log2() * 100.0).round() / 100.0;
    Ok(PasswordGenerateOutput {
        password: passwords[0].clone(),
        passwords,
        length: input.length,
        charset_size: all.len(),
        entropy_bits,
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PasswordStrengthInput {
    /// The password to rate. zxcvbn looks at its first 100 characters, or fewer when they hold
    /// many different look-alike symbols (`evaluatedLength` says how many).
    #[schemars(length(min = 1, max = 1024))]
    password: String,
    /// Words specific to the user (name, e-mail, site) that make a password weaker when used.
    #[serde(default)]
    #[schemars(length(max = 20))]
    user_inputs: Vec<UserInput>,
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(transparent)]
struct UserInput(#[schemars(length(max = 100))] String);

#[derive(Debug, Serialize, JsonSchema)]
struct CrackTime {
    /// Estimated seconds to crack.
    seconds: f64,
    /// The same, in words ("3 hours", "centuries").
    display: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CrackTimes {
    /// An online attack throttled to 100 guesses per hour.
    online_throttling_100_per_hour: CrackTime,
    /// An online attack without throttling, 10 guesses per second.
    online_no_throttling_10_per_second: CrackTime,
    /// An offline attack on a slow hash (bcrypt, scrypt, Argon2), 10^4 guesses per second.
    offline_slow_hashing_1e4_per_second: CrackTime,
    /// An offline attack on a fast hash (MD5, SHA-1), 10^10 guesses per second.
    offline_fast_hashing_1e10_per_second: CrackTime,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PasswordStrengthOutput {
    /// 0 (too guessable, under 10^3 guesses) to 4 (very unguessable, over 10^10 guesses).
    score: u8,
    /// The score in words: very weak, weak, fair, strong, very strong.
    strength: &'static str,
    /// Estimated guesses needed.
    guesses: u64,
    /// log10 of the guesses.
    guesses_log10: f64,
    /// Estimated times to crack under four attack models.
    crack_times: CrackTimes,
    /// What makes the password weak; null when nothing stands out.
    warning: Option<String>,
    /// How to make it stronger.
    suggestions: Vec<String>,
    /// How many characters were evaluated: the first 100 at most, fewer when they hold many
    /// different look-alike symbols.
    evaluated_length: usize,
}

fn crack_time(t: zxcvbn::time_estimates::CrackTimeSeconds) -> CrackTime {
    let seconds = match t {
        zxcvbn::time_estimates::CrackTimeSeconds::Integer(i) => i as f64,
        zxcvbn::time_estimates::CrackTimeSeconds::Float(f) => f,
    };
    CrackTime { seconds, display: t.to_string() }
}

/// zxcvbn's look-alike substitutions (l33t): each letter and the symbols that may stand for it.
const LOOK_ALIKES: [&str; 12] = ["4@", "8", "({[<", "3", "69", "1!|", "1|7", "0", "$5", "+7", "%", "2"];
/// Bound on zxcvbn's work, in substitution sets times characters squared (see [`evaluated`]).
const WORK_BUDGET: u64 = 60_000;

/// How many leading characters of `password` zxcvbn is given: at most 100, as zxcvbn bounds
/// itself, and fewer when they hold many different look-alike symbols. zxcvbn matches its
/// dictionaries once for every way of reading those symbols as letters (one per combination of
/// a symbol for each letter), each time over every substring, so its work grows with the number
/// of combinations times the length squared: a hundred characters of all twenty symbols took
/// 0.4 s of a core in a release build, and ten times that in a debug build. Such a password
/// is as random as a password gets and scores 4 on far fewer characters; common passwords
/// that use a few substitutions (`p4$$w0rd`) are evaluated whole.
fn evaluated(password: &str) -> usize {
    let chars: Vec<char> = password.chars().take(100).collect();
    let combinations = |chars: &[char]| -> u64 {
        LOOK_ALIKES.iter().map(|subs| subs.chars().filter(|s| chars.contains(s)).count().max(1) as u64).product()
    };
    let mut n = chars.len();
    while n > 1 && combinations(&chars[..n]) * (n as u64).pow(2) > WORK_BUDGET {
        n -= 1;
    }
    n
}

/// Estimate a password's strength.
///
/// zxcvbn: the password is matched against dictionaries (common passwords, English words,
/// names, TV and film), keyboard patterns, repeats, sequences and dates; the cheapest match
/// sequence gives the guesses, the score (0-4), the crack times and the feedback. `user_inputs`
/// adds words that count as known to an attacker. Only the first 100 characters are
/// evaluated, as zxcvbn does to bound its work, and fewer when they hold many different
/// look-alike symbols (`4@8({[<3691!|70$5+%2`), whose readings zxcvbn tries one by one
/// (`evaluatedLength` says how many). The password is never logged or stored.
#[op(post "/v1/password/strength" as passwordStrength, tag = DeveloperUtilities,
     example(common, {"password": "password123"}),
     example(strong, {"password": "correct horse battery staple"}),
     example(user_input, {"password": "alice1990", "userInputs": ["alice"]}))]
async fn password_strength(input: PasswordStrengthInput) -> Result<PasswordStrengthOutput, ApiError> {
    let inputs: Vec<&str> = input.user_inputs.iter().map(|u| u.0.as_str()).collect();
    let length = evaluated(&input.password);
    let password: String = input.password.chars().take(length).collect();
    let e = zxcvbn::zxcvbn(&password, &inputs);
    let score = u8::from(e.score());
    let times = e.crack_times();
    Ok(PasswordStrengthOutput {
        score,
        strength: ["very weak", "weak", "fair", "strong", "very strong"][score.min(4) as usize],
        guesses: e.guesses(),
        guesses_log10: (e.guesses_log10() * 1000.0).round() / 1000.0,
        crack_times: CrackTimes {
            online_throttling_100_per_hour: crack_time(times.online_throttling_100_per_hour()),
            online_no_throttling_10_per_second: crack_time(times.online_no_throttling_10_per_second()),
            offline_slow_hashing_1e4_per_second: crack_time(times.offline_slow_hashing_1e4_per_second()),
            offline_fast_hashing_1e10_per_second: crack_time(times.offline_fast_hashing_1e10_per_second()),
        },
        warning: e.feedback().and_then(|f| f.warning()).map(|w| w.to_string()),
        suggestions: e.feedback().map(|f| f.suggestions().iter().map(|s| s.to_string()).collect()).unwrap_or_default(),
        evaluated_length: length,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generate(v: Value) -> Result<PasswordGenerateOutput, ApiError> {
        let input: PasswordGenerateInput = serde_json::from_value(v).unwrap();
        futures_util::FutureExt::now_or_never(password_generate(input)).unwrap()
    }

    #[test]
    fn every_enabled_class_is_present_even_at_the_minimum_length() {
        for _ in 0..500 {
            let p = generate(json!({"length": 4, "symbols": true})).unwrap().password;
            assert_eq!(p.chars().count(), 4);
            for set in [UPPER, LOWER, DIGITS, SYMBOLS] {
                assert!(p.chars().any(|c| set.contains(c)), "{p} lacks one of {set}");
            }
        }
    }

    #[test]
    fn disabled_and_ambiguous_characters_never_appear() {
        let out = generate(
            json!({"length": 256, "count": 50, "uppercase": false, "excludeAmbiguous": true, "symbols": true}),
        )
        .unwrap();
        assert_eq!(out.passwords.len(), 50);
        for p in &out.passwords {
            assert!(!p.chars().any(|c| UPPER.contains(c) || AMBIGUOUS.contains(c)), "{p}");
        }
        // 25 lower-case (no l) + 8 digits (no 0, 1) + 27 symbols (no |).
        assert_eq!(out.charset_size, 25 + 8 + 27);
    }

    #[test]
    fn positions_are_uniform_enough_that_the_guaranteed_classes_do_not_sit_first() {
        // Before shuffling, position 0 is always an upper-case letter; after, it is one with
        // probability 26/62 over many draws.
        let out = generate(json!({"length": 8, "count": 50})).unwrap();
        let mut upper_first = 0;
        for _ in 0..20 {
            for p in generate(json!({"length": 8, "count": 50})).unwrap().passwords {
                upper_first += p.starts_with(|c: char| c.is_ascii_uppercase()) as u32;
            }
        }
        assert!((300..550).contains(&upper_first), "{upper_first} of 1000 start upper-case");
        assert_ne!(out.passwords[0], out.passwords[1]);
    }

    async fn strength(p: &str, inputs: &[&str]) -> PasswordStrengthOutput {
        let user_inputs = inputs.iter().map(|s| UserInput(s.to_string())).collect();
        password_strength(PasswordStrengthInput { password: p.into(), user_inputs }).await.unwrap()
    }

    #[tokio::test]
    async fn scores_follow_the_zxcvbn_thresholds() {
        // Scores as the reference zxcvbn gives them for these well-known cases.
        assert_eq!(strength("password", &[]).await.score, 0);
        assert_eq!(strength("qwerty", &[]).await.score, 0);
        assert_eq!(strength("correct horse battery staple", &[]).await.score, 4);
        // The score is the guesses bucket: < 10^3 + 5 => 0, < 10^6 + 5 => 1, < 10^8 + 5 => 2,
        // < 10^10 + 5 => 3, else 4.
        for p in ["password", "Tr0ub4dour&3", "zxcvbnm123", "r0sebudmaggy", "xK9#mQ2$vL7!"] {
            let s = strength(p, &[]).await;
            let g = s.guesses as f64;
            let expected = if g < 1e3 + 5.0 {
                0
            } else if g < 1e6 + 5.0 {
                1
            } else if g < 1e8 + 5.0 {
                2
            } else if g < 1e10 + 5.0 {
                3
            } else {
                4
            };
            assert_eq!(s.score, expected, "{p}: {g} guesses");
            // Crack times are guesses over the attack rate.
            let t = &s.crack_times;
            assert!((t.offline_fast_hashing_1e10_per_second.seconds - g / 1e10).abs() <= g / 1e10 * 1e-9 + 1e-12);
            assert!((t.online_no_throttling_10_per_second.seconds - g / 10.0).abs() <= g * 1e-9 + 1e-9);
        }
    }

    #[tokio::test]
    async fn look_alike_heavy_passwords_are_evaluated_on_fewer_characters() {
        // Every look-alike symbol, six times: 120 characters whose readings zxcvbn would try
        // one by one over its 100.
        let all = "4@8({[<3691!|70$5+%2".repeat(6);
        let s = strength(&all, &[]).await;
        assert!((10..30).contains(&s.evaluated_length), "{}", s.evaluated_length);
        assert_eq!(s.score, 4);
        // Common substitutions are evaluated whole and score as zxcvbn scores them.
        let long = "correcthorsebatterystaple".repeat(5);
        for p in ["p4$$w0rd", "P@ssw0rd!1", "Tr0ub4dour&3", "|!1|!1|!1", long.as_str()] {
            let s = strength(p, &[]).await;
            assert_eq!(s.evaluated_length, p.chars().count().min(100), "{p}");
            let reference: String = p.chars().take(100).collect();
            assert_eq!(s.score, u8::from(zxcvbn::zxcvbn(&reference, &[]).score()), "{p}");
        }
    }

    #[tokio::test]
    async fn user_inputs_make_a_password_weaker_and_feedback_explains() {
        let plain = strength("alicewonder42", &[]).await;
        let known = strength("alicewonder42", &["alicewonder"]).await;
        assert!(known.guesses < plain.guesses, "{} vs {}", known.guesses, plain.guesses);
        let weak = strength("password", &[]).await;
        assert!(weak.warning.unwrap().contains("common password"));
        assert!(!weak.suggestions.is_empty());
        assert_eq!(strength(&"a".repeat(500), &[]).await.evaluated_length, 100);
    }
}
