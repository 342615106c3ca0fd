//! A loopback HTTP world for login tests: request parsing, answers, a relay
//! to a real `demo-server --http`, and running `mcp` with a stand-in browser
//! that follows every authorization URL the CLI prints.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use std::sync::{Arc, Mutex};

use super::{HttpServer, demo_exe, mcp_command, wait};

/// One request read off a connection.
pub struct Request {
    pub method: String,
    pub target: String,
    pub headers: HashMap<String, String>,
    /// The header lines as sent.
    pub raw_headers: Vec<String>,
    pub body: Vec<u8>,
}

pub fn read_request(stream: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    stream.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next()?.to_owned(), parts.next()?.to_owned());
    let (mut headers, mut raw_headers) = (HashMap::new(), Vec::new());
    loop {
        let mut h = String::new();
        stream.read_line(&mut h).ok()?;
        let h = h.trim_end().to_owned();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
        raw_headers.push(h);
    }
    let len = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    stream.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        target,
        headers,
        raw_headers,
        body,
    })
}

pub fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, String)], body: &str) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

pub fn json_ok(stream: &mut TcpStream, status: &str, v: &serde_json::Value) {
    let ct = ("content-type", "application/json".to_owned());
    respond(stream, status, &[ct], &v.to_string());
}

/// The `key=value` pairs of a query or form.
pub fn pairs(s: &str) -> HashMap<String, String> {
    s.split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (k.to_owned(), decode(v)))
        .collect()
}

pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("00");
                out.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Relays `req` to the MCP server at `upstream` (`http://ADDR/mcp`) and
/// copies its answer back (one request per connection).
pub fn relay(mut stream: TcpStream, req: &Request, upstream: &str) {
    let addr = upstream
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .expect("the demo server's address");
    let mut up = TcpStream::connect(addr).expect("reach the demo server");
    let mut head = format!(
        "{} /mcp HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n",
        req.method
    );
    for h in &req.raw_headers {
        let name = h.split(':').next().unwrap_or_default().to_ascii_lowercase();
        if name != "host" && name != "connection" {
            head.push_str(h);
            head.push_str("\r\n");
        }
    }
    head.push_str("\r\n");
    let _ = up.write_all(head.as_bytes());
    let _ = up.write_all(&req.body);
    let _ = std::io::copy(&mut up, &mut stream);
}

/// Runs `mcp ARGS` with the config dir `config`; returns exit code, stdout,
/// stderr. When the CLI prints an authorization URL, the stand-in browser
/// follows it: GETs it, then GETs the redirect it is sent to.
pub fn mcp(config: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut child = mcp_command(config, args)
        .env("XDG_CONFIG_HOME", config)
        .env("BROWSER", "true")
        .spawn()
        .expect("start mcp");
    let stderr = child.stderr.take().expect("stderr");
    let browser = std::thread::spawn(move || {
        let mut all = String::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            all.push_str(&line);
            all.push('\n');
            let url = line.trim();
            if url.starts_with("http://") && url.contains("/authorize?") {
                let redirect = get(url).expect("the authorization server redirects");
                assert!(get(&redirect).is_none(), "the CLI answers its redirect");
            }
        }
        all
    });
    let out = wait(child);
    let stderr = browser.join().expect("the browser thread");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    )
}

/// A GET as a browser does it; returns the `Location` of a redirect.
pub fn get(url: &str) -> Option<String> {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (addr, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut s = TcpStream::connect(addr).expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).expect("send");
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    assert!(
        reply.starts_with("HTTP/1.1 2") || reply.starts_with("HTTP/1.1 3"),
        "{reply}"
    );
    reply
        .lines()
        .find_map(|l| l.strip_prefix("location: ").map(str::to_owned))
}

pub fn free_port() -> String {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port().to_string()
}

/// Handles one connection: the stream, the world's port, the demo server's
/// URL and what the world saw.
pub type Serve<S> = fn(TcpStream, u16, &str, &Mutex<S>);

/// A loopback world: one port served by `serve` on plain threads, a real
/// `demo-server --http` behind it, and what it saw.
pub struct World<S> {
    /// The world's port.
    pub port: u16,
    _demo: HttpServer,
    /// What the world saw.
    pub seen: Arc<Mutex<S>>,
}

impl<S: Default + Send + 'static> World<S> {
    /// Starts the demo server and the world in front of it.
    pub fn start(serve: Serve<S>) -> World<S> {
        let demo = HttpServer::start(demo_exe());
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(S::default()));
        let (s, upstream) = (seen.clone(), demo.url.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (s, upstream) = (s.clone(), upstream.clone());
                std::thread::spawn(move || serve(stream, port, &upstream, &s));
            }
        });
        World {
            port,
            _demo: demo,
            seen,
        }
    }

    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

/// A 401 whose challenge points at the world's protected resource metadata.
pub fn unauthorized(stream: &mut TcpStream, port: u16) {
    let challenge = format!(
        "Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\""
    );
    respond(
        stream,
        "401 Unauthorized",
        &[("www-authenticate", challenge)],
        "",
    );
}
