//! `qr/decode`: the QR codes in a picture (PNG, JPEG, GIF, WebP or BMP), each with its payload,
//! version, error-correction level, mask and corners. Pictures are decoded by the `image`
//! crate under explicit limits (4,096 pixels a side, 64 MiB of pixels), turned to grey, and
//! searched by rqrr, which finds every code in the picture.

use std::io::Cursor;

use wrench_contract::prelude::*;
use wrench_kit::byte_encoding::{self, InputEncoding, OutputEncoding, UsedEncoding};

/// The widest and tallest picture read, in pixels.
const MAX_SIDE: u32 = 4096;
/// The most memory one picture's decoding may take.
const MAX_ALLOC: u64 = 64 << 20;
/// The most codes answered for one picture.
const MAX_CODES: usize = 50;

#[derive(Debug, Deserialize, JsonSchema, Validate)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct QrDecodeInput {
    /// The picture: PNG, JPEG, GIF, WebP or BMP, in `imageEncoding` (standard Base64 by
    /// default).
    #[schemars(length(min = 1))]
    image: String,
    /// How `image` carries its bytes: `base64` (the default), `base64url` or `hex`.
    #[serde(default = "byte_encoding::base64_input")]
    image_encoding: InputEncoding,
    /// How to write each payload: `auto` (the default: text when it is UTF-8 text, else
    /// standard Base64), `utf-8`, `hex`, `base64` or `base64url`.
    #[serde(default)]
    output_encoding: OutputEncoding,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct QrCode {
    /// The payload's bytes as the symbol holds them (kanji-mode characters in Shift JIS),
    /// written as `payloadEncoding` says.
    payload: String,
    /// How `payload` is written: `utf-8`, `hex`, `base64` or `base64url`.
    payload_encoding: UsedEncoding,
    /// The symbol's version, 1 (21 modules a side) to 40 (177).
    version: usize,
    /// The error-correction level: `L` (7 %), `M` (15 %), `Q` (25 %) or `H` (30 %).
    ec_level: &'static str,
    /// The data mask pattern, 0 to 7.
    mask: u16,
    /// The code's corners in the picture, `[x, y]` pixels, clockwise from the top left.
    corners: Vec<[i32; 2]>,
}

#[derive(Debug, Serialize, JsonSchema)]
struct QrDecodeOutput {
    /// Every code found, top to bottom as rqrr finds them; empty when there is none.
    codes: Vec<QrCode>,
    /// Codes found whose data could not be read (damaged, or cut off by the picture's edge).
    unreadable: usize,
    /// The picture's width in pixels.
    width: u32,
    /// The picture's height in pixels.
    height: u32,
}

/// Read the QR codes in a picture.
///
/// Finds every QR code in a PNG, JPEG, GIF, WebP or BMP picture (Base64 by default) and
/// answers each one's payload (its bytes as the symbol holds them, kanji in Shift JIS: as
/// text when they are UTF-8 text, else in `outputEncoding`), version,
/// error-correction level, mask and corners. A picture with no code answers an empty list;
/// codes too damaged to read are counted in `unreadable`. Pictures up to 4,096 pixels a side.
#[op(post "/v1/qr/decode" as qrDecode, tag = Images, cpu,
     rejects = "bytes that are not a PNG, JPEG, GIF, WebP or BMP picture, or a picture over 4,096 pixels a side",
     example(link, {"image": "iVBORw0KGgoAAAANSUhEUgAAAG8AAABvAQAAAADKvqPNAAABHUlEQVR42tVUu43EIBAdbgOy2waQ3IYzWoIGwNuAtyUy2rBEAzgjGHlu7OjuEr90EQFIj9HT+0Dyex30GddOFGhL5Iim44v+rH9Xkl04WJcrZwHAxSWieD7BwF4O70BwrjocAwvn2hYPcVY1YnW6ETUuAdthr8Md+PBsKsfRZNxPVl/eoy12WmYBaFAeqvOWLACu7TXYqCn+Htytew5+6mSAxj6kexeHCx6QbnAsHOv0BqTbi6zz4yVbIIizqRoPWQHwLrL6tg9HFskGm8Lh1BBI3WnfZspmkKZUopmTJ1Og1CltzUYH7D7zXGSZXUR0FlajO03dgx2k75kM5KDLgxNNkCkKVt3GVQSAc9Ra1dYhByn5xzpvAWnKx33mP92FSMk51+ATAAAAAElFTkSuQmCC"}),
     example(not_a_picture, {"image": "aGVsbG8="}, status = 400))]
