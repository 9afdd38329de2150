//! Compression and archives: `compress` and `decompress` in eight formats (gzip, zlib, raw
//! DEFLATE, Brotli, Zstandard, bzip2, xz, LZ4), and `archive/list` and `archive/extract` for
//! zip, tar, tar.gz and tar.zst, on the byte convention, with every output bounded by the
//! response limit before it can grow past it.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod archive;
pub(crate) mod compress;
pub(crate) mod decompress;
pub(crate) mod formats;
