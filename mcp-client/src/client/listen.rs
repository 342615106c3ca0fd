//! [`Subscription`]: a 2026-07-28 `subscriptions/listen` stream.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::stream::Stream;
use mcp_types::subscriptions::SubscriptionFilter;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use crate::client::{CancelGuard, Client, unexpected};
use crate::driver::Outcome;
use crate::driver::{CallSpec, SpecKind};
use crate::error::Error;
use crate::options::CallOptions;

/// What the driver forwards to a subscription.
#[derive(Debug)]
pub(crate) enum ListenItem {
    Notification {
        method: String,
        params: Option<Box<RawValue>>,
    },
    Ended,
    Failed(Error),
}

/// One notification delivered on a subscription.
#[derive(Debug)]
#[non_exhaustive]
pub struct SubscriptionEvent {
    /// The notification method (`notifications/tools/list_changed`,
    /// `notifications/resources/updated`, ...).
    pub method: String,
    /// Its params, raw.
    pub params: Option<Box<RawValue>>,
}

impl SubscriptionEvent {
    /// Decodes the params as `T`.
    ///
    /// # Errors
    /// When the params do not have the shape of `T`.
    pub fn params_as<T: serde::de::DeserializeOwned>(&self) -> Result<T, Error> {
        let text = self.params.as_deref().map_or("{}", RawValue::get);
        serde_json::from_str(text).map_err(|e| Error::decode(&self.method, e))
    }
}

/// An open `subscriptions/listen` stream (2026-07-28).
///
/// Yields the notifications the filter selected, then ends, never hanging:
///
/// * the server ends the subscription gracefully (its result): `None`;
/// * the stream breaks (an HTTP response stream closed without the result,
///   the stdio server exited) or the client is closed: one `Err` (see
///   [`Error::is_transport`], [`Error::is_closed`]), then `None`;
/// * the connection's driver is gone: `None`.
///
/// [`Client::listen`] waits for the server's acknowledgement within the
/// request timeout; after it the subscription has no deadline, by design.
///
/// After it ends it yields `None` forever. A 2026-07-28 connection has no
/// sessions, so the client has nothing to reconnect and does not reopen a
/// subscription by itself: call [`Client::listen`] again for a new one
/// (with a fresh id), and re-read any state (e.g. `tools/list`) that may
/// have changed while no subscription was open. Dropping it cancels the
/// subscription.
///
/// ```no_run
/// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
/// use futures::StreamExt;
/// use mcp_client::mcp_types::subscriptions::SubscriptionFilter;
/// let mut sub = client.listen(SubscriptionFilter::new().with_tools_list_changed()).await?;
/// while let Some(event) = sub.next().await {
///     println!("{}", event?.method);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Subscription {
    rx: mpsc::UnboundedReceiver<ListenItem>,
    granted: Option<Box<RawValue>>,
    done: bool,
    /// Cancels the subscription when the stream is dropped.
    _guard: CancelGuard,
}

impl Subscription {
    /// The acknowledgement's params (the filter the server granted), raw.
    pub fn granted(&self) -> Option<&RawValue> {
        self.granted.as_deref()
    }
}

impl Stream for Subscription {
    type Item = Result<SubscriptionEvent, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        match this.rx.poll_recv(cx) {
            Poll::Ready(Some(ListenItem::Notification { method, params })) => {
                Poll::Ready(Some(Ok(SubscriptionEvent { method, params })))
            }
            Poll::Ready(Some(ListenItem::Failed(e))) => {
                this.done = true;
                Poll::Ready(Some(Err(e)))
            }
            Poll::Ready(Some(ListenItem::Ended) | None) => {
                this.done = true;
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Client {
    /// Opens a `subscriptions/listen` stream (2026-07-28) and waits for its
    /// acknowledgement. In 2025-11-25 use [`Client::subscribe`] and the
    /// notification handler.
    ///
    /// # Errors
    /// See [`Error`]; [`Error::is_retired_method`] on a legacy connection.
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, Error> {
        let (tx, rx) = mpsc::unbounded_channel();
        let filter = serde_json::to_value(&filter).map_err(mcp_core::UsageError::from)?;
        let spec = CallSpec {
            method: "subscriptions/listen".into(),
            params: Some(Box::new(serde_json::json!({ "notifications": filter }))),
            opts: CallOptions::new(),
            kind: SpecKind::Listen(tx),
        };
        let running = self.run(spec);
        let call = running.call_ref();
        match (running.await?, call) {
            (Outcome::Acknowledged(granted), Some(call)) => Ok(Subscription {
                rx,
                granted,
                done: false,
                _guard: CancelGuard::new(call, self.inner.commands.clone()),
            }),
            (other, _) => Err(unexpected("subscriptions/listen", &other)),
        }
    }
}
