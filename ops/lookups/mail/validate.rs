//! Whether an e-mail address can receive mail, as far as can be known without sending any
//! (`email/validate`): its syntax (`wrench_kit::mail::syntax`), whether its domain exists and
//! names mail servers (MX, or an address when it has none, RFC 5321 section 5.1; a null MX,
//! RFC 7505, refuses mail), and what the embedded lists say (`wrench_kit::mail::lists`). No SMTP
//! conversation is held: mail servers answer probes unreliably, port 25 is blocked on most
//! networks, and probing is how spammers clean lists.

use hickory_resolver::proto::rr::{Name, RData, RecordType};

use wrench_contract::prelude::*;
use wrench_infra::outbound::resolver::{DnsStatus, Resolver};
use wrench_infra::time::now_rfc3339;
use wrench_kit::mail::lists::{self, DOMAINS, LISTS_DATED, SECOND_LEVEL, TOP_LEVEL};
use wrench_kit::mail::syntax;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct EmailInput {
    /// The address to check (`jane@example.com`); surrounding spaces are ignored.
    #[schemars(length(min = 1, max = 320))]
    email: String,
    /// Ask DNS whether the domain exists and receives mail; without it only the syntax and
    /// the lists are checked.
    #[serde(default = "wrench_contract::decode::yes")]
    check_dns: bool,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Syntax {
    valid: bool,
    /// What is wrong, when it is not valid.
    error: Option<String>,
    quoted_local_part: bool,
    /// The domain is an address literal (`[192.0.2.1]`).
    domain_literal: bool,
    /// The local part is not ASCII, so delivery needs servers that support SMTPUTF8.
    smtputf8: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct MailServer {
    host: String,
    priority: u16,
}

#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Dns {
    /// Whether DNS was asked.
    checked: bool,
    domain_exists: Option<bool>,
    /// The MX records, lowest priority value first.
    mx: Vec<MailServer>,
    /// The domain publishes a null MX (`0 .`): it receives no mail.
    null_mx: bool,
    /// No MX records, so mail goes to the domain's own address (A or AAAA), which it has.
    address_fallback: bool,
    /// Whether the domain can receive mail at all; `null` when DNS could not tell.
    accepts_mail: Option<bool>,
    /// The resolver(s) asked.
    resolver: Option<String>,
    /// Why DNS gave no answer.
    error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EmailOutput {
    email: String,
    /// `local@domain` with the domain in lower-case ASCII, when the syntax is valid.
    normalized: Option<String>,
    local_part: Option<String>,
    domain: Option<String>,
    /// The domain as written, when it is an internationalised name.
    unicode_domain: Option<String>,
    /// `valid`, `risky` or `invalid`.
    verdict: &'static str,
    /// The reason for the verdict.
    reason: String,
    syntax: Syntax,
    dns: Dns,
    /// The domain is (or is under) a known disposable-mail domain.
    disposable: bool,
    /// The disposable-list entry it falls under.
    disposable_match: Option<&'static str>,
    /// The domain is a free mail provider's (Gmail, Outlook, GMX...).
    free_provider: bool,
    /// The local part names a role (`info`, `sales`, `postmaster`) rather than a person.
    role_account: bool,
    /// The address probably meant, when the domain looks like a typo of a common one. With
    /// DNS asked, only at a domain that takes mail (MX records, or an address): the nearest
    /// of up to 5 candidates that does, none when none does.
    suggestion: Option<String>,
    /// Whether DNS confirmed that the suggestion's domain takes mail (false when DNS was not
    /// asked, or could not answer in time: the suggestion is then mailcheck's unchecked one).
    suggestion_checked: bool,
    /// The versions of the embedded lists.
    lists: &'static str,
    checked_at: String,
}

/// Suggestion candidates checked through DNS at most.
const MAX_CANDIDATES: usize = 5;

/// How long the candidates' DNS checks may take together.
const SUGGESTION_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);

/// The first of `candidates` (most likely first) whose domain takes mail, asked concurrently
/// within [`SUGGESTION_BUDGET`], and whether DNS answered for it. When DNS could not say for a
/// candidate before every likelier one was ruled out, the likeliest is given unchecked.
async fn takes_mail_first(resolver: &Resolver, candidates: &[String]) -> (Option<String>, bool) {
    let checks = candidates.iter().map(|c| async move {
        tokio::time::timeout(SUGGESTION_BUDGET, mail_dns(resolver, c)).await.ok().and_then(|d| d.accepts_mail)
    });
    let verdicts = futures_util::future::join_all(checks).await;
    for (candidate, verdict) in candidates.iter().zip(verdicts) {
        match verdict {
            Some(true) => return (Some(candidate.clone()), true),
            Some(false) => continue,
            None => return (candidates.first().cloned(), false),
        }
    }
    (None, true)
}

/// What DNS says about mail for `domain`.
async fn mail_dns(resolver: &Resolver, domain: &str) -> Dns {
    let mut dns = Dns { checked: true, resolver: Some(resolver.upstreams().to_string()), ..Dns::default() };
    let Ok(name) = Name::from_ascii(domain) else {
        dns.error = Some("the domain is not a DNS name".into());
        return dns;
    };
    let mx = match resolver.lookup(&name, RecordType::MX).await {
        Ok(a) => a,
        Err(e) => {
            dns.error = Some(format!("the MX lookup failed: {e}"));
            return dns;
        }
    };
    if mx.status == DnsStatus::NxDomain {
        dns.domain_exists = Some(false);
        dns.accepts_mail = Some(false);
        return dns;
    }
    dns.domain_exists = Some(true);
    for r in &mx.records {
        if let RData::MX(m) = &r.data {
            let host = m.exchange.to_ascii();
            // The root (`.`) stays as written: it is the null MX.
            let host = if host == "." { host } else { host.trim_end_matches('.').to_string() };
            dns.mx.push(MailServer { host, priority: m.preference });
        }
    }
    dns.mx.sort_by_key(|m| m.priority);
    // RFC 7505: a single MX with an empty (root) exchange says the domain takes no mail.
    dns.null_mx = dns.mx.len() == 1 && dns.mx[0].host == ".";
    if dns.null_mx {
        dns.accepts_mail = Some(false);
        return dns;
    }
    if !dns.mx.is_empty() {
        dns.accepts_mail = Some(true);
        return dns;
    }
    match resolver.addresses(domain).await {
        Ok((Some(_), _)) => {
            dns.address_fallback = true;
            dns.accepts_mail = Some(true);
        }
        Ok((None, _)) => dns.accepts_mail = Some(false),
        Err(e) => dns.error = Some(format!("the address lookup failed: {e}")),
    }
    dns
}

/// Validate an e-mail address.
///
/// Checks the address's syntax (RFC 5321 mailbox: dot-atom or quoted local part of at most 64
/// octets, a host name of at least two labels, IDNA allowed, or an address literal; 254 octets
/// in all), then asks DNS whether the domain exists and receives mail (MX records; without
/// them its A/AAAA address; a null MX refuses mail), and looks the domain and local part up in
/// the embedded lists: disposable domains (subdomains included), free providers, role
/// accounts. A domain that looks like a typo of a common provider gets a suggestion: with DNS
/// asked, the nearest of up to 5 candidates whose domain takes mail (`suggestionChecked`). The
/// verdict is `invalid` (bad syntax, no such domain, no mail accepted), `risky` (disposable,
/// address literal, DNS gave no answer) or `valid`, with the reason. No mail server is
/// contacted.
#[op(post "/v1/email/validate" as emailValidate, tag = Lookups,
     rejects = "an empty address or one longer than 320 characters (malformed addresses get verdict invalid)",
     redact(".data.checkedAt"),
     example(deliverable, {"email": "jane.doe@mailer.site.example"}),
     example(address_fallback, {"email": "sales@nomx.site.example"}),
     example(null_mx, {"email": "jane@nullmx.site.example"}),
     example(no_such_domain, {"email": "jane@nowhere.site.example"}),
     example(typo, {"email": "jane@outlok.com", "checkDns": false}),
     example(typo_checked, {"email": "jane@wrx-mail.cmo"}),
     example(disposable, {"email": "x1@mailinator.com", "checkDns": false}),
     example(bad_syntax, {"email": "jane..doe@site.example"}))]
