//! Developer utilities: hashes, identifiers (UUIDs of every version, IDs decoded), URLs and
//! links (unwrapped, cleaned), date arithmetic (differences, durations, business days),
//! passwords, cron, random data, colours, JWT, diffs, numbers (formats, bases, Roman numerals),
//! TOTP, timestamps, semver, YAML (converted and formatted), math, units, licences and reference data (HTTP statuses).
//!
//! Every file here is declared below; the build fails naming a file that is not.

pub(crate) mod checksum;
pub(crate) mod color;
pub(crate) mod cron;
pub(crate) mod dates;
pub(crate) mod diff;
pub(crate) mod hash;
pub(crate) mod ids;
pub(crate) mod jwt;
pub(crate) mod license;
pub(crate) mod links;
pub(crate) mod math;
pub(crate) mod netcalc;
pub(crate) mod number_format;
pub(crate) mod numbers;
pub(crate) mod otp;
pub(crate) mod password;
pub(crate) mod random_data;
pub(crate) mod reference;
pub(crate) mod semver;
pub(crate) mod system;
pub(crate) mod timestamp;
mod timestamp_epochs;
pub(crate) mod units;
pub(crate) mod url;
pub(crate) mod uuid;
pub(crate) mod yaml;
pub(crate) mod yaml_format;
mod yaml_node;
