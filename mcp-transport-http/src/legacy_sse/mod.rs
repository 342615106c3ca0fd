//! The deprecated HTTP+SSE transport of protocol version 2024-11-05, for
//! servers that predate Streamable HTTP.
//!
//! The client opens one `GET` event stream on the server URL. Its first
//! event is `endpoint`, whose data is the URL to POST messages to (resolved
//! against the server URL; it must have the same origin, see
//! [`resolve_endpoint`]). Every client message is then one `POST` to that
//! URL (the server answers `202 Accepted`), and every server message,
//! responses included, arrives on the event stream. When the stream ends
//! nothing more can arrive: the receiver reports
//! [`LegacySseError::StreamEnded`] and ends.
//!
//! Both requests go through the crate's one HTTP stack: the same TLS, proxy,
//! default headers, [`AuthProvider`](crate::auth::AuthProvider) and limits
//! as Streamable HTTP (events are bounded by
//! [`Limits::max_event_bytes`](crate::Limits::max_event_bytes), the
//! `endpoint` event must arrive within the connect timeout). A client uses
//! it as the fallback the 2025-11-25 specification describes: when a
//! Streamable HTTP `initialize` POST fails with `400`, `404` or `405`, `GET`
//! the same URL and expect an `endpoint` event first.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_transport_http::HttpConfig;
//! use mcp_transport_http::legacy_sse::LegacySseTransport;
//! let config = HttpConfig::new("http://127.0.0.1:3001/sse")?;
//! let transport = LegacySseTransport::connect(config).await?;
//! println!("messages go to {}", transport.message_endpoint());
//! let (sender, mut receiver) = transport.into_parts();
//! sender
//!     .send(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec().into())
//!     .await?;
//! while let Some(message) = receiver.next().await {
//!     println!("{:?}", message?);
//! }
//! sender.close().await;
//! # Ok(()) }
//! ```

mod endpoint;
mod error;
mod events;

use std::sync::Arc;

use bytes::Bytes;
use http::{StatusCode, Uri};
use mcp_types::Message;
use mcp_types::routing::HttpRouting;
use tokio::sync::mpsc;

pub use endpoint::{MAX_ENDPOINT_LEN, resolve_endpoint};
pub use error::{EndpointError, LegacySseError};

use crate::config::HttpConfig;
use crate::error::HttpError;
use crate::transport::{HttpTransport, Reply};
use events::EventStream;

/// A connected HTTP+SSE transport: the event stream is open and its
/// `endpoint` event has named the message URL.
#[derive(Debug)]
pub struct LegacySseTransport {
    sender: LegacySseSender,
    receiver: LegacySseReceiver,
}

impl LegacySseTransport {
    /// Opens the event stream with `GET` on the configured endpoint and
    /// waits (at most the connect timeout) for its `endpoint` event.
    ///
    /// # Errors
    /// [`LegacySseError::Get`] when the `GET` fails (its `Display` is "GET
    /// answered 404" for an error status, `405` included), and the other
    /// [`LegacySseError`] variants when no usable `endpoint` event comes
    /// first: another event, a cross-origin or malformed URL, the stream
    /// ending, or the wait running out.
    pub async fn connect(config: HttpConfig) -> Result<Self, LegacySseError> {
        let wait = config.connect_timeout;
        let check = config.check_envelopes;
        let server = config.endpoint.clone();
        let mut post_config = config.clone();
        let get = HttpTransport::new(config).map_err(LegacySseError::Get)?;
        let opened = tokio::time::timeout(wait, open(&get, &server)).await;
        let (stream, message_url) = opened.map_err(|_| LegacySseError::EndpointTimeout(wait))??;
        post_config.endpoint = message_url;
        let post = HttpTransport::new(post_config).map_err(LegacySseError::Post)?;
        let (tx, rx) = mpsc::channel(get.inner.config.stream_buffer);
        let direct = tx.downgrade();
        let pump = tokio::spawn(stream.forward(tx, check)).abort_handle();
        let shared = Arc::new(Shared { get, post, pump });
        Ok(LegacySseTransport {
            sender: LegacySseSender {
                shared: shared.clone(),
                direct,
            },
            receiver: LegacySseReceiver { rx, shared },
        })
    }

    /// The URL messages are POSTed to (from the `endpoint` event).
    pub fn message_endpoint(&self) -> &Uri {
        &self.sender.shared.post.inner.config.endpoint
    }

    /// Splits into the sending half (cheap to clone) and the receiving half.
    pub fn into_parts(self) -> (LegacySseSender, LegacySseReceiver) {
        (self.sender, self.receiver)
    }
}

