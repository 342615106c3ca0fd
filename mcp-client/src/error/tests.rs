//! Unit tests of the predicates and messages of [`Error`] built from
//! transport and authorization failures.

use super::{Error, ErrorKind};
use mcp_core::{ConnectError, RequestError};
use mcp_transport_http::HttpError;
use mcp_transport_http::auth::AuthError;

fn oauth_failure() -> HttpError {
    let cause = mcp_auth::AuthError::NoResourceMetadata("http://127.0.0.1/".into());
    HttpError::Auth(AuthError::with_source("OAuth authorization failed", cause))
}

fn finds_oauth_cause(e: &Error) -> bool {
    let mut next = std::error::Error::source(e);
    while let Some(s) = next {
        if s.downcast_ref::<mcp_auth::AuthError>().is_some() {
            return true;
        }
        next = s.source();
    }
    false
}

#[test]
fn unresolved_401_and_403_are_authorization_failures() {
    for status in [401, 403] {
        let e = Error::from(RequestError::Unauthorized(status));
        assert!(e.is_authorization_failed() && e.is_unauthorized());
    }
    assert!(!Error::from(RequestError::TransportClosed).is_authorization_failed());
}

#[test]
fn a_provider_failure_keeps_its_type_under_a_summary() {
    let connect = ErrorKind::Connect {
        error: ConnectError::Request(RequestError::TransportClosed),
        context: Some("authorization provider failed".into()),
    };
    let e = Error::new(connect).with_cause(Some(oauth_failure()));
    assert!(e.is_authorization_failed());
    assert!(!e.is_unauthorized(), "no 401/403 was seen");
    assert!(matches!(e.http_error(), Some(HttpError::Auth(_))));
    assert!(finds_oauth_cause(&e));

    let direct = Error::from(oauth_failure());
    assert!(direct.is_authorization_failed() && finds_oauth_cause(&direct));
}

#[test]
fn a_server_protocol_fault_behind_a_closed_stream_is_a_protocol_violation() {
    let broken =
        Error::from(RequestError::TransportClosed).with_cause(Some(HttpError::InvalidSessionId));
    assert!(broken.is_protocol_violation() && broken.is_transport());
    assert_eq!(
        broken.to_string(),
        "the server sent an invalid Mcp-Session-Id (the request got no response)"
    );
    let lost = Error::from(RequestError::TransportClosed).with_cause(Some(HttpError::Closed));
    assert!(!lost.is_protocol_violation());
}

#[test]
fn a_first_cause_is_kept_and_none_attaches_nothing() {
    let e = Error::from(RequestError::TransportClosed)
        .with_cause(None)
        .with_cause(Some(oauth_failure()))
        .with_cause(Some(HttpError::Closed));
    assert!(matches!(e.http_error(), Some(HttpError::Auth(_))));
    let plain = Error::from(RequestError::TransportClosed);
    assert!(plain.http_error().is_none());
    assert!(std::error::Error::source(&plain).is_none());
}

#[test]
fn the_fault_is_the_transport_errors_also_under_a_summary() {
    use mcp_transport_http::Fault;
    let summarised = Error::from(RequestError::TransportClosed).with_cause(Some(oauth_failure()));
    assert_eq!(summarised.fault(), Some(Fault::Server), "{summarised}");
    let declined = mcp_auth::AuthError::Handler("the user declined".into());
    let declined = HttpError::Auth(AuthError::with_source(
        "OAuth authorization failed",
        declined,
    ));
    assert_eq!(Error::from(declined).fault(), Some(Fault::User));
    assert_eq!(Error::from(RequestError::TransportClosed).fault(), None);
}
