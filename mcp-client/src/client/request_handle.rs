//! [`RequestHandle`]: a request started now and awaited (or cancelled)
//! later.

use std::borrow::Cow;
use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_core::RequestError;
use mcp_types::RequestId;
use mcp_types::raw::RawJson;
use mcp_types::tools::CallToolResult;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::client::{CancelGuard, Client, unexpected};
use crate::driver::{CallRef, Outcome, OutcomeRx, Read, Reader};
use crate::driver::{CallSpec, Command};
use crate::error::Error;
use crate::options::CallOptions;

/// A request already sent to the server, whose result is collected later.
///
/// `T` is what awaiting the handle gives: JSON ([`Value`]) for
/// [`Client::start_request`], the method's result type for
/// [`Client::start_request_typed`], [`CallToolResult`] for
/// [`Client::start_call_tool`].
///
/// Await it (it implements [`IntoFuture`]) or call
/// [`result_as`](RequestHandle::result_as); bound the wait with
/// [`with_timeout`](RequestHandle::with_timeout); stop it with
/// [`cancel`](RequestHandle::cancel) or by dropping the handle. A cancelled
/// request is cancelled on the wire (`notifications/cancelled`, or its HTTP
/// stream closed) and a response that arrives after that is ignored.
///
/// ```no_run
/// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
/// use std::time::Duration;
/// use serde_json::json;
/// use mcp_client::CallOptions;
/// let slow = client.start_call_tool("slow_count", json!({"count": 3}), CallOptions::new());
/// let quick = client.call_tool("echo", json!({"text": "meanwhile"})).await?;
/// let result = slow.with_timeout(Duration::from_secs(10)).await?;
/// println!("{} then {}", quick.text(), result.text());
///
/// let unwanted = client.start_request("tools/list", None);
/// unwanted.cancel();
/// # Ok(()) }
/// ```
#[must_use = "dropping a RequestHandle cancels the request"]
pub struct RequestHandle<T = Value> {
    method: Cow<'static, str>,
    reply: OutcomeRx,
    guard: CancelGuard,
    timeout: Option<Duration>,
    result: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for RequestHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestHandle")
            .field("method", &self.method)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl<T> RequestHandle<T> {
    /// The request's method.
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The request's JSON-RPC id while it is in flight (`None` once it
    /// has ended or when the client is closed); pass it to
    /// [`Client::cancel_request`] from anywhere.
    pub async fn id(&self) -> Option<RequestId> {
        let (reply, rx) = oneshot::channel();
        let ask = Command::IdOf {
            call: self.guard.call().clone(),
            reply,
        };
        self.guard.commands().send(ask).ok()?;
        rx.await.ok().flatten()
    }

    /// Bounds the wait for the result: when `timeout` passes first, the
    /// request is cancelled and the result is an error for which
    /// [`Error::is_timeout`] holds. The time counts from the first poll.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Cancels the request (dropping the handle does the same).
    pub fn cancel(self) {
        drop(self);
    }

    /// Waits for the result and decodes it as `U`, whatever the handle's
    /// own result type.
    ///
    /// # Errors
    /// See [`Error`]; [`Error::is_timeout`] after
    /// [`with_timeout`](RequestHandle::with_timeout) ran out.
    pub async fn result_as<U: DeserializeOwned>(self) -> Result<U, Error> {
        let RequestHandle {
            method,
            reply,
            mut guard,
            timeout,
            result: _,
        } = self;
        let outcome = match timeout {
            None => reply.await,
            Some(limit) => match tokio::time::timeout(limit, reply).await {
                Ok(r) => r,
                // Dropping the armed guard cancels the request.
                Err(_) => return Err(RequestError::Timeout(limit).into()),
            },
        };
        guard.disarm();
        match outcome.map_err(|_| Error::closed())?? {
            Outcome::Done(c) => c.decode().map_err(|e| Error::decode(&method, e)),
            other => Err(unexpected(&method, &other)),
        }
    }

    /// The same request, its result decoded as `U` when awaited.
    fn retyped<U>(self) -> RequestHandle<U> {
        RequestHandle {
            method: self.method,
            reply: self.reply,
            guard: self.guard,
            timeout: self.timeout,
            result: PhantomData,
        }
    }
}

impl<T: DeserializeOwned> RequestHandle<T> {
    /// Waits for the result as `T` (what `.await` on the handle does).
    ///
    /// # Errors
    /// As [`result_as`](RequestHandle::result_as).
    pub async fn result(self) -> Result<T, Error> {
        self.result_as().await
    }
}

impl<T: DeserializeOwned + Send + 'static> IntoFuture for RequestHandle<T> {
    type Output = Result<T, Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.result())
    }
}

impl Client {
    /// Sends a request of any method now and returns a handle to its
    /// result, without waiting. See [`RequestHandle`].
    pub fn start_request(&self, method: &str, params: Option<Value>) -> RequestHandle {
        self.start_request_with(method, params, CallOptions::new())
    }