/// `GET` until the `endpoint` event.
async fn open(get: &HttpTransport, server: &Uri) -> Result<(EventStream, Uri), LegacySseError> {
    let body = get
        .inner
        .open_get(None, None)
        .await
        .map_err(LegacySseError::Get)?
        .ok_or_else(|| {
            LegacySseError::Get(HttpError::Status {
                status: StatusCode::METHOD_NOT_ALLOWED,
                body: String::new(),
                message: None,
            })
        })?;
    let mut stream = EventStream {
        body,
        parser: crate::stream::event_parser(&get.inner.config),
        pending: Vec::new(),
    };
    let url = stream.endpoint(server).await?;
    Ok((stream, url))
}

/// What both halves share: the two HTTP transports and the stream reader.
struct Shared {
    /// Holds the event stream's `GET`.
    get: HttpTransport,
    /// POSTs to the message endpoint.
    post: HttpTransport,
    pump: tokio::task::AbortHandle,
}

impl std::fmt::Debug for Shared {
    /// The server URL and the message endpoint's path: its query holds the
    /// session id, which stays out of `Debug` output.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegacySse")
            .field("server", &self.get.inner.config.endpoint)
            .field("message_path", &self.post.inner.config.endpoint.path())
            .finish_non_exhaustive()
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

/// Sends messages: one `POST` each to the message endpoint.
#[derive(Clone, Debug)]
pub struct LegacySseSender {
    shared: Arc<Shared>,
    /// Where a server that answers a POST directly (not with `202`) has its
    /// answer delivered, while the receiver lives.
    direct: mpsc::WeakSender<Result<Message, LegacySseError>>,
}

impl LegacySseSender {
    /// POSTs one serialized JSON-RPC message. Returns once the server
    /// accepted it (`202`, or any success); its response, if it is a
    /// request, arrives on the event stream. A server that answers with a
    /// JSON body or a stream instead has that answer delivered to the
    /// receiver too. The whole exchange must end within the connect timeout
    /// (an old-transport server accepts at once; the work comes later).
    ///
    /// # Errors
    /// [`LegacySseError::Post`] when the POST fails (with the status, for
    /// an error status), [`LegacySseError::PostTimeout`] when it does not
    /// end in time, [`LegacySseError::Closed`] after
    /// [`LegacySseSender::close`].
    pub async fn send(&self, body: Bytes) -> Result<(), LegacySseError> {
        let wait = self.shared.post.inner.config.connect_timeout;
        tokio::time::timeout(wait, self.exchange(body))
            .await
            .map_err(|_| LegacySseError::PostTimeout(wait))?
    }

    async fn exchange(&self, body: Bytes) -> Result<(), LegacySseError> {
        let reply = match self.shared.post.send(body, &HttpRouting::default()).await {
            Ok(reply) => reply,
            // Any success accepts the message (some servers say so in
            // plain text); its answer comes on the event stream.
            Err(HttpError::UnexpectedContentType { status, .. }) if status.is_success() => {
                return Ok(());
            }
            Err(HttpError::Closed) => return Err(LegacySseError::Closed),
            Err(e) => return Err(LegacySseError::Post(e)),
        };
        match reply {
            Reply::Message(message) => self.deliver(message).await,
            Reply::Stream(mut stream) => {
                while let Some(item) = stream.next().await {
                    match item {
                        Ok(message) => self.deliver(message).await,
                        // Not the event stream: its end or fault does not
                        // end the transport.
                        Err(err) => {
                            tracing::warn!(%err, "a POST's own answer stream failed");
                            break;
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    async fn deliver(&self, message: Message) {
        if let Some(tx) = self.direct.upgrade() {
            let _ = tx.send(Ok(message)).await;
        }
    }

    /// Closes the transport: the event stream is closed (the server ends
    /// the session when it sees that), in-flight and later sends fail with
    /// [`LegacySseError::Closed`], and the receiver ends.
    pub async fn close(&self) {
        self.shared.pump.abort();
        // Neither transport holds a Streamable HTTP session: no DELETE goes out.
        let _ = self.shared.post.close().await;
        let _ = self.shared.get.close().await;
    }
}

/// Receives every server message from the event stream.
#[derive(Debug)]
pub struct LegacySseReceiver {
    rx: mpsc::Receiver<Result<Message, LegacySseError>>,
    /// Keeps the stream open while the receiver lives.
    shared: Arc<Shared>,
}

impl LegacySseReceiver {
    /// The next server message. When the stream ends or breaks, one final
    /// error says why ([`LegacySseError::StreamEnded`], or
    /// [`LegacySseError::Stream`] for an oversized event or a broken
    /// connection); `None` follows.
    pub async fn next(&mut self) -> Option<Result<Message, LegacySseError>> {
        self.rx.recv().await
    }
}

impl Drop for LegacySseReceiver {
    fn drop(&mut self) {
        // Nobody reads any more: close the event stream now.
        self.shared.pump.abort();
    }
}
