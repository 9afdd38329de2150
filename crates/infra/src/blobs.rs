//! Data compiled into the binary, deflated at build time (`build.rs`) and read once: fonts, the CLDR
//! unit names, the phone carriers, the e-mail lists, the uap-core rules, the licence
//! summaries, the WHOIS and RDAP server lists and the time-zone boundaries. Together they are
//! 7.2 MB as files and 3.7 MB deflated (BENCHMARKS.md, "Fifth round"). Each is unpacked
//! where it is parsed into its table, or once into a heap copy that lives as long as the
//! process, so what a request reads is the same as before.

use std::io::Read;

/// One deflated file: its original length, then a raw deflate stream.
pub struct Deflated(&'static [u8]);

include!(concat!(env!("OUT_DIR"), "/blobs.rs"));

impl Deflated {
    /// The original bytes. The blobs are the build's own output, so a failure is a broken
    /// build, which the test below catches before any release.
    pub fn bytes(&self) -> Vec<u8> {
        let (len, stream) = self.0.split_at(8);
        let len = u64::from_le_bytes(len.try_into().expect("eight bytes")) as usize;
        let mut out = Vec::with_capacity(len);
        flate2::read::DeflateDecoder::new(stream).read_to_end(&mut out).expect("an embedded blob unpacks");
        out
    }

    /// The original text (every text blob is UTF-8).
    pub fn text(&self) -> String {
        String::from_utf8(self.bytes()).expect("an embedded text blob is UTF-8")
    }

    /// One copy of the original text for the life of the process, for tables that borrow
    /// their strings from it.
    pub fn leak_text(&self) -> &'static str {
        self.text().leak()
    }

    /// One copy of the original bytes for the life of the process.
    pub fn leak_bytes(&self) -> &'static [u8] {
        self.bytes().leak()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each blob unpacks to the file it was made from, byte for byte.
    #[test]
    fn every_blob_unpacks_to_its_source() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
        for (name, blob) in ALL {
            let unpacked = blob.bytes();
            assert!(blob.0.len() < unpacked.len(), "{name} is smaller packed");
            match SOURCES.iter().find(|(n, _)| n == name) {
                Some((_, path)) => assert_eq!(unpacked, std::fs::read(data.join(path)).unwrap(), "{name}"),
                // The boundaries come from a package: they must at least open as a finder.
                None => assert!(tzf_rs::DefaultFinder::from_tzb(&unpacked).is_ok(), "{name}"),
            }
        }
        assert_eq!(ALL.len(), SOURCES.len() + 1);
    }
}
