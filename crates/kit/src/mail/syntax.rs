//! The syntax of an e-mail address as mail servers accept it: RFC 5321's `Mailbox` (section
//! 4.1.2), which is RFC 5322's `addr-spec` without comments, folding white space or the
//! obsolete forms, with RFC 6531's UTF-8 local parts and IDNA domains (RFC 5890) allowed.
//!
//! - local part: a dot-atom (atext runs separated by single dots) or a quoted string; at most
//!   64 octets (RFC 5321 section 4.5.3.1.1);
//! - domain: a host name of at least two labels (letters, digits, hyphens; IDNA-mapped to
//!   ASCII), or an address literal (`[192.0.2.1]`, `[IPv6:2001:db8::1]`);
//! - the whole address at most 254 octets (the 256-octet path less its angle brackets).

use std::net::{Ipv4Addr, Ipv6Addr};

/// An address that passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    /// The local part as written (quotes kept).
    pub local: String,
    /// The domain in ASCII (IDNA), lower case, or the literal with its brackets.
    pub domain: String,
    /// The domain as written, lower-cased, when it differs from `domain` (a Unicode name).
    pub unicode_domain: Option<String>,
    pub quoted_local: bool,
    /// The domain is an address literal.
    pub literal: bool,
    /// Delivery needs SMTPUTF8 (RFC 6531): the local part is not ASCII.
    pub smtputf8: bool,
}

impl Address {
    /// `local@domain`, the domain in ASCII.
    pub fn normalized(&self) -> String {
        format!("{}@{}", self.local, self.domain)
    }
}

/// RFC 5322 `atext`, plus any non-ASCII character (RFC 6532 `UTF8-non-ascii`).
fn atext(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii()
}

/// Why `text` is not an address, or the address.
pub fn parse(text: &str) -> Result<Address, String> {
    if text.len() > 254 {
        return Err(format!("is {} octets long; an address has at most 254", text.len()));
    }
    if text.chars().any(|c| c.is_control()) {
        return Err("contains a control character".into());
    }
    // Invisible format characters (soft hyphen, zero-width spaces and joiners, direction marks,
    // byte order mark): IDNA would drop some of them silently, so the address read would not
    // be the one shown.
    if let Some(c) = text.chars().find(
        |c| matches!(*c as u32, 0xAD | 0x61C | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0xFEFF),
    ) {
        return Err(format!("contains the invisible character U+{:04X}", c as u32));
    }
    let at = text.rfind('@').ok_or("has no @ separating the local part from the domain")?;
    let (local, domain) = (&text[..at], &text[at + 1..]);
    let quoted_local = local.starts_with('"');
    if quoted_local {
        check_quoted(local)?;
    } else {
        check_dot_atom(local)?;
    }
    if local.len() > 64 {
        return Err(format!("has a local part of {} octets; at most 64 are allowed", local.len()));
    }
    let (domain, unicode_domain, literal) = check_domain(domain)?;
    Ok(Address { local: local.to_string(), domain, unicode_domain, quoted_local, literal, smtputf8: !local.is_ascii() })
}

fn check_dot_atom(local: &str) -> Result<(), String> {
    if local.is_empty() {
        return Err("has an empty local part (nothing before the @)".into());
    }
    if local.starts_with('.') || local.ends_with('.') {
        return Err("has a local part that starts or ends with a dot".into());
    }
    if local.contains("..") {
        return Err("has two dots in a row in the local part (allowed only inside quotes)".into());
    }
    if let Some(c) = local.chars().find(|c| *c != '.' && !atext(*c)) {
        return Err(format!("has {c:?} in the local part, which is allowed only inside quotes"));
    }
    Ok(())
}

fn check_quoted(local: &str) -> Result<(), String> {
    let inner = local
        .strip_prefix('"')
        .and_then(|l| l.strip_suffix('"'))
        .filter(|_| local.len() >= 2)
        .ok_or("has a quoted local part without its closing quote")?;
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e) if e == ' ' || e.is_ascii_graphic() => {}
                _ => return Err("has a backslash in the quoted local part that escapes nothing printable".into()),
            },
            '"' => return Err("has an unescaped quote inside the quoted local part".into()),
            c if c == ' ' || c.is_ascii_graphic() || !c.is_ascii() => {}
            c => return Err(format!("has {c:?} inside the quoted local part")),
        }
    }
    Ok(())
}

/// The ASCII domain, its Unicode form when different, and whether it is a literal.
fn check_domain(domain: &str) -> Result<(String, Option<String>, bool), String> {
    if domain.is_empty() {
        return Err("has no domain after the @".into());
    }
    if let Some(inner) = domain.strip_prefix('[') {
        let inner = inner.strip_suffix(']').ok_or("has an address literal without its closing bracket")?;
        let ok = match inner.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => inner[5..].parse::<Ipv6Addr>().is_ok(),
            _ => inner.parse::<Ipv4Addr>().is_ok(),
        };
        if !ok {
            return Err(format!("has the address literal [{inner}], which is neither [IPv4] nor [IPv6:address]"));
        }
        return Ok((domain.to_ascii_lowercase(), None, true));
    }
    if domain.ends_with('.') {
        return Err("has a domain ending in a dot".into());
    }
    let ascii = idna::domain_to_ascii_strict(domain)
        .map_err(|_| format!("has the domain {domain:?}, which is not a valid (internationalised) host name"))?;
    if ascii.len() > 253 {
        return Err("has a domain longer than 253 characters".into());
    }
    let labels: Vec<&str> = ascii.split('.').collect();
    for label in &labels {
        let ldh = label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if label.is_empty() || label.len() > 63 || !ldh || label.starts_with('-') || label.ends_with('-') {
            return Err(format!("has the domain label {label:?}: labels are 1 to 63 letters, digits or inner hyphens"));
        }
    }
    if labels.len() < 2 {
        return Err(format!("has the domain {ascii:?} without a top-level domain (no dot)"));
    }
    if labels.last().is_some_and(|t| t.bytes().all(|b| b.is_ascii_digit())) {
        return Err("has a numeric top-level domain; an IP address must be written as a literal in brackets".into());
    }
    let lower = domain.to_lowercase();
    let unicode = (lower != ascii).then_some(lower);
    Ok((ascii, unicode, false))
}
