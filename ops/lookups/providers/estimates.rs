//! `age/estimate`, `gender/estimate` and `nationality/estimate`: what the agify, genderize and
//! nationalize APIs (`WRENCH_PROVIDER_AGIFY_URL`, `_GENDERIZE_URL`, `_NATIONALIZE_URL`) have
//! learned of a first name, with the sample size each estimate rests on.
//!
//! The free tier is 100 names a day across the three, without a key; a key (`apikey`) raises
//! it, and the budget is then the provider's to enforce. Estimates change slowly: answers are
//! kept 30 days. A name none of their data holds answers with a null estimate and a count of
//! 0, never a guess.

use wrench_contract::prelude::*;
use wrench_infra::{
    datasets::countries,
    providers::{AGIFY, GENDERIZE, NATIONALIZE, Provider},
};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NameInput {
    /// A first name (`Michael`).
    #[schemars(length(min = 1, max = 100))]
    name: String,
    /// Narrow the estimate to people of one country (ISO 3166-1 alpha-2, `US`). Not taken by
    /// `nationality/estimate`.
    #[schemars(length(min = 2, max = 2))]
    country: Option<String>,
}

/// The provider's answer for `name` (in `country`), cached, and its sample size.
async fn ask(ctx: &Ctx, provider: &Provider, name: &str, country: Option<&str>) -> Result<(Value, String), ApiError> {
    let name = name.trim();
    if name.is_empty() || name.chars().any(char::is_control) {
        return Err(ApiError::invalid("name", "give a first name without control characters"));
    }
    let mut url = provider.url(ctx)?.clone();
    url.query_pairs_mut().append_pair("name", &name.to_lowercase());
    if let Some(c) = country {
        url.query_pairs_mut().append_pair("country_id", c);
    }
    let answer = provider.get_cached_key_in_query(ctx, url, "apikey").await?;
    if answer.status != 200 {
        return Err(provider.failed(answer.status));
    }
    let v = answer.json(provider)?;
    if !v.is_object() {
        return Err(provider.malformed("not an object"));
    }
    Ok((v, answer.fetched_at()))
}

fn country_of(input: &NameInput) -> Result<Option<String>, ApiError> {
    match input.country.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(c) => countries::by_code(&c.to_ascii_uppercase())
            .map(|_| Some(c.to_ascii_uppercase()))
            .ok_or_else(|| ApiError::invalid("country", format!("{c:?} is not an ISO 3166-1 alpha-2 country code"))),
    }
}

fn sample(provider: &Provider, v: &Value) -> Result<u64, ApiError> {
    v["count"].as_u64().ok_or_else(|| provider.malformed("no `count`"))
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AgeOutput {
    name: String,
    /// The estimated age in years; null when the provider holds no record of the name.
    age: Option<u32>,
    /// People of that name the estimate rests on.
    sample_size: u64,
    country: Option<String>,
    source: &'static str,
    fetched_at: String,
}

/// Estimate a person's age from a first name.
///
/// The average age of people with this first name (optionally in one `country`) in the agify
/// data set (`WRENCH_PROVIDER_AGIFY_URL`), with the number of people it rests on. Null when the
/// data holds no one of that name. Answers are kept 30 days; without a key 100 names a day.
#[op(post "/v1/age/estimate" as ageEstimate, tag = Lookups,
     rejects = "an empty name, or a country that is not an ISO 3166-1 alpha-2 code",
     uses(provider),
     redact(".data.fetchedAt"),
     example(michael, {"name": "Michael"}),
     example(in_a_country, {"name": "Anna", "country": "DE"}),
     example(empty, {"name": ""}, status = 400))]
