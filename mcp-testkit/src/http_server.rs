//! [`ScriptedHttpServer`]: a Streamable HTTP server on loopback that plays
//! one era with a test's answers, logs every request with its headers, and
//! tells the test what it saw (notifications, held requests given up), so
//! a test awaits the event instead of polling for it.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::BufReader;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use crate::http::{Headers, read_request_at, respond};
use crate::servers::{capabilities, discover_result, initialize_result};

/// A test's answers: the result for a method and its params, or `None` to
/// hold the request unanswered until the client gives up on it.
pub type Answers = Arc<dyn Fn(&str, &Value) -> Option<Value> + Send + Sync>;

/// A scripted Streamable HTTP server at `http://127.0.0.1:PORT/mcp`.
///
/// It answers `initialize` (2025-11-25, session `s-1`) or `server/discover`
/// (2026-07-28) with the canned [`capabilities`], other requests with the
/// test's [`Answers`], notifications with `202`, `GET` with `405` and
/// `DELETE` with `200`. Each connection is served by its own task.
///
/// ```
/// use mcp_testkit::ScriptedHttpServer;
/// use serde_json::json;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let server = ScriptedHttpServer::start(true, |method, _params| {
///     (method == "tools/list").then(|| json!({"tools": []}))
/// })
/// .await;
/// assert!(server.url().starts_with("http://127.0.0.1:"));
/// # }
/// ```
pub struct ScriptedHttpServer {
    url: String,
    wire: Wire,
    seen: mpsc::UnboundedReceiver<String>,
}

impl ScriptedHttpServer {
    /// Starts a server of the 2026-07-28 era (`modern`) or 2025-11-25.
    ///
    /// # Panics
    /// When no loopback port can be bound.
    pub async fn start(
        modern: bool,
        answers: impl Fn(&str, &Value) -> Option<Value> + Send + Sync + 'static,
    ) -> ScriptedHttpServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
        let (seen_tx, seen) = mpsc::unbounded_channel();
        let wire = Wire {
            modern,
            answers: Arc::new(answers),
            log: Arc::default(),
            streams: Arc::default(),
            seen: seen_tx,
        };
        let server = wire.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(server.clone().serve(stream));
            }
        });
        ScriptedHttpServer { url, wire, seen }
    }

    /// The endpoint.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// Waits until the server sees `what`: a notification's method (once
    /// answered `202`), or `closed METHOD` when the connection of a held
    /// request ends. Earlier events are skipped. Panics after `within`.
    pub async fn saw(&mut self, what: &str, within: Duration) {
        let wait = async {
            while let Some(s) = self.seen.recv().await {
                if s == what {
                    return true;
                }
            }
            false
        };
        match tokio::time::timeout(within, wait).await {
            Ok(true) => {}
            Ok(false) => panic!("the server stopped before it saw {what}"),
            Err(_) => panic!("the server did not see {what} within {within:?}"),
        }
    }

    /// Every request read, in order (request line, headers with the port
    /// of `host` normalised, body), then the `GET` requests on their own:
    /// the 2025-11-25 stream opens on a connection of its own beside the
    /// first POSTs, and that race must not reorder the transcript. In the
    /// 2026-07-28 era a held request whose connection the client closed
    /// (its cancellation) is logged where it happened.
    pub fn transcript(&self) -> String {
        let log = self.wire.log.lock().unwrap_or_else(PoisonError::into_inner);
        let streams = self
            .wire
            .streams
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        format!(
            "{}\n-- GET streams --\n{}",
            log.join("\n"),
            streams.join("\n")
        )
    }
}

/// The state every connection task shares.
#[derive(Clone)]
struct Wire {
    modern: bool,
    answers: Answers,
    log: Arc<Mutex<Vec<String>>>,
    streams: Arc<Mutex<Vec<String>>>,
    seen: mpsc::UnboundedSender<String>,
}

/// One request as logged.
fn entry(method: &str, target: &str, headers: &Headers, body: &[u8]) -> String {
    let mut entry = format!("{method} {target}\n");
    for (name, value) in headers {
        let value = if name == "host" {
            "127.0.0.1:PORT"
        } else {
            value
        };
        entry.push_str(&format!("  {name}: {value}\n"));
    }
    entry.push_str(&format!("  {}", String::from_utf8_lossy(body)));
    entry
}

impl Wire {
    fn record(&self, entry: String, get: bool) {
        let log = if get { &self.streams } else { &self.log };
        log.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(entry);
    }

    async fn serve(self, stream: TcpStream) {
        let mut conn = BufReader::new(stream);
        while let Some((method, target, headers, body)) = read_request_at(&mut conn).await {
            self.record(entry(&method, &target, &headers, &body), method == "GET");
            if method != "POST" {
                let status = if method == "DELETE" {
                    "200 OK"
                } else {
                    "405 Method Not Allowed"
                };
                respond(&mut conn, status, "", "").await;
                continue;
            }
            let Ok(request) = serde_json::from_slice::<Value>(&body) else {
                respond(&mut conn, "400 Bad Request", "", "").await;
                continue;
            };
            let rpc_method = request["method"].as_str().unwrap_or_default().to_owned();
            if request.get("id").is_none() || request.get("method").is_none() {
                respond(&mut conn, "202 Accepted", "", "").await;
                let _ = self.seen.send(rpc_method);
                continue;
            }
            let (result, extra) = match (rpc_method.as_str(), self.modern) {
                ("initialize", false) => (
                    Some(initialize_result(capabilities())),
                    "mcp-session-id: s-1\r\n",
                ),
                ("server/discover", true) => (Some(discover_result(capabilities())), ""),
                (m, _) => ((self.answers)(m, &request["params"]), ""),
            };
            let Some(result) = result else {
                self.hold(&mut conn, &rpc_method, &request["id"]).await;
                return;
            };
            let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
            let extra = format!("content-type: application/json\r\n{extra}");
            respond(&mut conn, "200 OK", &extra, &reply.to_string()).await;
        }
    }

    /// Holds a request unanswered until the client closes its connection
    /// (a 2026-07-28 cancellation; in 2025-11-25 it sends
    /// `notifications/cancelled` instead, on another connection).
    async fn hold(&self, conn: &mut BufReader<TcpStream>, method: &str, id: &Value) {
        while read_request_at(conn).await.is_some() {}
        if self.modern {
            let line = format!("-- connection closed: {method} {id} unanswered");
            self.record(line, false);
        }
        let _ = self.seen.send(format!("closed {method}"));
    }
}
