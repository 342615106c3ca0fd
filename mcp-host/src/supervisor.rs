//! One task per server: connects, keeps the server's listing current,
//! notices when the connection is lost, and reconnects with backoff.
//!
//! The connection counts as lost when a routed call fails on the transport
//! (the host sends [`Control::Died`]), when a 2026-07-28 subscription
//! stream breaks, when the client reports itself closed (checked every
//! `liveness_interval`), or when an HTTP `ping` fails on the transport.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use mcp_client::mcp_types::Era;
use mcp_client::mcp_types::logging::LoggingMessageNotificationParams;
use mcp_client::mcp_types::subscriptions::SubscriptionFilter;
use mcp_client::{Client, Subscription, SubscriptionEvent};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{Interval, MissedTickBehavior};

use crate::backoff::{self, Jitter};
use crate::catalogue::Listing;
use crate::config::{ServerEntry, TransportConfig};
use crate::connect::{StderrTail, connect, with_tail};
use crate::events::{HostEvent, ListKind, ServerState};
use crate::handlers::Notifier;
use crate::host::Shared;
use crate::listing::fetch;

/// What the host tells a server's supervisor.
#[derive(Debug)]
pub(crate) enum Control {
    /// A listing changed (`list_changed` in 2025-11-25).
    Refresh(ListKind),
    /// A routed call met a dead connection of this generation.
    Died { generation: u64, cause: String },
    /// Drop the connection (if any) and connect again now.
    Restart,
    /// The resource subscriptions changed (2026-07-28 reopens its stream);
    /// the sender is told when the new stream is acknowledged.
    Resubscribe(Option<oneshot::Sender<()>>),
    /// Close and end; the sender is told when done.
    Stop(Option<oneshot::Sender<()>>),
}

/// How a connection's watch ended.
enum End {
    Stop(Option<oneshot::Sender<()>>),
    Restart,
    Died(String),
}

/// How a wait between attempts ended.
enum Pause {
    Elapsed,
    Restart,
    Stop(Option<oneshot::Sender<()>>),
}

pub(crate) struct Supervisor {
    pub(crate) shared: Arc<Shared>,
    pub(crate) entry: ServerEntry,
    pub(crate) control: mpsc::UnboundedReceiver<Control>,
    pub(crate) control_tx: mpsc::UnboundedSender<Control>,
    pub(crate) jitter: Jitter,
    pub(crate) tail: Arc<StderrTail>,
}

impl Supervisor {
    fn label(&self) -> &str {
        &self.entry.label
    }

    fn set(&self, state: ServerState) {
        self.shared.set_state(self.label(), state);
    }

    fn stopped(&self, done: Option<oneshot::Sender<()>>) {
        self.set(ServerState::Stopped);
        if let Some(done) = done {
            let _ = done.send(());
        }
    }

    pub(crate) async fn run(mut self) {
        let policy = (self.entry.settings.reconnect).unwrap_or(self.shared.options.reconnect);
        let mut attempt = 0;
        self.set(ServerState::Starting);
        loop {
            self.tail.clear();
            let notifier = Notifier {
                label: self.entry.label.clone(),
                events: self.shared.events.clone(),
                control: self.control_tx.clone(),
            };
            let connecting = connect(&self.shared, &self.entry, notifier, &self.tail);
            let result = tokio::select! {
                r = connecting => r,
                p = pause(&mut self.control, None) => match p {
                    Pause::Stop(done) => return self.stopped(done),
                    Pause::Restart | Pause::Elapsed => continue,
                },
            };
            let cause = match result {
                Ok(client) => {
                    attempt = 0;
                    match self.serve(client).await {
                        End::Stop(done) => return self.stopped(done),
                        End::Restart => {
                            self.set(ServerState::Starting);
                            continue;
                        }
                        End::Died(cause) => cause,
                    }
                }
                Err(f) if f.permanent => {
                    tracing::warn!(cause = %f.cause, "server failed for good");
                    self.set(ServerState::Failed { cause: f.cause });
                    match pause(&mut self.control, None).await {
                        Pause::Stop(done) => return self.stopped(done),
                        Pause::Restart | Pause::Elapsed => {
                            attempt = 0;
                            self.set(ServerState::Starting);
                            continue;
                        }
                    }
                }
                Err(f) => f.cause,
            };
            tracing::info!(%cause, attempt, "server lost or unreachable");
            let delay = backoff::delay(&policy, attempt, &mut self.jitter);
            let wait = match delay {
                None => {
                    let cause = format!("{cause} (gave up after {attempt} reconnect attempts)");
                    self.set(ServerState::Failed { cause });
                    pause(&mut self.control, None).await
                }
                Some(delay) => {
                    attempt += 1;
                    self.set(ServerState::Reconnecting {
                        attempt,
                        delay,
                        cause,
                    });
                    pause(&mut self.control, Some(delay)).await
                }
            };
            match wait {
                Pause::Stop(done) => return self.stopped(done),
                Pause::Restart => {
                    attempt = 0;
                    self.set(ServerState::Starting);
                }
                Pause::Elapsed => {}
            }
        }
    }

