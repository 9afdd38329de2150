//! Serde helpers for the fields of update requests, where absent, `null` and a value mean
//! three different things (leave, remove, replace).

use wrench_contract::prelude::*;

/// Reads an object whose fields are all optional, which serde's derive would also read from
/// an array (`[]` as "every field absent"): the contract says object.
pub(in crate::storage) fn no_array<'de, D: serde::Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<T, D::Error> {
    let value = Value::deserialize(d)?;
    if value.is_array() {
        return Err(serde::de::Error::invalid_type(serde::de::Unexpected::Seq, &"a map"));
    }
    T::deserialize(value).map_err(serde::de::Error::custom)
}

/// [`present`] for such an object.
pub(in crate::storage) fn present_object<'de, D: serde::Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    no_array::<D, Option<T>>(d).map(Some)
}

/// Reads a field that may be absent (left as it is), null (removed) or a value (replaced).
pub(in crate::storage) fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}
