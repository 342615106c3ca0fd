//! A relay for `cargo xtask bench --table --cold-tlb`, which puts each
//! server behind a chain of these pinned to the server's CPU: a request and
//! its reply pass through each, so between two of the client's turns more
//! address spaces run there than the kernel keeps tagged TLB entries for
//! (x86's PCIDs), and the client finds its TLB empty at each turn, as it
//! does after every switch on a CPU without PCID. Its CPU time is not the
//! client's, so it adds to no figure but through what it evicts.
//!
//! - `relay PROGRAM [ARGS...]`: runs the program with piped stdin and
//!   stdout and copies bytes between them and its own, unchanged, until
//!   either side ends (a stdio server).
//! - `relay --tcp http://HOST:PORT/PATH`: listens on a free loopback port,
//!   prints `listening http://127.0.0.1:PORT/PATH` (the line the bench's
//!   HTTP servers print) and copies each connection's bytes to and from a
//!   connection of its own to `HOST:PORT`, both without Nagle's delay.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    let result = match args.first().and_then(|a| a.to_str()) {
        Some("--tcp") => match args.get(1).and_then(|a| a.to_str()) {
            Some(url) => tcp(url),
            None => Err("usage: relay --tcp http://HOST:PORT/PATH".into()),
        },
        Some(_) => stdio(&args),
        None => Err("usage: relay PROGRAM [ARGS...] | relay --tcp URL".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relay: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs `args` as a child and relays its stdin and stdout.
fn stdio(args: &[std::ffi::OsString]) -> Result<(), String> {
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("start {}: {e}", args[0].to_string_lossy()))?;
    let (Some(mut to_child), Some(mut from_child)) = (child.stdin.take(), child.stdout.take())
    else {
        return Err("the child's pipes".into());
    };
    // Upstream on a thread of its own; its end closes the child's stdin.
    std::thread::spawn(move || pump(&mut std::io::stdin().lock(), &mut to_child));
    pump(&mut from_child, &mut std::io::stdout().lock());
    let _ = child.wait();
    Ok(())
}

/// Listens on loopback and relays each connection to `url`'s address.
fn tcp(url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("not an http:// URL: {url}"))?;
    let (upstream, path) = rest.split_once('/').unwrap_or((rest, ""));
    let upstream = upstream.to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
    let local = listener.local_addr().map_err(|e| format!("address: {e}"))?;
    println!("listening http://{local}/{path}");
    std::io::stdout().flush().map_err(|e| format!("stdout: {e}"))?;
    for accepted in listener.incoming() {
        let Ok(down) = accepted else { continue };
        let upstream = upstream.clone();
        std::thread::spawn(move || {
            let Ok(up) = TcpStream::connect(&upstream) else {
                return;
            };
            let _ = (down.set_nodelay(true), up.set_nodelay(true));
            let (Ok(mut down_w), Ok(mut up_r)) = (down.try_clone(), up.try_clone()) else {
                return;
            };
            let (mut down_r, mut up_w) = (down, up);
            std::thread::spawn(move || {
                pump(&mut down_r, &mut up_w);
                let _ = up_w.shutdown(std::net::Shutdown::Write);
            });
            pump(&mut up_r, &mut down_w);
            let _ = down_w.shutdown(std::net::Shutdown::Write);
        });
    }
    Ok(())
}

/// Copies what `from` gives to `to` as it comes, each read written and
/// flushed at once (a reply must not wait in a buffer for the next one).
fn pump(from: &mut impl Read, to: &mut impl Write) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
                    return;
                }
            }
        }
    }
}