    /// Runs one connection: listings, restored state, Ready, the watch;
    /// then takes the server out of the catalogue and closes the client.
    async fn serve(&mut self, client: Client) -> End {
        let mut listing = Listing::default();
        for kind in ListKind::ALL {
            if let Err(e) = fetch(&client, kind, &mut listing).await {
                client.close().await;
                return End::Died(with_tail(e.to_string(), &self.tail));
            }
        }
        let label = self.entry.label.clone();
        let (generation, subs, level) = self
            .shared
            .with_slot(&label, |s| {
                s.generation += 1;
                s.client = Some(client.clone());
                s.listing = listing;
                (s.generation, s.subscriptions.clone(), s.log_level.clone())
            })
            .unwrap_or_default();
        if let Some(level) = level
            && let Err(e) = client.set_log_level(level).await
        {
            tracing::warn!(error = %e, "restoring the log level failed");
        }
        let modern = client.era() == Some(Era::Modern);
        if !modern {
            for uri in &subs {
                if let Err(e) = client.subscribe(uri).await {
                    tracing::warn!(error = %e, %uri, "restoring a subscription failed");
                }
            }
        }
        // The stream is open before Ready: nothing sent after Ready is missed.
        let listen = if modern {
            self.listen(&client).await
        } else {
            None
        };
        self.shared.rebuild(&label, &ListKind::ALL);
        self.set(ServerState::Ready);
        let end = self.watch(&client, generation, listen).await;
        self.shared.with_slot(&label, |s| {
            s.client = None;
            s.listing = Listing::default();
        });
        self.shared.rebuild(&label, &ListKind::ALL);
        client.close().await;
        end
    }

    async fn watch(
        &mut self,
        client: &Client,
        generation: u64,
        mut listen: Option<Subscription>,
    ) -> End {
        let modern = client.era() == Some(Era::Modern);
        let options = &self.shared.options;
        let mut tick = tokio::time::interval(options.liveness_interval);
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let http = matches!(self.entry.transport, TransportConfig::Http(_));
        let mut ping = options.ping_interval.filter(|_| http).map(|d| {
            let mut i = tokio::time::interval_at(tokio::time::Instant::now() + d, d);
            i.set_missed_tick_behavior(MissedTickBehavior::Delay);
            i
        });
        let mut reopen = false;
        loop {
            tokio::select! {
                c = self.control.recv() => match c {
                    None => return End::Stop(None),
                    Some(Control::Stop(done)) => return End::Stop(done),
                    Some(Control::Restart) => return End::Restart,
                    Some(Control::Died { generation: g, cause }) if g == generation => {
                        return End::Died(cause);
                    }
                    Some(Control::Died { .. }) => {}
                    Some(Control::Refresh(kind)) => {
                        if let Err(cause) = self.refresh(client, kind).await {
                            return End::Died(cause);
                        }
                    }
                    Some(Control::Resubscribe(done)) => {
                        if modern {
                            // The new stream first, then the old one goes.
                            listen = self.listen(client).await;
                        }
                        if let Some(done) = done {
                            let _ = done.send(());
                        }
                    }
                },
                event = next_event(&mut listen) => match event {
                    Some(Ok(event)) => {
                        if let Some(kind) = self.on_event(event)
                            && let Err(cause) = self.refresh(client, kind).await
                        {
                            return End::Died(cause);
                        }
                    }
                    Some(Err(e)) if e.is_transport() || e.is_closed() => {
                        return End::Died(with_tail(e.to_string(), &self.tail));
                    }
                    Some(Err(_)) | None => {
                        listen = None;
                        reopen = true;
                    }
                },
                _ = tick.tick() => {
                    if client.is_closed() {
                        return End::Died(with_tail("the connection closed".into(), &self.tail));
                    }
                    if reopen {
                        reopen = false;
                        listen = self.listen(client).await;
                    }
                }
                _ = next_tick(&mut ping) => {
                    if let Err(e) = client.ping().await
                        && (e.is_transport() || e.is_closed())
                    {
                        return End::Died(format!("ping failed: {e}"));
                    }
                }
            }
        }
    }

