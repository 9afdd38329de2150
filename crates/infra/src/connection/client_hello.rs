//! A TLS ClientHello read from the bytes a client sends first, and its fingerprints: JA3
//! (Salesforce's: version, ciphers, extensions, groups and point formats, in the order sent,
//! MD5) and JA4 (FoxIO's JA4 TLS client fingerprint: counts, version, SNI and ALPN in a
//! readable prefix, then truncated SHA-256 hashes of the sorted ciphers and of the sorted
//! extensions with the signature algorithms). GREASE values (RFC 8701) are left out of both,
//! as both specifications say.
//!
//! The reader is strict about lengths and bounded: a ClientHello larger than
//! [`MAX_HELLO`] is refused, not buffered.

use md5::Md5;
use sha2::{Digest, Sha256};

/// The largest ClientHello read (handshake message), far above what clients send (a few KiB
/// with post-quantum key shares).
pub const MAX_HELLO: usize = 64 * 1024;

/// What a ClientHello says, as sent.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClientHello {
    /// `legacy_version` (0x0303 for TLS 1.2 and 1.3 hellos).
    pub legacy_version: u16,
    pub ciphers: Vec<u16>,
    /// Extension types in the order sent.
    pub extensions: Vec<u16>,
    pub server_name: Option<String>,
    pub alpn: Vec<Vec<u8>>,
    pub supported_groups: Vec<u16>,
    pub point_formats: Vec<u8>,
    pub signature_algorithms: Vec<u16>,
    pub supported_versions: Vec<u16>,
}

/// GREASE values (RFC 8701): 0x0A0A, 0x1A1A, ... 0xFAFA.
pub fn is_grease(v: u16) -> bool {
    v & 0x0f0f == 0x0a0a && v >> 8 == v & 0xff
}

/// A byte reader that fails on any length past its end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.bytes.len() < n {
            return Err(format!("{n} bytes announced, {} left", self.bytes.len()));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    /// A block prefixed by its length in `width` bytes (1 or 2).
    fn block(&mut self, width: usize) -> Result<Reader<'a>, String> {
        let n = if width == 1 { usize::from(self.u8()?) } else { usize::from(self.u16()?) };
        Ok(Reader { bytes: self.take(n)? })
    }

    fn u16s(mut self) -> Result<Vec<u16>, String> {
        if !self.bytes.len().is_multiple_of(2) {
            return Err("a list of 16-bit values of odd length".into());
        }
        let mut out = Vec::with_capacity(self.bytes.len() / 2);
        while !self.bytes.is_empty() {
            out.push(self.u16()?);
        }
        Ok(out)
    }
}

/// The ClientHello handshake message at the start of a TLS stream (records of type 22), once
/// `bytes` holds all of it: `Ok(None)` means more bytes are needed; an error means the stream
/// does not start with a ClientHello.
pub fn from_records(bytes: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut message = Vec::new();
    let mut rest = bytes;
    loop {
        if rest.len() < 5 {
            return Ok(None);
        }
        if rest[0] != 22 {
            return Err("the connection did not start with a TLS handshake".into());
        }
        let length = usize::from(u16::from_be_bytes([rest[3], rest[4]]));
        if rest.len() < 5 + length {
            return Ok(None);
        }
        message.extend_from_slice(&rest[5..5 + length]);
        rest = &rest[5 + length..];
        if message.len() >= 4 {
            if message[0] != 1 {
                return Err("the first handshake message is not a ClientHello".into());
            }
            let total = 4 + (usize::from(message[1]) << 16 | usize::from(message[2]) << 8 | usize::from(message[3]));
            if total > MAX_HELLO {
                return Err(format!("a ClientHello of {total} bytes, more than {MAX_HELLO}"));
            }
            if message.len() >= total {
                message.truncate(total);
                return Ok(Some(message));
            }
        }
    }
}

/// Reads a ClientHello handshake message (type 1, its 3-byte length, the body).
pub fn parse(message: &[u8]) -> Result<ClientHello, String> {
    let mut r = Reader { bytes: message };
    if r.u8()? != 1 {
        return Err("not a ClientHello".into());
    }
    let length = usize::from(r.u8()?) << 16 | usize::from(r.u16()?);
    let mut body = Reader { bytes: r.take(length)? };
    let mut hello = ClientHello { legacy_version: body.u16()?, ..ClientHello::default() };
    body.take(32)?; // random
    body.block(1)?; // legacy session id
    hello.ciphers = body.block(2)?.u16s()?;
    body.block(1)?; // compression methods
    if body.bytes.is_empty() {
        return Ok(hello);
    }
    let mut extensions = body.block(2)?;
    while !extensions.bytes.is_empty() {
        let kind = extensions.u16()?;
        let mut data = extensions.block(2)?;
        hello.extensions.push(kind);
        match kind {
            0x0000 => {
                let mut list = data.block(2)?;
                while !list.bytes.is_empty() {
                    let name_type = list.u8()?;
                    let name = list.block(2)?.bytes;
                    if name_type == 0 && hello.server_name.is_none() {
                        hello.server_name = Some(String::from_utf8_lossy(name).into_owned());
                    }
                }
            }
            0x0010 => {
                let mut list = data.block(2)?;
                while !list.bytes.is_empty() {
                    hello.alpn.push(list.block(1)?.bytes.to_vec());
                }
            }
            0x000a => hello.supported_groups = data.block(2)?.u16s()?,
            0x000b => hello.point_formats = data.block(1)?.bytes.to_vec(),
            0x000d => hello.signature_algorithms = data.block(2)?.u16s()?,
            0x002b => hello.supported_versions = data.block(1)?.u16s()?,
            _ => {}
        }
    }
    Ok(hello)
}

