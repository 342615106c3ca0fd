//! The `demo-server` binary: serves the demo MCP server over stdio (default)
//! or Streamable HTTP.
//!
//! ```text
//! demo-server [--stdio | --http ADDR] [--era legacy|modern|both]
//!             [--page-size N] [--no-get-stream]
//!             [--sse-close-after N] [--sse-retry-ms MS]
//!             [--oauth] [--oauth-token-ttl-secs N]
//! ```
//!
//! `--oauth` (HTTP only) serves an authorization server on the same address
//! (metadata, dynamic registration, an authorization endpoint that approves
//! without a browser, a token endpoint checking PKCE) and answers `/mcp`
//! with `401` until a valid bearer token comes.
//!
//! With `--http`, the first line on stdout is `listening http://ADDR/mcp`.
//! Diagnostics go to stderr only.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;

use demo_server::{DemoOptions, DemoServer, Eras, ServeError};

const USAGE: &str = "usage: demo-server [--stdio | --http ADDR] [--era legacy|modern|both] \
[--page-size N] [--no-get-stream] [--sse-close-after N] [--sse-retry-ms MS] \
[--oauth] [--oauth-token-ttl-secs N]";

enum Mode {
    Stdio,
    Http(SocketAddr),
}

fn parse_args() -> Result<(Mode, DemoOptions), ServeError> {
    let mut mode = Mode::Stdio;
    let mut opts = DemoOptions::default();
    let mut args = std::env::args().skip(1);
    let bad = |m: String| ServeError::Config(m);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .ok_or_else(|| bad(format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--stdio" => mode = Mode::Stdio,
            "--http" => {
                let v = value("--http")?;
                mode = Mode::Http(v.parse().map_err(|_| bad(format!("bad address {v:?}")))?);
            }
            "--era" => opts = opts.with_eras(value("--era")?.parse::<Eras>()?),
            "--page-size" => {
                let v = value("--page-size")?;
                let n = v.parse().map_err(|_| bad(format!("bad page size {v:?}")))?;
                opts = opts.with_page_size(n);
            }
            "--no-get-stream" => opts = opts.with_get_stream(false),
            "--sse-close-after" => {
                let v = value("--sse-close-after")?;
                let n = v
                    .parse()
                    .map_err(|_| bad(format!("bad event count {v:?}")))?;
                opts = opts.with_sse_close_after(Some(n));
            }
            "--sse-retry-ms" => {
                let v = value("--sse-retry-ms")?;
                let n = v.parse().map_err(|_| bad(format!("bad retry {v:?}")))?;
                opts = opts.with_sse_retry(std::time::Duration::from_millis(n));
            }
            "--oauth" => {
                let o = opts.oauth.clone().unwrap_or_default();
                opts = opts.with_oauth(o);
            }
            "--oauth-token-ttl-secs" => {
                let v = value("--oauth-token-ttl-secs")?;
                let n = v
                    .parse()
                    .map_err(|_| bad(format!("bad token lifetime {v:?}")))?;
                let o = opts.oauth.clone().unwrap_or_default();
                opts = opts.with_oauth(o.with_token_ttl(std::time::Duration::from_secs(n)));
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(bad(format!("unknown argument {other:?}\n{USAGE}"))),
        }
    }
    Ok((mode, opts))
}

async fn run() -> Result<(), ServeError> {
    let (mode, opts) = parse_args()?;
    eprintln!(
        "demo-server: eras {:?}, page size {}",
        opts.eras, opts.page_size
    );
    let server = DemoServer::new(opts);
    match mode {
        Mode::Stdio => server.serve_stdio().await,
        Mode::Http(addr) => {
            let handle = server.serve_http(addr).await?;
            let mut out = std::io::stdout();
            writeln!(out, "listening {}", handle.url())?;
            out.flush()?;
            tokio::signal::ctrl_c().await?;
            handle.shutdown().await;
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("demo-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo-server: {e}");
            ExitCode::FAILURE
        }
    }
}