async fn age_estimate(ctx: &Ctx, input: NameInput) -> Result<AgeOutput, ApiError> {
    let country = country_of(&input)?;
    let (v, fetched_at) = ask(ctx, &AGIFY, &input.name, country.as_deref()).await?;
    Ok(AgeOutput {
        age: v["age"].as_u64().map(|a| a as u32),
        sample_size: sample(&AGIFY, &v)?,
        name: input.name,
        country,
        source: AGIFY.name,
        fetched_at,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct GenderOutput {
    name: String,
    /// `male` or `female`; null when the provider holds no record of the name.
    gender: Option<String>,
    /// 0 to 1: the share of the sample with that gender.
    probability: Option<f64>,
    sample_size: u64,
    country: Option<String>,
    source: &'static str,
    fetched_at: String,
}

/// Estimate a person's gender from a first name.
///
/// The more frequent gender among people with this first name (optionally in one `country`)
/// in the genderize data set (`WRENCH_PROVIDER_GENDERIZE_URL`), with its share of the sample
/// and the sample's size. Null when the data holds no one of that name. Answers are kept 30
/// days; without a key 100 names a day.
#[op(post "/v1/gender/estimate" as genderEstimate, tag = Lookups,
     rejects = "an empty name, or a country that is not an ISO 3166-1 alpha-2 code",
     uses(provider),
     redact(".data.fetchedAt"),
     example(anna, {"name": "Anna"}),
     example(unknown_name, {"name": "Xqzzyv"}),
     example(bad_country, {"name": "Anna", "country": "ZZ"}, status = 400))]
async fn gender_estimate(ctx: &Ctx, input: NameInput) -> Result<GenderOutput, ApiError> {
    let country = country_of(&input)?;
    let (v, fetched_at) = ask(ctx, &GENDERIZE, &input.name, country.as_deref()).await?;
    let gender = v["gender"].as_str().map(str::to_string);
    Ok(GenderOutput {
        probability: gender.as_ref().and(v["probability"].as_f64()),
        gender,
        sample_size: sample(&GENDERIZE, &v)?,
        name: input.name,
        country,
        source: GENDERIZE.name,
        fetched_at,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Nationality {
    /// ISO 3166-1 alpha-2.
    country_code: String,
    country: Option<String>,
    /// 0 to 1.
    probability: f64,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NationalityOutput {
    name: String,
    /// Most likely first (the provider gives up to 5); empty when it holds no record.
    countries: Vec<Nationality>,
    sample_size: u64,
    source: &'static str,
    fetched_at: String,
}

/// Estimate a person's nationality from a first name.
///
/// The countries where this first name is most frequent, with probabilities, from the
/// nationalize data set (`WRENCH_PROVIDER_NATIONALIZE_URL`), and the sample's size. Empty when
/// the data holds no one of that name. Answers are kept 30 days; without a key 100 names a day.
#[op(post "/v1/nationality/estimate" as nationalityEstimate, tag = Lookups,
     rejects = "an empty name, or a country (which this estimate does not take)",
     uses(provider),
     redact(".data.fetchedAt"),
     example(michael, {"name": "Michael"}),
     example(with_country, {"name": "Michael", "country": "US"}, status = 400))]
async fn nationality_estimate(ctx: &Ctx, input: NameInput) -> Result<NationalityOutput, ApiError> {
    if input.country.is_some() {
        return Err(ApiError::invalid("country", "nationality/estimate does not take a country"));
    }
    let (v, fetched_at) = ask(ctx, &NATIONALIZE, &input.name, None).await?;
    let list = v["country"].as_array().ok_or_else(|| NATIONALIZE.malformed("no `country` list"))?;
    let countries = list
        .iter()
        .map(|c| {
            let code =
                c["country_id"].as_str().ok_or_else(|| NATIONALIZE.malformed("a country without `country_id`"))?;
            let probability =
                c["probability"].as_f64().ok_or_else(|| NATIONALIZE.malformed("a country without `probability`"))?;
            Ok(Nationality {
                country: countries::by_code(code).map(|c| c.name.to_string()),
                country_code: code.to_string(),
                probability,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(NationalityOutput {
        countries,
        sample_size: sample(&NATIONALIZE, &v)?,
        name: input.name,
        source: NATIONALIZE.name,
        fetched_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str, country: Option<&str>) -> NameInput {
        NameInput { name: name.into(), country: country.map(str::to_string) }
    }

    #[tokio::test]
    async fn estimates_with_their_samples_and_none_for_unknown_names() {
        let ctx = crate::testing::fake_ctx(&[]);
        let age = age_estimate(&ctx, input("Michael", Some("us"))).await.unwrap();
        assert_eq!((age.age, age.sample_size, age.country.as_deref()), (Some(62), 298_219, Some("US")));
        let gender = gender_estimate(&ctx, input("Anna", None)).await.unwrap();
        assert_eq!((gender.gender.as_deref(), gender.probability), (Some("female"), Some(0.98)));
        let unknown = gender_estimate(&ctx, input("Xqzzyv", None)).await.unwrap();
        assert_eq!((unknown.gender, unknown.probability, unknown.sample_size), (None, None, 0));
        let nat = nationality_estimate(&ctx, input("Michael", None)).await.unwrap();
        assert_eq!(nat.countries[0].country_code, "US");
        assert_eq!(nat.countries[0].country.as_deref(), Some("United States"));
    }

    #[tokio::test]
    async fn the_free_tier_is_kept_and_a_key_lifts_it() {
        // The budget is shared by every instance through the store: 100 a day without a key.
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_AGIFY_KEY", "")]);
        let day = jiff::Timestamp::now().as_second() as u64 / 86_400;
        let spend = |ctx: &Ctx| {
            let key = format!("budget:agify:day:{day}");
            let store = ctx.store.clone();
            async move {
                for _ in 0..100 {
                    store.incr(&key, Some(std::time::Duration::from_secs(60))).await.unwrap();
                }
            }
        };
        spend(&ctx).await;
        let e = age_estimate(&ctx, input("Anna", None)).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderBusy);
        assert!(e.headers.iter().any(|(n, _)| n == "retry-after"), "{e:?}");
        let keyed = crate::testing::fake_ctx(&[]);
        spend(&keyed).await;
        assert_eq!(age_estimate(&keyed, input("Anna", None)).await.unwrap().age, Some(53));
        // The provider's own refusal (429): it is not asked again until the time it names (a
        // minute when it names none), so another name waits too; one already cached does not.
        let e = age_estimate(&keyed, input("quota-exceeded", None)).await.unwrap_err();
        assert!(e.code == ErrorCode::ProviderBusy && e.message.contains("429"), "{}", e.message);
        assert!(age_estimate(&keyed, input("Anna", None)).await.is_ok());
        let e = age_estimate(&keyed, input("Zed", None)).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::ProviderBusy, "{}", e.message);
        assert!(e.headers.iter().any(|(n, _)| n == "retry-after"), "{e:?}");
        // The operator's own budget replaces the published one.
        let own = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_AGIFY_BUDGET", "2/minute")]);
        // (Other names each time: a cached answer spends nothing.)
        assert!(age_estimate(&own, input("Anna", None)).await.is_ok());
        assert!(age_estimate(&own, input("Bo", None)).await.is_ok());
        let e = age_estimate(&own, input("Cy", None)).await.unwrap_err();
        assert!(
            e.code == ErrorCode::ProviderBusy && e.message.contains("WRENCH_PROVIDER_AGIFY_BUDGET"),
            "{}",
            e.message
        );
    }
}
