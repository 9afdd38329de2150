//! Data formats and queries: JSON queried by JSONPath and JMESPath (`json_query.rs`, with the
//! cost bounds of `query_bounds.rs`), validated by JSON Schema (`json_schema.rs`) and patched
//! (`json_patch.rs`); TOML to JSON and back (`toml_json.rs`); CBOR (`cbor.rs` on the tree of
//! `cbor_item.rs`) and MessagePack (`msgpack.rs`) to JSON and back; JSON to XML
//! (`xml_to_xml.rs`); XML formatted as xmllint formats it (`xml_format.rs`); SQL formatted
//! token by token (`sql_format.rs`, with the tokens it would damage set aside by
//! `sql_shield.rs`); protobuf read with or without a schema (`protobuf/`); XML queried with
//! XPath 1.0 (`xpath/`).

pub(crate) mod cbor;
mod cbor_item;
pub(crate) mod json_patch;
pub(crate) mod json_query;
pub(crate) mod json_schema;
pub(crate) mod msgpack;
pub(crate) mod protobuf;
mod query_bounds;
pub(crate) mod sql_format;
mod sql_shield;
pub(crate) mod toml_json;
pub(crate) mod xml_format;
pub(crate) mod xml_to_xml;
pub(crate) mod xpath;
