//! [`Host`]: the servers of a config run as one.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_client::Client;
use mcp_client::mcp_types::logging::LoggingLevel;
use mcp_client::oauth::OAuthConfig;
use mcp_client::oauth::store::{MemoryStore, TokenStore};
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tracing::Instrument;

use crate::backoff::{Backoff, Jitter};
use crate::catalogue::{Catalogue, Listing, Part};
use crate::config::{Config, ServerEntry};
use crate::connect::StderrTail;
use crate::error::HostError;
use crate::events::{HostEvent, ListKind, ServerState};
use crate::handlers::HostHandlers;
use crate::naming::NamingPolicy;
use crate::supervisor::{Control, Supervisor, seed_for};

/// Host-wide settings; a server's `mcpHost` keys override the per-server
/// ones.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HostOptions {
    /// How qualified names are made.
    pub naming: NamingPolicy,
    /// How long one connection attempt may take (default 30 s).
    pub connect_timeout: Duration,
    /// How long [`HostBuilder::start`] waits for the servers to leave
    /// [`ServerState::Starting`] (default 10 s): startup never waits on the
    /// slowest server beyond it.
    pub startup_bound: Duration,
    /// The default deadline of each request (`None`: the client's default).
    pub request_timeout: Option<Duration>,
    /// The default reconnect policy.
    pub reconnect: Backoff,
    /// The seed of the reconnect jitter (mixed with each server's label).
    pub seed: u64,
    /// How often a connection is checked for having closed (default
    /// 250 ms; a cheap flag read, no traffic).
    pub liveness_interval: Duration,
    /// How often an HTTP server is pinged to notice it became unreachable
    /// (default 30 s; `None` never).
    pub ping_interval: Option<Duration>,
    /// The `clientInfo` name and version sent to every server.
    pub client_name: String,
    /// See `client_name`.
    pub client_version: String,
    /// How many events the stream buffers per receiver (default 1024); a
    /// receiver further behind gets `Lagged`.
    pub event_capacity: usize,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            naming: NamingPolicy::default(),
            connect_timeout: Duration::from_secs(30),
            startup_bound: Duration::from_secs(10),
            request_timeout: None,
            reconnect: Backoff::default(),
            seed: 0x6d63_702d_686f_7374,
            liveness_interval: Duration::from_millis(250),
            ping_interval: Some(Duration::from_secs(30)),
            client_name: "mcp-host".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            event_capacity: 1024,
        }
    }
}

pub(crate) type OAuthFactory = Arc<dyn Fn(&ServerEntry) -> Option<OAuthConfig> + Send + Sync>;

/// One server as the host keeps it.
pub(crate) struct Slot {
    pub(crate) entry: ServerEntry,
    pub(crate) state: ServerState,
    pub(crate) client: Option<Client>,
    /// Bumped per connection, so a failure seen on an old one is ignored.
    pub(crate) generation: u64,
    pub(crate) listing: Listing,
    pub(crate) subscriptions: BTreeSet<String>,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) control: Option<mpsc::UnboundedSender<Control>>,
    pub(crate) tail: Arc<StderrTail>,
}

/// What the host and its supervisors share.
pub(crate) struct Shared {
    pub(crate) options: HostOptions,
    pub(crate) handlers: HostHandlers,
    pub(crate) oauth: Option<OAuthFactory>,
    pub(crate) token_store: Arc<dyn TokenStore>,
    pub(crate) events: broadcast::Sender<HostEvent>,
    slots: Mutex<Vec<Slot>>,
    catalogue: Mutex<Arc<Catalogue>>,
    changed: watch::Sender<u64>,
    closed: Mutex<bool>,
}

impl Shared {
    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the slot of `label`.
    pub(crate) fn with_slot<R>(&self, label: &str, f: impl FnOnce(&mut Slot) -> R) -> Option<R> {
        self.slots()
            .iter_mut()
            .find(|s| s.entry.label == label)
            .map(f)
    }

    pub(crate) fn set_state(&self, label: &str, state: ServerState) {
        if self.with_slot(label, |s| s.state = state.clone()).is_none() {
            return;
        }
        tracing::debug!(server = label, ?state, "state");
        self.changed.send_modify(|n| *n += 1);
        let server = label.to_owned();
        let _ = self.events.send(HostEvent::State { server, state });
    }

    /// Rebuilds the catalogue from the connected servers and announces the
    /// `kinds` of `label` as changed.
    pub(crate) fn rebuild(&self, label: &str, kinds: &[ListKind]) {
        {
            // The catalogue lock is held while the slots are read, so two
            // servers rebuilding at once cannot store an older snapshot over
            // a newer one. Lock order: catalogue, then slots.
            let mut current = self
                .catalogue
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let slots = self.slots();
            let parts: Vec<Part<'_>> = slots
                .iter()
                .filter(|s| s.client.is_some())
                .map(|s| Part {
                    label: &s.entry.label,
                    rules: &s.entry.settings.tools,
                    listing: &s.listing,
                })
                .collect();
            *current = Arc::new(Catalogue::build(&self.options.naming, &parts));
        }
        for &kind in kinds {
            let server = label.to_owned();
            let _ = self
                .events
                .send(HostEvent::CatalogueChanged { server, kind });
        }
    }

