//! Transports: the child-process (stdio) and Streamable HTTP transports
//! come built in; [`Transport`] lets users bring their own.
//!
//! A custom transport moves whole JSON-RPC messages, like stdio: the
//! client runs the stdio lifecycle over it (era probe, then `initialize`
//! if needed). For a byte stream (a socket, a pipe pair), use
//! [`ClientBuilder::io`](crate::ClientBuilder::io) instead, which frames
//! newline-delimited JSON for you.

use std::future::Future;
use std::io;
use std::pin::Pin;

#[cfg(feature = "http")]
use mcp_transport_http::HttpTransport;
#[cfg(feature = "stdio")]
use mcp_transport_stdio::ServerProcess;
use mcp_transport_stdio::{Receiver, Sender};
use mcp_types::Message;

/// A boxed, sendable future with a lifetime.
pub type TransportFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A message transport the user brings (WebSocket, in-process channel, ...).
///
/// The client owns the transport on its driver task: it calls
/// [`Transport::send`] for every outgoing message, keeps at most one send
/// in progress at a time (messages are sent in order), and polls
/// [`Transport::recv`] concurrently.
///
/// ```
/// use mcp_client::{Transport, TransportFuture};
/// use mcp_client::mcp_types::Message;
/// use tokio::sync::mpsc;
///
/// /// A transport over two in-process channels.
/// struct Channels {
///     out: mpsc::UnboundedSender<Vec<u8>>,
///     inbox: mpsc::UnboundedReceiver<Message>,
/// }
///
/// impl Transport for Channels {
///     fn send(&self, message: Vec<u8>) -> TransportFuture<'static, std::io::Result<()>> {
///         let out = self.out.clone();
///         Box::pin(async move {
///             out.send(message).map_err(|_| std::io::ErrorKind::BrokenPipe.into())
///         })
///     }
///     fn recv(&mut self) -> TransportFuture<'_, Option<std::io::Result<Message>>> {
///         Box::pin(async move { self.inbox.recv().await.map(Ok) })
///     }
/// }
/// ```
pub trait Transport: Send + 'static {
    /// Sends one serialized JSON-RPC message (no trailing newline). The
    /// future must not borrow `self`: the client polls it alongside
    /// [`Transport::recv`].
    fn send(&self, message: Vec<u8>) -> TransportFuture<'static, io::Result<()>>;

    /// The next message from the server; `None` when the connection ended.
    /// Must be cancel-safe: the client drops an unfinished `recv` future
    /// whenever something else happens and calls `recv` again later.
    fn recv(&mut self) -> TransportFuture<'_, Option<io::Result<Message>>>;

    /// Closes the connection. The default does nothing.
    fn close(&mut self) -> TransportFuture<'_, ()> {
        Box::pin(std::future::ready(()))
    }
}

/// What the driver talks to.
#[allow(
    clippy::large_enum_variant,
    reason = "one per connection, owned by its driver"
)]
pub(crate) enum Link {
    /// Newline-delimited JSON: a child process, or any byte stream pair.
    Stream {
        sender: Sender,
        receiver: Receiver,
        #[cfg(feature = "stdio")]
        process: Option<ServerProcess>,
    },
    /// Streamable HTTP.
    #[cfg(feature = "http")]
    Http(HttpTransport),
    /// A user transport.
    Custom(Box<dyn Transport>),
}

impl Link {
    /// Closes the link (stdin EOF and staged process shutdown; HTTP
    /// session DELETE; the custom transport's `close`).
    pub(crate) async fn close(self) {
        match self {
            Link::Stream {
                sender,
                #[cfg(feature = "stdio")]
                process,
                ..
            } => {
                let _ = sender.close().await;
                #[cfg(feature = "stdio")]
                if let Some(p) = process {
                    let exit = p.shutdown().await;
                    tracing::debug!(outcome = ?exit.outcome, "server process stopped");
                }
            }
            #[cfg(feature = "http")]
            Link::Http(t) => {
                if let Err(e) = t.close().await {
                    tracing::debug!(error = %e, "closing the HTTP session failed");
                }
            }
            Link::Custom(mut t) => t.close().await,
        }
    }
}
