//! Handlers: how the application serves what the server asks of it.
//!
//! A server asks for sampling, elicitation or roots either with a
//! server-to-client request (2025-11-25) or with an input request embedded
//! in an `input_required` result (2026-07-28). Both reach the same handler.
//! Each feature is its own small trait, registered on the
//! [`ClientBuilder`](crate::ClientBuilder); the client advertises a
//! capability only when its handler is registered, and answers anything
//! else with "method not found".
//!
//! Closures implement the request handlers:
//!
//! ```
//! use mcp_client::{Client, HandlerError};
//! use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
//! use mcp_client::mcp_types::content::ContentBlock;
//! let builder = Client::builder().sampling(|params: CreateMessageRequestParams| async move {
//!     let _ = params;
//!     Ok::<_, HandlerError>(CreateMessageResult::new(ContentBlock::text("hello"), "my-model"))
//! });
//! # let _ = builder;
//! ```
//!
//! Notifications go to one [`NotificationHandler`] whose methods all
//! default to doing nothing.
//!
//! What a handler returns is checked before it is written, in both eras:
//! an accepted form must satisfy the form's `requestedSchema` (types,
//! `required`, `enum`/`oneOf` options, `minimum`/`maximum`, lengths,
//! `email`/`uri`/`date`/`date-time` formats), and a sampling answer must be
//! a complete `CreateMessageResult` (a model name, sampling content kinds
//! only). Invalid output is answered with JSON-RPC `-32603` instead:
//!
//! ```
//! use mcp_client::{Client, HandlerError};
//! use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult};
//! // Accepting without the form's required fields would be refused with
//! // -32603; declining is always valid.
//! let builder = Client::builder().form_elicitation(|_p: ElicitRequestFormParams| async {
//!     Ok::<_, HandlerError>(ElicitResult::decline())
//! });
//! # let _ = builder;
//! ```
//!
//! A handler serving a 2025-11-25 server request that carries a progress
//! token can report progress with
//! [`ProgressReporter::current`](crate::ProgressReporter::current), and
//! with [`ClientBuilder::serve_tasks`](crate::ClientBuilder::serve_tasks)
//! a server may run sampling and elicitation as client-side tasks
//! ([`ServedTaskOptions`](crate::ServedTaskOptions)).

use std::future::Future;
use std::sync::Arc;

use mcp_types::ErrorCode;
use mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult, ElicitationMode};
use mcp_types::incoming::{Elicitation, ServerRequest, ServerRequestKind};
use mcp_types::jsonrpc::ErrorObject;
use mcp_types::logging::LoggingMessageNotificationParams;
use mcp_types::roots::Root;
use mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use serde_json::value::RawValue;

use crate::options::Progress;

pub(crate) use futures::future::BoxFuture;

/// A handler's refusal or failure, sent to the server as a JSON-RPC error.
#[derive(Clone, Debug, PartialEq)]
pub struct HandlerError {
    error: ErrorObject,
}

impl HandlerError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        HandlerError {
            error: ErrorObject::new(code, message),
        }
    }

    /// The user or the host refused the request (code `-1`, the code the
    /// TypeScript and Python SDKs use for a refusal).
    pub fn rejected(message: impl Into<String>) -> Self {
        HandlerError::new(ErrorCode(-1), message)
    }

    /// The handler failed (`-32603` internal error).
    pub fn internal(message: impl Into<String>) -> Self {
        HandlerError::new(ErrorCode::INTERNAL_ERROR, message)
    }

    /// The request's params were malformed (`-32602`).
    pub fn invalid_params(message: impl Into<String>) -> Self {
        HandlerError::new(ErrorCode::INVALID_PARAMS, message)
    }

    /// The client does not serve this method (`-32601`).
    pub fn not_supported(method: &str) -> Self {
        HandlerError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("the client does not support {method}"),
        )
    }

    /// The JSON-RPC error object.
    pub fn into_error_object(self) -> ErrorObject {
        self.error
    }
}

