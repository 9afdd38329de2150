//! What a page says about its organisation in schema.org JSON-LD (`<script
//! type="application/ld+json">`): the first Organization (or one of its kinds: Corporation,
//! LocalBusiness and its shops, NGO...) and the first WebSite, read from the blocks that
//! `page_links::linked_data` collected.
//!
//! Blocks may be one object, an array, or an `@graph`; an organisation may also sit inside
//! another node (`WebSite.publisher`, `WebPage.about`). Everything is walked to a fixed depth.
//! Values are taken as the vocabulary allows them (text, a URL, or a node with `url`/`name`)
//! and only as text: nothing is fetched, no `@context` is resolved, and a block that is not JSON
//! is skipped. URLs are made absolute against the page.

use serde_json::{Map, Value};
use url::Url;

use wrench_contract::prelude::*;

/// How deep into a block nodes are looked for.
const MAX_DEPTH: usize = 16;
/// The most `sameAs` links kept.
const MAX_SAME_AS: usize = 50;

/// A postal address, as schema.org's PostalAddress names its parts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PostalAddress {
    pub street_address: Option<String>,
    pub address_locality: Option<String>,
    pub address_region: Option<String>,
    pub postal_code: Option<String>,
    /// As written: a country name or an ISO 3166-1 code.
    pub address_country: Option<String>,
    /// The address in one line, parts joined with commas (or the text as given, when the page
    /// gives the address as text).
    pub formatted: String,
}

/// The organisation a page describes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    /// The node's `@type`s (`Organization`, `Corporation`, `Restaurant`...).
    pub types: Vec<String>,
    pub name: Option<String>,
    pub legal_name: Option<String>,
    pub alternate_name: Option<String>,
    pub description: Option<String>,
    /// Absolute.
    pub url: Option<String>,
    /// The logo's URL (the node's `logo`, or its `url` when it is an ImageObject), absolute.
    pub logo: Option<String>,
    /// Profiles and pages about the same organisation, absolute (at most 50).
    pub same_as: Vec<String>,
    pub email: Option<String>,
    pub telephone: Option<String>,
    pub address: Option<PostalAddress>,
    /// As written (ISO 8601 in well-formed pages).
    pub founding_date: Option<String>,
}

/// The web site a page belongs to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebSite {
    pub name: Option<String>,
    pub alternate_name: Option<String>,
    /// Absolute.
    pub url: Option<String>,
}

/// What the JSON-LD blocks of one page say.
#[derive(Debug, Default, PartialEq)]
pub struct LinkedData {
    pub organization: Option<Organization>,
    pub website: Option<WebSite>,
    /// Blocks that were not JSON.
    pub unreadable: usize,
}

/// Whether a schema.org type is an organisation: Organization and the kinds of it pages use
/// (schema.org's Organization subtree, its common members by name: businesses, shops,
/// corporations, and every type named `...Organization`).
fn is_organization(kind: &str) -> bool {
    let kind = local_name(kind);
    kind.ends_with("Organization")
        || kind.ends_with("Business")
        || matches!(
            kind,
            "Corporation"
                | "NGO"
                | "Store"
                | "OnlineStore"
                | "Restaurant"
                | "Airline"
                | "Consortium"
                | "Cooperative"
                | "FundingScheme"
                | "LibrarySystem"
                | "Project"
                | "ResearchProject"
                | "FundingAgency"
                | "SportsTeam"
                | "Hotel"
                | "Bank"
        )
}

fn types(node: &Map<String, Value>) -> Vec<String> {
    match node.get("@type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

/// Text as the page's head readers keep it (whitespace collapsed, cut to their length); empty
/// text is none.
fn clean(text: &str) -> Option<String> {
    Some(crate::web::page::clean(text)).filter(|t| !t.is_empty())
}

/// A type's name without a vocabulary prefix (`https://schema.org/Organization`,
/// `schema:Organization`).
fn local_name(kind: &str) -> &str {
    kind.rsplit(['/', ':']).next().unwrap_or(kind)
}

/// A value as text: a string, a number, the first of an array, or a node's `name`.
fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => clean(s),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(a) => a.iter().find_map(|x| text(Some(x))),
        Value::Object(o) => text(o.get("name")),
        _ => None,
    }
}

/// A value as an absolute URL: a string, the first of an array, or a node's `url` (an
/// ImageObject's `contentUrl` too).
fn link(v: Option<&Value>, base: &Url) -> Option<String> {
    match v? {
        Value::String(s) => {
            let s = s.trim();
            (!s.is_empty()).then(|| base.join(s).ok()).flatten().map(String::from)
        }
        Value::Array(a) => a.iter().find_map(|x| link(Some(x), base)),
        Value::Object(o) => link(o.get("url"), base).or_else(|| link(o.get("contentUrl"), base)),
        _ => None,
    }
}

fn links(v: Option<&Value>, base: &Url) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let items: Vec<&Value> = match v {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(other) => vec![other],
        None => Vec::new(),
    };
    for item in items {
        if let Some(u) = link(Some(item), base).filter(|u| !out.contains(u))
            && out.len() < MAX_SAME_AS
        {
            out.push(u);
        }
    }
    out
}

fn address(v: Option<&Value>) -> Option<PostalAddress> {
    match v? {
        Value::String(s) => clean(s).map(|formatted| PostalAddress { formatted, ..PostalAddress::default() }),
        Value::Array(a) => a.iter().find_map(|x| address(Some(x))),
        Value::Object(o) => {
            let mut a = PostalAddress {
                street_address: text(o.get("streetAddress")),
                address_locality: text(o.get("addressLocality")),
                address_region: text(o.get("addressRegion")),
                postal_code: text(o.get("postalCode")),
                address_country: text(o.get("addressCountry")),
                formatted: String::new(),
            };
            let parts = [&a.street_address, &a.address_locality, &a.address_region, &a.postal_code, &a.address_country];
            a.formatted = parts.iter().filter_map(|p| p.as_deref()).collect::<Vec<_>>().join(", ");
            (!a.formatted.is_empty()).then_some(a)
        }
        _ => None,
    }
}

