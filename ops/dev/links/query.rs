//! Reading a query string the way HTML forms write it (`+` for a space, `%XX` for a byte),
//! without losing a byte: an escape that does not make UTF-8 is kept as its escape.

/// The text `escaped` stands for. `plus_is_space` reads `+` as a space, as forms write it.
/// Bytes that do not make UTF-8 are written back as `%XX`, so the result is still a link
/// that means what the input meant.
pub(super) fn unescape(escaped: &str, plus_is_space: bool) -> String {
    let bytes = escaped.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() && hex(bytes[i + 1]).is_some() && hex(bytes[i + 2]).is_some() => {
                out.push(hex(bytes[i + 1]).unwrap_or(0) << 4 | hex(bytes[i + 2]).unwrap_or(0));
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    let mut text = String::with_capacity(out.len());
    for chunk in out.utf8_chunks() {
        text.push_str(chunk.valid());
        for b in chunk.invalid() {
            text.push_str(&format!("%{b:02X}"));
        }
    }
    text
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The query's `name=value` pairs, in order, each as written and decoded.
pub(super) struct Pair<'a> {
    /// The pair as written, escapes and all.
    pub raw: &'a str,
    pub name: String,
    pub value: String,
}

pub(super) fn pairs(query: &str) -> Vec<Pair<'_>> {
    query
        .split('&')
        .filter(|raw| !raw.is_empty())
        .map(|raw| {
            let (name, value) = raw.split_once('=').unwrap_or((raw, ""));
            Pair { raw, name: unescape(name, true), value: unescape(value, true) }
        })
        .collect()
}

/// The decoded value of the first pair named `name`.
pub(super) fn first(query: &str, name: &str) -> Option<String> {
    pairs(query).into_iter().find(|p| p.name == name).map(|p| p.value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_read_as_forms_write_them() {
        assert_eq!(unescape("a%20b+c", true), "a b c");
        assert_eq!(unescape("a%20b+c", false), "a b+c");
        assert_eq!(unescape("%E2%82%AC%zz%4", true), "€%zz%4");
        // A lone continuation byte stays escaped rather than becoming U+FFFD.
        assert_eq!(unescape("x%80y%C3%A9", true), "x%80yé");
        let p = pairs("a=1&&b&c=x%3Dy=z");
        let seen: Vec<_> = p.iter().map(|p| (p.raw, p.name.as_str(), p.value.as_str())).collect();
        assert_eq!(seen, [("a=1", "a", "1"), ("b", "b", ""), ("c=x%3Dy=z", "c", "x=y=z")]);
    }
}
