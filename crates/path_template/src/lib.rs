//! Path templates (`/v1/paste/{id}`): the one reader of the `{name}` spelling.
//!
//! A route's path is written once, in its `#[op]` declaration, as an OpenAPI path template.
//! Two crates use it: the macro crate, where a malformed template is a compile error at the
//! declaration, and the runtime, where the same parse gives the router's pattern, the
//! document's path parameters and the URLs the example tests call. Nothing else parses braces.
//! It depends on `std` alone so that a procedural macro can depend on it; it deliberately
//! knows nothing of HTTP methods or decoding.

/// One `/`-separated part of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Text matched as it is.
    Literal(&'a str),
    /// `{name}`: one whole segment taken from the request path.
    Param(&'a str),
    /// `{name...}`, last only: the rest of the request path, `/`s included (a webhook's
    /// sub-path). The document names it `{name}`, since OpenAPI has no such parameter; a client
    /// that percent-encodes its `/`s reaches the same path.
    Rest(&'a str),
}

/// A parsed path template. Every path starts with `/`; a trailing `/` is a path of its own
/// (`/v1/hash/` is not `/v1/hash`), so the last segment may be empty and no other may.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTemplate<'a> {
    segments: Vec<Segment<'a>>,
}

/// Characters a literal segment may hold: RFC 3986 unreserved characters, which need no
/// percent-encoding anywhere and mean nothing to the router.
fn literal_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

impl<'a> PathTemplate<'a> {
    /// Parses `path`, or says what is wrong with it in words fit for a compile error.
    pub fn parse(path: &'a str) -> Result<Self, String> {
        let Some(rest) = path.strip_prefix('/') else {
            return Err(format!("a path starts with `/`: \"{path}\""));
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let last = parts.len() - 1;
        let mut segments = Vec::with_capacity(parts.len());
        for (i, part) in parts.into_iter().enumerate() {
            if let Some(inner) = part.strip_prefix('{') {
                let inner = inner.strip_suffix('}').unwrap_or("");
                let (name, rest) = match inner.strip_suffix("...") {
                    Some(name) => (name, true),
                    None => (inner, false),
                };
                if rest && i != last {
                    return Err(format!("only the last segment may take the rest of the path: \"{part}\""));
                }
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(format!(
                        "a path parameter is a whole segment `{{name}}` of letters, digits and `_`: \"{part}\""
                    ));
                }
                if segments.iter().any(|s| matches!(s, Segment::Param(n) | Segment::Rest(n) if *n == name)) {
                    return Err(format!("the path parameter `{name}` appears twice"));
                }
                segments.push(if rest { Segment::Rest(name) } else { Segment::Param(name) });
            } else if part.is_empty() && i != last {
                return Err(format!("a path has no empty segments: \"{path}\""));
            } else if let Some(bad) = part.chars().find(|c| !literal_char(*c)) {
                return Err(format!(
                    "`{bad}` in \"{part}\": a path segment is letters, digits, `-`, `.`, `_`, `~` or a whole `{{name}}`"
                ));
            } else {
                segments.push(Segment::Literal(part));
            }
        }
        Ok(PathTemplate { segments })
    }

    pub fn segments(&self) -> &[Segment<'a>] {
        &self.segments
    }

    /// Names of the `{name}` segments, in order.
    pub fn params(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.segments.iter().filter_map(|s| match s {
            Segment::Param(p) | Segment::Rest(p) => Some(*p),
            Segment::Literal(_) => None,
        })
    }

    pub fn has_param(&self, name: &str) -> bool {
        self.params().any(|p| p == name)
    }

    /// The path with every parameter replaced by `value(name)`.
    pub fn fill(&self, mut value: impl FnMut(&str) -> String) -> String {
        let mut out = String::new();
        for s in &self.segments {
            out.push('/');
            match s {
                Segment::Literal(l) => out.push_str(l),
                Segment::Param(p) | Segment::Rest(p) => out.push_str(&value(p)),
            }
        }
        out
    }

    /// The router's pattern: `:name` for a segment, `*name` for the rest.
    pub fn router_pattern(&self) -> String {
        let mut out = String::new();
        for s in &self.segments {
            out.push('/');
            match s {
                Segment::Literal(l) => out.push_str(l),
                Segment::Param(p) => out.push_str(&format!(":{p}")),
                Segment::Rest(p) => out.push_str(&format!("*{p}")),
            }
        }
        out
    }

    /// The path as the document writes it: every parameter `{name}`.
    pub fn document_path(&self) -> String {
        self.fill(|p| format!("{{{p}}}"))
    }
}

#[cfg(test)]
mod tests {
    use super::{PathTemplate, Segment};

    #[test]
    fn templates_parse_into_segments() {
        let t = PathTemplate::parse("/v1/short-url/{slug}/stats").unwrap();
        assert_eq!(
            t.segments(),
            [Segment::Literal("v1"), Segment::Literal("short-url"), Segment::Param("slug"), Segment::Literal("stats")]
        );
        assert_eq!(t.params().collect::<Vec<_>>(), ["slug"]);
        assert!(t.has_param("slug") && !t.has_param("stats"));
        assert_eq!(t.fill(|p| format!("<{p}>")), "/v1/short-url/<slug>/stats");
        let rest = PathTemplate::parse("/v1/inbox/{id}/receive/{path...}").unwrap();
        assert_eq!(rest.segments()[4], Segment::Rest("path"));
        assert_eq!(rest.params().collect::<Vec<_>>(), ["id", "path"]);
        assert_eq!(rest.router_pattern(), "/v1/inbox/:id/receive/*path");
        assert_eq!(rest.document_path(), "/v1/inbox/{id}/receive/{path}");
        // A trailing slash is kept: it is another path.
        assert_eq!(PathTemplate::parse("/v1/hash/").unwrap().fill(|_| String::new()), "/v1/hash/");
    }

    #[test]
    fn malformed_templates_say_why() {
        for (path, words) in [
            ("v1/x", "starts with `/`"),
            ("/v1//x", "no empty segments"),
            ("/v1/{}", "whole segment"),
            ("/v1/{a-b}", "whole segment"),
            ("/v1/x{id}", "`{`"),
            ("/v1/:id", "`:`"),
            ("/v1/*rest", "`*`"),
            ("/v1/a b", "` `"),
            ("/v1/{id}/{id}", "appears twice"),
            ("/v1/{id}/{id...}", "appears twice"),
            ("/v1/{rest...}/x", "only the last segment"),
            ("/v1/{...}", "whole segment"),
        ] {
            let err = PathTemplate::parse(path).unwrap_err();
            assert!(err.contains(words), "{path}: {err}");
        }
    }
}
