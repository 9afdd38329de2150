//! A paste as the store holds it: under `paste:<id>`, with the store's own TTL, its text and
//! what its creator asked of it.

use wrench_contract::prelude::*;

/// Length of paste ids: 8 letters and digits.
pub(in crate::storage) const ID_LEN: usize = 8;

pub(in crate::storage) fn key(id: &str) -> String {
    format!("paste:{id}")
}

#[derive(Debug, Serialize, Deserialize)]
pub(in crate::storage) struct PasteRecord {
    pub content: String,
    pub language: String,
    pub created_at: String,
    pub expires_at: String,
    /// The content is a client's ciphertext (Base64url of IV, ciphertext and tag).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub encrypted: bool,
    /// The views it was created with, when limited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_views: Option<u32>,
    /// SHA-256 (hex) of the delete token; pastes stored before they had one have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_token_sha256: Option<String>,
}