fn organization(node: &Map<String, Value>, base: &Url) -> Organization {
    Organization {
        types: types(node),
        name: text(node.get("name")),
        legal_name: text(node.get("legalName")),
        alternate_name: text(node.get("alternateName")),
        description: text(node.get("description")),
        url: link(node.get("url"), base),
        logo: link(node.get("logo"), base).or_else(|| link(node.get("image"), base)),
        same_as: links(node.get("sameAs"), base),
        email: text(node.get("email")).map(|e| e.trim_start_matches("mailto:").to_string()),
        telephone: text(node.get("telephone")),
        address: address(node.get("address")),
        founding_date: text(node.get("foundingDate")),
    }
}

/// Visits every node of `v` to [`MAX_DEPTH`], keeping the first of each kind.
fn walk(v: &Value, base: &Url, depth: usize, out: &mut LinkedData) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Array(items) => items.iter().for_each(|x| walk(x, base, depth + 1, out)),
        Value::Object(node) => {
            let kinds = types(node);
            if out.organization.is_none() && kinds.iter().any(|k| is_organization(k)) {
                out.organization = Some(organization(node, base));
            }
            if out.website.is_none() && kinds.iter().any(|k| local_name(k) == "WebSite") {
                out.website = Some(WebSite {
                    name: text(node.get("name")),
                    alternate_name: text(node.get("alternateName")),
                    url: link(node.get("url"), base),
                });
            }
            node.values().for_each(|x| walk(x, base, depth + 1, out));
        }
        _ => {}
    }
}

/// Reads the JSON-LD `blocks` of a page whose URLs resolve against `base`.
pub fn read(blocks: &[String], base: &Url) -> LinkedData {
    let mut out = LinkedData::default();
    for block in blocks {
        // serde_json refuses nesting deeper than 128 levels, so no block costs more than its size.
        match serde_json::from_str::<Value>(block.trim()) {
            Ok(v) => walk(&v, base, 0, &mut out),
            Err(_) => out.unreadable += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://www.acme.example/about/").unwrap()
    }

    #[test]
    fn an_organisation_in_a_graph_with_its_logo_and_address() {
        let block = r##"{"@context": "https://schema.org", "@graph": [
            {"@type": "WebSite", "name": "Acme", "url": "/", "publisher": {"@id": "#org"}},
            {"@type": ["Corporation", "Organization"], "@id": "#org", "name": " Acme   Corp ",
             "legalName": "Acme Corporation Ltd", "url": "https://acme.example",
             "logo": {"@type": "ImageObject", "url": "/img/logo.png", "width": 512},
             "sameAs": ["https://x.com/acme", "https://www.linkedin.com/company/acme", "https://x.com/acme"],
             "telephone": "+44 20 7946 0000", "email": "mailto:hello@acme.example",
             "address": {"@type": "PostalAddress", "streetAddress": "1 Road", "addressLocality": "London",
                         "postalCode": "EC1A 1AA", "addressCountry": "GB"},
             "foundingDate": "1999-04-01"}]}"##;
        let got = read(&[block.to_string()], &base());
        let org = got.organization.unwrap();
        assert_eq!(org.types, ["Corporation", "Organization"]);
        assert_eq!(org.name.as_deref(), Some("Acme Corp"));
        assert_eq!(org.legal_name.as_deref(), Some("Acme Corporation Ltd"));
        assert_eq!(org.logo.as_deref(), Some("https://www.acme.example/img/logo.png"));
        assert_eq!(org.same_as, ["https://x.com/acme", "https://www.linkedin.com/company/acme"]);
        assert_eq!(org.email.as_deref(), Some("hello@acme.example"));
        assert_eq!(org.founding_date.as_deref(), Some("1999-04-01"));
        assert_eq!(org.address.unwrap().formatted, "1 Road, London, EC1A 1AA, GB");
        let site = got.website.unwrap();
        assert_eq!((site.name.as_deref(), site.url.as_deref()), (Some("Acme"), Some("https://www.acme.example/")));
    }

    #[test]
    fn kinds_of_organisation_and_nested_nodes_count() {
        let shop = r#"[{"@type": "WebPage", "about": {"@type": "Restaurant", "name": "Chez A",
                        "logo": "logo.svg", "address": "2 Rue, Paris"}}]"#;
        let got = read(&["not json {".into(), shop.into()], &base());
        assert_eq!(got.unreadable, 1);
        let org = got.organization.unwrap();
        assert_eq!(
            (org.name.as_deref(), org.logo.as_deref()),
            (Some("Chez A"), Some("https://www.acme.example/about/logo.svg"))
        );
        assert_eq!(org.address.unwrap().formatted, "2 Rue, Paris");
        assert!(read(&[r#"{"@type": "Person", "name": "x"}"#.into()], &base()).organization.is_none());
    }

    #[test]
    fn hostile_blocks_stay_bounded() {
        let deep = format!("{}{}", "[".repeat(5_000), "]".repeat(5_000));
        assert_eq!(read(&[deep], &base()).unreadable, 1, "nesting past serde_json's limit is refused");
        let many: Vec<String> = (0..200).map(|i| format!("\"https://s.example/{i}\"")).collect();
        let block = format!(r#"{{"@type": "Organization", "sameAs": [{}]}}"#, many.join(","));
        assert_eq!(read(&[block], &base()).organization.unwrap().same_as.len(), MAX_SAME_AS);
    }
}
