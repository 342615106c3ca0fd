//! Many Model Context Protocol servers as one, the way real hosts (IDEs,
//! desktop assistants, agents, CLIs) run them, on top of `mcp-client`.
//!
//! * [`config`]: the config files hosts already write (`mcpServers`, VS
//!   Code `servers`), one typed entry per server, `${VAR}` expansion,
//!   errors naming the server and the JSON path.
//! * [`Host`]: every server connected concurrently with its own
//!   [`ServerState`]; startup bounded; add, remove and restart at runtime;
//!   close in parallel.
//! * [`Catalogue`]: tools, prompts, resources, templates and skills of all
//!   servers, tagged with their origin label, under collision-free qualified names
//!   ([`NamingPolicy`]); collisions are renamed and reported, never
//!   dropped; refreshed on `list_changed` (both eras) and on reconnect.
//! * Routing: [`Host::call_tool`] by qualified name,
//!   [`Host::read_resource`] bound to its origin, skills loaded and their
//!   files read from their origin only ([`Host::load_skill`],
//!   [`Host::read_skill_file`]); per-server tool filters
//!   ([`config::ToolRules`]: allow/deny names and globs, read-only).
//! * Reconnect with exponential backoff and seeded jitter
//!   ([`backoff`]); a call in flight when its server died fails with the
//!   cause and is never replayed; subscriptions and the log level are
//!   restored.
//! * [`HostHandlers`]: sampling, elicitation and roots shared or per server,
//!   told which server asks; OAuth per server ([`HostBuilder::oauth`]);
//!   one stream of [`HostEvent`]s; a `tracing` span `mcp_host.server` per
//!   server.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_host::{Host, config::Config};
//! let config = Config::load("mcp.json")?;
//! for error in &config.errors {
//!     eprintln!("skipped: {error}");
//! }
//! let host = Host::builder().start(&config).await;
//! for (label, state) in host.states() {
//!     println!("{label}: {state:?}");
//! }
//! host.close().await;
//! # Ok(()) }
//! ```
//!
//! Coming from a hand-written loop over `Client`s? See [`migrating`].

pub mod backoff;
pub mod catalogue;
pub mod config;
mod connect;
mod error;
mod events;
pub mod filter;
mod handlers;
mod host;
mod listing;
pub mod naming;
mod route;
mod skills;
mod supervisor;

pub use catalogue::{Catalogue, Listing, Named, Sourced};
pub use error::HostError;
pub use events::{HostEvent, ListKind, ServerState};
pub use handlers::HostHandlers;
pub use host::{Host, HostBuilder, HostOptions};
pub use naming::{Collision, NamingPolicy};
pub use skills::HostSkill;

/// Migrating from a hand-written host loop.
#[doc = include_str!("../docs/migrating.md")]
pub mod migrating {}