/// A handler's result.
pub type HandlerResult<T> = Result<T, HandlerError>;

/// Serves `sampling/createMessage`: run the messages through a model.
pub trait SamplingHandler: Send + Sync + 'static {
    /// Samples a message.
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> impl Future<Output = HandlerResult<CreateMessageResult>> + Send;
}

impl<F, Fut> SamplingHandler for F
where
    F: Fn(CreateMessageRequestParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<CreateMessageResult>> + Send,
{
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> impl Future<Output = HandlerResult<CreateMessageResult>> + Send {
        self(params)
    }
}

/// Serves form-mode `elicitation/create`: ask the user to fill a form.
pub trait FormElicitationHandler: Send + Sync + 'static {
    /// Shows the form and returns what the user did.
    fn elicit_form(
        &self,
        params: ElicitRequestFormParams,
    ) -> impl Future<Output = HandlerResult<ElicitResult>> + Send;
}

impl<F, Fut> FormElicitationHandler for F
where
    F: Fn(ElicitRequestFormParams) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<ElicitResult>> + Send,
{
    fn elicit_form(
        &self,
        params: ElicitRequestFormParams,
    ) -> impl Future<Output = HandlerResult<ElicitResult>> + Send {
        self(params)
    }
}

/// A URL-mode elicitation: the host asks the user for consent to open
/// `url`. The client never fetches the URL itself.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UrlElicitation {
    /// Why the server wants the user to visit the URL.
    pub message: String,
    /// The URL (untrusted: show it, never fetch it silently).
    pub url: String,
    /// The 2025-11-25 elicitation id, when present.
    pub elicitation_id: Option<String>,
}

/// Serves URL-mode `elicitation/create`.
pub trait UrlElicitationHandler: Send + Sync + 'static {
    /// Asks the user for consent; `accept` means the user went to the URL.
    fn elicit_url(
        &self,
        request: UrlElicitation,
    ) -> impl Future<Output = HandlerResult<ElicitResult>> + Send;
}

impl<F, Fut> UrlElicitationHandler for F
where
    F: Fn(UrlElicitation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = HandlerResult<ElicitResult>> + Send,
{
    fn elicit_url(
        &self,
        request: UrlElicitation,
    ) -> impl Future<Output = HandlerResult<ElicitResult>> + Send {
        self(request)
    }
}

/// Serves `roots/list`: the directories or files the server may work on.
pub trait RootsHandler: Send + Sync + 'static {
    /// The current roots.
    fn list_roots(&self) -> impl Future<Output = HandlerResult<Vec<Root>>> + Send;
}

impl RootsHandler for Vec<Root> {
    fn list_roots(&self) -> impl Future<Output = HandlerResult<Vec<Root>>> + Send {
        std::future::ready(Ok(self.clone()))
    }
}

/// Receives the server's notifications. Every method defaults to doing
/// nothing. Called one at a time, in arrival order, on the client's
/// notification thread behind a bounded queue, never on the driver: a slow
/// handler delays no response (see [`throughput`](crate::throughput) for
/// the queue bound, drops and debouncing).
pub trait NotificationHandler: Send + Sync + 'static {
    /// `notifications/message`: a log message.
    fn on_log(&self, params: LoggingMessageNotificationParams) {
        let _ = params;
    }

    /// Progress of a call that asked for it without a callback of its own
    /// (`progress_token` is the call id).
    fn on_progress(&self, call: &mcp_types::RequestId, progress: Progress) {
        let _ = (call, progress);
    }

    /// `notifications/resources/updated` for a subscribed resource.
    fn on_resource_updated(&self, uri: &str) {
        let _ = uri;
    }

    /// `notifications/{tools,prompts,resources}/list_changed`; `what` is
    /// `"tools"`, `"prompts"` or `"resources"`.
    fn on_list_changed(&self, what: &str) {
        let _ = what;
    }

    /// Every notification not tied to a call or subscription, raw, after
    /// the specific method above (if any) ran.
    fn on_notification(&self, method: &str, params: Option<&RawValue>) {
        let _ = (method, params);
    }
}