fn dashed(values: impl Iterator<Item = u16>) -> String {
    values.map(|v| v.to_string()).collect::<Vec<_>>().join("-")
}

impl ClientHello {
    /// The JA3 string: `version,ciphers,extensions,groups,point formats`, decimal, dash-joined,
    /// GREASE left out.
    pub fn ja3(&self) -> String {
        let keep = |v: &&u16| !is_grease(**v);
        format!(
            "{},{},{},{},{}",
            self.legacy_version,
            dashed(self.ciphers.iter().filter(keep).copied()),
            dashed(self.extensions.iter().filter(keep).copied()),
            dashed(self.supported_groups.iter().filter(keep).copied()),
            dashed(self.point_formats.iter().map(|&p| u16::from(p))),
        )
    }

    pub fn ja3_md5(&self) -> String {
        hex::encode(Md5::digest(self.ja3().as_bytes()))
    }

    /// The highest TLS version offered: from `supported_versions` when sent, else the legacy
    /// version.
    pub fn highest_version(&self) -> u16 {
        self.supported_versions.iter().copied().filter(|v| !is_grease(*v)).max().unwrap_or(self.legacy_version)
    }

    /// JA4's readable prefix: `t`, version, `d`/`i`, cipher and extension counts, ALPN.
    fn ja4_a(&self) -> String {
        let version = match self.highest_version() {
            0x0304 => "13",
            0x0303 => "12",
            0x0302 => "11",
            0x0301 => "10",
            0x0300 => "s3",
            0x0002 => "s2",
            0xfeff => "d1",
            0xfefd => "d2",
            0xfefc => "d3",
            _ => "00",
        };
        let sni = if self.extensions.contains(&0x0000) { 'd' } else { 'i' };
        let count = |v: &[u16]| v.iter().filter(|x| !is_grease(**x)).count().min(99);
        let alpn = match self.alpn.first().filter(|a| !a.is_empty()) {
            None => "00".to_string(),
            Some(a) => {
                let (first, last) = (a[0], a[a.len() - 1]);
                if first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric() {
                    format!("{}{}", first as char, last as char)
                } else {
                    let h = hex::encode(a);
                    format!("{}{}", &h[..1], &h[h.len() - 1..])
                }
            }
        };
        format!("t{version}{sni}{:02}{:02}{alpn}", count(&self.ciphers), count(&self.extensions))
    }

    /// JA4's raw form: the prefix, the sorted ciphers, and the sorted extensions (without SNI
    /// and ALPN) with the signature algorithms in the order sent.
    pub fn ja4_raw(&self) -> String {
        let hex4 = |v: &u16| format!("{v:04x}");
        let mut ciphers: Vec<String> = self.ciphers.iter().filter(|c| !is_grease(**c)).map(hex4).collect();
        ciphers.sort();
        let mut extensions: Vec<String> =
            self.extensions.iter().filter(|e| !is_grease(**e) && **e != 0x0000 && **e != 0x0010).map(hex4).collect();
        extensions.sort();
        let algorithms: Vec<String> = self.signature_algorithms.iter().map(hex4).collect();
        let c = if algorithms.is_empty() {
            extensions.join(",")
        } else {
            format!("{}_{}", extensions.join(","), algorithms.join(","))
        };
        format!("{}_{}_{}", self.ja4_a(), ciphers.join(","), c)
    }

