//! `exchange/price` and `exchange/search`: cryptocurrency prices and coin search from
//! CoinGecko's public API (`WRENCH_PROVIDER_COINGECKO_URL`). Without a key the public API
//! allows a few requests a minute (10 are sent); a demo key (`x-cg-demo-api-key`, 30 a minute)
//! or a pro key (`x-cg-pro-api-key`, chosen when the URL is CoinGecko's pro address) raises it,
//! and CoinGecko then counts. Prices are
//! reused for 60 seconds, searches for an hour.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use wrench_contract::prelude::*;
use wrench_infra::{
    outbound::provider::Answer,
    providers::{COINGECKO, Provider},
};

/// CoinGecko as the search asks it: search results change far more slowly than prices, so
/// they are kept an hour instead of the provider's minute.
const COINGECKO_SEARCH: Provider = Provider { cache_for: Some(Duration::from_secs(3_600)), ..COINGECKO };
const ATTRIBUTION: &str = "Data provided by CoinGecko";
/// Most currencies of one price request.
const MAX_CURRENCIES: usize = 10;

/// `GET {base}{path}?{params}` with the key's header, cached for as long as `cached_as` keeps
/// answers.
async fn ask(
    ctx: &Ctx,
    cached_as: &Provider,
    path: &str,
    params: &[(&str, &str)],
) -> Result<(Value, Answer), ApiError> {
    let base = COINGECKO.url(ctx)?;
    let mut url = base.join(path).map_err(|e| COINGECKO.malformed(e))?;
    url.query_pairs_mut().extend_pairs(params);
    let mut headers = HeaderMap::new();
    if let Some(key) = COINGECKO.key(ctx) {
        let pro = base.host_str().is_some_and(|h| h.starts_with("pro-api."));
        let name = HeaderName::from_static(if pro { "x-cg-pro-api-key" } else { "x-cg-demo-api-key" });
        let value = HeaderValue::from_str(key.expose()).map_err(|_| ApiError::internal("the CoinGecko key"))?;
        headers.insert(name, value);
    }
    let answer = cached_as.get_cached(ctx, url.as_str(), url.clone(), &headers, |s| s == 200).await?;
    if answer.status != 200 {
        return Err(COINGECKO.failed(answer.status));
    }
    Ok((answer.json(&COINGECKO)?, answer))
}

fn slug(field: &str, text: &str, max: usize) -> Result<String, ApiError> {
    let t = text.trim().to_ascii_lowercase();
    if t.is_empty() || t.len() > max || !t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(ApiError::invalid(field, format!("letters, digits, `-` and `_`, 1 to {max} characters")));
    }
    Ok(t)
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct PriceInput {
    /// CoinGecko's id of the coin (`bitcoin`, `ethereum`; `exchange/search` finds it from a
    /// name or symbol).
    #[schemars(length(min = 1, max = 100))]
    coin: String,
    /// Currencies to price it in (`usd`, `eur`, `btc`...), 1 to 10; default `usd`.
    #[serde(default = "usd")]
    #[schemars(length(min = 1, max = 10))]
    currencies: Vec<String>,
}

fn usd() -> Vec<String> {
    vec!["usd".to_string()]
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Price {
    currency: String,
    /// Null when CoinGecko does not price the coin in this currency.
    price: Option<f64>,
    /// Change over the last 24 hours, percent.
    change_24h_percent: Option<f64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PriceOutput {
    coin: String,
    prices: Vec<Price>,
    /// When CoinGecko last updated the price (RFC 3339).
    updated_at: Option<String>,
    source: &'static str,
    /// The credit CoinGecko asks for.
    attribution: &'static str,
    /// When CoinGecko answered (prices are reused for 60 seconds).
    fetched_at: String,
}

/// Price of a cryptocurrency.
///
/// The current price of `coin` (CoinGecko's id) in each of `currencies` (default `usd`, up to
/// 10), with its change over 24 hours and the time CoinGecko last updated it, from CoinGecko
/// (`WRENCH_PROVIDER_COINGECKO_URL`). An unknown coin is 404; a currency CoinGecko does not
/// price the coin in answers null. Prices are reused for 60 seconds.
#[op(post "/v1/exchange/price" as exchangePrice, tag = Lookups,
     rejects = "an empty coin id, or more than 10 currencies",
     uses(provider), errors(NOT_FOUND),
     redact(".data.fetchedAt"),
     example(bitcoin, {"coin": "bitcoin", "currencies": ["usd", "eur"]}),
     example(unknown_coin, {"coin": "no-such-coin-xyz"}, status = 404),
     example(no_currencies, {"coin": "bitcoin", "currencies": []}, status = 400))]
