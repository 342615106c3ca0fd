//! What the connection pool sends and gives back: a request's method,
//! header fields and body ([`OutRequest`]), and a response's status,
//! header fields and body ([`InResponse`]), the fields in a
//! [`HeaderList`].
//!
//! A request or response carries a handful of fields, each written once
//! and looked up once or twice, so a list is the cheaper shape: no hash
//! per field, one allocation for the lot, nothing to index on drop. (An
//! `http::HeaderMap` cost about 2,700 instructions per POST, request and
//! response together, of which `cargo xtask bench --icount` counted
//! ~33,500.) HTTP/2 and the auth provider still get an `http::HeaderMap`,
//! built from the list where they need one. A POST's own fields (the
//! basics and the routing) are not in its list at all but at fixed places
//! ([`PostFields`]): a POST with no other field allocates no list.

use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};

use crate::h1::ResponseBody;
use crate::headers;

/// Header fields in the order they were added or read; a name may repeat.
///
/// Names compare as `http::HeaderName`s do (they are lowercase), so a
/// lookup is a scan comparing a few short names.
#[derive(Clone, Debug, Default)]
pub(crate) struct HeaderList(Vec<(HeaderName, HeaderValue)>);

impl HeaderList {
    /// An empty list with room for `n` fields.
    pub(crate) fn with_capacity(n: usize) -> Self {
        HeaderList(Vec::with_capacity(n))
    }

    /// The first value of `name`.
    #[inline]
    pub(crate) fn get(&self, name: &HeaderName) -> Option<&HeaderValue> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Every value of `name`, in order.
    pub(crate) fn get_all<'a>(
        &'a self,
        name: &'a HeaderName,
    ) -> impl Iterator<Item = &'a HeaderValue> + 'a {
        self.0
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v)
    }

    /// Whether `name` has a value.
    pub(crate) fn contains(&self, name: &HeaderName) -> bool {
        self.0.iter().any(|(n, _)| n == name)
    }

    /// Sets `name` to `value` alone: the first field of that name takes
    /// the value, any later ones go; a new name is added at the end.
    pub(crate) fn insert(&mut self, name: HeaderName, value: HeaderValue) {
        match self.0.iter().position(|(n, _)| *n == name) {
            Some(at) => {
                self.0[at].1 = value;
                let mut i = at + 1;
                while i < self.0.len() {
                    if self.0[i].0 == name {
                        self.0.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
            None => self.0.push((name, value)),
        }
    }

    /// Adds a field, keeping any of the same name.
    pub(crate) fn append(&mut self, name: HeaderName, value: HeaderValue) {
        self.0.push((name, value));
    }

    /// The fields, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&HeaderName, &HeaderValue)> {
        self.0.iter().map(|(n, v)| (n, v))
    }

    /// The values, to mark some of them sensitive.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&HeaderName, &mut HeaderValue)> {
        self.0.iter_mut().map(|(n, v)| (&*n, v))
    }

    /// The fields as an `http::HeaderMap` (for HTTP/2 and the auth
    /// provider), repeated names kept.
    pub(crate) fn to_map(&self) -> HeaderMap {
        let mut map = HeaderMap::with_capacity(self.0.len());
        for (name, value) in &self.0 {
            map.append(name, value.clone());
        }
        map
    }

    /// The fields of an `http::HeaderMap`, repeated names kept.
    pub(crate) fn from_map(map: HeaderMap) -> Self {
        let mut list = Vec::with_capacity(map.len());
        let mut last = None;
        for (name, value) in map {
            // `None` repeats the name before it.
            if let Some(name) = name {
                last = Some(name);
            }
            if let Some(name) = &last {
                list.push((name.clone(), value));
            }
        }
        HeaderList(list)
    }
}

/// A POST's own fields, kept out of its [`HeaderList`] at fixed places:
/// `Accept` and `Content-Type` (`basics`: the POST carries a message) and
/// the routing fields the core decided: `MCP-Protocol-Version`,
/// `Mcp-Method` and `Mcp-Name` (the rare `Mcp-Param-*` fields go in the
/// list); and the session's `Mcp-Session-Id`, which any request of a
/// 2025-11-25 session carries (a GET's and a `DELETE`'s as well, whose
/// fields have no basics). Most POSTs carry no other field, so their list stays empty: no
/// allocation, nothing to drop field by field, and HTTP/1.1 writes the
/// basics as one piece of static text.
#[derive(Clone, Debug, Default)]
pub(crate) struct PostFields<'a> {
    /// `Accept` and `Content-Type` ([`headers::ACCEPT_POST`] and [`headers::JSON`]).
    pub(crate) basics: bool,
    /// `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`: the routing's
    /// own texts, each checked to travel as a header when it was set here
    /// (`headers::set_post_fields`) and borrowed for the request's life:
    /// nothing made, copied, counted or looked up per request.
    pub(crate) version: Option<&'a str>,
    pub(crate) method: Option<&'a str>,
    pub(crate) name: Option<&'a str>,
    /// `Mcp-Session-Id` (2025-11-25): the session every request after
    /// `initialize` belongs to (a GET's and a `DELETE`'s too).
    pub(crate) session: Option<HeaderValue>,
}

/// The names of [`PostFields`]' routing fields, in order.
static ROUTING_NAMES: [HeaderName; 3] = [headers::PROTOCOL_VERSION, headers::METHOD, headers::NAME];

/// The name of [`PostFields`]' session field.
static SESSION_NAME: HeaderName = headers::SESSION_ID;

