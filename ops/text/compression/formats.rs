//! The compression formats, each with its levels, its signature and its codec: what
//! `compress` and `decompress` share.
//!
//! Every decoder is read through a cap: it stops one byte past the most the answer may hold,
//! so a decompression bomb costs at most that much memory, and the formats whose decoders
//! size a window from the header (xz, Zstandard) are given a ceiling for it as well.

use std::io::Read;

use wrench_contract::prelude::*;

#[derive(Debug, Deserialize, Serialize, JsonSchema, Validate, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Format {
    /// gzip (RFC 1952), as `gzip` writes it; several members are read one after another.
    Gzip,
    /// zlib (RFC 1950): DEFLATE with a two-byte header and an Adler-32 check.
    Zlib,
    /// Raw DEFLATE (RFC 1951), no header: what ZIP entries and `Content-Encoding: deflate`
    /// often hold.
    Deflate,
    /// Brotli (RFC 7932).
    Brotli,
    /// Zstandard (RFC 8878).
    Zstd,
    /// bzip2.
    Bzip2,
    /// xz (LZMA2), as `xz` writes it.
    Xz,
    /// The LZ4 frame format, as `lz4` writes it.
    Lz4,
}

/// Most memory an xz stream may ask for to be decoded (the `xz -9` dictionary needs 65 MiB).
pub(crate) const XZ_MEMORY_LIMIT: u64 = 80 << 20;
/// Largest Zstandard window read (2^24 = 16 MiB; `zstd -19` uses at most 8 MiB).
pub(crate) const ZSTD_WINDOW_LOG_MAX: u32 = 24;

impl Format {
    /// Every format, in the order the document lists them (for the tests that try them all).
    #[cfg(test)]
    pub(crate) const ALL: [Format; 8] = [
        Format::Gzip,
        Format::Zlib,
        Format::Deflate,
        Format::Brotli,
        Format::Zstd,
        Format::Bzip2,
        Format::Xz,
        Format::Lz4,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Gzip => "gzip",
            Format::Zlib => "zlib",
            Format::Deflate => "deflate",
            Format::Brotli => "brotli",
            Format::Zstd => "zstd",
            Format::Bzip2 => "bzip2",
            Format::Xz => "xz",
            Format::Lz4 => "lz4",
        }
    }

    /// The levels `compress` accepts, and the one it uses when none is given.
    pub(crate) fn levels(self) -> (i32, i32, i32) {
        match self {
            Format::Gzip | Format::Zlib | Format::Deflate => (0, 9, 6),
            Format::Brotli => (0, 11, 5),
            Format::Zstd => (1, 19, 3),
            Format::Bzip2 => (1, 9, 9),
            // xz -7 and above need 186 MiB or more to compress: too much for one request.
            Format::Xz => (0, 6, 6),
            Format::Lz4 => (0, 0, 0),
        }
    }

    /// The format whose signature `bytes` start with; Brotli and raw DEFLATE have none.
    pub(crate) fn sniff(bytes: &[u8]) -> Option<Format> {
        match bytes {
            [0x1f, 0x8b, ..] => Some(Format::Gzip),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Format::Zstd),
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(Format::Bzip2),
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Some(Format::Xz),
            [0x04, 0x22, 0x4d, 0x18, ..] => Some(Format::Lz4),
            // zlib: deflate (method 8) with a window of at most 32 KiB, and a header whose
            // two bytes are a multiple of 31 (RFC 1950 section 2.2).
            [cmf, flg, ..]
                if cmf & 0x0f == 8 && cmf >> 4 <= 7 && (u16::from(*cmf) * 256 + u16::from(*flg)) % 31 == 0 =>
            {
                Some(Format::Zlib)
            }
            _ => None,
        }
    }
}