    fn spawn(self: &Arc<Self>, entry: &ServerEntry) -> mpsc::UnboundedSender<Control> {
        let (tx, rx) = mpsc::unbounded_channel();
        let tail = self
            .with_slot(&entry.label, |s| s.tail.clone())
            .unwrap_or_default();
        let supervisor = Supervisor {
            shared: self.clone(),
            entry: entry.clone(),
            control: rx,
            control_tx: tx.clone(),
            jitter: Jitter::new(seed_for(self.options.seed, &entry.label)),
            tail,
        };
        let span = tracing::info_span!("mcp_host.server", server = %entry.label);
        tokio::spawn(supervisor.run().instrument(span));
        tx
    }
}

/// Builds a [`Host`].
#[derive(Default)]
pub struct HostBuilder {
    options: HostOptions,
    handlers: HostHandlers,
    oauth: Option<OAuthFactory>,
    token_store: Option<Arc<dyn TokenStore>>,
}

impl std::fmt::Debug for HostBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostBuilder")
            .field("options", &self.options)
            .field("handlers", &self.handlers)
            .field("oauth", &self.oauth.is_some())
            .finish_non_exhaustive()
    }
}

impl HostBuilder {
    /// Host-wide settings.
    pub fn options(mut self, options: HostOptions) -> Self {
        self.options = options;
        self
    }

    /// The sampling, elicitation and roots handlers.
    pub fn handlers(mut self, handlers: HostHandlers) -> Self {
        self.handlers = handlers;
        self
    }

    /// The OAuth flow of each HTTP server that needs one: called per
    /// connection with the entry (its `mcpHost.oauth` keys included);
    /// `None` leaves the server without OAuth. The host gives each server
    /// its own view of the token store.
    pub fn oauth(
        mut self,
        factory: impl Fn(&ServerEntry) -> Option<OAuthConfig> + Send + Sync + 'static,
    ) -> Self {
        self.oauth = Some(Arc::new(factory));
        self
    }

    /// Where OAuth registrations and tokens are kept, partitioned by
    /// server label (default: in memory).
    pub fn token_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.token_store = Some(store);
        self
    }

    /// A host without servers ([`Host::add`] them).
    pub fn build(self) -> Host {
        let (events, _) = broadcast::channel(self.options.event_capacity.max(1));
        let shared = Shared {
            options: self.options,
            handlers: self.handlers,
            oauth: self.oauth,
            token_store: self
                .token_store
                .unwrap_or_else(|| Arc::new(MemoryStore::new())),
            events,
            slots: Mutex::new(Vec::new()),
            catalogue: Mutex::new(Arc::new(Catalogue::default())),
            changed: watch::Sender::new(0),
            closed: Mutex::new(false),
        };
        Host {
            inner: Arc::new(HostInner {
                shared: Arc::new(shared),
            }),
        }
    }

    /// Starts every server of `config` concurrently and returns when none
    /// is still starting, or after [`HostOptions::startup_bound`]; the
    /// slow ones go on connecting. Disabled entries are listed as
    /// [`ServerState::Disabled`]. Must be called within a Tokio runtime.
    pub async fn start(self, config: &Config) -> Host {
        let host = self.build();
        for entry in &config.servers {
            // Labels in a parsed config are unique, and the host is open.
            let _ = host.add(entry.clone());
        }
        let bound = host.inner.shared.options.startup_bound;
        host.wait_started(bound).await;
        host
    }
}

struct HostInner {
    shared: Arc<Shared>,
}

impl Drop for HostInner {
    // The last handle is gone: the supervisors stop and close their
    // servers (call `Host::close` to wait for that).
    fn drop(&mut self) {
        for slot in self.shared.slots().iter() {
            if let Some(c) = &slot.control {
                let _ = c.send(Control::Stop(None));
            }
        }
    }
}

/// Many servers as one: their lifecycles, one catalogue, routed calls, one
/// event stream. Cheap to clone.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_host::{Host, config::Config};
/// let config = Config::load("mcp.json")?;
/// let host = Host::builder().start(&config).await;
/// for tool in &host.catalogue().tools {
///     println!("{} (from {})", tool.name, tool.origin);
/// }
/// let result = host.call_tool("files__read", serde_json::json!({"path": "README.md"})).await?;
/// # let _ = result;
/// host.close().await;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Host {
    inner: Arc<HostInner>,
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("servers", &self.states())
            .finish_non_exhaustive()
    }
}

impl Host {
    /// A builder.
    pub fn builder() -> HostBuilder {
        HostBuilder::default()
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.inner.shared
    }

    // ---- servers ----

