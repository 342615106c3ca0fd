//! Test support for `mcp-client`'s facade tests, like the core's: a scripted
//! in-memory peer on tokio's paused clock, a scripted loopback HTTP server,
//! and the demo server reached the four ways.
//!
//! - [`scripted`] gives a [`ScriptedTransport`] (an `mcp_client::Transport`
//!   for `ClientBuilder::transport`) and its [`Peer`]. The peer answers the
//!   client by rules ([`Peer::on`], [`Peer::answer`], [`Peer::on_id`]),
//!   sends notifications, server requests, broken frames and closes
//!   ([`Peer::deliver`]), each after a delay on tokio's clock, and reads
//!   back every frame the client sent ([`Peer::next_frame`],
//!   [`Peer::frames`], [`Peer::transcript`]).
//! - Time is tokio's: under `#[tokio::test(start_paused = true)]` a delay of
//!   an hour costs nothing, and a wait for the client
//!   ([`Peer::next_frame`], [`Peer::settle`]) lets the clock run exactly as
//!   far as the client's own timers take it, so a test can assert *when*
//!   the client acted, not only that it did.
//! - [`servers`] has the canned handshakes of each era
//!   ([`Peer::serve_modern`], [`Peer::serve_legacy`]); [`http`] the
//!   primitives of a scripted loopback HTTP/1.1 server, and
//!   [`ScriptedHttpServer`] one built on them that plays an era, logs every
//!   request with its headers and says what it saw; [`demo`] the demo
//!   server over stdio and HTTP in both eras, with
//!   [`demo::Server::until`] to await what the server saw (a request in
//!   flight, a cancellation, a notification) instead of polling its
//!   counters.
//! - [`Recorder`] collects what handlers and callbacks saw and waits for a
//!   condition on it, woken by each push: the replacement for
//!   sleep-and-poll loops.
//!
//! ```
//! use std::time::Duration;
//! use mcp_client::{Client, EraPreference};
//! use mcp_testkit::{capabilities, scripted};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() {
//! let (transport, mut peer) = scripted();
//! peer.serve_modern(capabilities());
//! // The server answers `tools/list` after five (virtual) seconds.
//! peer.answer_after("tools/list", Duration::from_secs(5), json!({"tools": []}));
//!
//! let client = Client::builder()
//!     .era(EraPreference::ModernOnly)
//!     .transport(transport)
//!     .connect()
//!     .await
//!     .unwrap();
//! let started = tokio::time::Instant::now();
//! let tools = client.list_all_tools().await.unwrap();
//! assert!(tools.is_empty());
//! assert_eq!(started.elapsed(), Duration::from_secs(5));
//!
//! let list = peer.next_request("tools/list").await;
//! assert_eq!(list.params()["_meta"]["io.modelcontextprotocol/protocolVersion"], "2026-07-28");
//! client.close().await;
//! peer.closed().await;
//! # }
//! ```

mod delivery;
pub mod demo;
mod frame;
pub mod http;
mod http_server;
mod peer;
mod recorder;
pub mod servers;
mod state;
mod transport;

pub use delivery::Delivery;
pub use frame::Frame;
pub use http_server::{Answers, ScriptedHttpServer};
pub use peer::{DEFAULT_PATIENCE, Peer, scripted};
pub use recorder::Recorder;
pub use servers::{capabilities, discover_result, initialize_result};
pub use transport::ScriptedTransport;
