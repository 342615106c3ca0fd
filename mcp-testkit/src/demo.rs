//! The demo server reached the four ways (stdio or HTTP, each era), for
//! end-to-end tests against a real peer.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use demo_server::{DemoOptions, DemoServer, HttpHandle};
use mcp_client::mcp_types::content::ContentBlock;
use mcp_client::{ClientBuilder, EraPreference, ServerCommand};

/// How long [`Server::until`] waits for the demo server before it fails
/// the test (real time: the demo server runs on real sockets and
/// processes).
pub const SERVER_PATIENCE: Duration = Duration::from_secs(10);

/// Transport and era of one end-to-end run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// A child process on stdio, 2025-11-25.
    StdioLegacy,
    /// A child process on stdio, 2026-07-28.
    StdioModern,
    /// Streamable HTTP on loopback, 2025-11-25.
    HttpLegacy,
    /// Streamable HTTP on loopback, 2026-07-28.
    HttpModern,
}

/// Every transport and era.
pub const ALL: [Via; 4] = [
    Via::StdioLegacy,
    Via::StdioModern,
    Via::HttpLegacy,
    Via::HttpModern,
];

impl Via {
    /// The 2026-07-28 era.
    pub fn modern(self) -> bool {
        matches!(self, Via::StdioModern | Via::HttpModern)
    }

    /// Streamable HTTP.
    pub fn http(self) -> bool {
        matches!(self, Via::HttpLegacy | Via::HttpModern)
    }

    fn era(self) -> EraPreference {
        if self.modern() {
            EraPreference::ModernOnly
        } else {
            EraPreference::LegacyOnly
        }
    }
}

/// The demo example binary, which serves the demo server on stdio when
/// started with `--serve-stdio`. Built once per test process (a no-op when
/// it is fresh), so a test never runs a stale copy.
pub fn demo_exe() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let me = std::env::current_exe().expect("test executable path");
        // target/<profile>/deps/<test binary>
        let profile_dir = me.parent().and_then(|d| d.parent()).expect("target dir");
        let exe = profile_dir
            .join("examples")
            .join(format!("demo{}", std::env::consts::EXE_SUFFIX));
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "-q", "-p", "mcp-client", "--example", "demo"])
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building the demo example failed");
        exe
    })
    .clone()
}

/// A running demo server reachable the way `via` says.
pub struct Server {
    /// How it is reached.
    pub via: Via,
    /// The server itself (its counters).
    pub demo: DemoServer,
    http: Option<HttpHandle>,
}

impl Server {
    /// Starts a demo server with default options.
    pub async fn start(via: Via) -> Server {
        Server::with_options(via, DemoOptions::default()).await
    }

    /// Starts a demo server with these options.
    pub async fn with_options(via: Via, options: DemoOptions) -> Server {
        let demo = DemoServer::new(options);
        let http = if via.http() {
            Some(
                demo.serve_http("127.0.0.1:0".parse().expect("addr"))
                    .await
                    .expect("serve http"),
            )
        } else {
            None
        };
        Server { via, demo, http }
    }

    /// A builder for this server: stdio runs a child process, HTTP the
    /// in-process server.
    pub fn builder(&self) -> ClientBuilder {
        // Every e2e test runs in strict mode (issue 9).
        let b = mcp_client::Client::builder()
            .era(self.via.era())
            .strict(true);
        match &self.http {
            Some(h) => b.http(&h.url()),
            None => b.stdio(ServerCommand::new(demo_exe()).arg("--serve-stdio")),
        }
    }

    /// A builder whose stdio variant runs the server in this process over
    /// an in-memory pipe, so tests can observe the server's counters.
    pub fn observable_builder(&self) -> ClientBuilder {
        // Every e2e test runs in strict mode (issue 9).
        let b = mcp_client::Client::builder()
            .era(self.via.era())
            .strict(true);
        match &self.http {
            Some(h) => b.http(&h.url()),
            None => {
                let (client_end, server_end) = tokio::io::duplex(1 << 20);
                let (sr, sw) = tokio::io::split(server_end);
                let demo = self.demo.clone();
                tokio::spawn(async move { demo.serve_io(sr, sw).await });
                let (cr, cw) = tokio::io::split(client_end);
                b.io(cr, cw)
            }
        }
    }

    /// Waits until `holds` is true of the demo server, woken by each
    /// change of its counters ([`DemoServer::wait_until`]); fails the test
    /// naming `what` (and the counters' state as `holds` sees it) when
    /// [`SERVER_PATIENCE`] passes first, a guard against a hang, not a
    /// poll.
    pub async fn until(&self, what: &str, holds: impl FnMut(&DemoServer) -> bool) {
        let wait = self.demo.wait_until(holds);
        if tokio::time::timeout(SERVER_PATIENCE, wait).await.is_err() {
            panic!(
                "{:?}: the demo server did not see {what} within {SERVER_PATIENCE:?} \
                 (in flight {}, cancelled {})",
                self.via,
                self.demo.in_flight(),
                self.demo.cancelled_requests()
            );
        }
    }

    /// The HTTP endpoint (`None` for stdio).
    pub fn url(&self) -> Option<String> {
        self.http.as_ref().map(HttpHandle::url)
    }
}

/// The text blocks of a result, joined by spaces.
pub fn text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join(" ")
}
