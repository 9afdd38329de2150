//! Serde helpers for the fields of update requests, where absent, `null` and a value mean
//! three different things (leave, remove, replace).

use wrench_contract::prelude::*;

pub(in crate::storage) use wrench_contract::decode::no_array;

/// [`present`] for an object whose fields are all optional: an array is refused ([`no_array`]).
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