    /// Adds a server and starts connecting it (unless disabled); does not
    /// wait.
    ///
    /// # Errors
    /// [`HostError::DuplicateLabel`], [`HostError::Closed`].
    pub fn add(&self, entry: ServerEntry) -> Result<(), HostError> {
        let shared = self.shared();
        {
            if *shared.closed.lock().unwrap_or_else(PoisonError::into_inner) {
                return Err(HostError::Closed);
            }
            let mut slots = shared.slots();
            if slots.iter().any(|s| s.entry.label == entry.label) {
                return Err(HostError::DuplicateLabel(entry.label));
            }
            slots.push(Slot {
                entry: entry.clone(),
                state: ServerState::Starting,
                client: None,
                generation: 0,
                listing: Listing::default(),
                subscriptions: BTreeSet::new(),
                log_level: None,
                control: None,
                tail: Arc::default(),
            });
        }
        if entry.disabled {
            shared.set_state(&entry.label, ServerState::Disabled);
        } else {
            let control = shared.spawn(&entry);
            shared.with_slot(&entry.label, |s| s.control = Some(control));
        }
        Ok(())
    }

    /// Stops a server (closing its connection) and removes it; its entries
    /// leave the catalogue.
    ///
    /// # Errors
    /// [`HostError::UnknownServer`].
    pub async fn remove(&self, label: &str) -> Result<(), HostError> {
        let control = self.control(label)?;
        if let Some(c) = control {
            let (done, wait) = oneshot::channel();
            if c.send(Control::Stop(Some(done))).is_ok() {
                let _ = wait.await;
            }
        }
        let shared = self.shared();
        shared.slots().retain(|s| s.entry.label != label);
        shared.rebuild(label, &ListKind::ALL);
        shared.changed.send_modify(|n| *n += 1);
        Ok(())
    }

    /// Drops the server's connection and connects again now, resetting its
    /// backoff; starts a disabled or failed server.
    ///
    /// # Errors
    /// [`HostError::UnknownServer`], [`HostError::Closed`].
    pub fn restart(&self, label: &str) -> Result<(), HostError> {
        let shared = self.shared();
        if *shared.closed.lock().unwrap_or_else(PoisonError::into_inner) {
            return Err(HostError::Closed);
        }
        match self.control(label)? {
            Some(c) => {
                let _ = c.send(Control::Restart);
            }
            None => {
                let entry = shared
                    .with_slot(label, |s| s.entry.clone())
                    .ok_or_else(|| HostError::UnknownServer(label.into()))?;
                let control = shared.spawn(&entry);
                shared.with_slot(label, |s| s.control = Some(control));
            }
        }
        Ok(())
    }

    pub(crate) fn control(
        &self,
        label: &str,
    ) -> Result<Option<mpsc::UnboundedSender<Control>>, HostError> {
        self.shared()
            .with_slot(label, |s| s.control.clone())
            .ok_or_else(|| HostError::UnknownServer(label.into()))
    }

    /// Waits until no server is [`ServerState::Starting`], at most `bound`;
    /// returns whether they all left it.
    pub async fn wait_started(&self, bound: Duration) -> bool {
        let shared = self.shared();
        let mut changed = shared.changed.subscribe();
        let deadline = tokio::time::Instant::now() + bound;
        loop {
            if !shared.slots().iter().any(|s| s.state.is_starting()) {
                return true;
            }
            match tokio::time::timeout_at(deadline, changed.changed()).await {
                Ok(Ok(())) => {}
                _ => return false,
            }
        }
    }

    /// Closes every server in parallel (stdio servers get the staged
    /// shutdown: stdin closed, then SIGTERM, then SIGKILL) and returns when
    /// all are closed. Later calls fail with [`HostError::Closed`] or
    /// [`HostError::NotReady`].
    pub async fn close(&self) {
        let shared = self.shared();
        *shared.closed.lock().unwrap_or_else(PoisonError::into_inner) = true;
        let controls: Vec<_> = shared.slots().iter().map(|s| s.control.clone()).collect();
        let waits = controls.into_iter().flatten().filter_map(|c| {
            let (done, wait) = oneshot::channel();
            c.send(Control::Stop(Some(done))).ok().map(|()| wait)
        });
        futures::future::join_all(waits).await;
        let labels: Vec<String> = shared
            .slots()
            .iter()
            .map(|s| s.entry.label.clone())
            .collect();
        for label in labels {
            shared.set_state(&label, ServerState::Stopped);
        }
    }

    /// The state of one server.
    pub fn state(&self, label: &str) -> Option<ServerState> {
        self.shared().with_slot(label, |s| s.state.clone())
    }

    /// Every server's label and state, in the order they were added.
    pub fn states(&self) -> Vec<(String, ServerState)> {
        let slots = self.shared().slots();
        slots
            .iter()
            .map(|s| (s.entry.label.clone(), s.state.clone()))
            .collect()
    }

    /// The connected client of a server, for what the host does not route.
    pub fn client(&self, label: &str) -> Option<Client> {
        self.shared()
            .with_slot(label, |s| s.client.clone())
            .flatten()
    }

    // ---- catalogue and events ----

    /// The current catalogue (a snapshot).
    pub fn catalogue(&self) -> Arc<Catalogue> {
        let c = self.shared().catalogue.lock();
        c.unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// A receiver of every host event from now on.
    pub fn events(&self) -> broadcast::Receiver<HostEvent> {
        self.shared().events.subscribe()
    }
}