impl<T: NotificationHandler> NotificationHandler for Arc<T> {
    fn on_log(&self, params: LoggingMessageNotificationParams) {
        (**self).on_log(params);
    }
    fn on_progress(&self, call: &mcp_types::RequestId, progress: Progress) {
        (**self).on_progress(call, progress);
    }
    fn on_resource_updated(&self, uri: &str) {
        (**self).on_resource_updated(uri);
    }
    fn on_list_changed(&self, what: &str) {
        (**self).on_list_changed(what);
    }
    fn on_notification(&self, method: &str, params: Option<&RawValue>) {
        (**self).on_notification(method, params);
    }
}

/// The registered handlers, type-erased. Lives behind a lock in the
/// client's shared state so `Client::set_*_handler` can replace them.
#[derive(Clone)]
pub(crate) struct Handlers {
    pub(crate) sampling: Option<Arc<dyn DynSampling>>,
    pub(crate) form: Option<Arc<dyn DynForm>>,
    /// Fill omitted form fields from their schema `default` (SEP-1034).
    pub(crate) form_defaults: bool,
    pub(crate) url: Option<Arc<dyn DynUrl>>,
    pub(crate) roots: Option<Arc<dyn DynRoots>>,
    pub(crate) notifications: Option<Arc<dyn NotificationHandler>>,
    /// The normalized root list when the roots come from a list (the
    /// builder's `Vec<Root>` or `Client::set_roots`), to tell a real change
    /// from a repeat.
    pub(crate) roots_list: Option<Arc<Vec<Root>>>,
    /// What the handlers present at connect advertised; later changes do
    /// not alter it.
    pub(crate) advertised: Advertised,
    /// Task-augmented callbacks are served within these limits (2025-11-25).
    pub(crate) served_tasks: Option<crate::serve::tasks::ServedTaskOptions>,
}

/// The client capabilities advertised at connect, one per handler kind.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Advertised {
    pub(crate) sampling: bool,
    pub(crate) form: bool,
    pub(crate) url: bool,
    pub(crate) roots: bool,
    /// Task-augmented `sampling/createMessage` is served.
    pub(crate) task_sampling: bool,
    /// Task-augmented `elicitation/create` is served.
    pub(crate) task_elicitation: bool,
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("sampling", &self.sampling.is_some())
            .field("form", &self.form.is_some())
            .field("url", &self.url.is_some())
            .field("roots", &self.roots.is_some())
            .field("notifications", &self.notifications.is_some())
            .finish_non_exhaustive()
    }
}

impl Default for Handlers {
    fn default() -> Self {
        Handlers {
            sampling: None,
            form: None,
            form_defaults: true,
            url: None,
            roots: None,
            notifications: None,
            roots_list: None,
            advertised: Advertised::default(),
            served_tasks: None,
        }
    }
}

pub(crate) trait DynSampling: Send + Sync {
    fn call(
        self: Arc<Self>,
        p: CreateMessageRequestParams,
    ) -> BoxFuture<'static, HandlerResult<CreateMessageResult>>;
}
impl<T: SamplingHandler> DynSampling for T {
    fn call(
        self: Arc<Self>,
        p: CreateMessageRequestParams,
    ) -> BoxFuture<'static, HandlerResult<CreateMessageResult>> {
        Box::pin(async move { self.create_message(p).await })
    }
}

pub(crate) trait DynForm: Send + Sync {
    fn call(
        self: Arc<Self>,
        p: ElicitRequestFormParams,
    ) -> BoxFuture<'static, HandlerResult<ElicitResult>>;
}
impl<T: FormElicitationHandler> DynForm for T {
    fn call(
        self: Arc<Self>,
        p: ElicitRequestFormParams,
    ) -> BoxFuture<'static, HandlerResult<ElicitResult>> {
        Box::pin(async move { self.elicit_form(p).await })
    }
}

