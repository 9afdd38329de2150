//! The caller's own TLS fingerprint (`tls/fingerprint`): the ClientHello its client
//! sent to wrench's HTTPS listener, as JA3 (string and MD5) and JA4 (FoxIO's JA4 TLS client
//! fingerprint, hashed and raw), with the fields they are made of, and what the handshake
//! agreed. The hello is read by the listener before the handshake (`crates/server/src/http/tls.rs`,
//! `crates/infra/src/connection/`); this operation only describes it.
//!
//! Nothing is invented: on the plain listener, or behind a proxy that terminated TLS, the
//! ClientHello never reached wrench, and the answer says so (`available: false` and why).

use wrench_infra::connection::{TlsConnection, client_hello::is_grease, names};

use wrench_contract::prelude::*;

/// Which of wrench's listeners the request reached: `https` (`WRENCH_TLS_LISTEN`, where
/// wrench terminates TLS itself) or `http` (`WRENCH_LISTEN`, directly or through a proxy).
#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum TlsListener {
    Https,
    Http,
}

/// One number from the ClientHello, with its registry name.
#[derive(Debug, Serialize, JsonSchema, PartialEq)]
struct TlsCode {
    /// The value, decimal (as JA3 writes it).
    id: u16,
    /// The value as four hex digits (as JA4's raw form writes it).
    hex: String,
    /// The IANA registry's name; null for values it does not name here (GREASE among them).
    name: Option<String>,
    /// A GREASE value (RFC 8701), which both fingerprints leave out.
    grease: bool,
}

fn codes<N: Into<String>>(values: &[u16], name: impl Fn(u16) -> Option<N>) -> Vec<TlsCode> {
    values
        .iter()
        .map(|&v| TlsCode { id: v, hex: format!("{v:04x}"), name: name(v).map(Into::into), grease: is_grease(v) })
        .collect()
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct TlsHello {
    /// The ClientHello's `legacy_version` (TLS 1.2's number for TLS 1.3 hellos), as JA3 uses it.
    legacy_version: TlsCode,
    /// The highest version offered (from `supported_versions` when sent), as JA4 uses it.
    highest_version: Option<String>,
    /// The versions of `supported_versions`, in the order sent.
    supported_versions: Vec<TlsCode>,
    /// The host name sent as SNI, or null.
    server_name: Option<String>,
    /// The ALPN protocols offered, in order.
    alpn: Vec<String>,
    /// The cipher suites offered, in order.
    cipher_suites: Vec<TlsCode>,
    /// The extensions, in the order sent.
    extensions: Vec<TlsCode>,
    /// The `supported_groups` offered, in order.
    supported_groups: Vec<TlsCode>,
    /// The `signature_algorithms` offered, in order.
    signature_algorithms: Vec<TlsCode>,
    /// The `ec_point_formats` offered, in order.
    point_formats: Vec<u8>,
}

/// What the handshake agreed.
#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct TlsNegotiated {
    /// `TLS 1.3` or `TLS 1.2`.
    version: Option<String>,
    /// The cipher suite, by its IANA name.
    cipher_suite: Option<String>,
    /// The application protocol agreed by ALPN (`h2`, `http/1.1`), or null.
    alpn: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "camelCase")]
struct TlsFingerprintOutput {
    /// Whether the fingerprint is known: only for requests that reached wrench's own HTTPS
    /// listener with a ClientHello it could read.
    available: bool,
    /// Why it is not available; null when it is.
    reason: Option<String>,
    listener: TlsListener,
    /// The JA3 string: version, ciphers, extensions, groups and point formats, decimal, in
    /// the order sent, GREASE left out.
    ja3: Option<String>,
    /// The MD5 of the JA3 string, hex: the JA3 fingerprint. It follows the extension order,
    /// which some clients (Chrome, rustls) shuffle on every connection; JA4 sorts and stays.
    ja3_hash: Option<String>,
    /// The JA4 fingerprint (`t13d1516h2_8daaf6152771_d8a2da3f94cd`).
    ja4: Option<String>,
    /// JA4's raw form: the same prefix, then the sorted ciphers and the sorted extensions
    /// with the signature algorithms, before hashing.
    ja4_raw: Option<String>,
    /// The ClientHello's fields.
    client_hello: Option<TlsHello>,
    /// What the handshake agreed; null on the plain listener.
    negotiated: Option<TlsNegotiated>,
}

