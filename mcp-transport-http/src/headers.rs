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

use http::{HeaderMap, HeaderName, HeaderValue};
use mcp_types::ProtocolVersion;
use mcp_types::routing::HttpRouting;

use crate::error::HttpError;
use crate::parts::{HeaderList, PostFields};

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
    render(routing, headers)
}

/// [`render_routing`] into the transport's own field list.
pub(crate) fn render_list(
    routing: &HttpRouting,
    headers: &mut HeaderList,
) -> Result<(), HttpError> {
    render(routing, headers)
}

/// Sets a POST's own fields in `fields` ([`PostFields`]: the basics, then
/// the routing but its `Mcp-Param-*` fields, which [`render_params`] adds
/// to the list): the routing's texts, checked and borrowed (nothing made,
/// copied or counted per request). Set where they are (the request's
/// own), not made and moved there.
///
/// # Errors
/// [`HttpError::InvalidHeader`] when a value cannot travel as a header.
pub(crate) fn set_post_fields<'a>(
    routing: &'a HttpRouting,
    fields: &mut PostFields<'a>,
) -> Result<(), HttpError> {
    fields.basics = true;
    routing_fields(routing, fields)
}

/// The routing's `Mcp-Param-*` fields, appended to `headers` (which holds
/// none yet).
///
/// # Errors
/// [`HttpError::InvalidHeader`] when a name or value cannot travel as a
/// header.
#[inline]
pub(crate) fn render_params(
    routing: &HttpRouting,
    headers: &mut HeaderList,
) -> Result<(), HttpError> {
    params(routing, &mut Appending(headers))
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

fn render(routing: &HttpRouting, headers: &mut impl Fields) -> Result<(), HttpError> {
    let mut fields = PostFields::default();
    routing_fields(routing, &mut fields)?;
    for (name, value) in fields.routing() {
        // Every value was checked as it was set: each is one.
        if let Some(value) = value.to_value() {
            headers.set(name.clone(), value);
        }
    }
    params(routing, headers)
}

/// Sets the routing's version, method and name in `fields` (not the
/// basics).
fn routing_fields<'a>(
    routing: &'a HttpRouting,
    fields: &mut PostFields<'a>,
) -> Result<(), HttpError> {
    if let Some(version) = &routing.protocol_version {
        fields.version = Some(match version {
            // A version this crate knows is a date: no look at its text.
            ProtocolVersion::Unknown(text) => field_text(PROTOCOL_VERSION.as_str(), text)?,
            known => known.as_str(),
        });
    }
    if let Some(method) = &routing.method {
        fields.method = Some(field_text(METHOD.as_str(), method)?);
    }
    if let Some(name) = &routing.name {
        fields.name = Some(field_text(NAME.as_str(), name)?);
    }
    Ok(())
}

/// `text`, when it can travel as a header value as it is: what
/// `HeaderValue::from_str` accepts (a tab, or any byte from a space up but
/// `DEL`), so that [`FieldRef::to_value`](crate::parts::FieldRef::to_value)
/// always makes one. (The core wraps a name that is not visible ASCII in
/// base64 before it gets here.)
fn field_text<'t>(name: &str, text: &'t str) -> Result<&'t str, HttpError> {
    match crate::field_value::end(text.as_bytes(), 0) == text.len() {
        true => Ok(text),
        false => Err(HttpError::InvalidHeader {
            name: name.to_owned(),
        }),
    }
}

/// The routing's `Mcp-Param-*` fields, added to `headers`. Most requests
/// carry none: that look is inline, the fields' making out of line.
#[inline]
fn params(routing: &HttpRouting, headers: &mut impl Fields) -> Result<(), HttpError> {
    match routing.params.is_empty() {
        true => Ok(()),
        false => each_param(routing, headers),
    }
}

/// [`params`] for a request that carries some.
#[inline(never)]
fn each_param(routing: &HttpRouting, headers: &mut impl Fields) -> Result<(), HttpError> {
    for (param, text) in &routing.params {
        let full = format!("{PARAM_PREFIX}{param}");
        let header = HeaderName::try_from(full.as_str())
            .map_err(|_| HttpError::InvalidHeader { name: full.clone() })?;
        headers.add(header, self::value(&full, text)?);
    }
    Ok(())
}

/// Whether only the transport may set this header: `Mcp-*` (routing and
/// session), `Last-Event-ID`, `Host` and `Content-Length`.
pub fn is_reserved(name: &HeaderName) -> bool {
    name.as_str().starts_with("mcp-")
        || name == LAST_EVENT_ID
        || name == http::header::HOST
        || name == http::header::CONTENT_LENGTH
}

