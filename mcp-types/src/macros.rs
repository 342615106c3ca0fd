//! Internal macros: open string enums that keep unknown values as data, and
//! the one shape every cacheable list result shares.

/// Declares a string enum whose unknown wire values are kept in an
/// `Unknown(String)` variant instead of failing to parse.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this crate does not know, kept verbatim.
            Unknown(String),
        }

        impl $name {
            /// The wire string of this value.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )+
                    $name::Unknown(s) => s,
                }
            }

            /// Parses a wire string; unknown strings are kept as data.
            pub fn parse(s: &str) -> Self {
                Self::known_wire(s.as_bytes()).unwrap_or_else(|| $name::Unknown(s.to_owned()))
            }

            /// The known value whose wire string is `bytes`, read without a
            /// UTF-8 check (`None` for any other bytes).
            pub(crate) fn known_wire(bytes: &[u8]) -> Option<Self> {
                $( if bytes == $wire.as_bytes() {
                    return Some($name::$variant);
                } )+
                None
            }

            /// Whether this is a value the crate knows.
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Unknown(_))
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Ok($name::parse(s))
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                // Read from the borrowed text: a known value costs no
                // `String` (a `Cow<str>` would be one, serde owns it).
                crate::read_str::read_str(d, "a string", $name::parse)
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!({ "type": "string", "enum": [$($wire),+] })
            }
        }
    };
}

pub(crate) use open_enum;

/// Declares a cacheable list result (`tools/list`, `prompts/list`,
/// `resources/list`, `resources/templates/list`): `_meta`, `resultType`, the
/// page's items, `nextCursor`, `ttlMs` and `cacheScope`, with a `new`
/// constructor for a complete page and `with_cache` / `with_next_cursor`.
macro_rules! list_result {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(#[$fmeta:meta])*
            pub $field:ident: Vec<$item:ty>,
        }
        $(#[$new_meta:meta])*
        fn new;
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize, ::schemars::JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            /// `_meta`.
            #[serde(rename = "_meta", default, skip_serializing_if = "Meta::is_empty")]
            pub meta: Meta,
            /// 2026-07-28: `resultType`.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub result_type: Option<ResultType>,
            $(#[$fmeta])*
            pub $field: Vec<$item>,
            /// The cursor of the next page.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub next_cursor: Option<Cursor>,
            /// 2026-07-28: cache lifetime in milliseconds.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub ttl_ms: Option<u64>,
            /// 2026-07-28: cache scope.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub cache_scope: Option<CacheScope>,
        }

        impl $name {
            $(#[$new_meta])*
            pub fn new($field: Vec<$item>) -> Self {
                $name {
                    meta: Meta::new(),
                    result_type: complete(),
                    $field,
                    next_cursor: None,
                    ttl_ms: None,
                    cache_scope: None,
                }
            }

            /// Sets the caching fields.
            #[must_use]
            pub fn with_cache(mut self, ttl_ms: u64, scope: CacheScope) -> Self {
                self.ttl_ms = Some(ttl_ms);
                self.cache_scope = Some(scope);
                self
            }

            /// Sets the next cursor.
            #[must_use]
            pub fn with_next_cursor(mut self, cursor: impl Into<Cursor>) -> Self {
                self.next_cursor = Some(cursor.into());
                self
            }
        }
    };
}

pub(crate) use list_result;
