//! Reading a JSON string straight from the borrowed input into a small
//! value (a tag, a known key, an open enum), with no `String` for it: the
//! one visitor those readers share.

use serde::Deserializer;
use serde::de::{Error, Visitor};

/// Reads a string and turns it into `T` with `read` while it is still
/// borrowed from the input; `expecting` names it in a type error.
pub(crate) fn read_str<'de, D, T>(
    deserializer: D,
    expecting: &'static str,
    read: fn(&str) -> T,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    deserializer.deserialize_str(ReadStr { expecting, read })
}

struct ReadStr<T> {
    expecting: &'static str,
    read: fn(&str) -> T,
}

impl<T> Visitor<'_> for ReadStr<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: Error>(self, v: &str) -> Result<T, E> {
        Ok((self.read)(v))
    }
}
