//! Images: Open Graph cards, QR codes, placeholders, avatars and barcodes, as SVG or PNG; and
//! the QR codes in a picture, read back.
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod avatar;
pub(crate) mod barcode;
pub(crate) mod og;
pub(crate) mod placeholder;
pub(crate) mod qr;
pub(crate) mod qr_decode;
