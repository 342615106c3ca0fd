//! Rendering [`HttpRouting`] as headers, and reading response headers.
//!
//! The core decides every value; this module only checks that each one can
//! travel as an HTTP header and writes it under its name.
//!
//! ```
//! use mcp_transport_http::headers::render_routing;
//! use mcp_types::{routing::HttpRouting, ProtocolVersion};
//! let routing = HttpRouting::new(ProtocolVersion::V2026_07_28)
//!     .with_method("tools/call")
//!     .with_name("get_weather")
//!     .with_param("Region", "us-west1");
//! let mut headers = http::HeaderMap::new();
//! render_routing(&routing, &mut headers).unwrap();
//! assert_eq!(headers["mcp-protocol-version"], "2026-07-28");
//! assert_eq!(headers["mcp-method"], "tools/call");
//! assert_eq!(headers["mcp-name"], "get_weather");
//! assert_eq!(headers["mcp-param-region"], "us-west1");
//! ```

use http::header::{ACCEPT, CONTENT_TYPE};
use std::sync::{Mutex, PoisonError};

use http::{HeaderMap, HeaderName, HeaderValue};
use mcp_types::routing::HttpRouting;

use crate::error::HttpError;
use crate::parts::HeaderList;

/// Where rendered headers go: the public `http::HeaderMap`, or the
/// transport's own [`HeaderList`].
trait Fields {
    /// Sets `name` to `value` alone.
    fn set(&mut self, name: HeaderName, value: HeaderValue);
    /// Adds a value of `name`, keeping any others.
    fn add(&mut self, name: HeaderName, value: HeaderValue);
}

impl Fields for HeaderMap {
    fn set(&mut self, name: HeaderName, value: HeaderValue) {
        self.insert(name, value);
    }
    fn add(&mut self, name: HeaderName, value: HeaderValue) {
        self.append(name, value);
    }
}

impl Fields for HeaderList {
    fn set(&mut self, name: HeaderName, value: HeaderValue) {
        self.insert(name, value);
    }
    fn add(&mut self, name: HeaderName, value: HeaderValue) {
        self.append(name, value);
    }
}

/// `MCP-Protocol-Version`.
pub const PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Session-Id` (2025-11-25 only).
pub const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `Mcp-Method` (2026-07-28).
pub const METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name` (2026-07-28).
pub const NAME: HeaderName = HeaderName::from_static("mcp-name");
/// `Last-Event-ID` (2025-11-25 resumption).
pub const LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");
/// The prefix of `Mcp-Param-{Name}` headers.
pub const PARAM_PREFIX: &str = "mcp-param-";

/// The `Accept` value of every POST.
pub const ACCEPT_POST: HeaderValue =
    HeaderValue::from_static("application/json, text/event-stream");
/// The `Accept` value of the GET stream.
pub const ACCEPT_SSE: HeaderValue = HeaderValue::from_static("text/event-stream");
/// The `Content-Type` of every POST.
pub const JSON: HeaderValue = HeaderValue::from_static("application/json");

/// Writes the routing headers into `headers`, replacing same-named ones.
///
/// # Errors
/// [`HttpError::InvalidHeader`] when a value or a parameter name cannot
/// travel as a header (the core must encode such values first).
pub fn render_routing(routing: &HttpRouting, headers: &mut HeaderMap) -> Result<(), HttpError> {
    render(routing, headers, None)
}

/// [`render_routing`] into the transport's own field list.
pub(crate) fn render_list(
    routing: &HttpRouting,
    headers: &mut HeaderList,
) -> Result<(), HttpError> {
    render(routing, headers, None)
}

/// [`render_list`] with the transport's cache of recent `Mcp-Method`
/// and `Mcp-Name` values: a name requests keep naming (the tools a client
/// calls) is validated and copied once, then shared.
///
/// `headers` holds no reserved field yet ([`is_reserved`]: every routing
/// field is one), so each field is appended without looking for an
/// earlier one of its name.
pub(crate) fn render_cached(
    routing: &HttpRouting,
    headers: &mut HeaderList,
    cache: &ValueCache,
) -> Result<(), HttpError> {
    debug_assert!(!headers.iter().any(|(name, _)| is_reserved(name)));
    render(routing, &mut Appending(headers), Some(cache))
}

/// A field list known to hold none of the fields about to be set: setting
/// one appends it.
struct Appending<'a>(&'a mut HeaderList);

impl Fields for Appending<'_> {
    fn set(&mut self, name: HeaderName, value: HeaderValue) {
        self.0.append(name, value);
    }
    fn add(&mut self, name: HeaderName, value: HeaderValue) {
        self.0.append(name, value);
    }
}

