//! OpenSSH public keys: the one-line `type base64 comment` form of `authorized_keys` and
//! `.pub` files, whose Base64 is the RFC 4253 section 6.6 wire encoding (RFC 5656 for ECDSA,
//! RFC 8709 for Ed25519), and their fingerprints as `ssh-keygen -l` prints them.

use base64::{
    Engine,
    engine::general_purpose::{STANDARD, STANDARD_NO_PAD},
};
use sha2::{Digest, Sha256};

use super::model::{Curve, Key, uncompressed_point, unsigned};

/// Reads the length-prefixed values of the wire encoding (RFC 4251 section 5).
pub(super) struct Wire<'a>(pub(super) &'a [u8]);

impl<'a> Wire<'a> {
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let v = self.0.get(..n).ok_or("the OpenSSH key's data ends early")?;
        self.0 = &self.0[n..];
        Ok(v)
    }

    pub(super) fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(super) fn string(&mut self) -> Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

/// A length-prefixed string.
pub(super) fn put(out: &mut Vec<u8>, value: &[u8]) {
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(value);
}

/// An mpint: big-endian two's complement, with a zero byte before a set high bit.
pub(super) fn put_mpint(out: &mut Vec<u8>, value: &[u8]) {
    let v = unsigned(value);
    if v == [0] {
        return put(out, &[]);
    }
    if v[0] & 0x80 != 0 {
        put(out, &[&[0u8][..], &v].concat());
    } else {
        put(out, &v);
    }
}

/// The key's wire encoding and type name; None for keys OpenSSH has no form for.
pub(crate) fn blob(key: &Key) -> Option<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let name = match key {
        Key::Rsa { n, e, .. } => {
            put(&mut out, b"ssh-rsa");
            put_mpint(&mut out, e);
            put_mpint(&mut out, n);
            "ssh-rsa".to_string()
        }
        Key::Ec { curve, x, y, .. } => {
            let curve_name = curve.ssh_name()?;
            let name = format!("ecdsa-sha2-{curve_name}");
            put(&mut out, name.as_bytes());
            put(&mut out, curve_name.as_bytes());
            put(&mut out, &uncompressed_point(x, y));
            name
        }
        Key::Ed25519 { x, .. } => {
            put(&mut out, b"ssh-ed25519");
            put(&mut out, x);
            "ssh-ed25519".to_string()
        }
        Key::X25519 { .. } | Key::Secret(_) => return None,
    };
    Some((name, out))
}

/// The `authorized_keys` line of a key, with a comment when given.
pub(crate) fn write_public(key: &Key, comment: Option<&str>) -> Option<String> {
    let (name, blob) = blob(key)?;
    let line = format!("{name} {}", STANDARD.encode(blob));
    Some(match comment.filter(|c| !c.is_empty()) {
        Some(c) => format!("{line} {c}"),
        None => line,
    })
}

/// `SHA256:…` and `MD5:aa:bb:…`, as `ssh-keygen -l -E sha256|md5` prints them.
pub(crate) fn fingerprints(key: &Key) -> Option<(String, String)> {
    let (_, blob) = blob(key)?;
    let sha = format!("SHA256:{}", STANDARD_NO_PAD.encode(Sha256::digest(&blob)));
    let md5 = wrench_kit::byte_encoding::colon_hex(&md5::Md5::digest(&blob));
    Some((sha, format!("MD5:{md5}")))
}

/// Whether `text` starts like an OpenSSH public key line.
pub(crate) fn looks_like_public(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or_default();
    first == "ssh-rsa" || first == "ssh-ed25519" || first.starts_with("ecdsa-sha2-") || first.starts_with("sk-")
}

/// The key of an OpenSSH public key line (its comment is not kept).
pub(crate) fn read_public(text: &str) -> Result<Key, String> {
    let mut words = text.split_whitespace();
    let name = words.next().unwrap_or_default();
    let data = words.next().ok_or("the OpenSSH key line has no Base64 part")?;
    let data = STANDARD.decode(data).map_err(|_| "the OpenSSH key's second part is not Base64".to_string())?;
    let mut wire = Wire(&data);
    let inner = wire.string()?;
    if inner != name.as_bytes() {
        return Err(format!("the OpenSSH key line says `{name}` but its data is `{}`", String::from_utf8_lossy(inner)));
    }
    let key = match name {
        "ssh-rsa" => {
            let e = unsigned(wire.string()?);
            let n = unsigned(wire.string()?);
            Key::Rsa { n, e, private: None }
        }
        "ssh-ed25519" => {
            let x = wire.string()?;
            if x.len() != 32 {
                return Err("the ssh-ed25519 key is not 32 bytes".into());
            }
            Key::Ed25519 { x: x.to_vec(), d: None }
        }
        _ if name.starts_with("ecdsa-sha2-") => {
            let curve_name = std::str::from_utf8(wire.string()?).unwrap_or_default().to_string();
            let curve = Curve::ALL
                .into_iter()
                .find(|c| c.ssh_name() == Some(curve_name.as_str()))
                .ok_or_else(|| format!("the OpenSSH curve `{curve_name}` is not one wrench reads"))?;
            let (x, y) = super::der::ec_point(curve, wire.string()?)?;
            Key::Ec { curve, x, y, d: None }
        }
        other => {
            return Err(format!(
                "the OpenSSH key type `{other}` is not one wrench reads (ssh-rsa, ssh-ed25519, ecdsa-sha2-nistp256/384/521)"
            ));
        }
    };
    if !wire.0.is_empty() {
        return Err("the OpenSSH key has data after the key".into());
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_and_mpints_keep_their_sign_byte() {
        let key = Key::Rsa { n: vec![0xc0, 1, 2], e: vec![1, 0, 1], private: None };
        let line = write_public(&key, Some("me@host")).unwrap();
        assert!(line.starts_with("ssh-rsa AAAAB3NzaC1yc2E") && line.ends_with(" me@host"), "{line}");
        let back = read_public(&line).unwrap();
        assert!(back.same_public(&key));
        let (_, blob) = blob(&key).unwrap();
        // e = 65537 (3 bytes), n with its high bit set: a zero byte first.
        assert!(blob.windows(8).any(|w| w == [0, 0, 0, 4, 0, 0xc0, 1, 2]));
        assert!(read_public("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5").unwrap_err().contains("ends early"));
        assert!(read_public("ssh-dss AAAAB3NzaC1kc3M=").unwrap_err().contains("ssh-dss"));
    }
}