pub(crate) trait DynUrl: Send + Sync {
    fn call(self: Arc<Self>, p: UrlElicitation) -> BoxFuture<'static, HandlerResult<ElicitResult>>;
}
impl<T: UrlElicitationHandler> DynUrl for T {
    fn call(self: Arc<Self>, p: UrlElicitation) -> BoxFuture<'static, HandlerResult<ElicitResult>> {
        Box::pin(async move { self.elicit_url(p).await })
    }
}

pub(crate) trait DynRoots: Send + Sync {
    fn call(self: Arc<Self>) -> BoxFuture<'static, HandlerResult<Vec<Root>>>;
}
impl<T: RootsHandler> DynRoots for T {
    fn call(self: Arc<Self>) -> BoxFuture<'static, HandlerResult<Vec<Root>>> {
        Box::pin(async move { self.list_roots().await })
    }
}

/// What serving one request from the server produces.
pub(crate) type Served = Result<serde_json::Value, ErrorObject>;

fn params_of<T: serde::de::DeserializeOwned>(raw: Option<&RawValue>) -> Result<T, ErrorObject> {
    let text = raw.map_or("{}", RawValue::get);
    // The text reader, as every other decode (`mcp_types::raw::parse`):
    // one reader type means one copy of each type's decoder in the binary.
    serde_json::from_str(text).map_err(|e| malformed(&e))
}

/// The answer to params that do not have their method's shape (`-32602`).
fn malformed(e: &serde_json::Error) -> ErrorObject {
    HandlerError::invalid_params(format!("malformed params: {e}")).into_error_object()
}

fn finish<T: serde::Serialize>(r: HandlerResult<T>) -> Served {
    match r {
        Ok(v) => serde_json::to_value(v).map_err(|e| {
            HandlerError::internal(format!("could not encode the answer: {e}")).into_error_object()
        }),
        Err(e) => Err(e.into_error_object()),
    }
}

/// An invalid handler answer: `-32603`, with the reason.
fn invalid_output(what: &str, why: &str) -> ErrorObject {
    tracing::warn!(what, why, "a handler's answer failed validation");
    HandlerError::internal(format!("the client's {what} answer is invalid: {why}"))
        .into_error_object()
}

/// A sampling answer, checked before it is written.
fn finish_sampling(r: HandlerResult<CreateMessageResult>) -> Served {
    let result = r.map_err(HandlerError::into_error_object)?;
    crate::serve::output_check::check_sampling(&result)
        .map_err(|why| invalid_output("sampling", &why))
}

/// A form answer, checked against the form's `requestedSchema` before it
/// is written.
fn finish_form(form: &ElicitRequestFormParams, r: HandlerResult<ElicitResult>) -> Served {
    let result = r.map_err(HandlerError::into_error_object)?;
    let schema = serde_json::to_value(&form.requested_schema)
        .map_err(|e| invalid_output("elicitation", &e.to_string()))?;
    crate::serve::output_check::check_form(&schema, &result)
        .map_err(|why| invalid_output("elicitation", &why))?;
    finish(Ok(result))
}

