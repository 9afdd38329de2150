//! Names of the numbers a ClientHello carries, as IANA's TLS registries spell them (TLS
//! ExtensionType Values, TLS Supported Groups, TLS SignatureScheme, TLS Cipher Suites); a
//! number not listed has no name rather than a guessed one.

/// A protocol version (`0x0304` is `TLS 1.3`).
pub fn version(v: u16) -> Option<&'static str> {
    Some(match v {
        0x0304 => "TLS 1.3",
        0x0303 => "TLS 1.2",
        0x0302 => "TLS 1.1",
        0x0301 => "TLS 1.0",
        0x0300 => "SSL 3.0",
        0x0002 => "SSL 2.0",
        0xfeff => "DTLS 1.0",
        0xfefd => "DTLS 1.2",
        0xfefc => "DTLS 1.3",
        _ => return None,
    })
}

/// A cipher suite (rustls knows the registry's names and spells the TLS 1.3 ones `TLS13_`).
pub fn cipher_suite(id: u16) -> Option<String> {
    let name = rustls::CipherSuite::from(id).as_str()?;
    Some(match name.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => name.to_string(),
    })
}

/// An extension type.
pub fn extension(id: u16) -> Option<&'static str> {
    Some(match id {
        0 => "server_name",
        1 => "max_fragment_length",
        2 => "client_certificate_url",
        3 => "trusted_ca_keys",
        4 => "truncated_hmac",
        5 => "status_request",
        6 => "user_mapping",
        7 => "client_authz",
        8 => "server_authz",
        9 => "cert_type",
        10 => "supported_groups",
        11 => "ec_point_formats",
        12 => "srp",
        13 => "signature_algorithms",
        14 => "use_srtp",
        15 => "heartbeat",
        16 => "application_layer_protocol_negotiation",
        17 => "status_request_v2",
        18 => "signed_certificate_timestamp",
        19 => "client_certificate_type",
        20 => "server_certificate_type",
        21 => "padding",
        22 => "encrypt_then_mac",
        23 => "extended_master_secret",
        24 => "token_binding",
        25 => "cached_info",
        26 => "tls_lts",
        27 => "compress_certificate",
        28 => "record_size_limit",
        29 => "pwd_protect",
        30 => "pwd_clear",
        31 => "password_salt",
        32 => "ticket_pinning",
        33 => "tls_cert_with_extern_psk",
        34 => "delegated_credential",
        35 => "session_ticket",
        36 => "TLMSP",
        37 => "TLMSP_proxying",
        38 => "TLMSP_delegate",
        39 => "supported_ekt_ciphers",
        41 => "pre_shared_key",
        42 => "early_data",
        43 => "supported_versions",
        44 => "cookie",
        45 => "psk_key_exchange_modes",
        47 => "certificate_authorities",
        48 => "oid_filters",
        49 => "post_handshake_auth",
        50 => "signature_algorithms_cert",
        51 => "key_share",
        52 => "transparency_info",
        54 => "connection_id",
        55 => "external_id_hash",
        56 => "external_session_id",
        57 => "quic_transport_parameters",
        58 => "ticket_request",
        59 => "dnssec_chain",
        60 => "sequence_number_encryption_algorithms",
        61 => "rrc",
        65037 => "encrypted_client_hello",
        65281 => "renegotiation_info",
        _ => return None,
    })
}

/// A supported group (named curve, finite-field group or hybrid key exchange).
pub fn group(id: u16) -> Option<&'static str> {
    Some(match id {
        19 => "secp192r1",
        21 => "secp224r1",
        22 => "secp256k1",
        23 => "secp256r1",
        24 => "secp384r1",
        25 => "secp521r1",
        26 => "brainpoolP256r1",
        27 => "brainpoolP384r1",
        28 => "brainpoolP512r1",
        29 => "x25519",
        30 => "x448",
        31 => "brainpoolP256r1tls13",
        32 => "brainpoolP384r1tls13",
        33 => "brainpoolP512r1tls13",
        41 => "curveSM2",
        256 => "ffdhe2048",
        257 => "ffdhe3072",
        258 => "ffdhe4096",
        259 => "ffdhe6144",
        260 => "ffdhe8192",
        512 => "MLKEM512",
        513 => "MLKEM768",
        514 => "MLKEM1024",
        4587 => "SecP256r1MLKEM768",
        4588 => "X25519MLKEM768",
        4589 => "SecP384r1MLKEM1024",
        _ => return None,
    })
}

/// A signature scheme.
pub fn signature_scheme(id: u16) -> Option<&'static str> {
    Some(match id {
        0x0201 => "rsa_pkcs1_sha1",
        0x0203 => "ecdsa_sha1",
        0x0401 => "rsa_pkcs1_sha256",
        0x0403 => "ecdsa_secp256r1_sha256",
        0x0501 => "rsa_pkcs1_sha384",
        0x0503 => "ecdsa_secp384r1_sha384",
        0x0601 => "rsa_pkcs1_sha512",
        0x0603 => "ecdsa_secp521r1_sha512",
        0x0804 => "rsa_pss_rsae_sha256",
        0x0805 => "rsa_pss_rsae_sha384",
        0x0806 => "rsa_pss_rsae_sha512",
        0x0807 => "ed25519",
        0x0808 => "ed448",
        0x0809 => "rsa_pss_pss_sha256",
        0x080a => "rsa_pss_pss_sha384",
        0x080b => "rsa_pss_pss_sha512",
        0x081a => "ecdsa_brainpoolP256r1tls13_sha256",
        0x081b => "ecdsa_brainpoolP384r1tls13_sha384",
        0x081c => "ecdsa_brainpoolP512r1tls13_sha512",
        0x0904 => "mldsa44",
        0x0905 => "mldsa65",
        0x0906 => "mldsa87",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names() {
        assert_eq!(cipher_suite(0x1302).as_deref(), Some("TLS_AES_256_GCM_SHA384"));
        assert_eq!(cipher_suite(0xc02f).as_deref(), Some("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"));
        assert_eq!(cipher_suite(0x002f).as_deref(), Some("TLS_RSA_WITH_AES_128_CBC_SHA"));
        assert_eq!(cipher_suite(0x0a0a), None);
        assert_eq!((extension(16), extension(17613)), (Some("application_layer_protocol_negotiation"), None));
        assert_eq!((group(4588), signature_scheme(0x0804)), (Some("X25519MLKEM768"), Some("rsa_pss_rsae_sha256")));
        assert_eq!((version(0x0304), version(0x0a0a)), (Some("TLS 1.3"), None));
    }
}
