//! Handlers for what servers ask of the host (sampling, elicitation,
//! roots), shared by all servers or set per server, always told which
//! server asks; and the per-server notification handler feeding the host's
//! event stream.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_client::mcp_types::elicitation::{ElicitRequestFormParams, ElicitResult};
use mcp_client::mcp_types::logging::LoggingMessageNotificationParams;
use mcp_client::mcp_types::roots::Root;
use mcp_client::mcp_types::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcp_client::{ClientBuilder, HandlerResult, NotificationHandler, UrlElicitation};
use serde_json::value::RawValue;
use tokio::sync::{broadcast, mpsc};

use crate::events::{HostEvent, ListKind};
use crate::supervisor::Control;

type Fut<T> = Pin<Box<dyn Future<Output = HandlerResult<T>> + Send>>;
type Handler<P, R> = Arc<dyn Fn(String, P) -> Fut<R> + Send + Sync>;

/// One set of handlers; every field optional.
#[derive(Clone, Default)]
struct Set {
    sampling: Option<Handler<CreateMessageRequestParams, CreateMessageResult>>,
    form: Option<Handler<ElicitRequestFormParams, ElicitResult>>,
    url: Option<Handler<UrlElicitation, ElicitResult>>,
    roots: Option<Vec<Root>>,
}

/// The handlers of a host: shared ones, and per-server ones that replace
/// them field by field. Each is called with the label of the server that
/// asks. A server only sees a capability advertised when a handler for it
/// is set (shared or its own).
///
/// ```
/// use mcp_client::HandlerError;
/// use mcp_client::mcp_types::elicitation::ElicitResult;
/// use mcp_host::HostHandlers;
/// let handlers = HostHandlers::new()
///     .form_elicitation(|server: String, params| async move {
///         println!("{server} asks: {}", params.message);
///         Ok::<_, HandlerError>(ElicitResult::decline())
///     })
///     .for_server("untrusted", HostHandlers::new().form_elicitation(|_, _| async {
///         Ok(ElicitResult::decline())
///     }));
/// # let _ = handlers;
/// ```
#[derive(Clone, Default)]
pub struct HostHandlers {
    shared: Set,
    per_server: BTreeMap<String, Set>,
}

impl std::fmt::Debug for HostHandlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHandlers")
            .field("sampling", &self.shared.sampling.is_some())
            .field("form", &self.shared.form.is_some())
            .field("url", &self.shared.url.is_some())
            .field("roots", &self.shared.roots.as_ref().map(Vec::len))
            .field("per_server", &self.per_server.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl HostHandlers {
    /// No handlers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `sampling/createMessage`.
    pub fn sampling<F, R>(mut self, f: F) -> Self
    where
        F: Fn(String, CreateMessageRequestParams) -> R + Send + Sync + 'static,
        R: Future<Output = HandlerResult<CreateMessageResult>> + Send + 'static,
    {
        self.shared.sampling = Some(Arc::new(move |s, p| Box::pin(f(s, p))));
        self
    }

    /// Serves form-mode `elicitation/create`.
    pub fn form_elicitation<F, R>(mut self, f: F) -> Self
    where
        F: Fn(String, ElicitRequestFormParams) -> R + Send + Sync + 'static,
        R: Future<Output = HandlerResult<ElicitResult>> + Send + 'static,
    {
        self.shared.form = Some(Arc::new(move |s, p| Box::pin(f(s, p))));
        self
    }

    /// Serves URL-mode `elicitation/create`.
    pub fn url_elicitation<F, R>(mut self, f: F) -> Self
    where
        F: Fn(String, UrlElicitation) -> R + Send + Sync + 'static,
        R: Future<Output = HandlerResult<ElicitResult>> + Send + 'static,
    {
        self.shared.url = Some(Arc::new(move |s, p| Box::pin(f(s, p))));
        self
    }

    /// Answers `roots/list` with this list.
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.shared.roots = Some(roots);
        self
    }

    /// Handlers for the server `label` only: each one set in `handlers`
    /// replaces the shared one for that server.
    pub fn for_server(mut self, label: impl Into<String>, handlers: HostHandlers) -> Self {
        self.per_server.insert(label.into(), handlers.shared);
        self
    }

    /// Registers the handlers that apply to `label` on `builder`.
    pub(crate) fn apply(&self, label: &str, mut builder: ClientBuilder) -> ClientBuilder {
        let own = self.per_server.get(label);
        let pick = |f: fn(&Set) -> bool| own.filter(|o| f(o)).unwrap_or(&self.shared);
        let set = pick(|s| s.sampling.is_some());
        if let Some(h) = set.sampling.clone() {
            let label = label.to_owned();
            builder = builder.sampling(move |p| h(label.clone(), p));
        }
        if let Some(h) = pick(|s| s.form.is_some()).form.clone() {
            let label = label.to_owned();
            builder = builder.form_elicitation(move |p| h(label.clone(), p));
        }
        if let Some(h) = pick(|s| s.url.is_some()).url.clone() {
            let label = label.to_owned();
            builder = builder.url_elicitation(move |p| h(label.clone(), p));
        }
        if let Some(roots) = pick(|s| s.roots.is_some()).roots.clone() {
            builder = builder.roots(roots);
        }
        builder
    }
}

/// One server's notification handler: events go to the host's stream,
/// `list_changed` to the server's supervisor.
pub(crate) struct Notifier {
    pub(crate) label: String,
    pub(crate) events: broadcast::Sender<HostEvent>,
    pub(crate) control: mpsc::UnboundedSender<Control>,
}

impl Notifier {
    pub(crate) fn emit(&self, event: HostEvent) {
        // No receiver is not an error: nobody listens.
        let _ = self.events.send(event);
    }
}

/// Notifications [`Notifier`] turns into specific events.
const SPECIFIC: &[&str] = &[
    "notifications/message",
    "notifications/resources/updated",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
];

impl NotificationHandler for Notifier {
    fn on_log(&self, params: LoggingMessageNotificationParams) {
        let server = self.label.clone();
        self.emit(HostEvent::Log { server, params });
    }

    fn on_resource_updated(&self, uri: &str) {
        let server = self.label.clone();
        let uri = uri.to_owned();
        self.emit(HostEvent::ResourceUpdated { server, uri });
    }

    fn on_list_changed(&self, what: &str) {
        if let Some(kind) = ListKind::from_word(what) {
            let _ = self.control.send(Control::Refresh(kind));
        }
    }

    fn on_notification(&self, method: &str, params: Option<&RawValue>) {
        if SPECIFIC.contains(&method) {
            return;
        }
        self.emit(HostEvent::Notification {
            server: self.label.clone(),
            method: method.to_owned(),
            params: params.map(|p| p.to_owned()),
        });
    }
}
