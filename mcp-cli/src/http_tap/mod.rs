//! `--verbose` over HTTP: the wire, shown on stderr with secrets redacted.
//!
//! The HTTP transport takes an HTTP proxy (a `CONNECT` tunnel), so the CLI
//! runs a small one on loopback for the run and points the client at it
//! (`ProxyConfig::Explicit`): the client keeps the real URL (the OAuth
//! resource, the `Host` and TLS names stay right), and the tap relays every
//! byte unchanged to the real server while an [`observe::Observer`] per
//! direction shows requests (`->`) and responses (`<-`): start lines, the
//! headers that matter (`Mcp-Session-Id`, `MCP-Protocol-Version`,
//! `Mcp-Method`, `Accept`, `Content-Type`, `WWW-Authenticate`, ...), JSON
//! bodies, SSE events and OAuth forms. `Authorization`, `DPoP` and cookie
//! values, query values in URLs, and token, code, secret and assertion
//! fields are redacted.
//!
//! Discovery, registration and token requests of OAuth go through the same
//! proxy, so a login is shown too. An `https://` server's tunnel carries
//! TLS, which the tap cannot read: it says so and shows nothing of it. The
//! tap connects to the server directly (an `HTTPS_PROXY` of the
//! environment is not used while `--verbose` is on).

pub(crate) mod observe;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::exit::CliError;
use crate::ui::Ui;
use observe::Observer;

/// The largest `CONNECT` request read (bytes).
const MAX_CONNECT: usize = 8 * 1024;

/// Starts the tap on a loopback port; returns the proxy URL to give the
/// transport. The tap lives as long as the runtime.
pub(crate) async fn start(ui: &Ui) -> Result<String, CliError> {
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| CliError::transport(format!("--verbose: cannot listen on loopback: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| CliError::transport(format!("--verbose: {e}")))?;
    let ui = ui.clone();
    let count = Arc::new(AtomicU32::new(0));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let n = count.fetch_add(1, Ordering::Relaxed) + 1;
            tokio::spawn(tunnel(stream, n, ui.clone()));
        }
    });
    Ok(format!("http://{addr}"))
}

/// Serves one `CONNECT`: answers it, connects to the server and relays.
async fn tunnel(mut client: TcpStream, n: u32, ui: Ui) {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    let end = loop {
        if let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        match client.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(k) if head.len() + k <= MAX_CONNECT => head.extend_from_slice(&buf[..k]),
            Ok(_) => return,
        }
    };
    let text = String::from_utf8_lossy(&head[..end]).into_owned();
    let target = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("CONNECT "))
        .and_then(|l| l.split(' ').next())
        .map(str::to_owned);
    let Some(target) = target else {
        let _ = client
            .write_all(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
            .await;
        return;
    };
    let server = match TcpStream::connect(&target).await {
        Ok(s) => s,
        Err(e) => {
            ui.note(&format!("-- [{n}] cannot connect to {target}: {e}"));
            let _ = client
                .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
                .await;
            return;
        }
    };
    let _ = server.set_nodelay(true);
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await
        .is_err()
    {
        return;
    }
    ui.note(&format!("-- [{n}] connection to {target}"));
    let early = head[end..].to_vec();
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let up = Observer::new(format!("-> [{n}]"), ui.clone());
    let down = Observer::new(format!("<- [{n}]"), ui.clone());
    tokio::join!(
        relay(client_read, server_write, early, up),
        relay(server_read, client_write, Vec::new(), down),
    );
    ui.note(&format!("-- [{n}] closed"));
}

/// Copies `from` to `to` (after `early`, bytes already read), showing the
/// traffic; closes `to`'s write side at the end.
async fn relay(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    early: Vec<u8>,
    mut observer: Observer,
) {
    if !early.is_empty() {
        observer.feed(&early);
        if to.write_all(&early).await.is_err() {
            return;
        }
    }
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(k) => {
                // Forward first: showing never delays the bytes.
                if to.write_all(&buf[..k]).await.is_err() {
                    break;
                }
                observer.feed(&buf[..k]);
            }
        }
    }
    observer.end();
    let _ = to.shutdown().await;
}
