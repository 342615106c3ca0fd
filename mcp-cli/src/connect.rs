//! From the command line's target to a connected [`Client`]: stdio or
//! Streamable HTTP, the era, headers and bearer token, the roots, and the
//! handlers that ask the user (see [`crate::interact`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_client::auth::BearerToken;
use mcp_client::mcp_types::roots::Root;
use mcp_client::{Client, EraPreference, HttpConfig, ServerCommand};
use tokio::sync::mpsc;

use crate::args::{EraArg, Global};
use crate::events::{Event, EventSink};
use crate::exit::CliError;
use crate::interact::Asker;
use crate::ui::Ui;

/// Where the server is.
#[derive(Debug)]
pub(crate) enum Target {
    /// A child process.
    Stdio(Vec<String>),
    /// A Streamable HTTP endpoint.
    Http(String),
}

impl Target {
    /// The target from `--url` and what followed `--`.
    pub(crate) fn from_args(global: &Global, after: Vec<String>) -> Result<Target, CliError> {
        let is_url = |s: &str| s.starts_with("http://") || s.starts_with("https://");
        match (&global.url, after.as_slice()) {
            (Some(_), [_, ..]) => Err(CliError::usage(
                "give the server either with --url or after --, not both",
            )),
            (Some(url), []) => Ok(Target::Http(url.clone())),
            (None, [one]) if is_url(one) => Ok(Target::Http(one.clone())),
            (None, [_, ..]) => Ok(Target::Stdio(after)),
            (None, []) => Err(CliError::usage(
                "no server given: add `-- COMMAND [ARGS]...` (stdio) or `-- URL` / `--url URL` (HTTP)",
            )),
        }
    }

    /// A short description for messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            Target::Stdio(cmd) => cmd.join(" "),
            Target::Http(url) => url.clone(),
        }
    }
}

/// A connected client and what the run learned while connecting.
pub(crate) struct Session {
    /// The client.
    pub(crate) client: Client,
    /// How long connecting took (spawn or first request, era detection,
    /// handshake).
    pub(crate) connect_time: Duration,
    /// The server's notifications, in arrival order.
    pub(crate) events: mpsc::Receiver<Event>,
}

/// Connects to `target` as `global` says, showing a spinner meanwhile.
pub(crate) async fn connect(
    global: &Global,
    target: &Target,
    ui: &Ui,
) -> Result<Session, CliError> {
    let (sink, events) = EventSink::new();
    let asker = Asker::new(ui.clone(), ui.interactive() && !global.no_input);
    let roots = roots(&global.roots)?;
    let timeout = request_timeout(global.timeout)?;
    let mut builder = Client::builder()
        .client_info("mcp-cli", env!("CARGO_PKG_VERSION"))
        .era(match global.era {
            EraArg::Auto => EraPreference::Auto,
            EraArg::Legacy => EraPreference::LegacyOnly,
            EraArg::Modern => EraPreference::ModernOnly,
        })
        .request_timeout(timeout)
        .roots(roots)
        .notifications(sink);
    let (a, b, c) = (asker.clone(), asker.clone(), asker);
    builder = builder
        .form_elicitation(move |p| {
            let a = a.clone();
            async move { a.form(p).await }
        })
        .url_elicitation(move |r| {
            let b = b.clone();
            async move { b.url(r).await }
        })
        .sampling(move |p| {
            let c = c.clone();
            async move { c.sample(p).await }
        });
    builder = match target {
        Target::Stdio(cmd) => builder.stdio(server_command(cmd, global.verbose)),
        Target::Http(url) => builder.http_config(http_config(url, global)?),
    };
    let spinner = ui.spinner(format!("connecting to {}", target.describe()));
    let started = Instant::now();
    let connected = builder.connect().await;
    let connect_time = started.elapsed();
    drop(spinner);
    let client = connected.map_err(|e| {
        let mut err = CliError::from(e);
        err.message = format!("cannot connect to {}: {}", target.describe(), err.message);
        err
    })?;
    Ok(Session {
        client,
        connect_time,
        events,
    })
}

/// `--timeout` as the client's request timeout (`0`: none).
fn request_timeout(seconds: f64) -> Result<Option<Duration>, CliError> {
    if seconds == 0.0 {
        return Ok(None);
    }
    Duration::try_from_secs_f64(seconds)
        .map(Some)
        .map_err(|_| CliError::usage(format!("--timeout {seconds}: not a number of seconds")))
}

fn server_command(cmd: &[String], verbose: bool) -> ServerCommand {
    let mut c = ServerCommand::new(&cmd[0]).args(&cmd[1..]);
    if verbose {
        c = c.on_stderr_line(|line| eprintln!("server stderr: {line}"));
    }
    c
}

fn http_config(url: &str, global: &Global) -> Result<HttpConfig, CliError> {
    let mut config =
        HttpConfig::new(url).map_err(|e| CliError::usage(format!("--url {url}: {e}")))?;
    for header in &global.headers {
        let Some((name, value)) = header.split_once(':') else {
            return Err(CliError::usage(format!(
                "--header {header:?} is not `Name: value`"
            )));
        };
        config = config
            .with_header(name.trim(), value.trim())
            .map_err(|e| CliError::usage(format!("--header {}: {e}", name.trim())))?;
    }
    if let Some(token) = &global.bearer {
        let bearer =
            BearerToken::new(token).map_err(|e| CliError::usage(format!("--bearer: {e}")))?;
        config = config.with_auth(Arc::new(bearer));
    }
    Ok(config)
}

/// `--root` values as `file://` roots (relative paths made absolute).
pub(crate) fn roots(given: &[String]) -> Result<Vec<Root>, CliError> {
    given.iter().map(|r| root(r)).collect()
}

fn root(given: &str) -> Result<Root, CliError> {
    if given.starts_with("file://") {
        return Ok(Root::new(given));
    }
    let path =
        std::path::absolute(given).map_err(|e| CliError::usage(format!("root {given:?}: {e}")))?;
    let text = path
        .to_str()
        .ok_or_else(|| CliError::usage(format!("root {given:?} is not valid UTF-8")))?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(text)
        .to_owned();
    Ok(Root::new(format!("file://{text}")).with_name(name))
}