    /// Opens the 2026-07-28 notification stream: list changes and the
    /// subscribed resources.
    async fn listen(&self, client: &Client) -> Option<Subscription> {
        let subs = (self.shared)
            .with_slot(self.label(), |s| s.subscriptions.clone())
            .unwrap_or_default();
        let filter = subs.into_iter().fold(
            SubscriptionFilter::new()
                .with_tools_list_changed()
                .with_prompts_list_changed()
                .with_resources_list_changed(),
            SubscriptionFilter::with_resource,
        );
        match client.listen(filter).await {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!(error = %e, "subscriptions/listen failed");
                None
            }
        }
    }

    /// Turns a 2026-07-28 notification into an event; returns the listing
    /// to refresh for a `list_changed`.
    fn on_event(&self, event: SubscriptionEvent) -> Option<ListKind> {
        let server = self.entry.label.clone();
        let method = event.method.as_str();
        if let Some(what) = method
            .strip_prefix("notifications/")
            .and_then(|m| m.strip_suffix("/list_changed"))
        {
            return ListKind::from_word(what);
        }
        let host_event = match method {
            "notifications/resources/updated" => {
                #[derive(serde::Deserialize)]
                struct Updated {
                    uri: String,
                }
                let uri = event.params_as::<Updated>().ok()?.uri;
                HostEvent::ResourceUpdated { server, uri }
            }
            "notifications/message" => {
                let params = event.params_as::<LoggingMessageNotificationParams>().ok()?;
                HostEvent::Log { server, params }
            }
            _ => HostEvent::Notification {
                server,
                method: event.method,
                params: event.params,
            },
        };
        let _ = self.shared.events.send(host_event);
        None
    }

    /// Lists `kind` again; `Err` with the cause when the connection is gone.
    /// (A resources change lists skills again as well.)
    async fn refresh(&self, client: &Client, kind: ListKind) -> Result<(), String> {
        let mut listing = (self.shared)
            .with_slot(self.label(), |s| s.listing.clone())
            .unwrap_or_default();
        let kinds = kind.refreshes();
        for &k in kinds {
            fetch(client, k, &mut listing)
                .await
                .map_err(|e| with_tail(e.to_string(), &self.tail))?;
        }
        self.shared.with_slot(self.label(), |s| s.listing = listing);
        self.shared.rebuild(self.label(), kinds);
        Ok(())
    }
}

/// Waits `limit` (forever when `None`) unless a restart or stop comes
/// first; other controls are for a live connection and are dropped.
async fn pause(control: &mut mpsc::UnboundedReceiver<Control>, limit: Option<Duration>) -> Pause {
    let sleep = async {
        match limit {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(sleep);
    loop {
        tokio::select! {
            () = &mut sleep => return Pause::Elapsed,
            c = control.recv() => match c {
                None => return Pause::Stop(None),
                Some(Control::Stop(done)) => return Pause::Stop(done),
                Some(Control::Restart) => return Pause::Restart,
                Some(_) => {}
            },
        }
    }
}

async fn next_event(
    listen: &mut Option<Subscription>,
) -> Option<Result<SubscriptionEvent, mcp_client::Error>> {
    match listen {
        Some(s) => s.next().await,
        None => std::future::pending().await,
    }
}

async fn next_tick(interval: &mut Option<Interval>) {
    match interval {
        Some(i) => {
            i.tick().await;
        }
        None => std::future::pending().await,
    }
}

/// The seed of one server's jitter: the host seed mixed with its label, so
/// servers that fail together do not retry in lockstep.
pub(crate) fn seed_for(seed: u64, label: &str) -> u64 {
    label.bytes().fold(seed ^ 0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_pause_lasts_its_delay_and_drops_controls_for_a_live_connection() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        tx.send(Control::Refresh(ListKind::Tools)).unwrap();
        tx.send(Control::Died {
            generation: 1,
            cause: "old".into(),
        })
        .unwrap();
        let start = tokio::time::Instant::now();
        let p = pause(&mut rx, Some(Duration::from_millis(1500))).await;
        assert!(matches!(p, Pause::Elapsed));
        assert_eq!(start.elapsed(), Duration::from_millis(1500));
        assert!(rx.try_recv().is_err(), "the dropped controls were consumed");
    }

    #[tokio::test(start_paused = true)]
    async fn restart_and_stop_cut_a_pause_short() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let (first_tx, first_rx) = oneshot::channel();
        let start = tokio::time::Instant::now();
        let waiter = tokio::spawn(async move {
            let first = pause(&mut rx, Some(Duration::from_secs(60))).await;
            let _ = first_tx.send((matches!(first, Pause::Restart), tokio::time::Instant::now()));
            matches!(pause(&mut rx, None).await, Pause::Stop(Some(_)))
        });
        tokio::time::advance(Duration::from_secs(2)).await;
        tx.send(Control::Restart).unwrap();
        let (restarted, at) = first_rx.await.unwrap();
        assert!(restarted);
        assert_eq!(at - start, Duration::from_secs(2));
        // Without a delay only a restart or stop ends it, however long.
        tokio::time::advance(Duration::from_secs(3600)).await;
        let (done, _wait) = oneshot::channel();
        tx.send(Control::Stop(Some(done))).unwrap();
        assert!(waiter.await.unwrap());
    }

    #[test]
    fn servers_get_different_jitter_seeds() {
        assert_ne!(seed_for(1, "a"), seed_for(1, "b"));
        assert_eq!(seed_for(1, "a"), seed_for(1, "a"));
        assert_ne!(seed_for(1, "a"), seed_for(2, "a"));
    }
}
