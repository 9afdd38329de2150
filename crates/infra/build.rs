//! Deflates the embedded data that is read once (parsed into a table, or unpacked into one
//! heap copy) so the binary carries it compressed (BENCHMARKS.md, "Fifth round"). The
//! sources stay as they are in `data/`, readable and diffable; the time-zone boundaries come
//! from the tzf-dist package, the version Cargo.lock pins. Data read in place from the binary
//! (the land and lake polygons) and data already compressed (places, holidays) is not listed.
//!
//! Each output is an 8-byte little-endian length of the original, then its raw deflate
//! stream. `blobs.rs`, included by `src/embedded.rs`, declares one static per output, the list
//! of them all, and each one's source for the test that compares them.

use std::{fs, io::Write, path::PathBuf};

/// (name of the static in `wrench_infra::blobs`, path under the workspace's `data/`).
const FILES: &[(&str, &str)] = &[
    ("DEJAVU_SANS", "fonts/DejaVuSans.ttf"),
    ("DEJAVU_SANS_BOLD", "fonts/DejaVuSans-Bold.ttf"),
    ("CLDR_UNITS", "cldr/units.json"),
    ("PHONE_CARRIERS", "phone/carriers.tsv"),
    ("EMAIL_DISPOSABLE", "email/disposable.txt"),
    ("EMAIL_FREE", "email/free.txt"),
    ("EMAIL_ROLE", "email/role.txt"),
    ("UAP_REGEXES", "useragent/regexes.yaml"),
    ("LICENCE_SUMMARIES", "licenses/choosealicense.json"),
    ("WHOIS_SERVERS", "whois/whois-servers.json"),
    ("RDAP_DNS", "whois/rdap-dns-services.json"),
    ("MIME_TYPES", "mime/types.tsv"),
    ("MIME_EXTENSIONS", "mime/extensions.tsv"),
    ("MAC_BLOCKS", "mac/oui.tsv"),
];
/// The static holding tzf-dist's simplified time-zone boundaries (`lite.tzb`).
const TZ: &str = "TZ_BOUNDARIES";

fn main() {
    let data = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets this")).join("../../data");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets this"));
    let mut blobs = String::new();
    for (name, path) in FILES {
        let source = data.join(path);
        println!("cargo:rerun-if-changed={}", source.display());
        let bytes = fs::read(&source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        blobs += &declare(name, &format!("`data/{path}`."), write(&out, name, &bytes));
    }
    let tz = write(&out, TZ, tzf_dist::load_lite_tzb());
    blobs += &declare(TZ, "tzf-dist's simplified time-zone boundaries (`lite.tzb`).", tz);
    let names: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).chain([TZ.to_string()]).collect();
    blobs += &format!("/// Every blob, by name.\npub static ALL: &[(&str, &Deflated)] = &[{}];\n", {
        names.iter().map(|n| format!("(\"{n}\", &{n})")).collect::<Vec<_>>().join(", ")
    });
    blobs += &format!(
        "/// Each blob's source under `data/` (the boundaries come from a crate).\n#[cfg(test)]\nconst SOURCES: &[(&str, &str)] = &{FILES:?};\n"
    );
    fs::write(out.join("blobs.rs"), blobs).expect("OUT_DIR is writable");
}

/// One static's declaration, for the file of deflated blobs at `path`.
fn declare(name: &str, doc: &str, path: PathBuf) -> String {
    format!("/// {doc}\npub static {name}: Deflated = Deflated(include_bytes!({:?}));\n", path.display().to_string())
}

/// Writes `bytes` deflated under `out`, returning the file's path.
fn write(out: &std::path::Path, name: &str, bytes: &[u8]) -> PathBuf {
    let mut packed = Vec::with_capacity(bytes.len() / 2);
    packed.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    let mut encoder = flate2::write::DeflateEncoder::new(packed, flate2::Compression::best());
    encoder.write_all(bytes).expect("deflating into memory");
    let packed = encoder.finish().expect("deflating into memory");
    let path = out.join(format!("{name}.deflate"));
    fs::write(&path, packed).expect("OUT_DIR is writable");
    path
}