fn render(
    routing: &HttpRouting,
    headers: &mut impl Fields,
    cache: Option<&ValueCache>,
) -> Result<(), HttpError> {
    let value = |name: &HeaderName, text: &str| match cache {
        Some(cache) => cache.value(name, text),
        None => value(name.as_str(), text),
    };
    if let Some(version) = &routing.protocol_version {
        let v = match known_value(version.as_str()) {
            Some(v) => v,
            None => value(&PROTOCOL_VERSION, version.as_str())?,
        };
        headers.set(PROTOCOL_VERSION, v);
    }
    if let Some(method) = &routing.method {
        let v = match known_value(method) {
            Some(v) => v,
            None => value(&METHOD, method)?,
        };
        headers.set(METHOD, v);
    }
    if let Some(name) = &routing.name {
        headers.set(NAME, value(&NAME, name)?);
    }
    for (param, text) in &routing.params {
        let full = format!("{PARAM_PREFIX}{param}");
        let header = HeaderName::try_from(full.as_str())
            .map_err(|_| HttpError::InvalidHeader { name: full.clone() })?;
        headers.add(header, self::value(&full, text)?);
    }
    Ok(())
}

/// How many recent values [`ValueCache`] keeps.
const CACHED_VALUES: usize = 16;

/// The header values of the methods and names requests named lately (a
/// few, replaced in turn): a hit is a shared clone of the value, with no
/// copy or check of the text.
#[derive(Default)]
pub(crate) struct ValueCache {
    slots: Mutex<([Option<HeaderValue>; CACHED_VALUES], usize)>,
}

impl ValueCache {
    fn value(&self, name: &HeaderName, text: &str) -> Result<HeaderValue, HttpError> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        let (values, next) = &mut *slots;
        let hit = values
            .iter()
            .flatten()
            .find(|v| v.as_bytes() == text.as_bytes());
        if let Some(v) = hit {
            return Ok(v.clone());
        }
        let v = value(name.as_str(), text)?;
        values[*next] = Some(v.clone());
        *next = (*next + 1) % CACHED_VALUES;
        Ok(v)
    }
}

/// Whether only the transport may set this header: `Mcp-*` (routing and
/// session), `Last-Event-ID`, `Host` and `Content-Length`.
pub fn is_reserved(name: &HeaderName) -> bool {
    name.as_str().starts_with("mcp-")
        || name == LAST_EVENT_ID
        || name == http::header::HOST
        || name == http::header::CONTENT_LENGTH
}

/// Sets `Accept` and `Content-Type` for a POST.
pub(crate) fn set_post_basics(headers: &mut HeaderList) {
    headers.insert(ACCEPT, ACCEPT_POST);
    headers.insert(CONTENT_TYPE, JSON);
}

/// Whether a POST's own field is named `name` ([`set_post_basics`]): a
/// caller's value of it gives way to the transport's.
pub(crate) fn is_post_basic(name: &HeaderName) -> bool {
    name == ACCEPT || name == CONTENT_TYPE
}

/// The protocol versions and methods requests name most, as header
/// values made when the program is built (a value made at run time from a
/// static string is still checked byte by byte), most frequent first.
static KNOWN_VALUES: [HeaderValue; 14] = [
    HeaderValue::from_static("2025-11-25"),
    HeaderValue::from_static("2026-07-28"),
    HeaderValue::from_static("tools/call"),
    HeaderValue::from_static("2025-06-18"),
    HeaderValue::from_static("2025-03-26"),
    HeaderValue::from_static("tools/list"),
    HeaderValue::from_static("resources/read"),
    HeaderValue::from_static("resources/list"),
    HeaderValue::from_static("prompts/get"),
    HeaderValue::from_static("prompts/list"),
    HeaderValue::from_static("server/discover"),
    HeaderValue::from_static("ping"),
    HeaderValue::from_static("notifications/cancelled"),
    HeaderValue::from_static("notifications/progress"),
];

/// The static header value for a protocol version or a method a request
/// names often: rendering it copies and validates nothing per request
/// (its clone is a static view).
fn known_value(text: &str) -> Option<HeaderValue> {
    KNOWN_VALUES
        .iter()
        .find(|known| known.as_bytes() == text.as_bytes())
        .cloned()
}

fn value(name: &str, text: &str) -> Result<HeaderValue, HttpError> {
    HeaderValue::try_from(text).map_err(|_| HttpError::InvalidHeader {
        name: name.to_owned(),
    })
}

/// What a response body holds, judged by its `Content-Type`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum BodyKind {
    /// `application/json`, any parameters.
    Json,
    /// `text/event-stream`.
    EventStream,
    /// No `Content-Type` header.
    Missing,
    /// Anything else (bounded text of the header).
    Other(String),
}

/// Classifies a `Content-Type` header.
pub(crate) fn body_kind(headers: &HeaderList, max_len: usize) -> BodyKind {
    let Some(raw) = headers.get(&CONTENT_TYPE) else {
        return BodyKind::Missing;
    };
    // The usual values, exactly as servers send them, without the scan
    // (which gives the same answer for them).
    match raw.as_bytes() {
        b"application/json" => return BodyKind::Json,
        b"text/event-stream" => return BodyKind::EventStream,
        _ => {}
    }
    let Ok(text) = raw.to_str() else {
        return BodyKind::Other(bounded(&String::from_utf8_lossy(raw.as_bytes()), max_len));
    };
    let essence = text.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        BodyKind::Json
    } else if essence.eq_ignore_ascii_case("text/event-stream") {
        BodyKind::EventStream
    } else {
        BodyKind::Other(bounded(text, max_len))
    }
}

