//! Deflates the embedded data that is read once (parsed into a table, or unpacked into one
//! heap copy) so the binary carries it compressed (BENCHMARKS.md, "Fifth round"). The
//! sources stay as they are in `data/`, readable and diffable; the time-zone boundaries come
//! from the tzf-dist package, the version Cargo.lock pins. Data read in place from the binary
//! (the land and lake polygons) and data already compressed (places, holidays) is not listed.
//!
//! Each output is an 8-byte little-endian length of the original, then its raw deflate
//! stream; `src/embedded.rs` includes them by the names given here.

use std::{fs, io::Write, path::PathBuf};

/// (output name, path under the workspace's `data/`).
const FILES: &[(&str, &str)] = &[
    ("dejavu_sans", "fonts/DejaVuSans.ttf"),
    ("dejavu_sans_bold", "fonts/DejaVuSans-Bold.ttf"),
    ("cldr_units", "cldr/units.json"),
    ("phone_carriers", "phone/carriers.tsv"),
    ("email_disposable", "email/disposable.txt"),
    ("email_free", "email/free.txt"),
    ("email_role", "email/role.txt"),
    ("uap_regexes", "useragent/regexes.yaml"),
    ("licence_summaries", "licenses/choosealicense.json"),
    ("whois_servers", "whois/whois-servers.json"),
    ("rdap_dns", "whois/rdap-dns-services.json"),
];

fn main() {
    let data = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets this")).join("../../data");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets this"));
    for (name, path) in FILES {
        let source = data.join(path);
        println!("cargo:rerun-if-changed={}", source.display());
        let bytes = fs::read(&source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        write(&out, name, &bytes);
    }
    write(&out, "tz_boundaries", tzf_dist::load_lite_tzb());
    // The same list for the test that checks each blob against its source.
    fs::write(out.join("embedded_sources.rs"), format!("&{FILES:?}")).expect("OUT_DIR is writable");
}

fn write(out: &std::path::Path, name: &str, bytes: &[u8]) {
    let mut packed = Vec::with_capacity(bytes.len() / 2);
    packed.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    let mut encoder = flate2::write::DeflateEncoder::new(packed, flate2::Compression::best());
    encoder.write_all(bytes).expect("deflating into memory");
    let packed = encoder.finish().expect("deflating into memory");
    fs::write(out.join(format!("{name}.deflate")), packed).expect("OUT_DIR is writable");
}
