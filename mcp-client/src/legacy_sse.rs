//! The HTTP+SSE fallback of [`ClientBuilder::connect`](crate::ClientBuilder::connect)
//! for servers of the deprecated 2024-11-05 transport.
//!
//! As the 2025-11-25 specification describes for backwards compatibility:
//! when the Streamable HTTP `initialize` POST (after the era probe, where
//! one runs) fails with `400`, `404` or `405` and no JSON-RPC error, the
//! client `GET`s the same URL, expects an `endpoint` event first, and runs
//! a 2025-11-25-era session (`initialize` at the newest legacy version the
//! server accepts, 2024-11-05 included) over that transport
//! ([`mcp_transport_http::legacy_sse`]): every message is a POST to the
//! endpoint, every server message (responses included) arrives on the
//! event stream. On by default; [`ClientBuilder::http_sse_fallback`](crate::ClientBuilder::http_sse_fallback)
//! turns it off. When the fallback fails too, the connect error names both
//! attempts ("Streamable HTTP POST answered 404; HTTP+SSE fallback: GET
//! answered 404"), and [`Error::http_error`] is the GET's error.
//!
//! Over this transport the client is a message transport like stdio:
//! everything the server offers works (tools, resources, prompts, logging,
//! server requests answered by POST), but there is no Streamable HTTP
//! session to control (`Client::open_server_stream` and the header and
//! credential setters that act on the live HTTP transport do not apply;
//! the configured headers and auth provider are used). When the event
//! stream ends or breaks, the connection ends: requests still waiting fail
//! as the transport closing ([`Error::is_transport`]), with the reason as
//! their [`Error::http_error`] ([`HttpError::StreamEnded`], or
//! [`HttpError::Sse`] for an event over the size limit). A POST the server
//! refuses, or does not accept within the connect timeout, ends the
//! connection too (the message is lost, so its answer could never come);
//! the refusal is logged.

use std::io;

use bytes::Bytes;
use mcp_core::{ConnectError, EraPreference, RequestError};
use mcp_transport_http::legacy_sse::{
    LegacySseError, LegacySseReceiver, LegacySseSender, LegacySseTransport,
};
use mcp_transport_http::{HttpConfig, HttpError};
use mcp_types::{Era, Message, ProtocolVersion};

use crate::client::Client;
use crate::client::builder::ClientBuilder;
use crate::error::{Error, ErrorKind};
use crate::transport::{Transport, TransportFuture};

/// The statuses of a Streamable HTTP `initialize` POST that call for the
/// fallback.
const FALLBACK_STATUSES: [u16; 3] = [400, 404, 405];

/// The HTTP+SSE transport as a client [`Transport`].
pub(crate) struct LegacySseLink {
    sender: LegacySseSender,
    receiver: LegacySseReceiver,
}

impl Transport for LegacySseLink {
    fn send(&self, message: Vec<u8>) -> TransportFuture<'static, io::Result<()>> {
        let sender = self.sender.clone();
        Box::pin(async move {
            sender.send(Bytes::from(message)).await.map_err(|e| {
                tracing::warn!(error = %e, "the HTTP+SSE server refused a message");
                io::Error::other(e)
            })
        })
    }

    fn recv(&mut self) -> TransportFuture<'_, Option<io::Result<Message>>> {
        Box::pin(async move {
            let item = self.receiver.next().await?;
            Some(item.map_err(|e| {
                tracing::warn!(error = %e, "the HTTP+SSE connection ended");
                io::Error::other(e)
            }))
        })
    }

    fn close(&mut self) -> TransportFuture<'_, ()> {
        Box::pin(self.sender.close())
    }
}

/// Why a call still waiting lost its answer when the HTTP+SSE link failed
/// with `error` (`None` for another transport's error): the event stream,
/// which alone carries responses, ended or broke before the reply.
pub(crate) fn pending_cause(error: &io::Error) -> Option<HttpError> {
    let failed = error.get_ref()?.downcast_ref::<LegacySseError>()?;
    Some(match failed {
        LegacySseError::Stream(HttpError::Sse(e)) => HttpError::Sse(e.clone()),
        LegacySseError::Closed => HttpError::Closed,
        _ => HttpError::StreamEnded,
    })
}

/// The era preference for a session over the old transport: only its
/// legacy versions (`None` when it has none, e.g. `ModernOnly`).
pub(crate) fn legacy_era(era: &EraPreference) -> Option<EraPreference> {
    let legacy = |v: &ProtocolVersion| v.era() == Some(Era::Legacy);
    match era {
        EraPreference::Auto | EraPreference::LegacyOnly => Some(EraPreference::LegacyOnly),
        EraPreference::Known(v) => legacy(v).then(|| era.clone()),
        EraPreference::Versions(list) => {
            let kept: Vec<ProtocolVersion> = list.iter().filter(|v| legacy(v)).cloned().collect();
            (!kept.is_empty()).then_some(EraPreference::Versions(kept))
        }
        _ => None,
    }
}