/// At most `max` bytes of `text`, cut on a character boundary.
pub(crate) fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Every value of a header as bounded text (at most `count` values).
pub(crate) fn header_texts(
    headers: &HeaderList,
    name: &HeaderName,
    count: usize,
    max_len: usize,
) -> Vec<String> {
    headers
        .get_all(name)
        .take(count)
        .map(|v| bounded(&String::from_utf8_lossy(v.as_bytes()), max_len))
        .collect()
}

/// Whether a session id is visible ASCII (0x21-0x7E), non-empty and bounded.
pub(crate) fn valid_session_id(value: &HeaderValue) -> bool {
    let bytes = value.as_bytes();
    !bytes.is_empty() && bytes.len() <= 1024 && bytes.iter().all(|b| (0x21..=0x7E).contains(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_types::ProtocolVersion;

    #[test]
    fn content_types_with_parameters() {
        let mut h = HeaderList::default();
        h.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("Application/JSON; charset=utf-8"),
        );
        assert_eq!(body_kind(&h, 64), BodyKind::Json);
        h.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream;charset=utf-8"),
        );
        assert_eq!(body_kind(&h, 64), BodyKind::EventStream);
        h.insert(CONTENT_TYPE, HeaderValue::from_static("text/html"));
        assert_eq!(body_kind(&h, 64), BodyKind::Other("text/html".into()));
        assert_eq!(body_kind(&HeaderList::default(), 64), BodyKind::Missing);
    }

    #[test]
    fn bad_values_are_typed_errors() {
        let mut h = HeaderMap::new();
        let r = HttpRouting::new(ProtocolVersion::V2026_07_28).with_name("a\nb");
        assert!(
            matches!(render_routing(&r, &mut h), Err(HttpError::InvalidHeader { name }) if name == "mcp-name")
        );
        let r = HttpRouting::new(ProtocolVersion::V2026_07_28).with_param("Bad Name", "x");
        assert!(render_routing(&r, &mut h).is_err());
    }

    #[test]
    fn legacy_routing_renders_version_only() {
        let mut h = HeaderMap::new();
        render_routing(&HttpRouting::new(ProtocolVersion::V2025_11_25), &mut h).unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(h[PROTOCOL_VERSION], "2025-11-25");
    }

    #[test]
    fn known_and_unknown_values_render_alike() {
        for method in ["tools/call", "x/custom"] {
            for version in [
                ProtocolVersion::V2026_07_28,
                ProtocolVersion::Unknown("2099-01-01".into()),
            ] {
                let mut h = HeaderMap::new();
                let r = HttpRouting::new(version.clone()).with_method(method);
                render_routing(&r, &mut h).unwrap();
                assert_eq!(h[PROTOCOL_VERSION], version.as_str());
                assert_eq!(h[METHOD], method);
            }
        }
    }

    #[test]
    fn cached_values_render_alike_and_are_shared() {
        let cache = ValueCache::default();
        let routing = HttpRouting::new(ProtocolVersion::V2026_07_28)
            .with_method("x/custom")
            .with_name("get_weather");
        let mut first = HeaderList::default();
        render_cached(&routing, &mut first, &cache).unwrap();
        let mut plain = HeaderMap::new();
        render_routing(&routing, &mut plain).unwrap();
        assert_eq!(first.to_map(), plain);
        let mut again = HeaderList::default();
        render_cached(&routing, &mut again, &cache).unwrap();
        assert_eq!(
            again.get(&NAME).unwrap().as_bytes().as_ptr(),
            first.get(&NAME).unwrap().as_bytes().as_ptr(),
            "the second request shares the first one's value"
        );
        for i in 0..=CACHED_VALUES {
            let r = HttpRouting::new(ProtocolVersion::V2026_07_28).with_name(format!("tool{i}"));
            let mut fresh = HeaderList::default();
            render_cached(&r, &mut fresh, &cache).unwrap();
            assert_eq!(fresh.get(&NAME).unwrap(), format!("tool{i}").as_str());
        }
        let bad = HttpRouting::new(ProtocolVersion::V2026_07_28).with_name("a\nb");
        let mut fresh = HeaderList::default();
        assert!(
            matches!(render_cached(&bad, &mut fresh, &cache), Err(HttpError::InvalidHeader { name }) if name == "mcp-name")
        );
    }

    #[test]
    fn session_id_charset() {
        assert!(valid_session_id(&HeaderValue::from_static("abc-123")));
        assert!(!valid_session_id(&HeaderValue::from_static("a b")));
        assert!(!valid_session_id(&HeaderValue::from_static("")));
    }

    #[test]
    fn bounded_cuts_on_char_boundary() {
        assert_eq!(bounded("héllo", 2), "h…");
        assert_eq!(bounded("abc", 5), "abc");
    }
}
