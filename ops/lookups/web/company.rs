//! What a domain's home page says about the company behind it (`company`): name,
//! description, images and icons from the head (`page.rs`), and the social profiles, e-mail
//! addresses and phone numbers its links name (`page_links.rs`). Nothing is guessed: every
//! value is read from the page, and the answer says from which tag.

use wrench_contract::prelude::*;
use wrench_infra::time::now_rfc3339;
use wrench_kit::web::linked_data::{self, Organization, WebSite};
use wrench_kit::web::page::{IconLink, MetaTag, absolute_values, read_page};
use wrench_kit::web::page_links;
use wrench_kit::web::site_home::{home_page, host_and_port};

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CompanyInput {
    /// The company's domain (`example.com`), optionally with a port (`example.com:8443`); its
    /// home page is read, over HTTPS first and over plain HTTP when HTTPS cannot be reached.
    #[schemars(length(min = 1, max = 260))]
    domain: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Sourced {
    value: String,
    /// The tag it was read from: `og:site_name`, `ld+json` (the page's schema.org
    /// Organization), `application-name`, `title`, `og:description`, `description`.
    source: &'static str,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct SocialProfile {
    /// `x`, `facebook`, `instagram`, `linkedin`, `github`, `youtube`, `tiktok`, `pinterest`,
    /// `threads` or `bluesky`.
    network: &'static str,
    url: String,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CompanyOutput {
    domain: String,
    /// The home page read, after redirects.
    url: String,
    /// The name the site gives itself.
    name: Option<Sourced>,
    description: Option<Sourced>,
    /// The `<title>` of the page.
    title: Option<String>,
    language: Option<String>,
    /// The first declared icon (`rel="icon"` before Apple touch icons), absolute.
    favicon: Option<String>,
    /// The organisation's logo as its schema.org Organization gives it, absolute.
    logo: Option<String>,
    icons: Vec<IconLink>,
    /// The Open Graph image(s), absolute.
    images: Vec<String>,
    /// Profiles on social networks the page links to, one per network and address.
    social_profiles: Vec<SocialProfile>,
    /// Addresses of the page's `mailto:` links.
    emails: Vec<String>,
    /// Numbers of the page's `tel:` links, as written (spaces and dots kept).
    phones: Vec<String>,
    /// Every Open Graph property of the page: `og:` and the object types' `article:`, `book:`,
    /// `profile:`, `music:` and `video:`, in page order, a property given several times listed
    /// each time (`article:tag`, `og:image` with its `og:image:width`...), at most 200. Values
    /// that are URLs (`og:url`, `og:image`, `og:video`, `og:audio`, `music:song`...) are made
    /// absolute like every other URL of the answer.
    open_graph: Vec<MetaTag>,
    /// The first schema.org Organization (or kind of one: Corporation, LocalBusiness...) in
    /// the page's JSON-LD blocks (at most 20 blocks of 256 KiB each are read).
    organization: Option<Organization>,
    /// The first schema.org WebSite in them.
    website: Option<WebSite>,
    /// JSON-LD blocks that were not JSON and were skipped.
    unreadable_json_ld: usize,
    checked_at: String,
}

/// The network a profile URL belongs to; share and intent links are not profiles.
fn network(url: &url::Url) -> Option<&'static str> {
    let host = url.host_str()?.trim_start_matches("www.").trim_start_matches("m.");
    let path = url.path().trim_matches('/');
    let first = path.split('/').next().unwrap_or("");
    if path.is_empty()
        || matches!(first, "intent" | "share" | "sharer" | "sharer.php" | "shareArticle" | "home" | "login" | "search")
    {
        return None;
    }
    Some(match host {
        "twitter.com" | "x.com" => "x",
        "facebook.com" | "fb.com" => "facebook",
        "instagram.com" => "instagram",
        "linkedin.com" if matches!(first, "company" | "in" | "school" | "showcase") => "linkedin",
        "github.com" => "github",
        "youtube.com" if first.starts_with('@') || matches!(first, "channel" | "c" | "user") => "youtube",
        "tiktok.com" if first.starts_with('@') => "tiktok",
        "pinterest.com" => "pinterest",
        "threads.net" | "threads.com" if first.starts_with('@') => "threads",
        "bsky.app" if first == "profile" => "bluesky",
        _ => return None,
    })
}

/// Describe a company from its domain's home page.
///
/// Reads the home page of `domain` (HTTPS first, plain HTTP when HTTPS cannot be reached;
/// redirects followed) and reports the site's name (`og:site_name`, the schema.org
/// Organization's name, `application-name` or the title) and description
/// (`og:description`, the meta description or the Organization's), each with the tag it
/// came from, its icons and Open Graph images, and the social profiles, e-mail addresses
/// (`mailto:`) and phone numbers (`tel:`) its links name. The page's schema.org JSON-LD
/// (Organization and its kinds, WebSite) adds the logo, legal name, `sameAs` profiles,
/// address, telephone, e-mail and founding date. Nothing is fetched beyond the page,
/// and nothing is inferred that the page does not say. Hosts in private, loopback and other
/// special-purpose ranges are refused with 403; a site that answers neither way is 502.
#[op(post "/v1/company" as companyLookup, tag = Lookups,
     rejects = "a domain that is not a host name or IP address (URLs included)",
     uses(network),
     redact(".data.checkedAt"),
     example(home_page, {"domain": "company.site.example:8443"}),
     example(private_refused, {"domain": "10.0.0.8"}, status = 403))]
