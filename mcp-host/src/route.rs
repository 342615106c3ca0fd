//! Routing: a qualified name or an origin label to its server's client,
//! with that server's deadlines; a transport failure marks the connection
//! dead and is never retried.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcp_client::mcp_types::logging::LoggingLevel;
use mcp_client::mcp_types::prompts::GetPromptResult;
use mcp_client::mcp_types::resources::ReadResourceResult;
use mcp_client::mcp_types::tools::CallToolResult;
use mcp_client::skills::SkillError;
use mcp_client::{CallOptions, Client};
use serde::Serialize;
use tracing::Instrument;

use crate::connect::{StderrTail, with_tail};
use crate::error::HostError;
use crate::host::Host;
use crate::supervisor::Control;

impl Host {
    /// Calls the tool with this qualified name on its server, with that
    /// server's deadlines. The arguments are anything serde writes as a
    /// JSON object, as for [`Client::call_tool`](mcp_client::Client::call_tool).
    ///
    /// # Errors
    /// [`HostError::UnknownTool`] (also for a tool the filters hide),
    /// [`HostError::NotReady`], [`HostError::ServerDied`] when the
    /// connection ended during the call (it is not replayed),
    /// [`HostError::Call`].
    pub async fn call_tool<A: Serialize>(
        &self,
        name: &str,
        arguments: A,
    ) -> Result<CallToolResult, HostError> {
        self.call_tool_with(name, arguments, CallOptions::new())
            .await
    }

    /// [`Host::call_tool`] with per-call options.
    ///
    /// # Errors
    /// As [`Host::call_tool`].
    pub async fn call_tool_with<A: Serialize>(
        &self,
        name: &str,
        arguments: A,
        options: CallOptions,
    ) -> Result<CallToolResult, HostError> {
        let (origin, tool) = {
            let catalogue = self.catalogue();
            let t = catalogue
                .tool(name)
                .ok_or_else(|| HostError::UnknownTool(name.into()))?;
            (t.origin.clone(), t.item.name.clone())
        };
        let span = tracing::debug_span!("mcp_host.call_tool", server = %origin, tool = %tool);
        self.routed(&origin, |c| async move {
            c.call_tool_with(&tool, arguments, options).await
        })
        .instrument(span)
        .await
    }

    /// Gets the prompt with this qualified name from its server.
    ///
    /// # Errors
    /// [`HostError::UnknownPrompt`], and as [`Host::call_tool`].
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<GetPromptResult, HostError> {
        let (origin, prompt) = {
            let catalogue = self.catalogue();
            let p = catalogue
                .prompt(name)
                .ok_or_else(|| HostError::UnknownPrompt(name.into()))?;
            (p.origin.clone(), p.item.name.clone())
        };
        self.routed(&origin, |c| async move {
            c.get_prompt(&prompt, arguments).await
        })
        .await
    }

    /// Reads `uri` from the server `origin`, and only from it: a resource
    /// (or a skill) of one server can never make the host read from
    /// another.
    ///
    /// # Errors
    /// [`HostError::UnknownServer`], and as [`Host::call_tool`].
    pub async fn read_resource(
        &self,
        origin: &str,
        uri: &str,
    ) -> Result<ReadResourceResult, HostError> {
        self.routed(origin, |c| async move { c.read_resource(uri).await })
            .await
    }

