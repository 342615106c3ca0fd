//! Errors of the HTTP+SSE transport, worded so that a fallback report can
//! quote them after "HTTP+SSE fallback: " (for example "GET answered 404").

use std::time::Duration;

use crate::error::{Fault, HttpError};

/// Why an `endpoint` event cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EndpointError {
    /// The value is not a usable `http(s)` URL reference.
    #[error("invalid endpoint URL: {0}")]
    Invalid(String),
    /// The value is longer than the limit.
    #[error("endpoint URL longer than {limit} bytes")]
    TooLong {
        /// The limit, in bytes.
        limit: usize,
    },
    /// The endpoint has another origin than the server URL. Only the two
    /// origins are named, never the full URLs.
    #[error("endpoint origin {endpoint} differs from the server origin {server}")]
    CrossOrigin {
        /// The endpoint's origin.
        endpoint: String,
        /// The server URL's origin.
        server: String,
    },
}

/// An error of the HTTP+SSE (2024-11-05) transport.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LegacySseError {
    /// The `GET` that opens the event stream failed (an error status, a
    /// body that is not `text/event-stream`, the network, the auth hook).
    #[error("{}", get_text(.0))]
    Get(#[source] HttpError),
    /// The stream's first event was not an `endpoint` event.
    #[error("the event stream's first event was {found:?}, not `endpoint`")]
    NotEndpointFirst {
        /// The type of the event that came first (`message` when untyped).
        found: String,
    },
    /// The `endpoint` event cannot be used.
    #[error("unusable `endpoint` event: {0}")]
    Endpoint(#[from] EndpointError),
    /// No `endpoint` event arrived within the wait.
    #[error("no `endpoint` event within {0:?}")]
    EndpointTimeout(Duration),
    /// The event stream ended: every request still waiting for its response
    /// (which could only arrive on that stream) is lost.
    #[error("the HTTP+SSE event stream ended{}", ended_suffix(*.before_endpoint))]
    StreamEnded {
        /// It ended before the `endpoint` event.
        before_endpoint: bool,
    },
    /// The event stream broke: an event over the size limit, or the
    /// connection failed while reading.
    #[error("the HTTP+SSE event stream failed: {0}")]
    Stream(#[source] HttpError),
    /// A `POST` to the message endpoint failed.
    #[error("POST to the HTTP+SSE message endpoint failed: {0}")]
    Post(#[source] HttpError),
    /// A `POST` to the message endpoint did not end within the wait.
    #[error("the HTTP+SSE message endpoint did not accept a POST within {0:?}")]
    PostTimeout(Duration),
    /// The transport was closed.
    #[error("the HTTP+SSE transport is closed")]
    Closed,
}

fn get_text(err: &HttpError) -> String {
    match err.status() {
        Some(status) => format!("GET answered {}", status.as_u16()),
        None => format!("GET failed: {err}"),
    }
}

fn ended_suffix(before: bool) -> &'static str {
    if before {
        " before its `endpoint` event"
    } else {
        ""
    }
}

impl LegacySseError {
    /// Who caused this error.
    pub fn fault(&self) -> Fault {
        match self {
            LegacySseError::Get(e) | LegacySseError::Stream(e) | LegacySseError::Post(e) => {
                e.fault()
            }
            LegacySseError::Closed => Fault::Caller,
            LegacySseError::EndpointTimeout(_)
            | LegacySseError::PostTimeout(_)
            | LegacySseError::StreamEnded { .. } => Fault::Network,
            LegacySseError::NotEndpointFirst { .. } | LegacySseError::Endpoint(_) => Fault::Server,
        }
    }

    /// The HTTP error behind this one, if any.
    pub fn http_error(&self) -> Option<&HttpError> {
        match self {
            LegacySseError::Get(e) | LegacySseError::Stream(e) | LegacySseError::Post(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::StatusCode;

    #[test]
    fn a_failed_get_names_its_status() {
        let err = LegacySseError::Get(HttpError::Status {
            status: StatusCode::NOT_FOUND,
            body: "Cannot GET /mcp".into(),
            message: None,
        });
        assert_eq!(err.to_string(), "GET answered 404");
        assert_eq!(err.fault(), Fault::Server);
        let err = LegacySseError::Get(HttpError::Closed);
        assert_eq!(err.to_string(), "GET failed: transport closed");
        let err = LegacySseError::StreamEnded {
            before_endpoint: true,
        };
        assert!(err.to_string().ends_with("before its `endpoint` event"));
    }
}
