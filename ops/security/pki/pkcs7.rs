//! Certificates-only PKCS#7 (RFC 2315 section 9; RFC 5652 section 5): a SignedData with no
//! signers that only carries certificates, as `openssl crl2pkcs7 -nocrl` writes it and as
//! `.p7b` files hold chains.

use yasna::{Tag, models::ObjectIdentifier};

const SIGNED_DATA: &[u64] = &[1, 2, 840, 113549, 1, 7, 2];
const DATA: &[u64] = &[1, 2, 840, 113549, 1, 7, 1];

/// A certificates-only SignedData holding `certificates` (DER), in order.
pub(crate) fn write(certificates: &[Vec<u8>]) -> Vec<u8> {
    yasna::construct_der(|w| {
        w.write_sequence(|w| {
            w.next().write_oid(&ObjectIdentifier::from_slice(SIGNED_DATA));
            w.next().write_tagged(Tag::context(0), |w| {
                w.write_sequence(|w| {
                    w.next().write_u8(1);
                    w.next().write_set(|_| {});
                    w.next().write_sequence(|w| w.next().write_oid(&ObjectIdentifier::from_slice(DATA)));
                    w.next().write_tagged_implicit(Tag::context(0), |w| {
                        // DER sorts a SET OF; a chain's order matters to people, so the
                        // certificates are written as given (as OpenSSL does).
                        w.write_sequence(|w| {
                            for c in certificates {
                                w.next().write_der(c);
                            }
                        })
                    });
                    w.next().write_set(|_| {});
                })
            });
        })
    })
}

/// The certificates (DER) of a SignedData, in order; its signers are not checked.
pub(crate) fn read(der: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    yasna::parse_ber(der, |r| {
        r.read_sequence(|r| {
            let kind = r.next().read_oid()?;
            if kind.components().as_slice() != SIGNED_DATA {
                return Err(yasna::ASN1Error::new(yasna::ASN1ErrorKind::Invalid));
            }
            r.next().read_tagged(Tag::context(0), |r| {
                r.read_sequence(|r| {
                    let _version = r.next().read_u8()?;
                    let _digests = r.next().read_der()?;
                    let _content = r.next().read_der()?;
                    let certificates = r
                        .read_optional(|r| {
                            r.read_tagged_implicit(Tag::context(0), |r| r.collect_set_of(|r| r.read_der()))
                        })?
                        .unwrap_or_default();
                    while r.read_optional(|r| r.read_der())?.is_some() {}
                    Ok(certificates)
                })
            })
        })
    })
    .map_err(|e| format!("is not a PKCS#7 SignedData: {e}"))
}