    /// Subscribes to a resource of `origin`; updates arrive as
    /// [`HostEvent::ResourceUpdated`](crate::HostEvent::ResourceUpdated).
    /// Restored after a reconnect. While the server is not ready the
    /// subscription is remembered (and applied when it connects) and
    /// [`HostError::NotReady`] is returned; one the server refuses is
    /// forgotten.
    ///
    /// # Errors
    /// As [`Host::read_resource`].
    pub async fn subscribe(&self, origin: &str, uri: &str) -> Result<(), HostError> {
        let added = self
            .shared()
            .with_slot(origin, |s| s.subscriptions.insert(uri.to_owned()))
            .ok_or_else(|| HostError::UnknownServer(origin.into()))?;
        let client = self.ready(origin)?.0;
        if client.era() == Some(mcp_client::mcp_types::Era::Modern) {
            // The supervisor reopens the stream with the new filter; wait
            // until it is acknowledged, so no update after this is missed.
            if added && let Ok(Some(c)) = self.control(origin) {
                let (done, wait) = tokio::sync::oneshot::channel();
                if c.send(Control::Resubscribe(Some(done))).is_ok() {
                    let _ = wait.await;
                }
            }
            return Ok(());
        }
        let result = self
            .routed(origin, |c| async move { c.subscribe(uri).await })
            .await;
        if let Err(HostError::Call { .. }) = &result {
            self.shared()
                .with_slot(origin, |s| s.subscriptions.remove(uri));
        }
        result
    }

    /// Sets the log level of `origin`; restored after a reconnect.
    ///
    /// # Errors
    /// As [`Host::read_resource`].
    pub async fn set_log_level(&self, origin: &str, level: LoggingLevel) -> Result<(), HostError> {
        self.shared()
            .with_slot(origin, |s| s.log_level = Some(level.clone()))
            .ok_or_else(|| HostError::UnknownServer(origin.into()))?;
        self.routed(origin, |c| async move { c.set_log_level(level).await })
            .await
    }

    /// The connected client of `label` and its connection generation.
    pub(crate) fn ready(&self, label: &str) -> Result<(Client, u64, Arc<StderrTail>), HostError> {
        let found = self
            .shared()
            .with_slot(label, |s| match &s.client {
                Some(c) => Ok((c.clone(), s.generation, s.tail.clone())),
                None => Err(s.state.clone()),
            })
            .ok_or_else(|| HostError::UnknownServer(label.into()))?;
        found.map_err(|state| HostError::NotReady {
            server: label.into(),
            state,
        })
    }

    /// Runs `f` on the client of `label`; a transport failure marks the
    /// connection dead (once, for its generation) and is reported with
    /// its cause; nothing is retried.
    pub(crate) async fn routed<T, E, F, Fut>(&self, label: &str, f: F) -> Result<T, HostError>
    where
        E: Routed,
        F: FnOnce(Client) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let (client, generation, tail) = self.ready(label)?;
        match f(client).await {
            Ok(v) => Ok(v),
            Err(e) if e.connection_gone().is_some() => {
                let gone = e.connection_gone().map(ToString::to_string);
                let cause = with_tail(gone.unwrap_or_default(), &tail);
                if let Ok(Some(c)) = self.control(label) {
                    let died = Control::Died {
                        generation,
                        cause: cause.clone(),
                    };
                    let _ = c.send(died);
                }
                Err(HostError::ServerDied {
                    server: label.into(),
                    cause,
                })
            }
            Err(e) => Err(e.into_host(label)),
        }
    }
}

/// An error a routed call can fail with.
pub(crate) trait Routed {
    /// The client's error when the connection is gone (transport or closed).
    fn connection_gone(&self) -> Option<&mcp_client::Error>;
    /// The host error for any other failure on `server`.
    fn into_host(self, server: &str) -> HostError;
}

impl Routed for mcp_client::Error {
    fn connection_gone(&self) -> Option<&mcp_client::Error> {
        (self.is_transport() || self.is_closed()).then_some(self)
    }

    fn into_host(self, server: &str) -> HostError {
        HostError::Call {
            server: server.into(),
            source: self,
        }
    }
}

impl Routed for SkillError {
    fn connection_gone(&self) -> Option<&mcp_client::Error> {
        match self {
            SkillError::Request(e) => e.connection_gone(),
            _ => None,
        }
    }

    fn into_host(self, server: &str) -> HostError {
        HostError::Skill {
            server: server.into(),
            source: self,
        }
    }
}