    /// [`Client::start_request`] typed by a method marker of
    /// `mcp_client::mcp_types::methods`: awaiting the handle gives the
    /// method's result type.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// use mcp_client::mcp_types::common::PaginatedRequestParams;
    /// use mcp_client::mcp_types::methods::v2026_07_28::ListTools;
    /// use mcp_client::mcp_types::RequestMethod;
    /// let handle = client.start_request_typed::<ListTools>(&PaginatedRequestParams::new())?;
    /// let page: <ListTools as RequestMethod>::Result = handle.await?;
    /// # let _ = page; Ok(()) }
    /// ```
    ///
    /// # Errors
    /// A usage error when the params do not serialize (nothing is sent).
    pub fn start_request_typed<M: mcp_types::RequestMethod>(
        &self,
        params: &M::Params,
    ) -> Result<RequestHandle<M::Result>, Error> {
        let value = serde_json::to_value(params).map_err(mcp_core::UsageError::from)?;
        let handle = self.start_with(Cow::Borrowed(M::METHOD), Some(value), CallOptions::new());
        Ok(handle.retyped())
    }

    /// Starts a `tools/call` now and returns a handle to its result, without
    /// waiting: await it for the [`CallToolResult`], bound the wait with
    /// [`RequestHandle::with_timeout`], or cancel it (dropping the handle
    /// cancels too, on the wire). The options are those of
    /// [`Client::call_tool_with`], except output validation, which only the
    /// awaited forms apply (check `structured_content` yourself, or call
    /// [`Client::call_tool_with`] with
    /// [`CallOptions::validate_output`](crate::CallOptions::validate_output)).
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// use std::time::Duration;
    /// use mcp_client::CallOptions;
    /// let slow = client.start_call_tool(
    ///     "slow_count",
    ///     serde_json::json!({"count": 3}),
    ///     CallOptions::new(),
    /// );
    /// let result = slow.with_timeout(Duration::from_secs(10)).await?;
    /// println!("{}", result.text());
    /// # Ok(()) }
    /// ```
    pub fn start_call_tool(
        &self,
        name: &str,
        arguments: Value,
        opts: CallOptions,
    ) -> RequestHandle<CallToolResult> {
        let params = Value::Object(mcp_core::call_tool_params(name, arguments));
        self.start_with(Cow::Borrowed("tools/call"), Some(params), opts)
            .retyped()
    }

    /// [`Client::start_request`] with per-request options (the options'
    /// timeout is the core's deadline; [`RequestHandle::with_timeout`]
    /// bounds the wait on top of it).
    pub fn start_request_with(
        &self,
        method: &str,
        params: Option<Value>,
        opts: CallOptions,
    ) -> RequestHandle {
        self.start_with(Cow::Owned(method.to_owned()), params, opts)
    }

    /// [`Client::start_request_with`] for a method name that may be
    /// borrowed (no copy per call).
    fn start_with(
        &self,
        method: Cow<'static, str>,
        params: Option<Value>,
        opts: CallOptions,
    ) -> RequestHandle {
        let spec = Client::spec(method.clone(), params, opts);
        // When the driver is gone, the call is dropped and the handle
        // resolves to a closed error.
        let (reply, _) = self.start_spec(spec, None);
        RequestHandle {
            method,
            guard: CancelGuard::new(reply.call_ref(), self.inner.commands.clone()),
            reply,
            timeout: None,
            result: PhantomData,
        }
    }

    /// Cancels any call of this client that is in flight, by its JSON-RPC
    /// id (from [`RequestHandle::id`], or the `call` given to
    /// [`NotificationHandler::on_progress`](crate::NotificationHandler::on_progress)).
    /// The server is told (`notifications/cancelled`, or the call's HTTP
    /// stream is closed), the caller waiting for the call gets an error for
    /// which [`Error::is_cancelled`] holds, and a late response is ignored.
    ///
    /// ```no_run
    /// # async fn run(client: mcp_client::Client) -> Result<(), mcp_client::Error> {
    /// let handle = client.start_request("tools/list", None);
    /// if let Some(id) = handle.id().await {
    ///     client.cancel_request(&id).await?;
    /// }
    /// assert!(handle.await.is_err());
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`Error::is_usage`] when no call with this id is in flight (it
    /// ended, or it is the `initialize` request, which cannot be
    /// cancelled); [`Error::is_closed`].
    pub async fn cancel_request(&self, id: &RequestId) -> Result<(), Error> {
        let (reply, rx) = oneshot::channel();
        let id = id.clone();
        self.inner
            .commands
            .send(Command::CancelId { id, reply })
            .map_err(|_| Error::closed())?;
        rx.await.map_err(|_| Error::closed())?
    }
}

/// A call awaited at once by the facade's own methods ([`Client::run`],
/// [`Client::run_made`]): its wait, and the client it runs on, through
/// which dropping this before the end cancels the call. It borrows the
/// client instead of holding a [`CancelGuard`]: the guard's handles (a
/// sender and a reference to the call) cost four atomic reference counts a
/// call, this nothing until a cancel is needed.
///
/// `F` makes the call's spec when the first poll starts the call
/// ([`Client::run_made`]): this future holds what makes it, not the spec,
/// and the call's shared allocation holds the caller's waker from the
/// start, so the first poll takes no lock.
pub(crate) struct Running<'a, F = NoSpec> {
    client: &'a Client,
    state: RunState<F>,
}

