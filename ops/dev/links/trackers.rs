//! The query parameters that track a click rather than choose a page. Names are matched
//! without regard to case; a prefix matches every name that starts with it. Collected from the
//! analytics and advertising platforms' own documentation of what they append to links; only
//! names no site uses for its own content are listed (a bare `ref` or `source` can be a page's
//! real parameter, so it stays).

/// Name prefixes: Urchin/Google Analytics campaigns, Matomo and Piwik campaigns, HubSpot ads.
pub(super) const PREFIXES: [&str; 5] = ["utm_", "mtm_", "pk_", "hsa_", "itm_"];

/// Whole names, each with the platform that appends it.
pub(super) const NAMES: [(&str, &str); 36] = [
    ("fbclid", "Facebook click ID"),
    ("gclid", "Google Ads click ID"),
    ("gclsrc", "Google Ads click source"),
    ("dclid", "Google Campaign Manager click ID"),
    ("gbraid", "Google Ads app click ID"),
    ("wbraid", "Google Ads web click ID"),
    ("gad_source", "Google Ads source"),
    ("srsltid", "Google Merchant Center result ID"),
    ("_ga", "Google Analytics cross-domain ID"),
    ("_gl", "Google Analytics linker"),
    ("msclkid", "Microsoft Advertising click ID"),
    ("yclid", "Yandex click ID"),
    ("ysclid", "Yandex search click ID"),
    ("twclid", "X (Twitter) click ID"),
    ("ttclid", "TikTok click ID"),
    ("li_fat_id", "LinkedIn first-party ad ID"),
    ("igshid", "Instagram share ID"),
    ("igsh", "Instagram share ID"),
    ("epik", "Pinterest click ID"),
    ("sccid", "Snapchat click ID"),
    ("s_kwcid", "Adobe Analytics keyword campaign ID"),
    ("ef_id", "Adobe Advertising click ID"),
    ("mc_cid", "Mailchimp campaign ID"),
    ("mc_eid", "Mailchimp subscriber ID"),
    ("_hsenc", "HubSpot e-mail tracking"),
    ("_hsmi", "HubSpot e-mail ID"),
    ("__hstc", "HubSpot visitor cookie"),
    ("__hssc", "HubSpot session cookie"),
    ("__hsfp", "HubSpot browser fingerprint"),
    ("hsctatracking", "HubSpot call-to-action tracking"),
    ("mkt_tok", "Marketo e-mail tracking"),
    ("oly_anon_id", "Omeda anonymous ID"),
    ("oly_enc_id", "Omeda subscriber ID"),
    ("vero_id", "Vero e-mail ID"),
    ("wickedid", "Wicked Reports click ID"),
    ("rb_clickid", "Rakuten click ID"),
];

/// Why `name` is a tracker, or `None` when it is not one.
pub(super) fn tracker(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    if let Some(prefix) = PREFIXES.iter().find(|p| lower.starts_with(*p) && lower.len() > p.len()) {
        return Some(match *prefix {
            "utm_" => "Urchin (Google Analytics) campaign parameter",
            "mtm_" => "Matomo campaign parameter",
            "pk_" => "Piwik campaign parameter",
            "hsa_" => "HubSpot ads parameter",
            _ => "internal campaign parameter",
        });
    }
    NAMES.iter().find(|(n, _)| *n == lower).map(|(_, why)| *why)
}