/// `data` compressed in `format` at `level`.
pub(crate) fn compress(data: &[u8], format: Format, level: i32) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    let level_u = level.max(0) as u32;
    match format {
        Format::Gzip => {
            flate2::read::GzEncoder::new(data, flate2::Compression::new(level_u)).read_to_end(&mut out)?;
        }
        Format::Zlib => {
            flate2::read::ZlibEncoder::new(data, flate2::Compression::new(level_u)).read_to_end(&mut out)?;
        }
        Format::Deflate => {
            flate2::read::DeflateEncoder::new(data, flate2::Compression::new(level_u)).read_to_end(&mut out)?;
        }
        Format::Brotli => {
            brotli::CompressorReader::new(data, 64 * 1024, level_u, 22).read_to_end(&mut out)?;
        }
        Format::Zstd => return zstd::bulk::compress(data, level),
        Format::Bzip2 => {
            bzip2::read::BzEncoder::new(data, bzip2::Compression::new(level_u)).read_to_end(&mut out)?;
        }
        Format::Xz => {
            liblzma::read::XzEncoder::new(data, level_u).read_to_end(&mut out)?;
        }
        Format::Lz4 => {
            let mut encoder = lz4_flex::frame::FrameEncoder::new(&mut out);
            std::io::copy(&mut &data[..], &mut encoder)?;
            encoder.finish().map_err(std::io::Error::other)?;
        }
    }
    Ok(out)
}

/// Why decompressing stopped.
#[derive(Debug)]
pub(crate) enum Fault {
    /// More than the cap would come out.
    TooLarge,
    /// The data is not valid in the format; the decoder's own words.
    Corrupt(String),
}

/// `data` decompressed as `format`, at most `cap` bytes of it.
pub(crate) fn decompress(data: &[u8], format: Format, cap: usize) -> Result<Vec<u8>, Fault> {
    let reader: Box<dyn Read + '_> = match format {
        Format::Gzip => Box::new(flate2::read::MultiGzDecoder::new(data)),
        Format::Zlib => Box::new(flate2::read::ZlibDecoder::new(data)),
        Format::Deflate => Box::new(flate2::read::DeflateDecoder::new(data)),
        Format::Brotli => Box::new(brotli::Decompressor::new(data, 64 * 1024)),
        Format::Zstd => {
            let mut decoder = zstd::stream::read::Decoder::new(data).map_err(|e| Fault::Corrupt(e.to_string()))?;
            decoder.window_log_max(ZSTD_WINDOW_LOG_MAX).map_err(|e| Fault::Corrupt(e.to_string()))?;
            Box::new(decoder)
        }
        Format::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(data)),
        Format::Xz => {
            let stream = liblzma::stream::Stream::new_stream_decoder(XZ_MEMORY_LIMIT, liblzma::stream::CONCATENATED)
                .map_err(|e| Fault::Corrupt(e.to_string()))?;
            Box::new(liblzma::read::XzDecoder::new_stream(data, stream))
        }
        Format::Lz4 => return lz4_frames(data, cap),
    };
    let mut out = Vec::with_capacity((data.len() * 4).min(cap));
    reader.take(cap as u64 + 1).read_to_end(&mut out).map_err(|e| Fault::Corrupt(e.to_string()))?;
    if out.len() > cap {
        return Err(Fault::TooLarge);
    }
    Ok(out)
}

/// LZ4 frames one after another (as `lz4` reads them), each checked to end with its end mark:
/// the decoder takes a frame cut short for a whole one.
fn lz4_frames(data: &[u8], cap: usize) -> Result<Vec<u8>, Fault> {
    let mut out = Vec::with_capacity((data.len() * 4).min(cap));
    let mut rest = data;
    while !rest.is_empty() {
        let start = data.len() - rest.len();
        // Skippable frames (magic 0x184D2A50 to 0x184D2A5F) carry no data.
        if rest.len() >= 8 && rest[1..4] == [0x2a, 0x4d, 0x18] && rest[0] & 0xf0 == 0x50 {
            let size = u32::from_le_bytes([rest[4], rest[5], rest[6], rest[7]]) as usize;
            rest = rest.get(8 + size..).ok_or_else(|| Fault::Corrupt("a skippable frame is cut short".into()))?;
            continue;
        }
        let room = (cap + 1 - out.len().min(cap)) as u64;
        lz4_flex::frame::FrameDecoder::new(&mut rest)
            .take(room)
            .read_to_end(&mut out)
            .map_err(|e| Fault::Corrupt(e.to_string()))?;
        if out.len() > cap {
            return Err(Fault::TooLarge);
        }
        let frame = &data[start..data.len() - rest.len()];
        let checksum = frame.get(4).is_some_and(|flg| flg & 0x04 != 0);
        let tail = if checksum { 8 } else { 4 };
        let ends = frame.len() >= 7 + tail && frame[frame.len() - tail..frame.len() - tail + 4] == [0, 0, 0, 0];
        if !ends {
            return Err(Fault::Corrupt(format!("the frame at byte {start} is cut short before its end mark")));
        }
    }
    Ok(out)
}