async fn qr_decode(input: QrDecodeInput) -> Result<QrDecodeOutput, ApiError> {
    let bytes = byte_encoding::decode(&input.image, input.image_encoding, "image")?;
    let grey = picture(&bytes)?;
    let (width, height) = grey.dimensions();
    let mut prepared = rqrr::PreparedImage::prepare_from_greyscale(width as usize, height as usize, |x, y| {
        grey.get_pixel(x as u32, y as u32).0[0]
    });
    let mut codes = Vec::new();
    let mut unreadable = 0;
    for grid in prepared.detect_grids().into_iter().take(MAX_CODES) {
        let mut payload = Vec::new();
        match grid.decode_to(&mut payload) {
            Ok(meta) => {
                let (payload, payload_encoding) = byte_encoding::encode(&payload, input.output_encoding, "payload")?;
                codes.push(QrCode {
                    payload,
                    payload_encoding,
                    version: meta.version.0,
                    // The format information's two bits: 01 L, 00 M, 11 Q, 10 H.
                    ec_level: ["M", "L", "H", "Q"][usize::from(meta.ecc_level) % 4],
                    mask: meta.mask,
                    corners: grid.bounds.iter().map(|p| [p.x, p.y]).collect(),
                });
            }
            Err(_) => unreadable += 1,
        }
    }
    Ok(QrDecodeOutput { codes, unreadable, width, height })
}

/// The picture in `bytes`, in shades of grey, read under the limits above.
fn picture(bytes: &[u8]) -> Result<image::GrayImage, ApiError> {
    let bad = |e: image::ImageError| ApiError::invalid("image", format!("is not a picture that can be read: {e}"));
    let mut reader =
        image::ImageReader::new(Cursor::new(bytes)).with_guessed_format().map_err(|e| ApiError::invalid("image", e))?;
    if reader.format().is_none() {
        return Err(ApiError::invalid("image", "is not a PNG, JPEG, GIF, WebP or BMP picture"));
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_ALLOC);
    reader.limits(limits);
    Ok(reader.decode().map_err(bad)?.to_luma8())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(image: &str) -> Result<QrDecodeOutput, ApiError> {
        let input = QrDecodeInput {
            image: image.into(),
            image_encoding: InputEncoding::Base64,
            output_encoding: OutputEncoding::Base64,
        };
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(qr_decode(input))
    }

    #[test]
    fn codes_drawn_by_segno_read_as_zbarimg_reads_them() {
        // tests/fixtures/qr_codes.py: segno's codes in five picture formats, every version
        // range and level, each payload also read back by zbarimg.
        let cases = crate::testing::fixture("qr_codes.json");
        let cases = cases.as_array().expect("cases");
        assert_eq!(cases.len(), 64);
        for (i, case) in cases.iter().enumerate() {
            let out = decode(case["image"].as_str().unwrap()).unwrap_or_else(|e| panic!("case {i}: {}", e.message));
            assert_eq!(out.codes.len() as u64, case["codes"].as_u64().unwrap(), "case {i} ({})", case["format"]);
            if let Some(payload) = case["payload"].as_str() {
                let code = &out.codes[0];
                assert_eq!(code.payload, payload, "case {i} ({})", case["format"]);
                assert_eq!(code.version as u64, case["version"].as_u64().unwrap(), "case {i}");
                assert_eq!(code.ec_level, case["error"].as_str().unwrap(), "case {i}");
                assert!(code.mask < 8 && code.corners.len() == 4, "case {i}");
            }
            if let Some(payloads) = case["payloads"].as_array() {
                use base64::Engine;
                let mut got: Vec<String> = out
                    .codes
                    .iter()
                    .map(|c| {
                        let bytes = base64::engine::general_purpose::STANDARD.decode(&c.payload).unwrap();
                        String::from_utf8(bytes).unwrap()
                    })
                    .collect();
                got.sort();
                let want: Vec<&str> = payloads.iter().map(|p| p.as_str().unwrap()).collect();
                assert_eq!(got, want, "case {i}");
            }
        }
    }

    #[test]
    fn what_is_no_picture_or_too_large_is_refused() {
        use base64::Engine;
        let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        assert!(decode(&b64(b"not a picture")).is_err());
        // A PNG header claiming 5,000 x 5,000 pixels is refused before any pixel is allocated.
        let mut png = Vec::new();
        let wide = image::GrayImage::from_pixel(5000, 1, image::Luma([255]));
        wide.write_to(&mut Cursor::new(&mut png), image::ImageFormat::Png).unwrap();
        let e = decode(&b64(&png)).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("image"), "{}", e.message);
        // A truncated picture is a 400 too.
        let e = decode(&b64(&png[..png.len() / 2])).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("image"), "{}", e.message);
    }
}
