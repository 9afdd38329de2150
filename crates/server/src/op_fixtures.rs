//! Test-only operations that exercise each declaration form on its own, apart from the shipped
//! operations that also use them: GET with path and query parameters, image results and
//! redirects. They are not under `ops/`, so they are never registered or documented; the
//! tests build an app from them.

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct ItemQuery {
    /// Path parameter.
    #[schemars(pattern("^[a-z0-9-]{1,20}$"))]
    id: String,
    /// Query parameter with a range.
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 10))]
    size: u32,
    /// Query flag.
    #[serde(default)]
    loud: bool,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Serialize, JsonSchema)]
struct ItemEcho {
    id: String,
    size: u32,
    loud: bool,
}

/// Echo a path and query.
#[op(get "/v1/test/items/{id}" as testGetItem, tag = TextAndData,
     example(typical, {"id": "abc-1", "size": 3, "loud": true}),
     example(defaults, {"id": "x"}),
     example(out_of_range, {"id": "x", "size": 11}, status = 400))]
async fn get_item(input: ItemQuery) -> Result<ItemEcho, ApiError> {
    Ok(ItemEcho { id: input.id, size: input.size, loud: input.loud })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct Square {
    /// Side in pixels.
    #[schemars(range(min = 1, max = 100))]
    side: u32,
}

/// Draw a square.
#[op(post "/v1/test/square" as testSquare, tag = Images, output = image,
     example(typical, {"side": 4}),
     example(too_big, {"side": 1000}, status = 400))]
async fn square(input: Square) -> Result<Image, ApiError> {
    let s = input.side;
    Ok(Image {
        content_type: "image/svg+xml",
        bytes: format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{s}\" height=\"{s}\"/>").into_bytes(),
    })
}

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields)]
struct Go {
    /// Where to.
    #[schemars(pattern("^[a-z]{1,10}$"))]
    to: String,
}

/// Redirect somewhere.
#[op(get "/v1/test/go/{to}" as testGo, tag = Storage, output = redirect,
     example(typical, {"to": "home"}, status = 302),
     example(bad_target, {"to": "NOPE!"}, status = 400))]
async fn go(input: Go) -> Result<Redirect, ApiError> {
    Ok(Redirect::found(format!("https://example.com/{}", input.to)))
}

fn fixtures() -> Vec<wrench_contract::op::Operation> {
    vec![__op_get_item(), __op_square(), __op_go()]
}

mod tests {
    use std::sync::Arc;

    use poem::{http::StatusCode, test::TestClient};

    use super::fixtures;
    use wrench_infra::config::Config;

    fn client() -> TestClient<crate::http::App> {
        TestClient::new(crate::http::app(Arc::new(Config::default()), fixtures()).unwrap())
    }

    #[tokio::test]
    async fn get_decodes_path_and_query_with_types_and_bounds() {
        let cli = client();
        let body: serde_json::Value = serde_json::from_slice(
            &cli.get("/v1/test/items/ab-9?size=7.0&loud=true").send().await.0.into_body().into_vec().await.unwrap(),
        )
        .unwrap();
        assert_eq!(body["data"], serde_json::json!({"id": "ab-9", "size": 7, "loud": true}));
        let body: serde_json::Value = serde_json::from_slice(
            &cli.get("/v1/test/items/ab-9?size=7").send().await.0.into_body().into_vec().await.unwrap(),
        )
        .unwrap();
        assert_eq!(body["data"], serde_json::json!({"id": "ab-9", "size": 7, "loud": false}));
        for (uri, field) in [
            ("/v1/test/items/ab?size=0", "size"),
            ("/v1/test/items/ab?size=x", "size"),
            ("/v1/test/items/ab?loud=maybe", "loud"),
            ("/v1/test/items/UPPER", "id"),
            ("/v1/test/items/ab?extra=1", "extra"),
        ] {
            let resp = cli.get(uri).send().await;
            assert_eq!(resp.0.status(), StatusCode::BAD_REQUEST, "{uri}");
            let v: serde_json::Value = serde_json::from_slice(&resp.0.into_body().into_vec().await.unwrap()).unwrap();
            assert_eq!(v["error"]["field"], field, "{uri}: {v}");
        }
        // HEAD is answered like GET; other methods get 405 with Allow.
        assert_eq!(cli.head("/v1/test/items/ab").send().await.0.status(), StatusCode::OK);
        let resp = cli.post("/v1/test/items/ab").send().await;
        assert_eq!(resp.0.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(resp.0.headers()["allow"], "GET, HEAD");
    }

    #[tokio::test]
    async fn image_and_redirect_results() {
        let cli = client();
        let resp = cli.post("/v1/test/square").body_json(&serde_json::json!({"side": 3})).send().await;
        resp.assert_status_is_ok();
        assert_eq!(resp.0.headers()["content-type"], "image/svg+xml");
        assert!(resp.0.headers()["content-security-policy"].to_str().unwrap().contains("default-src 'none'"));
        let resp = cli.get("/v1/test/go/home").send().await;
        assert_eq!(resp.0.status(), StatusCode::FOUND);
        assert_eq!(resp.0.headers()["location"], "https://example.com/home");
        // A redirect is followed with whatever query the services it was shared on add
        // (Facebook's fbclid, campaigns' utm_*): ignored, not refused as unknown fields.
        let resp = cli.get("/v1/test/go/home?fbclid=abc123&utm_source=news&to=elsewhere").send().await;
        assert_eq!(resp.0.status(), StatusCode::FOUND);
        assert_eq!(resp.0.headers()["location"], "https://example.com/home");
        // Errors stay JSON envelopes.
        let resp = cli.post("/v1/test/square").body_json(&serde_json::json!({"side": 0})).send().await;
        assert_eq!(resp.0.headers()["content-type"], "application/json");
    }

    #[test]
    fn document_describes_parameters_images_and_redirects() {
        let doc = crate::openapi::document(&fixtures());
        let get = &doc["paths"]["/v1/test/items/{id}"]["get"];
        let params = get["parameters"].as_array().unwrap();
        let by_name = |n: &str| params.iter().find(|p| p["name"] == n).unwrap().clone();
        assert_eq!((by_name("id")["in"].as_str(), by_name("id")["required"].as_bool()), (Some("path"), Some(true)));
        assert_eq!(
            (by_name("size")["in"].as_str(), by_name("size")["required"].as_bool()),
            (Some("query"), Some(false))
        );
        assert_eq!(by_name("size")["schema"]["maximum"], 10);
        assert!(get.get("requestBody").is_none());
        let img = &doc["paths"]["/v1/test/square"]["post"]["responses"]["200"]["content"];
        assert!(img["image/svg+xml"].is_object() && img["image/png"].is_object());
        let go = &doc["paths"]["/v1/test/go/{to}"]["get"]["responses"];
        assert!(go["302"]["headers"]["Location"].is_object());
    }
}
