//! Whether an autonomous system is a hosting, cloud or CDN network (the addresses of its
//! customers are servers, not people), for `ip/intelligence`: first by AS number, from the
//! networks below (each operator's own published AS numbers), then by words in the
//! organisation's registered name. The answer carries the rule that decided it; an AS neither
//! rule knows is `unknown`, not `no`.

/// (AS number, operator, kind).
const KNOWN: &[(u32, &str, &str)] = &[
    (16509, "Amazon Web Services", "cloud"),
    (14618, "Amazon Web Services", "cloud"),
    (15169, "Google", "cloud"),
    (396982, "Google Cloud", "cloud"),
    (8075, "Microsoft Azure", "cloud"),
    (31898, "Oracle Cloud", "cloud"),
    (45102, "Alibaba Cloud", "cloud"),
    (132203, "Tencent Cloud", "cloud"),
    (13335, "Cloudflare", "cdn"),
    (54113, "Fastly", "cdn"),
    (20940, "Akamai", "cdn"),
    (16625, "Akamai", "cdn"),
    (14061, "DigitalOcean", "hosting"),
    (16276, "OVHcloud", "hosting"),
    (24940, "Hetzner Online", "hosting"),
    (63949, "Akamai Connected Cloud (Linode)", "hosting"),
    (20473, "Vultr (The Constant Company)", "hosting"),
    (12876, "Scaleway", "hosting"),
    (51167, "Contabo", "hosting"),
    (60781, "Leaseweb", "hosting"),
    (16265, "Leaseweb", "hosting"),
    (8560, "IONOS", "hosting"),
    (36351, "IBM Cloud (SoftLayer)", "cloud"),
    (19871, "Network Solutions", "hosting"),
    (46606, "Unified Layer (Bluehost)", "hosting"),
    (26496, "GoDaddy", "hosting"),
    (9009, "M247", "hosting"),
    (212238, "Datacamp (CDN77)", "hosting"),
];

/// Words in an organisation's name that mark a hosting network.
const WORDS: &[&str] = &[
    "hosting",
    "cloud",
    "data center",
    "datacenter",
    "data centre",
    "server",
    "vps",
    "colocation",
    "colo ",
    "dedicated",
];

#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Hosting {
    /// `high` (a known hosting, cloud or CDN AS), `medium` (the organisation's name says
    /// so) or `unknown`.
    pub likelihood: &'static str,
    /// `cloud`, `cdn` or `hosting`, when known.
    pub kind: Option<&'static str>,
    /// What decided it.
    pub reason: String,
}

pub fn judge(asn: Option<u32>, organisation: Option<&str>) -> Hosting {
    let Some(asn) = asn else {
        return Hosting { likelihood: "unknown", kind: None, reason: "no AS is known for the address".into() };
    };
    if let Some(&(_, operator, kind)) = KNOWN.iter().find(|(n, _, _)| *n == asn) {
        return Hosting { likelihood: "high", kind: Some(kind), reason: format!("AS{asn} is {operator}'s network") };
    }
    let org = organisation.unwrap_or("").to_ascii_lowercase();
    if let Some(word) = WORDS.iter().find(|w| org.contains(*w)) {
        return Hosting {
            likelihood: "medium",
            kind: Some("hosting"),
            reason: format!("the AS's organisation name contains {:?}", word.trim()),
        };
    }
    Hosting {
        likelihood: "unknown",
        kind: None,
        reason: format!("AS{asn} is in neither the list of hosting networks nor named like one"),
    }
}