/// [`PostFields`]' basics, as fields.
static BASICS: [(HeaderName, HeaderValue); 2] = [
    (ACCEPT, headers::ACCEPT_POST),
    (CONTENT_TYPE, headers::JSON),
];

/// The value of one of [`PostFields`]: a header value (the basics', the
/// session's), or a routing text checked as it was set.
#[derive(Clone, Copy, Debug)]
pub(crate) enum FieldRef<'f> {
    Value(&'f HeaderValue),
    Text(&'f str),
}

impl FieldRef<'_> {
    /// The value as an `http::HeaderValue` (for a map): a text was checked
    /// to be one when it was set, so this is always `Some`.
    pub(crate) fn to_value(self) -> Option<HeaderValue> {
        match self {
            FieldRef::Value(v) => Some(v.clone()),
            FieldRef::Text(t) => HeaderValue::from_str(t).ok(),
        }
    }
}

impl PostFields<'_> {
    /// The routing fields that are set, by name, in order (the basics not
    /// among them).
    pub(crate) fn routing(&self) -> impl Iterator<Item = (&HeaderName, FieldRef<'_>)> {
        ROUTING_NAMES
            .iter()
            .zip([self.version, self.method, self.name])
            .filter_map(|(name, text)| Some((name, FieldRef::Text(text?))))
    }

    /// Every field, in the order they go out: the basics, the routing,
    /// then the session.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&HeaderName, FieldRef<'_>)> {
        let basics: &[(HeaderName, HeaderValue)] = if self.basics { &BASICS } else { &[] };
        let session = self
            .session
            .as_ref()
            .map(|id| (&SESSION_NAME, FieldRef::Value(id)));
        basics
            .iter()
            .map(|(n, v)| (n, FieldRef::Value(v)))
            .chain(self.routing())
            .chain(session)
    }

    /// Whether a field named `name` is among them.
    pub(crate) fn has(&self, name: &HeaderName) -> bool {
        self.iter().any(|(n, _)| n == name)
    }
}

/// A request for the pool: the pool sets its target and `Host`. Its body
/// is borrowed from whoever sends it (kept there for a re-send, given back
/// to its owner after: nothing is copied or counted per request).
#[derive(Debug)]
pub(crate) struct OutRequest<'a> {
    pub(crate) method: Method,
    /// The POST's own fields, which go out first.
    pub(crate) post: PostFields<'a>,
    /// Every other field.
    pub(crate) headers: HeaderList,
    pub(crate) body: &'a [u8],
    /// Which fields of its response to keep.
    pub(crate) response_fields: ResponseFields,
}

impl OutRequest<'_> {
    /// Every field as an `http::HeaderMap` (for HTTP/2), the POST's own
    /// first.
    pub(crate) fn header_map(&self) -> HeaderMap {
        let mut map = HeaderMap::with_capacity(5 + self.headers.0.len());
        for (name, value) in self.post.iter() {
            if let Some(value) = value.to_value() {
                map.append(name, value);
            }
        }
        for (name, value) in self.headers.iter() {
            map.append(name, value.clone());
        }
        map
    }
}

/// Which end-to-end fields of an HTTP/1.1 response are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ResponseFields {
    /// Every one: an auth provider sees the response's fields.
    All,
    /// The ones the transport reads (`Content-Type`, `Mcp-Session-Id`,
    /// `Location`, `WWW-Authenticate`): nobody else sees the others, so
    /// they are not copied out of the head.
    Read,
}

/// A response from the pool: its status, its end-to-end header fields
/// (HTTP/1.1's hop-by-hop ones are the connection's) and its body.
#[derive(Debug)]
pub(crate) struct InResponse {
    pub(crate) status: StatusCode,
    /// The first `Content-Type` (in `headers` as well only when every field
    /// is kept: [`ResponseFields::All`], and over HTTP/2).
    pub(crate) content_type: Option<HeaderValue>,
    pub(crate) headers: HeaderList,
    pub(crate) body: ResponseBody,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &'static str) -> HeaderValue {
        HeaderValue::from_static(s)
    }

    #[test]
    fn insert_replaces_every_value_of_a_name_and_append_keeps_them() {
        let a = HeaderName::from_static("x-a");
        let b = HeaderName::from_static("x-b");
        let mut list = HeaderList::with_capacity(4);
        list.append(a.clone(), v("1"));
        list.append(b.clone(), v("2"));
        list.append(a.clone(), v("3"));
        assert_eq!(list.get_all(&a).collect::<Vec<_>>(), [v("1"), v("3")]);
        list.insert(a.clone(), v("4"));
        let fields: Vec<_> = list.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
        assert_eq!(fields, [("x-a", v("4")), ("x-b", v("2"))]);
        list.insert(HeaderName::from_static("x-c"), v("5"));
        assert_eq!(list.get(&HeaderName::from_static("x-c")), Some(&v("5")));
        assert!(!list.contains(&HeaderName::from_static("x-d")));
    }

    #[test]
    fn a_header_map_round_trips_with_repeated_names() {
        let mut map = HeaderMap::new();
        map.append("x-a", v("1"));
        map.append("x-a", v("2"));
        map.append("x-b", v("3"));
        let list = HeaderList::from_map(map.clone());
        let a = HeaderName::from_static("x-a");
        assert_eq!(list.get_all(&a).collect::<Vec<_>>(), [v("1"), v("2")]);
        assert_eq!(list.to_map(), map);
    }
}