async fn company(input: CompanyInput, ctx: &Ctx) -> Result<CompanyOutput, ApiError> {
    let (host, port) = host_and_port(&input.domain)?;
    let page = home_page(ctx, &host, port).await?;
    let (page, meta, links) = read_page(page, true).await?;
    let base = meta.base.clone().unwrap_or_else(|| page.final_url.clone());
    let ld = {
        let (html, base) = (page.html.clone(), base.clone());
        wrench_infra::cpu::run(move || Ok(linked_data::read(&page_links::linked_data(&html), &base))).await?
    };
    let org = ld.organization.as_ref();
    let mut social_profiles: Vec<SocialProfile> = Vec::new();
    let mut emails: Vec<String> = Vec::new();
    let mut phones: Vec<String> = Vec::new();
    // The organisation's own profile list comes before the links of the page.
    let same_as = org.map(|o| o.same_as.clone()).unwrap_or_default();
    for href in same_as.iter().chain(&links) {
        let lower = href.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix("mailto:").map(|_| &href[7..]) {
            let address = rest.split('?').next().unwrap_or("");
            // Percent-decoded; a `+` is part of an address, not a space.
            let address: String = form_urlencoded::parse(format!("a={}", address.replace('+', "%2B")).as_bytes())
                .next()
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default();
            if address.contains('@') && address.len() <= 254 && !emails.contains(&address) && emails.len() < 50 {
                emails.push(address);
            }
        } else if let Some(rest) = lower.strip_prefix("tel:").map(|_| href[4..].trim()) {
            let number = rest.to_string();
            if number.chars().filter(char::is_ascii_digit).count() >= 3
                && !phones.contains(&number)
                && phones.len() < 50
            {
                phones.push(number);
            }
        } else if let Some((mut url, network)) = base.join(href).ok().and_then(|u| network(&u).map(|n| (u, n))) {
            url.set_query(None);
            url.set_fragment(None);
            let url = url.to_string();
            if !social_profiles.iter().any(|p| p.url == url) && social_profiles.len() < 50 {
                social_profiles.push(SocialProfile { network, url });
            }
        }
    }
    if let Some(email) = org.and_then(|o| o.email.clone()).filter(|e| !emails.contains(e) && e.contains('@')) {
        emails.insert(0, email);
    }
    if let Some(phone) = org.and_then(|o| o.telephone.clone()).filter(|p| !phones.contains(p)) {
        phones.insert(0, phone);
    }
    let name = meta
        .first("og:site_name")
        .map(|v| Sourced { value: v.to_string(), source: "og:site_name" })
        .or_else(|| org.and_then(|o| o.name.clone()).map(|v| Sourced { value: v, source: "ld+json" }))
        .or_else(|| meta.application_name.clone().map(|v| Sourced { value: v, source: "application-name" }))
        .or_else(|| meta.title.clone().map(|v| Sourced { value: v, source: "title" }));
    let description = meta
        .first("og:description")
        .map(|v| Sourced { value: v.to_string(), source: "og:description" })
        .or_else(|| meta.description.clone().map(|v| Sourced { value: v, source: "description" }))
        .or_else(|| org.and_then(|o| o.description.clone()).map(|v| Sourced { value: v, source: "ld+json" }));
    let logo = org.and_then(|o| o.logo.clone());
    Ok(CompanyOutput {
        domain: host,
        url: page.final_url.to_string(),
        name,
        description,
        title: meta.title.clone(),
        language: meta.language.clone(),
        favicon: meta.favicon(),
        logo,
        images: absolute_values(&meta, &["og:image", "og:image:url", "og:image:secure_url"]),
        icons: meta.icons,
        social_profiles,
        emails,
        phones,
        open_graph: meta.open_graph,
        organization: ld.organization,
        website: ld.website,
        unreadable_json_ld: ld.unreadable,
        checked_at: now_rfc3339(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_are_told_from_share_links() {
        let cases = [
            ("https://twitter.com/siteexample", Some("x")),
            ("https://x.com/intent/tweet?text=hi", None),
            ("https://www.facebook.com/SiteExample/", Some("facebook")),
            ("https://www.facebook.com/sharer/sharer.php?u=x", None),
            ("https://www.linkedin.com/company/site-example", Some("linkedin")),
            ("https://www.linkedin.com/shareArticle?url=x", None),
            ("https://github.com/site-example", Some("github")),
            ("https://www.youtube.com/@siteexample", Some("youtube")),
            ("https://www.youtube.com/watch?v=x", None),
            ("https://bsky.app/profile/site.example", Some("bluesky")),
            ("https://example.com/about", None),
            ("https://github.com/", None),
        ];
        for (url, want) in cases {
            assert_eq!(network(&url::Url::parse(url).unwrap()), want, "{url}");
        }
    }
}
