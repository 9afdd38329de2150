//! Plain-text tools, one file each: statistics, slugs, truncation, URL and e-mail extraction,
//! language detection, case conversion, edit distances and the Unicode properties of each
//! character. Lengths given to and by clients are in Unicode code points.

pub(crate) mod case;
pub(crate) mod distance;
pub(crate) mod extract;
pub(crate) mod language;
pub(crate) mod slug;
pub(crate) mod stats;
pub(crate) mod truncate;
pub(crate) mod unicode_inspect;