    /// The JA4 fingerprint: the prefix and two 12-character truncated SHA-256 hashes.
    pub fn ja4(&self) -> String {
        let raw = self.ja4_raw();
        let mut parts = raw.splitn(3, '_');
        let (a, b, c) =
            (parts.next().unwrap_or_default(), parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        let hash = |s: &str| {
            if s.is_empty() {
                "000000000000".to_string()
            } else {
                hex::encode(Sha256::digest(s.as_bytes()))[..12].to_string()
            }
        };
        format!("{a}_{}_{}", hash(b), hash(c))
    }
}

/// A ClientHello with the given fields, each extension with the data it would carry: for the
/// tests of whatever reads one.
#[cfg(any(test, feature = "testing"))]
pub fn hello_bytes(ciphers: &[u16], extensions: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut body = vec![0x03, 0x03];
    body.extend([7u8; 32]);
    body.push(32);
    body.extend([9u8; 32]);
    body.extend(((ciphers.len() * 2) as u16).to_be_bytes());
    for c in ciphers {
        body.extend(c.to_be_bytes());
    }
    body.extend([1, 0]);
    let mut ext = Vec::new();
    for (kind, data) in extensions {
        ext.extend(kind.to_be_bytes());
        ext.extend((data.len() as u16).to_be_bytes());
        ext.extend(data);
    }
    body.extend((ext.len() as u16).to_be_bytes());
    body.extend(ext);
    let mut message = vec![1, 0];
    message.extend((body.len() as u16).to_be_bytes());
    message.extend(body);
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list16(values: &[u16], width: usize) -> Vec<u8> {
        let mut out = if width == 1 {
            vec![(values.len() * 2) as u8]
        } else {
            ((values.len() * 2) as u16).to_be_bytes().to_vec()
        };
        for v in values {
            out.extend(v.to_be_bytes());
        }
        out
    }

    /// A Chrome 143 ClientHello as a public fingerprinting service reported it (its fields in
    /// the order sent, and the JA3 and JA4 it computed): the values below must come out.
    #[test]
    fn a_published_fingerprint_is_reproduced() {
        let ciphers = [4865, 4866, 4867, 49195, 49199, 49196, 49200, 52393, 52392, 49171, 49172, 156, 157, 47, 53];
        let sni = {
            let name = b"tls.browserleaks.com";
            let mut entry = vec![0u8];
            entry.extend((name.len() as u16).to_be_bytes());
            entry.extend(name);
            let mut d = (entry.len() as u16).to_be_bytes().to_vec();
            d.extend(entry);
            d
        };
        let alpn = {
            let mut l = vec![2, b'h', b'2', 8];
            l.extend(b"http/1.1");
            let mut d = (l.len() as u16).to_be_bytes().to_vec();
            d.extend(l);
            d
        };
        let algorithms = [0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0806, 0x0601];
        let order: [(u16, Vec<u8>); 16] = [
            (45, vec![1, 1]),
            (51, vec![0, 0]),
            (16, alpn),
            (65037, vec![]),
            (23, vec![]),
            (17613, vec![]),
            (0, sni),
            (11, vec![1, 0]),
            (10, list16(&[4588, 29, 23, 24], 2)),
            (43, list16(&[0x0304, 0x0303], 1)),
            (65281, vec![0]),
            (35, vec![]),
            (18, vec![]),
            (5, vec![]),
            (13, list16(&algorithms, 2)),
            (27, vec![]),
        ];
        let message = hello_bytes(&ciphers, &order);
        let hello = parse(&message).unwrap();
        assert_eq!(hello.server_name.as_deref(), Some("tls.browserleaks.com"));
        assert_eq!(
            hello.ja3(),
            "771,4865-4866-4867-49195-49199-49196-49200-52393-52392-49171-49172-156-157-47-53,45-51-16-65037-23-17613-0-11-10-43-65281-35-18-5-13-27,4588-29-23-24,0"
        );
        assert_eq!(hello.ja3_md5(), "98487aa16281980e7d1120d399efb6a4");
        assert_eq!(hello.ja4(), "t13d1516h2_8daaf6152771_d8a2da3f94cd");
        // GREASE values anywhere change nothing.
        let mut greased_ciphers = vec![0x2a2a];
        greased_ciphers.extend(ciphers);
        let mut greased = vec![(0x8a8a, vec![])];
        greased.extend(order.iter().cloned());
        let hello = parse(&hello_bytes(&greased_ciphers, &greased)).unwrap();
        assert_eq!(
            (hello.ja3_md5().as_str(), hello.ja4().as_str()),
            ("98487aa16281980e7d1120d399efb6a4", "t13d1516h2_8daaf6152771_d8a2da3f94cd")
        );
    }

    #[test]
    fn records_are_joined_and_bounded() {
        let message = hello_bytes(&[0x1301], &[]);
        let mut stream = vec![22, 3, 1];
        stream.extend((message.len() as u16).to_be_bytes());
        stream.extend(&message);
        assert_eq!(from_records(&stream[..7]).unwrap(), None);
        assert_eq!(from_records(&stream).unwrap().as_deref(), Some(&message[..]));
        // The same message split over two records.
        let (a, b) = message.split_at(10);
        let mut split = vec![22, 3, 1, 0, a.len() as u8];
        split.extend(a);
        split.extend([22, 3, 1]);
        split.extend((b.len() as u16).to_be_bytes());
        split.extend(b);
        assert_eq!(from_records(&split).unwrap().as_deref(), Some(&message[..]));
        assert!(from_records(b"GET / HTTP/1.1\r\n").is_err());
        assert!(from_records(&[22, 3, 1, 0, 4, 1, 0x10, 0, 0]).unwrap_err().contains("more than"));
        // Truncated or inconsistent lengths are errors, never panics.
        for cut in 0..message.len() {
            let _ = parse(&message[..cut]);
        }
        assert!(parse(&message[..message.len() - 1]).is_err());
        assert!(is_grease(0x0a0a) && is_grease(0xfafa) && !is_grease(0x0a0b) && !is_grease(0x1301));
    }
}