async fn email_validate(input: EmailInput, ctx: &Ctx) -> Result<EmailOutput, ApiError> {
    let email = input.email.trim().to_string();
    let parsed = syntax::parse(&email);
    let mut out = EmailOutput {
        email: email.clone(),
        normalized: None,
        local_part: None,
        domain: None,
        unicode_domain: None,
        verdict: "invalid",
        reason: String::new(),
        syntax: Syntax::default(),
        dns: Dns::default(),
        disposable: false,
        disposable_match: None,
        free_provider: false,
        role_account: false,
        suggestion: None,
        suggestion_checked: false,
        lists: LISTS_DATED,
        checked_at: now_rfc3339(),
    };
    let address = match parsed {
        Ok(a) => a,
        Err(e) => {
            out.reason = format!("the address {e}");
            out.syntax.error = Some(e);
            return Ok(out);
        }
    };
    out.syntax = Syntax {
        valid: true,
        error: None,
        quoted_local_part: address.quoted_local,
        domain_literal: address.literal,
        smtputf8: address.smtputf8,
    };
    out.normalized = Some(address.normalized());
    out.local_part = Some(address.local.clone());
    out.domain = Some(address.domain.clone());
    out.unicode_domain = address.unicode_domain.clone();
    out.role_account = lists::role_account(&address.local);
    if address.literal {
        out.verdict = "risky";
        out.reason =
            "the domain is an address literal, which most mail servers refuse and no list or DNS check covers".into();
        return Ok(out);
    }
    let domain = address.domain.as_str();
    out.disposable_match = lists::disposable(domain);
    out.disposable = out.disposable_match.is_some();
    out.free_provider = lists::free_provider(domain);
    if input.check_dns {
        out.dns = mail_dns(&ctx.net.resolver, domain).await;
    }
    // A suggestion is offered for a common provider's domain, or when the domain as written
    // cannot receive mail: a company's own domain that happens to resemble one is left alone.
    let candidates: Vec<String> = lists::candidates(domain, DOMAINS, SECOND_LEVEL, TOP_LEVEL, MAX_CANDIDATES)
        .into_iter()
        .filter(|s| DOMAINS.contains(&s.as_str()) || out.dns.accepts_mail == Some(false))
        .collect();
    let (suggested, checked) = if input.check_dns && !candidates.is_empty() {
        takes_mail_first(&ctx.net.resolver, &candidates).await
    } else {
        (candidates.into_iter().next(), false)
    };
    out.suggestion = suggested.map(|d| format!("{}@{d}", address.local));
    out.suggestion_checked = checked && out.suggestion.is_some();
    let hint = out.suggestion.as_deref().map(|s| format!("; did you mean {s}?")).unwrap_or_default();
    (out.verdict, out.reason) = if out.dns.domain_exists == Some(false) {
        ("invalid", format!("the domain {domain} does not exist{hint}"))
    } else if out.dns.null_mx {
        ("invalid", format!("the domain {domain} publishes a null MX: it accepts no mail (RFC 7505)"))
    } else if out.dns.accepts_mail == Some(false) {
        ("invalid", format!("the domain {domain} has neither mail servers (MX) nor an address{hint}"))
    } else if out.disposable {
        (
            "risky",
            format!(
                "{domain} is a disposable-mail domain (listed as {}){hint}",
                out.disposable_match.unwrap_or(domain)
            ),
        )
    } else if out.dns.checked && out.dns.accepts_mail.is_none() {
        (
            "risky",
            format!("DNS could not say whether {domain} receives mail: {}", out.dns.error.clone().unwrap_or_default()),
        )
    } else if out.suggestion.is_some() {
        ("risky", format!("the domain {domain} looks like a typo{hint}"))
    } else if !out.dns.checked {
        ("valid", "the syntax is valid and no list flags it; DNS was not asked".into())
    } else if out.dns.address_fallback {
        ("valid", format!("{domain} has no MX records but an address, which receives its mail (RFC 5321 section 5.1)"))
    } else {
        ("valid", format!("{domain} names mail servers"))
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use wrench_kit::mail::syntax::parse;

    /// mailcheck's distance alone corrects wrx-mail.cmo to wrx-mail.ca, which does not exist;
    /// DNS (the fake zone has wrx-mail.com with an MX) picks the domain that takes mail.
    #[tokio::test]
    async fn a_suggestion_is_a_domain_that_takes_mail() {
        use super::*;
        let first = lists::suggest("wrx-mail.cmo", DOMAINS, SECOND_LEVEL, TOP_LEVEL);
        assert_eq!(first.as_deref(), Some("wrx-mail.ca"));
        let ctx = crate::testing::fake_ctx(&[]);
        let input = |check_dns| EmailInput { email: "jane@wrx-mail.cmo".into(), check_dns };
        let out = email_validate(input(true), &ctx).await.unwrap();
        assert_eq!((out.suggestion.as_deref(), out.suggestion_checked), (Some("jane@wrx-mail.com"), true));
        // Without DNS nothing says the domain takes no mail, so it is left alone; a common
        // provider's typo is still corrected, unchecked.
        let out = email_validate(input(false), &ctx).await.unwrap();
        assert_eq!((out.suggestion, out.suggestion_checked), (None, false));
        let out = email_validate(EmailInput { email: "jo@gmial.com".into(), check_dns: false }, &ctx).await.unwrap();
        assert_eq!((out.suggestion.as_deref(), out.suggestion_checked), (Some("jo@gmail.com"), false));
        // No candidate takes mail: no suggestion, rather than a wrong one.
        let out = email_validate(EmailInput { email: "jo@zzqx-mail.cmo".into(), check_dns: true }, &ctx).await.unwrap();
        assert_eq!((out.suggestion, out.suggestion_checked), (None, false), "{}", out.reason);
    }

    /// The syntax check agrees with the Python library email-validator 2.3.0
    /// (`tests/fixtures/email_syntax.json`), except where RFC 5321 and the library part ways,
    /// each named here with the reason.
    #[test]
    fn syntax_agrees_with_email_validator() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/email_syntax.json")).unwrap();
        let cases = fixture.as_object().unwrap();
        // RFC 5321 section 4.5.3.1.1 limits a local part to 64 octets; the library does not.
        let over_64 = format!("{}@example.com", "a".repeat(65));
        let exceptions = [over_64.as_str()];
        let mut checked = 0;
        for (address, verdict) in cases {
            let theirs = verdict.as_bool() == Some(true);
            let ours = parse(address);
            if exceptions.contains(&address.as_str()) {
                assert!(ours.is_err() && theirs, "{address}: the exception no longer holds");
                continue;
            }
            assert_eq!(ours.is_ok(), theirs, "{address}: ours {ours:?}, email-validator {verdict}");
            checked += 1;
        }
        assert!(checked >= 45, "{checked}");
    }

    #[test]
    fn addresses_are_normalised_and_flagged() {
        let a = parse("José@Bücher.DE").unwrap();
        assert_eq!(a.normalized(), "José@xn--bcher-kva.de");
        assert_eq!(a.unicode_domain.as_deref(), Some("bücher.de"));
        assert!(a.smtputf8 && !a.literal);
        let q = parse("\"a b\"@example.com").unwrap();
        assert!(q.quoted_local);
        assert!(parse("x@[IPv6:2001:db8::1]").unwrap().literal);
        let e = parse("jane..doe@example.com").unwrap_err();
        assert!(e.contains("two dots"), "{e}");
    }
}