/// The caller's own TLS fingerprint (JA3 and JA4).
///
/// Describes the ClientHello of the caller's own connection: JA3 (string and MD5), JA4 (and
/// its raw form, per FoxIO's JA4 TLS client specification), the offered versions, cipher
/// suites, extensions, ALPN, groups, signature algorithms and SNI, and what the handshake
/// agreed. Only requests to wrench's own HTTPS listener (`WRENCH_TLS_LISTEN`) have one: on
/// the plain listener, or behind a proxy that terminates TLS, `available` is false and
/// `reason` says why. Any body is ignored; nothing about another client or URL can be asked.
#[op(post "/v1/tls/fingerprint" as tlsFingerprint,
     get "/v1/tls/fingerprint" as tlsFingerprintGet,
     tag = Lookups,
     example(plain_listener, {}),
     example(body_ignored, {"url": "https://example.com"}))]
async fn tls_fingerprint(ctx: &Ctx) -> Result<TlsFingerprintOutput, ApiError> {
    Ok(describe(ctx))
}

fn describe(ctx: &Ctx) -> TlsFingerprintOutput {
    let mut out = TlsFingerprintOutput {
        available: false,
        reason: None,
        listener: if ctx.tls.is_some() { TlsListener::Https } else { TlsListener::Http },
        ja3: None,
        ja3_hash: None,
        ja4: None,
        ja4_raw: None,
        client_hello: None,
        negotiated: None,
    };
    let Some(tls) = ctx.tls.as_deref() else {
        out.reason = Some(plain_reason(ctx));
        return out;
    };
    out.negotiated = Some(TlsNegotiated {
        version: tls.version.clone(),
        cipher_suite: tls.cipher_suite.clone(),
        alpn: tls.alpn.clone(),
    });
    fill(&mut out, tls);
    out
}

fn fill(out: &mut TlsFingerprintOutput, tls: &TlsConnection) {
    let hello = match &tls.hello {
        Ok(hello) => hello,
        Err(e) => {
            out.reason = Some(format!("the connection's ClientHello could not be read: {e}"));
            return;
        }
    };
    out.available = true;
    out.ja3 = Some(hello.ja3());
    out.ja3_hash = Some(hello.ja3_md5());
    out.ja4 = Some(hello.ja4());
    out.ja4_raw = Some(hello.ja4_raw());
    out.client_hello = Some(TlsHello {
        legacy_version: codes(&[hello.legacy_version], names::version).remove(0),
        highest_version: names::version(hello.highest_version()).map(str::to_string),
        supported_versions: codes(&hello.supported_versions, names::version),
        server_name: hello.server_name.clone(),
        alpn: hello.alpn.iter().map(|p| String::from_utf8_lossy(p).into_owned()).collect(),
        cipher_suites: codes(&hello.ciphers, names::cipher_suite),
        extensions: codes(&hello.extensions, names::extension),
        supported_groups: codes(&hello.supported_groups, names::group),
        signature_algorithms: codes(&hello.signature_algorithms, names::signature_scheme),
        point_formats: hello.point_formats.clone(),
    });
}