/// Whether a POST's own field is named `name` ([`PostFields`]' basics): a
/// caller's value of it gives way to the transport's.
pub(crate) fn is_post_basic(name: &HeaderName) -> bool {
    name == ACCEPT || name == CONTENT_TYPE
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

/// The content types servers send as they are: the kind of body each
/// means, and its static value (made when the program is built: a
/// response's is classified without a scan, and kept without a view of
/// its head).
pub(crate) fn usual_content_type(value: &[u8]) -> Option<(BodyKind, HeaderValue)> {
    match value {
        b"application/json" => Some((BodyKind::Json, JSON)),
        b"text/event-stream" => Some((BodyKind::EventStream, ACCEPT_SSE)),
        _ => None,
    }
}

/// Classifies a response's `Content-Type` (its first).
pub(crate) fn body_kind(content_type: Option<&HeaderValue>, max_len: usize) -> BodyKind {
    let Some(raw) = content_type else {
        return BodyKind::Missing;
    };
    // The usual values, exactly as servers send them, without the scan
    // (which gives the same answer for them).
    match usual_content_type(raw.as_bytes()) {
        Some((kind, _)) => kind,
        None => unusual_body_kind(raw, max_len),
    }
}

/// [`body_kind`] of a value not spelled as servers usually spell it: its
/// essence, compared without regard to case (out of line: rare).
#[cold]
#[inline(never)]
fn unusual_body_kind(raw: &HeaderValue, max_len: usize) -> BodyKind {
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
        let kind = |text: &'static str| body_kind(Some(&HeaderValue::from_static(text)), 64);
        assert_eq!(kind("Application/JSON; charset=utf-8"), BodyKind::Json);
        assert_eq!(
            kind("text/event-stream;charset=utf-8"),
            BodyKind::EventStream
        );
        assert_eq!(kind("text/html"), BodyKind::Other("text/html".into()));
        assert_eq!(body_kind(None, 64), BodyKind::Missing);
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

    /// A POST's own fields for `routing`, as the transport sets them.
    fn post_fields(routing: &HttpRouting) -> Result<PostFields<'_>, HttpError> {
        let mut fields = PostFields::default();
        set_post_fields(routing, &mut fields).map(|()| fields)
    }

    #[test]
    fn a_posts_own_fields_render_alike_and_borrow_the_name() {
        let routing = HttpRouting::new(ProtocolVersion::V2026_07_28)
            .with_method("x/custom")
            .with_name("get_weather")
            .with_param("Region", "eu");
        let first = post_fields(&routing).unwrap();
        let mut list = HeaderList::default();
        render_params(&routing, &mut list).unwrap();
        let mut own = HeaderMap::new();
        for (name, value) in first.routing() {
            own.append(name, value.to_value().unwrap());
        }
        for (name, value) in list.iter() {
            own.append(name, value.clone());
        }
        let mut plain = HeaderMap::new();
        render_routing(&routing, &mut plain).unwrap();
        assert_eq!(own, plain);
        assert!(first.basics, "a POST's fields have its basics");
        assert_eq!(
            first.name.unwrap().as_ptr(),
            routing.name.as_deref().unwrap().as_ptr(),
            "the name is the routing's own text"
        );
        let bad = HttpRouting::new(ProtocolVersion::V2026_07_28).with_param("a b", "x");
        assert!(matches!(
            render_params(&bad, &mut HeaderList::default()),
            Err(HttpError::InvalidHeader { .. })
        ));
    }

    /// A routing text (a version this crate does not know, a method, a
    /// name) travels exactly when `http` takes it as a header value: a
    /// character of each kind at every place of texts of 1 to 20
    /// characters. A known version goes as its date.
    #[test]
    fn a_routing_text_travels_when_it_is_a_header_value() {
        type Routing = fn(&str) -> HttpRouting;
        type Field = for<'a> fn(&PostFields<'a>) -> Option<&'a str>;
        let fields: [(&str, Routing, Field); 3] = [
            (
                "mcp-protocol-version",
                |t| HttpRouting::new(ProtocolVersion::Unknown(t.to_owned())),
                |f| f.version,
            ),
            (
                "mcp-method",
                |t| HttpRouting::new(ProtocolVersion::V2026_07_28).with_method(t.to_owned()),
                |f| f.method,
            ),
            (
                "mcp-name",
                |t| HttpRouting::new(ProtocolVersion::V2026_07_28).with_name(t),
                |f| f.name,
            ),
        ];
        for c in [
            '\0', '\t', '\n', '\r', '\u{1f}', ' ', '!', '~', '\u{7f}', '\u{80}', 'é', '\u{20ac}',
        ] {
            let texts = (1..=20).flat_map(|len| {
                (0..len).map(move |at| {
                    (0..len)
                        .map(|i| if i == at { c } else { 'a' })
                        .collect::<String>()
                })
            });
            for text in texts {
                for (header, routing, field) in fields {
                    let routing = routing(&text);
                    let own = post_fields(&routing);
                    match HeaderValue::from_str(&text) {
                        Ok(_) => assert_eq!(
                            own.as_ref().map(field).ok(),
                            Some(Some(text.as_str())),
                            "{header}: {c:?}"
                        ),
                        Err(_) => assert!(
                            matches!(&own, Err(HttpError::InvalidHeader { name }) if name == header),
                            "{header}: {c:?} in {text:?}: {own:?}"
                        ),
                    }
                    let mut map = HeaderMap::new();
                    assert_eq!(
                        render_routing(&routing, &mut map).is_ok(),
                        own.is_ok(),
                        "{header}: {c:?}"
                    );
                }
            }
        }
        for version in ProtocolVersion::KNOWN {
            let routing = HttpRouting::new(version.clone());
            let own = post_fields(&routing).unwrap();
            assert_eq!(own.version, Some(version.as_str()));
        }
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