/// Checks an answer the caller gave a forwarded task input request (the
/// closure of
/// [`TaskHandle::wait_for_task_with_inputs`](crate::TaskHandle::wait_for_task_with_inputs))
/// as a registered handler's answer is checked: a sampling result's shape,
/// a form's content against its `requestedSchema`, the shape of an
/// elicitation or roots result. An invalid answer becomes `-32603`.
pub(crate) fn check_forwarded(
    kind: Option<ServerRequestKind>,
    params: &serde_json::Value,
    answer: serde_json::Value,
) -> Served {
    fn shape<T: serde::de::DeserializeOwned>(
        what: &str,
        v: serde_json::Value,
    ) -> Result<T, ErrorObject> {
        serde_json::from_value(v).map_err(|e| invalid_output(what, &e.to_string()))
    }
    match kind {
        Some(ServerRequestKind::CreateMessage) => finish_sampling(Ok(shape("sampling", answer)?)),
        Some(ServerRequestKind::Elicit) => {
            let url = params.get("mode").and_then(|m| m.as_str()) == Some("url");
            let result: ElicitResult = shape("elicitation", answer)?;
            if url {
                return finish(Ok(result));
            }
            let form: ElicitRequestFormParams = serde_json::from_value(params.clone())
                .map_err(|e| invalid_output("elicitation", &e.to_string()))?;
            finish_form(&form, Ok(result))
        }
        Some(ServerRequestKind::ListRoots) => finish(Ok(
            shape::<mcp_types::roots::ListRootsResult>("roots", answer)?,
        )),
        _ => Ok(answer),
    }
}

impl Handlers {
    /// Records what the registered handlers advertise (at connect).
    pub(crate) fn freeze_advertised(&mut self) {
        self.advertised = Advertised {
            sampling: self.sampling.is_some(),
            form: self.form.is_some(),
            url: self.url.is_some(),
            roots: self.roots.is_some(),
            task_sampling: self.served_tasks.is_some() && self.sampling.is_some(),
            task_elicitation: self.served_tasks.is_some()
                && (self.form.is_some() || self.url.is_some()),
        };
    }

    /// Starts serving one request (`sampling/createMessage`,
    /// `elicitation/create`, `roots/list`; the core answers `ping`), its
    /// params decoded here, once, with the type its handler takes. `None`
    /// when no handler serves it.
    pub(crate) fn serve(&self, request: &ServerRequest) -> Option<BoxFuture<'static, Served>> {
        match request {
            ServerRequest::CreateMessage(p) => {
                let h = self.sampling.clone()?;
                Some(match p.decode() {
                    Ok(p) => Box::pin(async move { finish_sampling(h.call(p).await) }),
                    Err(e) => Box::pin(std::future::ready(Err(malformed(&e)))),
                })
            }
            ServerRequest::ListRoots(_) => {
                let h = self.roots.clone()?;
                Some(Box::pin(async move {
                    finish(h.call().await.map(mcp_types::roots::ListRootsResult::new))
                }))
            }
            ServerRequest::Elicit(e) => self.serve_elicitation(e),
            _ => None,
        }
    }

    /// `elicitation/create`, told apart by the mode read when it was
    /// classified: a URL elicitation's three members are read from the
    /// params, a form is decoded whole.
    fn serve_elicitation(&self, e: &Elicitation) -> Option<BoxFuture<'static, Served>> {
        let value: serde_json::Value = match params_of(e.params.raw()) {
            Ok(v) => v,
            Err(e) => return Some(Box::pin(std::future::ready(Err(e)))),
        };
        if e.mode == ElicitationMode::Url {
            let h = self.url.clone()?;
            let text = |k: &str| value.get(k).and_then(|v| v.as_str()).map(str::to_owned);
            let request = UrlElicitation {
                message: text("message").unwrap_or_default(),
                url: text("url").unwrap_or_default(),
                elicitation_id: text("elicitationId"),
            };
            return Some(Box::pin(async move { finish(h.call(request).await) }));
        }
        let h = self.form.clone()?;
        let defaults = self.form_defaults;
        Some(
            match serde_json::from_value::<ElicitRequestFormParams>(value) {
                Ok(p) => Box::pin(async move {
                    let form = p.clone();
                    let mut answer = h.call(p).await;
                    if let (true, Ok(result)) = (defaults, &mut answer) {
                        crate::serve::form_defaults::apply(&form, result);
                    }
                    finish_form(&form, answer)
                }),
                Err(e) => Box::pin(std::future::ready(Err(HandlerError::invalid_params(
                    format!("malformed form elicitation: {e}"),
                )
                .into_error_object()))),
            },
        )
    }
}