/// Why a request on the plain listener has no fingerprint.
fn plain_reason(ctx: &Ctx) -> String {
    let header = |name: &str| ctx.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase();
    let forwarded_https = header("x-forwarded-proto").split(',').any(|p| p.trim() == "https")
        || header("forwarded").split([';', ',']).any(|p| p.trim().replace(' ', "") == "proto=https");
    let listener = match &ctx.config.tls {
        Some(tls) => format!("call wrench's HTTPS listener (port {}) directly", tls.listen.port()),
        None => {
            "this instance has no HTTPS listener (WRENCH_TLS_LISTEN, WRENCH_TLS_CERT and WRENCH_TLS_KEY turn it on)"
                .to_string()
        }
    };
    if forwarded_https {
        format!(
            "a proxy in front of wrench terminated TLS (it forwarded the request as https over plain HTTP), so the ClientHello went to the proxy, not to wrench; {listener}"
        )
    } else {
        format!("the request came over plain HTTP, which has no ClientHello; {listener}")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use wrench_infra::connection::client_hello::{MAX_HELLO, hello_bytes, parse};

    use super::*;

    /// A ClientHello to `wrench.test` with two cipher suites and GREASE, SNI, ALPN, groups,
    /// signature algorithms and versions, in that order.
    fn hello() -> Vec<u8> {
        let sni = [0, 14, 0, 0, 11, b'w', b'r', b'e', b'n', b'c', b'h', b'.', b't', b'e', b's', b't'];
        hello_bytes(
            &[0x1302, 0x1301, 0xfafa],
            &[
                (0, sni.to_vec()),
                (16, vec![0, 3, 2, b'h', b'2']),
                (10, vec![0, 2, 0, 29]),
                (13, vec![0, 2, 0x08, 0x04]),
                (43, vec![2, 0x03, 0x04]),
            ],
        )
    }

    fn tls_ctx(hello: Result<Vec<u8>, String>) -> Ctx {
        let mut ctx = Ctx::for_tests();
        ctx.tls = Some(Arc::new(TlsConnection {
            hello: hello.map(|m| parse(&m).unwrap()),
            version: Some("TLS 1.3".into()),
            cipher_suite: Some("TLS_AES_256_GCM_SHA384".into()),
            alpn: Some("h2".into()),
        }));
        ctx
    }

    #[test]
    fn a_hello_is_described_with_both_fingerprints() {
        let out = describe(&tls_ctx(Ok(hello())));
        assert!(out.available && out.reason.is_none());
        assert_eq!(out.listener, TlsListener::Https);
        // Worked by hand from the fields above: GREASE 0xfafa left out of JA3's ciphers and of
        // JA4's count; JA4 drops SNI (0) and ALPN (16) from its sorted extension list.
        assert_eq!(out.ja3.as_deref(), Some("771,4866-4865,0-16-10-13-43,29,"));
        assert_eq!(out.ja4_raw.as_deref(), Some("t13d0205h2_1301,1302_000a,000d,002b_0804"));
        let hello = out.client_hello.unwrap();
        assert_eq!(hello.server_name.as_deref(), Some("wrench.test"));
        assert_eq!(hello.alpn, ["h2"]);
        assert_eq!(hello.highest_version.as_deref(), Some("TLS 1.3"));
        assert!(hello.cipher_suites[2].grease && !hello.cipher_suites[0].grease);
        assert_eq!(hello.cipher_suites[0].name.as_deref(), Some("TLS_AES_256_GCM_SHA384"));
        assert_eq!(hello.extensions[1].name.as_deref(), Some("application_layer_protocol_negotiation"));
        assert_eq!(hello.supported_groups[0].name.as_deref(), Some("x25519"));
        assert_eq!(out.negotiated.unwrap().alpn.as_deref(), Some("h2"));
    }

    /// The largest hellos the listener reads (64 KiB): nothing but cipher suites, or nothing
    /// but extensions. The answer stays well within the default response limit.
    #[test]
    fn the_largest_hellos_fit_in_an_answer() {
        for (ciphers, extensions) in [(32_000u16, 0u16), (1, 16_000)] {
            let message = hello_bytes(
                &(0..ciphers).collect::<Vec<_>>(),
                &(0..extensions).map(|e| (e + 100, vec![])).collect::<Vec<_>>(),
            );
            assert!(message.len() <= MAX_HELLO);
            let out = describe(&tls_ctx(Ok(message)));
            let hello = out.client_hello.as_ref().unwrap();
            assert_eq!((hello.cipher_suites.len(), hello.extensions.len()), (ciphers.into(), extensions.into()));
            let size = serde_json::to_vec(&out).unwrap().len();
            assert!(size < wrench_infra::bounds::DEFAULT_RESPONSE_LIMIT / 2, "{size} bytes");
        }
    }

    #[test]
    fn nothing_is_invented_without_a_hello() {
        let out = describe(&tls_ctx(Err("a ClientHello of 70000 bytes".into())));
        assert!(!out.available && out.ja3.is_none() && out.ja4.is_none() && out.client_hello.is_none());
        assert!(out.reason.unwrap().contains("could not be read"));
        assert!(out.negotiated.is_some());

        let mut ctx = Ctx::for_tests();
        let out = describe(&ctx);
        assert!(!out.available && out.negotiated.is_none() && out.ja3_hash.is_none());
        assert_eq!(out.listener, TlsListener::Http);
        assert!(out.reason.unwrap().contains("WRENCH_TLS_LISTEN"), "the setting is named");

        ctx.headers.insert("x-forwarded-proto", "https".parse().unwrap());
        assert!(describe(&ctx).reason.unwrap().contains("proxy"));
        ctx.headers.clear();
        ctx.headers.insert("forwarded", "for=192.0.2.60;proto=https;by=203.0.113.43".parse().unwrap());
        assert!(describe(&ctx).reason.unwrap().contains("proxy"));
    }
}
