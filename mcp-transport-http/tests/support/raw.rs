//! A raw scripted HTTP/1.1 server on loopback: every request is answered
//! with the same bytes, written in the given pieces.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the server does after writing a reply.
#[derive(Clone, Copy)]
pub enum After {
    KeepOpen,
    Close,
}

/// A server that answers every request on every connection with `reply`,
/// written in the given pieces (each its own write, so the client reads
/// them apart), then keeps the connection or closes it.
pub async fn raw_server(pieces: Vec<Vec<u8>>, after: After) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let count = connections.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(answer(socket, pieces.clone(), after));
        }
    });
    (url, connections)
}

async fn answer(mut socket: TcpStream, pieces: Vec<Vec<u8>>, after: After) {
    socket.set_nodelay(true).unwrap();
    while read_request(&mut socket).await {
        for piece in &pieces {
            if socket.write_all(piece).await.is_err() {
                return;
            }
            socket.flush().await.unwrap();
            tokio::task::yield_now().await;
        }
        if let After::Close = after {
            return;
        }
    }
}

/// Reads one request (head and `Content-Length` body); false at the end.
pub async fn read_request(socket: &mut TcpStream) -> bool {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap());
            if buf.len() >= end + 4 + length {
                return true;
            }
        }
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}
