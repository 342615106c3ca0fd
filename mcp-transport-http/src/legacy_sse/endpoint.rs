//! The `endpoint` event of the HTTP+SSE transport: where messages are
//! POSTed.
//!
//! The event's data is a URL, usually relative (`/message?sessionId=...`).
//! It is resolved against the server URL (RFC 3986 reference resolution)
//! and must keep the server's origin (scheme, host and port): a server may
//! not send the client's messages, and the credentials the client attaches
//! to them, to another origin. The fragment is dropped (it never travels).
//!
//! ```
//! use mcp_transport_http::legacy_sse::resolve_endpoint;
//! let server: http::Uri = "http://127.0.0.1:3001/sse".parse().unwrap();
//! let post = resolve_endpoint(&server, b"/message?sessionId=abc").unwrap();
//! assert_eq!(post, "http://127.0.0.1:3001/message?sessionId=abc");
//! assert!(resolve_endpoint(&server, b"http://evil.example/steal").is_err());
//! ```

use http::Uri;
use url::Url;

use super::error::EndpointError;

/// The longest `endpoint` value accepted, in bytes.
pub const MAX_ENDPOINT_LEN: usize = 8 * 1024;

/// Resolves the data of an `endpoint` event against the server URL and
/// checks that the result has the server's origin.
///
/// # Errors
/// [`EndpointError`] when the data is empty, too long, not UTF-8, not a URL
/// reference, not `http(s)`, carries credentials, or names another origin.
pub fn resolve_endpoint(server: &Uri, data: &[u8]) -> Result<Uri, EndpointError> {
    if data.len() > MAX_ENDPOINT_LEN {
        return Err(EndpointError::TooLong {
            limit: MAX_ENDPOINT_LEN,
        });
    }
    let text = std::str::from_utf8(data)
        .map_err(|_| EndpointError::Invalid("not UTF-8".into()))?
        .trim();
    if text.is_empty() {
        return Err(EndpointError::Invalid("empty".into()));
    }
    let base = Url::parse(&server.to_string())
        .map_err(|e| EndpointError::Invalid(format!("server URL: {e}")))?;
    let mut resolved = base
        .join(text)
        .map_err(|e| EndpointError::Invalid(e.to_string()))?;
    if !matches!(resolved.scheme(), "http" | "https") {
        return Err(EndpointError::Invalid(format!(
            "scheme {:?} is not http or https",
            resolved.scheme()
        )));
    }
    if !resolved.username().is_empty() || resolved.password().is_some() {
        return Err(EndpointError::Invalid(
            "credentials do not belong in the URL".into(),
        ));
    }
    if resolved.origin() != base.origin() {
        return Err(EndpointError::CrossOrigin {
            endpoint: resolved.origin().ascii_serialization(),
            server: base.origin().ascii_serialization(),
        });
    }
    resolved.set_fragment(None);
    resolved
        .as_str()
        .parse()
        .map_err(|e: http::uri::InvalidUri| EndpointError::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Uri {
        "http://127.0.0.1:3001/mcp/sse?token=x"
            .parse()
            .expect("uri")
    }

    fn ok(data: &str) -> String {
        resolve_endpoint(&server(), data.as_bytes())
            .expect("resolves")
            .to_string()
    }

    #[test]
    fn relative_forms_resolve_against_the_server_url() {
        assert_eq!(
            ok("/message?sessionId=a1"),
            "http://127.0.0.1:3001/message?sessionId=a1"
        );
        assert_eq!(ok("message"), "http://127.0.0.1:3001/mcp/message");
        assert_eq!(ok("../m?x=1"), "http://127.0.0.1:3001/m?x=1");
        assert_eq!(
            ok("?sessionId=b"),
            "http://127.0.0.1:3001/mcp/sse?sessionId=b"
        );
        assert_eq!(ok("  /m#frag \n"), "http://127.0.0.1:3001/m");
    }

    #[test]
    fn absolute_and_scheme_relative_urls_of_the_same_origin_are_accepted() {
        assert_eq!(ok("http://127.0.0.1:3001/m"), "http://127.0.0.1:3001/m");
        assert_eq!(ok("//127.0.0.1:3001/m"), "http://127.0.0.1:3001/m");
        let https: Uri = "https://example.com/sse".parse().expect("uri");
        let r = resolve_endpoint(&https, b"https://example.com:443/m").expect("default port");
        assert_eq!(r.to_string(), "https://example.com/m");
    }

    #[test]
    fn another_origin_is_refused_and_named() {
        for other in [
            "http://evil.example/m",
            "//evil.example/m",
            "https://127.0.0.1:3001/m",
            "http://127.0.0.1:3002/m",
            "http://localhost:3001/m",
        ] {
            let err = resolve_endpoint(&server(), other.as_bytes()).expect_err(other);
            let EndpointError::CrossOrigin { endpoint, server } = &err else {
                panic!("{other}: {err:?}");
            };
            assert_eq!(server, "http://127.0.0.1:3001");
            assert_ne!(endpoint, server);
            assert!(err.to_string().contains("origin"), "{err}");
        }
    }

    #[test]
    fn malformed_values_are_typed_errors() {
        for bad in [
            &b""[..],
            b"   ",
            b"\xff\xfe",
            b"javascript:alert(1)",
            b"http://user:pw@127.0.0.1:3001/m",
            b"http://[::1",
        ] {
            let err = resolve_endpoint(&server(), bad).expect_err("refused");
            assert!(
                matches!(
                    err,
                    EndpointError::Invalid(_) | EndpointError::CrossOrigin { .. }
                ),
                "{bad:?}: {err:?}"
            );
        }
        let long = vec![b'a'; MAX_ENDPOINT_LEN + 1];
        assert!(matches!(
            resolve_endpoint(&server(), &long),
            Err(EndpointError::TooLong { .. })
        ));
    }
}