/// The status of the Streamable HTTP POST when a connect error calls for
/// the fallback: a `400`, `404` or `405` that carried no JSON-RPC error.
pub(crate) fn fallback_status(error: &Error) -> Option<u16> {
    match error.kind() {
        ErrorKind::Connect {
            error: ConnectError::Request(RequestError::HttpStatus(status)),
            ..
        } if FALLBACK_STATUSES.contains(status) => Some(*status),
        _ => None,
    }
}

/// Runs the fallback after `first` failed: `GET` the URL of `config` for
/// an `endpoint` event, then connect `spare` (everything of the original
/// builder but its transport, era limited to legacy versions) over it.
/// `first` is returned unchanged when it does not call for the fallback.
pub(crate) async fn fall_back(
    spare: ClientBuilder,
    config: HttpConfig,
    first: Error,
) -> Result<Client, Error> {
    let Some(status) = fallback_status(&first) else {
        return Err(first);
    };
    tracing::info!(
        status,
        "the Streamable HTTP initialize failed; trying the HTTP+SSE transport"
    );
    let transport = match LegacySseTransport::connect(config).await {
        Ok(transport) => transport,
        Err(e) => return Err(both_failed(first, status, e)),
    };
    tracing::info!(endpoint = %transport.message_endpoint().path(), "speaking HTTP+SSE");
    let (sender, receiver) = transport.into_parts();
    let (client, connected) = spare
        .transport(LegacySseLink { sender, receiver })
        .launch(true)?;
    connected.await.map_err(|_| Error::closed())??;
    Ok(client)
}

/// The connect error when both transports failed: the first error's kind,
/// with a context naming both attempts and the fallback's HTTP error as
/// the cause.
fn both_failed(first: Error, status: u16, fallback: LegacySseError) -> Error {
    let context = format!("Streamable HTTP POST answered {status}; HTTP+SSE fallback: {fallback}");
    let kind = match first.into_kind() {
        ErrorKind::Connect { error, .. } => ErrorKind::Connect {
            error,
            context: Some(context),
        },
        other => other,
    };
    let cause = match fallback {
        LegacySseError::Get(e) | LegacySseError::Stream(e) | LegacySseError::Post(e) => Some(e),
        _ => None,
    };
    Error::new(kind).with_cause(cause)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::StatusCode;

    fn connect_error(status: u16) -> Error {
        Error::new(ErrorKind::Connect {
            error: ConnectError::Request(RequestError::HttpStatus(status)),
            context: None,
        })
    }

    #[test]
    fn only_400_404_and_405_without_a_json_rpc_error_fall_back() {
        for s in [400, 404, 405] {
            assert_eq!(fallback_status(&connect_error(s)), Some(s));
        }
        for s in [401, 403, 406, 415, 500, 502] {
            assert_eq!(fallback_status(&connect_error(s)), None, "{s}");
        }
        let remote = Error::new(ErrorKind::Connect {
            error: ConnectError::LegacyServer,
            context: None,
        });
        assert_eq!(fallback_status(&remote), None);
        assert_eq!(fallback_status(&Error::closed()), None);
    }

    #[test]
    fn the_session_is_limited_to_legacy_versions() {
        assert_eq!(
            legacy_era(&EraPreference::Auto),
            Some(EraPreference::LegacyOnly)
        );
        assert_eq!(legacy_era(&EraPreference::ModernOnly), None);
        let known = EraPreference::Known(ProtocolVersion::V2024_11_05);
        assert_eq!(legacy_era(&known), Some(known.clone()));
        assert_eq!(
            legacy_era(&EraPreference::Known(ProtocolVersion::V2026_07_28)),
            None
        );
        let mixed = EraPreference::Versions(vec![
            ProtocolVersion::V2026_07_28,
            ProtocolVersion::V2025_06_18,
        ]);
        assert_eq!(
            legacy_era(&mixed),
            Some(EraPreference::Versions(vec![ProtocolVersion::V2025_06_18]))
        );
    }

    #[test]
    fn a_failed_fallback_names_both_attempts_and_keeps_the_get_error() {
        let get = LegacySseError::Get(HttpError::Status {
            status: StatusCode::NOT_FOUND,
            body: String::new(),
            message: None,
        });
        let err = both_failed(connect_error(404), 404, get);
        let text = err.to_string();
        assert!(
            text.contains("Streamable HTTP POST answered 404; HTTP+SSE fallback: GET answered 404"),
            "{text}"
        );
        assert_eq!(
            err.http_error().and_then(HttpError::status),
            Some(StatusCode::NOT_FOUND)
        );
        assert!(err.is_transport());
    }
}
