//! From the command line's target to a connected [`Client`]: stdio or
//! Streamable HTTP, the era, headers and bearer token, the roots, and the
//! handlers that ask the user (see [`crate::interact`]).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_client::auth::BearerToken;
use mcp_client::mcp_types::roots::Root;
use mcp_client::{Client, EraPreference, HttpConfig, ProxyConfig, ServerCommand};
use tokio::sync::mpsc;

use crate::args::{EraArg, Global};
use crate::events::{Event, EventSink};
use crate::exit::CliError;
use crate::interact::Asker;
use crate::ui::Ui;
use crate::wire::Tap;

/// Where the server is.
#[derive(Debug)]
pub(crate) enum Target {
    /// A child process.
    Stdio {
        /// The program and its arguments.
        cmd: Vec<String>,
        /// Variables set for it (from a config entry).
        env: BTreeMap<String, String>,
        /// Its working directory (from a config entry).
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint.
        url: String,
        /// Headers from a config entry (before `--header`).
        headers: BTreeMap<String, String>,
    },
}

impl Target {
    /// The target from `--url`, `--server` and what followed `--`, with the
    /// era a config entry pins.
    pub(crate) fn from_args(
        global: &Global,
        after: Vec<String>,
    ) -> Result<(Target, Option<EraArg>), CliError> {
        let is_url = |s: &str| s.starts_with("http://") || s.starts_with("https://");
        let given = usize::from(global.url.is_some())
            + usize::from(global.server.is_some())
            + usize::from(!after.is_empty());
        if given > 1 {
            return Err(CliError::usage(
                "give the server once: after --, with --url, or with --server",
            ));
        }
        if let Some(name) = &global.server {
            return crate::config_target::resolve(global.config.as_deref(), name);
        }
        let target = match (&global.url, after.as_slice()) {
            (Some(url), _) => Target::http(url),
            (None, [one]) if is_url(one) => Target::http(one),
            (None, [_, ..]) => Target::Stdio {
                cmd: after,
                env: BTreeMap::new(),
                cwd: None,
            },
            (None, []) => Err(CliError::usage(
                "no server given: add `-- COMMAND [ARGS]...` (stdio), `-- URL` / `--url URL` \
                 (HTTP) or `--server NAME` (from a config file)",
            ))?,
        };
        Ok((target, None))
    }

    fn http(url: &str) -> Target {
        Target::Http {
            url: url.to_owned(),
            headers: BTreeMap::new(),
        }
    }

    /// A short description for messages (a URL without its query, which
    /// may carry a token).
    pub(crate) fn describe(&self) -> String {
        match self {
            Target::Stdio { cmd, .. } => cmd.join(" "),
            Target::Http { url, .. } => url.split(['?', '#']).next().unwrap_or_default().to_owned(),
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
    /// The server process `--verbose` started itself (else the client
    /// owns it).
    pub(crate) child: Option<tokio::process::Child>,
}

impl Session {
    /// Closes the connection and stops a server process started here
    /// (stdin closed, then killed after a grace period).
    pub(crate) async fn close(&mut self) {
        self.client.close().await;
        if let Some(child) = &mut self.child {
            let waited = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
            if waited.is_err() {
                let _ = child.kill().await;
            }
        }
    }
}

/// `--verbose` on stdio: starts the server here and taps its pipes.
fn tapped(
    builder: mcp_client::ClientBuilder,
    cmd: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&std::path::Path>,
    ui: &Ui,
) -> Result<(mcp_client::ClientBuilder, tokio::process::Child), CliError> {
    use std::process::Stdio;
    let mut command = tokio::process::Command::new(&cmd[0]);
    command
        .args(&cmd[1..])
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    if let Some(dir) = cwd {
        command.current_dir(dir);
    }
    let mut child = command
        .spawn()
        .map_err(|e| CliError::transport(format!("cannot start {:?}: {e}", cmd[0])))?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(CliError::transport("the server's pipes were not opened"));
    };
    let reader = Tap::new(stdout, "<-", ui.clone());
    let writer = Tap::new(stdin, "->", ui.clone());
    Ok((builder.io(reader, writer), child))
}

/// Connects to `target` as `global` says, showing a spinner meanwhile. An
/// era pinned by `--era` wins over `configured` (a config entry's).
pub(crate) async fn connect(
    global: &Global,
    target: &Target,
    configured: Option<EraArg>,
    ui: &Ui,
    pending: Option<crate::held::pending::Pending>,
) -> Result<Session, CliError> {
    let era = match (global.era, configured) {
        (EraArg::Auto, Some(e)) => e,
        (e, _) => e,
    };
    let (sink, events) = EventSink::new();
    let asker = Asker::new(ui.clone(), ui.interactive() && !global.no_input, pending);
    let roots = roots(&global.roots)?;
    let timeout = request_timeout(global.timeout)?;
    let mut builder = Client::builder()
        .client_info("mcp-cli", env!("CARGO_PKG_VERSION"))
        .era(match era {
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
    let mut child = None;
    builder = match target {
        Target::Stdio { cmd, env, cwd } if global.verbose => {
            let (b, c) = tapped(builder, cmd, env, cwd.as_deref(), ui)?;
            child = Some(c);
            b
        }
        Target::Stdio { cmd, env, cwd } => {
            builder.stdio(server_command(cmd, env, cwd.as_deref(), global.verbose))
        }
        Target::Http { url, headers } => {
            let mut config = http_config(url, headers, global, ui)?;
            if global.verbose {
                let proxy = crate::http_tap::start(ui).await?;
                config = config.with_proxy(ProxyConfig::Explicit {
                    url: proxy,
                    no_proxy: String::new(),
                });
            }
            builder.http_config(config)
        }
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
        child,
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

fn server_command(
    cmd: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&std::path::Path>,
    verbose: bool,
) -> ServerCommand {
    let mut c = ServerCommand::new(&cmd[0]).args(&cmd[1..]).envs(env);
    if let Some(dir) = cwd {
        c = c.current_dir(dir);
    }
    if verbose {
        c = c.on_stderr_line(|line| errln!("server stderr: {line}"));
    }
    c
}

fn http_config(
    url: &str,
    configured: &BTreeMap<String, String>,
    global: &Global,
    ui: &Ui,
) -> Result<HttpConfig, CliError> {
    let shown = url.split(['?', '#']).next().unwrap_or_default();
    let mut config =
        HttpConfig::new(url).map_err(|e| CliError::usage(format!("URL {shown}: {e}")))?;
    for (name, value) in configured {
        config = config
            .with_header(name, value)
            .map_err(|e| CliError::usage(format!("header {name} of the config entry: {e}")))?;
    }
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
    if global.oauth {
        if global.bearer.is_some() {
            return Err(CliError::usage("give --bearer or --oauth, not both"));
        }
        config = crate::oauth::configure(config, global.oauth_port, ui)?;
    }
    if global.ema {
        if global.bearer.is_some() || global.oauth {
            return Err(CliError::usage("give one of --bearer, --oauth and --ema"));
        }
        config = crate::ema::configure(config, global, ui)?;
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
