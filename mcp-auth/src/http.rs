//! The HTTP abstraction every OAuth request goes through.
//!
//! The crate never opens a socket. The host (or the `mcp-client` facade) implements
//! [`HttpClient`] over the same configured stack as MCP traffic (proxy, TLS roots,
//! timeouts), so discovery and token requests obey the same policy. Implementations
//! **must not** follow redirects and must cap the response body at
//! [`HttpRequest::max_body_bytes`].

/// The default cap on a response body from a metadata or token endpoint (256 KiB).
pub const DEFAULT_MAX_BODY_BYTES: usize = 256 * 1024;

/// An HTTP method used by the OAuth flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET` (metadata discovery).
    Get,
    /// `POST` (token, registration, MCP requests).
    Post,
    /// `DELETE` (closing a 2025-11-25 MCP session; a DPoP proof names it).
    Delete,
}

impl Method {
    /// The method name as sent on the wire (and in a DPoP `htm` claim).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Delete => "DELETE",
        }
    }
}

/// A request to send. Header names are lower-case ASCII.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpRequest {
    /// The method.
    pub method: Method,
    /// The absolute URL.
    pub url: String,
    /// Header name/value pairs, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The request body (empty for `GET`).
    pub body: Vec<u8>,
    /// The largest response body the caller accepts; larger bodies must fail.
    pub max_body_bytes: usize,
}

impl HttpRequest {
    /// A `GET` asking for JSON.
    pub fn get(url: impl Into<String>) -> Self {
        Self {
            method: Method::Get,
            url: url.into(),
            headers: vec![("accept".into(), "application/json".into())],
            body: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }

    /// A form-encoded `POST` (token endpoint).
    pub fn post_form(url: impl Into<String>, body: String) -> Self {
        Self {
            method: Method::Post,
            url: url.into(),
            headers: vec![
                (
                    "content-type".into(),
                    "application/x-www-form-urlencoded".into(),
                ),
                ("accept".into(), "application/json".into()),
            ],
            body: body.into_bytes(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }

    /// A JSON `POST` (dynamic client registration).
    pub fn post_json(url: impl Into<String>, body: Vec<u8>) -> Self {
        Self {
            method: Method::Post,
            url: url.into(),
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("accept".into(), "application/json".into()),
            ],
            body,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        }
    }

    /// Adds a header (name lower-cased).
    #[must_use]
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }

    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// Redacted: the body and the `authorization`/`dpop` headers may carry secrets.
impl std::fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("header_names", &names)
            .field("body_len", &self.body.len())
            .finish()
    }
}

/// A response. Header names are lower-case ASCII.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// Header name/value pairs, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The body, at most the request's `max_body_bytes`.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// A response from its parts.
    pub fn new(status: u16, headers: Vec<(String, String)>, body: Vec<u8>) -> Self {
        let headers = headers
            .into_iter()
            .map(|(n, v)| (n.to_ascii_lowercase(), v))
            .collect();
        Self {
            status,
            headers,
            body,
        }
    }

    /// A JSON response.
    pub fn json(status: u16, value: &serde_json::Value) -> Self {
        Self::new(
            status,
            vec![("content-type".into(), "application/json".into())],
            value.to_string().into_bytes(),
        )
    }

    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// Every value of a header, by case-insensitive name.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// Redacted: token responses carry secrets in the body.
impl std::fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpResponse")
            .field("status", &self.status)
            .field("body_len", &self.body.len())
            .finish_non_exhaustive()
    }
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Why a request did not produce a response.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    /// Connecting, TLS or I/O failed.
    #[error("transport failure: {0}")]
    Transport(String),
    /// The request took longer than the client's timeout.
    #[error("request timed out")]
    Timeout,
    /// The body was larger than `max_body_bytes`.
    #[error("response body exceeds {limit} bytes")]
    BodyTooLarge {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// The URL could not be used (bad scheme, refused by policy).
    #[error("invalid or refused URL: {0}")]
    InvalidUrl(String),
}

/// A boxed, sendable future, the return type of [`HttpClient::send`]:
/// `futures`' own `BoxFuture`, the one every crate of the workspace names
/// (`mcp_client::BoxFuture` and `mcp_transport_http::auth::BoxFuture` are
/// the same type).
pub use futures::future::BoxFuture;

/// Sends one HTTP request. Implementations must not follow redirects and must
/// enforce `max_body_bytes`.
pub trait HttpClient: Send + Sync {
    /// Sends `request` and returns the full response.
    fn send(&self, request: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, HttpError>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_headers_and_body() {
        let req = HttpRequest::post_form("https://as/token", "code=SECRET".into())
            .with_header("Authorization", "Bearer SECRET");
        let printed = format!("{req:?}");
        assert!(!printed.contains("SECRET"), "{printed}");
        assert!(printed.contains("authorization"));
        let resp = HttpResponse::json(200, &serde_json::json!({"access_token": "SECRET"}));
        assert!(!format!("{resp:?}").contains("SECRET"));
    }

    #[test]
    fn header_lookup_is_case_insensitive() {
        let resp = HttpResponse::new(
            401,
            vec![("WWW-Authenticate".into(), "Bearer".into())],
            vec![],
        );
        assert_eq!(resp.header("www-authenticate"), Some("Bearer"));
        assert_eq!(resp.header_all("WWW-AUTHENTICATE").count(), 1);
    }
}