/// The spec maker of a [`Running`] started at once ([`Client::run`]).
pub(crate) type NoSpec = fn() -> Result<CallSpec, Error>;

/// Where a [`Running`] call stands.
enum RunState<F> {
    /// Not sent yet: the first poll makes its spec and sends it.
    Unsent(F),
    /// Sent: its outcome is awaited (its reply read by this caller itself
    /// while it holds the [`Reader`]).
    Waiting(OutcomeRx, Option<Reader>),
    /// It could not be made or sent (the driver is gone).
    Failed(Error),
    /// Its outcome was handed out: nothing is left to cancel.
    Ended,
}

impl<'a> Running<'a> {
    /// A call sent already (`Err`: it could not be).
    pub(super) fn sent(client: &'a Client, sent: Result<OutcomeRx, Error>) -> Self {
        let state = match sent {
            Ok(rx) => RunState::Waiting(rx, None),
            Err(e) => RunState::Failed(e),
        };
        Running { client, state }
    }
}

impl<'a, F: FnOnce() -> Result<CallSpec, Error>> Running<'a, F> {
    /// A call the first poll makes with `make` and sends.
    pub(super) fn unsent(client: &'a Client, make: F) -> Self {
        Running {
            client,
            state: RunState::Unsent(make),
        }
    }
}

impl<F> Running<'_, F> {
    /// The call, while it runs (`None` before it is sent).
    pub(crate) fn call_ref(&self) -> Option<CallRef> {
        match &self.state {
            RunState::Waiting(rx, _) => Some(rx.call_ref()),
            _ => None,
        }
    }
}

impl<F: FnOnce() -> Result<CallSpec, Error> + Unpin> Future for Running<'_, F> {
    type Output = Result<Outcome, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        // Taken out for the look, and put back while the call waits: ended
        // otherwise, with nothing left to cancel.
        match std::mem::replace(&mut this.state, RunState::Ended) {
            RunState::Unsent(make) => {
                // The outcome wakes this caller, whose waker the call's
                // allocation holds from the start: the call may even end
                // before this returns.
                match make().and_then(|spec| this.client.send_start(spec, Some(cx.waker()))) {
                    Ok((rx, reader)) => {
                        this.state = RunState::Waiting(rx, reader);
                        Poll::Pending
                    }
                    Err(e) => Poll::Ready(Err(e)),
                }
            }
            RunState::Waiting(mut rx, mut reader) => {
                // A caller that reads its reply reads first: the read hands
                // it its outcome when it ends the call.
                if let Some(r) = &mut reader {
                    match r.read(cx.waker()) {
                        Read::Outcome(outcome) => return Poll::Ready(outcome),
                        Read::More => {}
                        // Done, or handed back to the driver.
                        Read::Done => reader = None,
                        #[cfg(feature = "http")]
                        Read::Handback(io) => {
                            reader = None;
                            // When the driver is gone the send fails, and
                            // the outcome is a closed error.
                            let _ = this.client.inner.commands.send(Command::Handback(io));
                        }
                    }
                }
                match Pin::new(&mut rx).poll(cx) {
                    Poll::Pending => {
                        this.state = RunState::Waiting(rx, reader);
                        Poll::Pending
                    }
                    Poll::Ready(r) => Poll::Ready(r.unwrap_or_else(|_| Err(Error::closed()))),
                }
            }
            // Not sent (the driver is gone), or polled after its end.
            RunState::Failed(e) => Poll::Ready(Err(e)),
            RunState::Ended => Poll::Ready(Err(Error::closed())),
        }
    }
}

impl<F> Drop for Running<'_, F> {
    /// Dropped before its end: the call is cancelled.
    fn drop(&mut self) {
        if let RunState::Waiting(rx, reader) = &mut self.state {
            // Its POST goes back to the driver first, which then reads it
            // to its cancellation.
            *reader = None;
            self.client.inner.commands.cancel(rx.call_ref());
        }
    }
}

/// A call's outcome decoded as its method's result (`T`).
pub(crate) fn decoded<T: DeserializeOwned>(
    method: &str,
    outcome: Result<Outcome, Error>,
) -> Result<T, Error> {
    decoded_with(method, outcome, RawJson::decode)
}

/// [`decoded`] by a reader of the result's own (a tool result's:
/// `CallToolResult::from_raw`).
pub(crate) fn decoded_with<T>(
    method: &str,
    outcome: Result<Outcome, Error>,
    read: impl FnOnce(&RawJson) -> Result<T, serde_json::Error>,
) -> Result<T, Error> {
    // Read where it is (taken out of the `Result` and then out of its
    // `Done`, it would be copied twice), and dropped there.
    if let Ok(Outcome::Done(c)) = &outcome {
        return read(&c.result).map_err(|e| Error::decode(method, e));
    }
    std::hint::cold_path();
    Err(unexpected(method, &outcome?))
}
