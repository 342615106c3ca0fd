//! What an HTTP transport needs to route one outgoing message.
//!
//! The core derives these values (it knows the negotiated version, the
//! method, the tool's `x-mcp-header` annotations); the transport only renders
//! them as headers. Pure data, shared by `mcp-core` and the transports.

use std::borrow::Cow;
use std::sync::Arc;

use crate::jsonrpc::RequestId;
use crate::version::{Era, ProtocolVersion};

/// The bytes of an RFC 9110 `tchar` that are not letters or digits.
pub const TCHAR_MARKS: &[u8; 15] = b"!#$%&'*+-.^_`|~";

/// Whether `b` is an RFC 9110 `tchar`: a byte a token (a header field's
/// name, an auth scheme) may hold, an ASCII letter or digit or one of
/// [`TCHAR_MARKS`].
///
/// ```
/// use mcp_types::routing::is_tchar;
/// assert!(b"Mcp-Param-Region".iter().all(|&b| is_tchar(b)));
/// assert!(!is_tchar(b':') && !is_tchar(b' ') && !is_tchar(0x80));
/// ```
#[inline]
pub const fn is_tchar(b: u8) -> bool {
    if b.is_ascii_alphanumeric() {
        return true;
    }
    // A loop, not `contains`, so that tables can be built from it at
    // compile time (the HTTP head scan's).
    let mut i = 0;
    while i < TCHAR_MARKS.len() {
        if TCHAR_MARKS[i] == b {
            return true;
        }
        i += 1;
    }
    false
}

/// Routing data for one outgoing message.
///
/// ```
/// use mcp_types::routing::HttpRouting;
/// use mcp_types::ProtocolVersion;
/// let r = HttpRouting::new(ProtocolVersion::V2026_07_28)
///     .with_method("tools/call")
///     .with_name("get_weather")
///     .with_param("Region", "eu-west");
/// assert_eq!(r.params, vec![("Region".to_owned(), "eu-west".to_owned())]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpRouting {
    /// `MCP-Protocol-Version`; absent only before a version is known
    /// (the legacy `initialize` request).
    pub protocol_version: Option<ProtocolVersion>,
    /// `Mcp-Method` (2026-07-28): the JSON-RPC method of the message
    /// (a method the core knows is its static name: no copy per request).
    pub method: Option<Cow<'static, str>>,
    /// `Mcp-Name` (2026-07-28): the tool or prompt name, resource URI or
    /// task id, as header text. Shared: a sender that names the same tool
    /// request after request hands each the same text (no copy per
    /// request).
    pub name: Option<Arc<str>>,
    /// `Mcp-Param-{Name}` headers (2026-07-28), as `(Name, value)` pairs whose
    /// values are already valid header text (wrapped as `=?base64?...?=` by
    /// the core where a value cannot travel bare).
    pub params: Vec<(String, String)>,
    /// The id of the request this message is, when it is a request: the
    /// transport ties the response stream to it (cancelling the request
    /// closes the stream).
    pub request_id: Option<RequestId>,
    /// The response stream stays open indefinitely (`subscriptions/listen`):
    /// no per-request timeout applies to it.
    pub long_lived: bool,
}

impl HttpRouting {
    /// Routing for a message at a known protocol version.
    #[inline]
    pub fn new(version: ProtocolVersion) -> Self {
        HttpRouting {
            protocol_version: Some(version),
            ..HttpRouting::default()
        }
    }

    /// Sets `Mcp-Method` (a `&'static str` is borrowed, a `String` kept).
    #[must_use]
    pub fn with_method(mut self, method: impl Into<Cow<'static, str>>) -> Self {
        self.method = Some(method.into());
        self
    }

    /// Sets `Mcp-Name` (a `&str` or `String` is copied into a shared
    /// text; an `Arc<str>` is kept).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<Arc<str>>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Adds one `Mcp-Param-{name}` header value.
    #[must_use]
    pub fn with_param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.params.push((name.into(), value.into()));
        self
    }

    /// Sets the request id.
    #[must_use]
    pub fn with_request_id(mut self, id: RequestId) -> Self {
        self.request_id = Some(id);
        self
    }

    /// Marks the response stream as long-lived.
    #[must_use]
    pub fn long_lived(mut self) -> Self {
        self.long_lived = true;
        self
    }

    /// Whether the response to this message ends with the request's own
    /// reply: a request that is not long-lived, at a known revision. At
    /// 2026-07-28 nothing comes before it but notifications about the
    /// request ([`HttpRouting::only_its_reply`]); at 2025-11-25 the server's
    /// requests and notifications may. A listen stream has no end of that
    /// kind; neither has a message before a version is known
    /// (`initialize`).
    ///
    /// ```
    /// use mcp_types::{ProtocolVersion, RequestId, routing::HttpRouting};
    /// let legacy = HttpRouting::new(ProtocolVersion::V2025_11_25).with_request_id(RequestId::Number(1));
    /// assert!(legacy.ends_with_its_reply());
    /// assert!(!legacy.clone().long_lived().ends_with_its_reply());
    /// let initialize = HttpRouting::default().with_request_id(RequestId::Number(0));
    /// assert!(!initialize.ends_with_its_reply());
    /// ```
    pub fn ends_with_its_reply(&self) -> bool {
        self.request_id.is_some() && !self.long_lived && self.era().is_some()
    }

    /// Whether the response to this message carries nothing but the
    /// request's own reply and notifications about it: a 2026-07-28
    /// request that is not long-lived (the server sends no requests on a
    /// POST's stream at that revision, and its notifications there relate
    /// to the request). A 2025-11-25 request's stream may carry the
    /// server's requests; a listen stream, change notifications.
    ///
    /// ```
    /// use mcp_types::{ProtocolVersion, RequestId, routing::HttpRouting};
    /// let call = HttpRouting::new(ProtocolVersion::V2026_07_28).with_request_id(RequestId::Number(1));
    /// assert!(call.only_its_reply());
    /// assert!(!call.clone().long_lived().only_its_reply());
    /// let legacy = HttpRouting::new(ProtocolVersion::V2025_11_25).with_request_id(RequestId::Number(1));
    /// assert!(!legacy.only_its_reply());
    /// ```
    pub fn only_its_reply(&self) -> bool {
        self.ends_with_its_reply() && self.era() == Some(Era::Modern)
    }

    /// The era of the message's protocol version, when it has a known one.
    fn era(&self) -> Option<Era> {
        self.protocol_version
            .as_ref()
            .and_then(ProtocolVersion::era)
    }
}