async fn exchange_price(ctx: &Ctx, input: PriceInput) -> Result<PriceOutput, ApiError> {
    let coin = slug("coin", &input.coin, 100)?;
    if input.currencies.is_empty() || input.currencies.len() > MAX_CURRENCIES {
        return Err(ApiError::invalid("currencies", format!("give 1 to {MAX_CURRENCIES} currencies")));
    }
    let mut currencies = Vec::new();
    for (n, c) in input.currencies.iter().enumerate() {
        let c = slug(&format!("currencies[{n}]"), c, 10)?;
        if !currencies.contains(&c) {
            currencies.push(c);
        }
    }
    let vs = currencies.join(",");
    let params = [
        ("ids", coin.as_str()),
        ("vs_currencies", vs.as_str()),
        ("include_24hr_change", "true"),
        ("include_last_updated_at", "true"),
    ];
    let (v, answer) = ask(ctx, &COINGECKO, "simple/price", &params).await?;
    let Some(item) = v.get(&coin).filter(|i| i.is_object()) else {
        return Err(ApiError::not_found(format!(
            "CoinGecko knows no coin with the id {coin:?}; exchange/search finds ids"
        )));
    };
    let prices = currencies
        .into_iter()
        .map(|c| Price {
            price: item[&c].as_f64(),
            change_24h_percent: item[format!("{c}_24h_change")].as_f64().map(|p| (p * 1e4).round() / 1e4),
            currency: c,
        })
        .collect();
    Ok(PriceOutput {
        coin,
        prices,
        updated_at: item["last_updated_at"]
            .as_i64()
            .and_then(|t| jiff::Timestamp::from_second(t).ok())
            .map(|t| t.to_string()),
        source: COINGECKO.name,
        attribution: ATTRIBUTION,
        fetched_at: answer.fetched_at(),
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct SearchInput {
    /// A coin's name or symbol, or part of one (`bitcoin`, `BTC`, `eth`).
    #[schemars(length(min = 1, max = 100))]
    query: String,
    /// Coins to answer, 1 to 25.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 25))]
    limit: u8,
}

fn ten() -> u8 {
    10
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Coin {
    /// The id `exchange/price` takes.
    id: String,
    name: String,
    symbol: String,
    /// Rank by market capitalisation; null for unranked coins.
    market_cap_rank: Option<u32>,
    /// A small logo.
    thumb: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SearchOutput {
    query: String,
    /// In CoinGecko's order (market capitalisation first).
    coins: Vec<Coin>,
    count: usize,
    source: &'static str,
    /// The credit CoinGecko asks for.
    attribution: &'static str,
    fetched_at: String,
}

/// Search cryptocurrencies by name or symbol.
///
/// Coins whose name or symbol matches `query`, in CoinGecko's order (largest market
/// capitalisation first), up to `limit` (1-25, default 10), with the id `exchange/price` takes,
/// symbol and market-cap rank. From CoinGecko (`WRENCH_PROVIDER_COINGECKO_URL`); searches are
/// reused for an hour.
#[op(post "/v1/exchange/search" as exchangeSearch, tag = Lookups,
     rejects = "an empty query, or a limit outside 1 to 25",
     uses(provider),
     redact(".data.fetchedAt"),
     example(btc, {"query": "btc"}),
     example(empty, {"query": " "}, status = 400))]
async fn exchange_search(ctx: &Ctx, input: SearchInput) -> Result<SearchOutput, ApiError> {
    let query = input.query.trim();
    if query.is_empty() || query.chars().any(char::is_control) {
        return Err(ApiError::invalid("query", "give a coin's name or symbol"));
    }
    let (v, answer) = ask(ctx, &COINGECKO_SEARCH, "search", &[("query", query)]).await?;
    let list = v["coins"].as_array().ok_or_else(|| COINGECKO.malformed("no `coins` list"))?;
    let coins: Vec<Coin> = list
        .iter()
        .filter_map(|c| {
            Some(Coin {
                id: c["id"].as_str()?.to_string(),
                name: c["name"].as_str()?.to_string(),
                symbol: c["symbol"].as_str()?.to_string(),
                market_cap_rank: c["market_cap_rank"].as_u64().map(|r| r as u32),
                thumb: c["thumb"].as_str().map(str::to_string),
            })
        })
        .take(usize::from(input.limit.clamp(1, 25)))
        .collect();
    Ok(SearchOutput {
        query: query.to_string(),
        count: coins.len(),
        coins,
        source: COINGECKO.name,
        attribution: ATTRIBUTION,
        fetched_at: answer.fetched_at(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn prices_search_and_the_key_header() {
        let ctx = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_COINGECKO_KEY", wrench_fakes::live::COINGECKO_KEY)]);
        let input = PriceInput { coin: "Ethereum".into(), currencies: vec!["eur".into(), "usd".into(), "xyz".into()] };
        let out = exchange_price(&ctx, input).await.unwrap();
        let got: Vec<(&str, Option<f64>)> = out.prices.iter().map(|p| (p.currency.as_str(), p.price)).collect();
        assert_eq!(got, [("eur", Some(2840.2)), ("usd", Some(3012.77)), ("xyz", None)]);
        assert_eq!(out.prices[0].change_24h_percent, Some(2.1187));
        assert_eq!(out.updated_at.as_deref(), Some("2026-11-26T12:00:00Z"));
        let sent = wrench_fakes::live::requests("/coingecko/api/v3/simple/price");
        let mine = sent.iter().find(|r| r.query.contains("ids=ethereum")).unwrap();
        assert_eq!(mine.header("x-cg-demo-api-key"), Some(wrench_fakes::live::COINGECKO_KEY));
        let e = exchange_price(&ctx, PriceInput { coin: "nope".into(), currencies: usd() }).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound);
        let found = exchange_search(&ctx, SearchInput { query: "bitcoin".into(), limit: 1 }).await.unwrap();
        assert_eq!((found.count, found.coins[0].id.as_str(), found.coins[0].market_cap_rank), (1, "bitcoin", Some(1)));
        // A refused key is the provider's failure, named.
        let bad = crate::testing::fake_ctx(&[("WRENCH_PROVIDER_COINGECKO_KEY", "wrong")]);
        let e = exchange_search(&bad, SearchInput { query: "eth".into(), limit: 3 }).await.unwrap_err();
        assert!(e.code == ErrorCode::UpstreamError && e.message.contains("check the key"), "{}", e.message);
    }
}
