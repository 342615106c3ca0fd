//! `mcp`: a command-line Model Context Protocol client, built on
//! `mcp-client`.
//!
//! ```text
//! mcp [OPTIONS] <COMMAND> [ARGS]... -- <SERVER COMMAND [ARGS]... | URL>
//! ```
//!
//! One run connects (stdio or Streamable HTTP, era detected or pinned with
//! `--era`), runs one command, prints its result (text, or one JSON
//! document with `--json`) and closes. Exit codes are stable; see
//! [`exit`] and `mcp --help`.
//!
//! Ctrl-C cancels the call in flight (the client sends the cancellation
//! and closes the connection; the server process is in its own process
//! group, so the terminal's SIGINT does not reach it) and exits 130; a
//! second Ctrl-C exits at once.
//!
//! Skills (SEP-2640): `skills list|get|load|read` and `resources
//! directory-read` go through `mcp-client`'s skills API, so loads and file
//! reads are verified (digest, size, frontmatter) exactly as the SDK does
//! them, and a verification failure exits 3 with the SDK's message.
//!
//! Beyond one-shot runs: servers named in config files (`--server`, with
//! `mcp-host`'s loader), held connections (`connect`, `@NAME`,
//! `disconnect`, `elicitation respond`; see [`held`]), `repl`, OAuth
//! (`--oauth`, `auth list|clear`; see [`oauth`]), enterprise-managed
//! authorization (`auth ema-login|ema-status|ema-logout`, `--ema`; see
//! [`ema`]), `--verbose` wire traces
//! with secrets redacted (stdio: [`wire`]; HTTP: [`http_tap`]) and
//! `agent-help`.
//!
//! Dependencies, each for one job: `clap` (derive) parses the command line
//! and prints help and usage errors; `boon` (already in the tree through
//! `mcp-client`) checks tool arguments against the tool's input schema;
//! `base64` decodes images and blobs to save them; `rustyline` edits and
//! completes `repl` lines (see [`repl`]). Colours, the spinner
//! and the progress bar are a few lines of ANSI in [`ui`], not a crate.

/// `eprintln!` that never panics (a closed stderr loses the line).
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

/// `println!` that never panics (a closed pipe loses the line).
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

mod agent_help;
mod args;
mod commands;
mod config_target;
mod connect;
mod ema;
mod events;
mod exit;
mod held;
mod http_tap;
mod interact;
mod oauth;
mod render;
mod repl;
mod tool_args;
mod ui;
mod wire;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{AuthCmd, Cli, Command, RootsCmd};
use crate::connect::{Session, Target};
use crate::exit::{CliError, Exit};
use crate::render::Out;
use crate::ui::Ui;

fn main() -> ExitCode {
    let (mut before, after) = args::split_target(std::env::args().collect());
    let at = held::take_at_name(&mut before);
    let cli = match Cli::try_parse_from(&before) {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help (exit 0) and usage errors (exit 2) itself.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            errln!("mcp: cannot start the runtime: {e}");
            return code(Exit::Transport);
        }
    };
    let ui = Ui::detect();
    let out = Out::new(ui.clone(), cli.global.json, cli.global.save_dir.clone());
    let argv = Argv { before, after, at };
    let result = runtime.block_on(run(cli, argv, &out));
    // A prompt may still wait on stdin in a blocking thread: do not join it.
    runtime.shutdown_background();
    match result {
        Ok(exit) => code(exit),
        Err(e) => {
            ui.clear_status();
            if out.json {
                let doc =
                    serde_json::json!({ "error": { "message": e.message, "exit": e.exit as u8 } });
                errln!("{doc}");
            } else {
                errln!("mcp: {}", e.message);
            }
            code(e.exit)
        }
    }
}

fn code(exit: Exit) -> ExitCode {
    ExitCode::from(exit as u8)
}

/// The raw arguments: before `--` (without `@NAME`), after it, `@NAME`.
struct Argv {
    before: Vec<String>,
    after: Vec<String>,
    at: Option<String>,
}

async fn run(cli: Cli, argv: Argv, out: &Out) -> Result<Exit, CliError> {
    let Argv { before, after, at } = argv;
    // Watching ends normally on Ctrl-C; anything else is interrupted.
    let streams = is_stream(&cli.command);
    let interrupted = || async move {
        let _ = tokio::signal::ctrl_c().await;
        if streams {
            Ok(Exit::Ok)
        } else {
            Err(CliError::interrupted())
        }
    };
    let held_req = match &cli.command {
        Command::Daemon => return held::daemon::serve().await,
        Command::Connect { name } => Some((
            serde_json::json!({ "op": "connect", "name": name, "argv": before, "after": after }),
            true,
        )),
        Command::Disconnect { name } => Some((
            serde_json::json!({ "op": "disconnect", "name": name }),
            false,
        )),
        Command::Connections => Some((serde_json::json!({ "op": "list" }), false)),
        Command::Elicitation(_) => Some((
            serde_json::json!({ "op": "elicitation", "argv": before }),
            false,
        )),
        _ if at.is_some() => Some((held::run_request(at.as_deref(), &before), false)),
        _ if no_target(&cli, &after) && held::socket_path().is_ok_and(|p| p.exists()) => {
            Some((held::run_request(None, &before), false))
        }
        _ => None,
    };
    if let Some((req, start)) = held_req {
        return tokio::select! {
            r = held::request(&req, start) => r,
            r = interrupted() => r,
        };
    }
    match &cli.command {
        Command::AgentHelp => {
            outln!("{}", agent_help::GUIDE.trim_end());
            return Ok(Exit::Ok);
        }
        Command::Roots(RootsCmd::List) => return commands::roots_list(&cli.global.roots, out),
        Command::Servers => return config_target::list(cli.global.config.as_deref(), out),
        Command::Auth(AuthCmd::List) => return oauth::list(out),
        Command::Auth(AuthCmd::Clear) => return oauth::clear(out),
        Command::Auth(AuthCmd::EmaLogin {
            idp,
            client_id,
            client_secret,
        }) => {
            let secret = client_secret.as_deref();
            return ema::login(idp, client_id, secret, cli.global.oauth_port, out).await;
        }
        Command::Auth(AuthCmd::EmaStatus) => return ema::status(out),
        Command::Auth(AuthCmd::EmaLogout { idp }) => return ema::logout(idp.as_deref(), out),
        _ => {}
    }
    let (target, era) = Target::from_args(&cli.global, after)?;
    let mut session = connect::connect(&cli.global, &target, era, &out.ui, None).await?;
    if let Some(level) = cli.global.log_level {
        session
            .client
            .set_log_level(commands::level_of(level))
            .await?;
    }
    if matches!(cli.command, Command::Repl) {
        let result = repl::run(&mut session, &out.ui).await;
        close(&mut session).await;
        return result;
    }
    let show_logs = cli.global.log_level.is_some() || cli.global.verbose;
    let result = run_interruptible(&mut session, &cli.command, out, show_logs).await;
    close(&mut session).await;
    result
}

/// Whether no server is named (no `--`, `--url` or `--server`) for a
/// command that needs one.
fn no_target(cli: &Cli, after: &[String]) -> bool {
    let needs = !matches!(
        cli.command,
        Command::AgentHelp | Command::Servers | Command::Auth(_) | Command::Roots(RootsCmd::List)
    );
    needs && after.is_empty() && cli.global.url.is_none() && cli.global.server.is_none()
}

/// Whether the command shows notifications until Ctrl-C.
fn is_stream(command: &Command) -> bool {
    matches!(
        command,
        Command::Watch { .. }
            | Command::Logs { .. }
            | Command::Resources(args::ResourcesCmd::Subscribe { .. })
    )
}

/// Runs the command; the first Ctrl-C drops it, which cancels the call in
/// flight on the wire.
async fn run_interruptible(
    session: &mut Session,
    command: &Command,
    out: &Out,
    show_logs: bool,
) -> Result<Exit, CliError> {
    let streams = is_stream(command);

    let logs = if streams {
        None
    } else {
        Some(spawn_log_printer(session, out, show_logs))
    };
    let result = tokio::select! {
        r = commands::run(session, command, out) => r,
        _ = tokio::signal::ctrl_c() => {
            out.ui.clear_status();
            // Watching ends normally on Ctrl-C.
            if streams { Ok(Exit::Ok) } else { Err(CliError::interrupted()) }
        }
    };
    if let Some(task) = logs {
        task.abort();
    }
    result
}

/// Prints the server's log messages on stderr while a command runs (when
/// `show`: with `--log-level` or `--verbose`), else drains them.
fn spawn_log_printer(session: &mut Session, out: &Out, show: bool) -> tokio::task::JoinHandle<()> {
    let (_closed, empty) = tokio::sync::mpsc::channel(1);
    let mut events = std::mem::replace(&mut session.events, empty);
    let ui = out.ui.clone();
    tokio::spawn(async move {
        while let Some(e) = events.recv().await {
            if show && e.method == "notifications/message" {
                ui.note(&format!("server log {}", e.describe()));
            }
        }
    })
}

/// Closes the connection; a Ctrl-C meanwhile exits at once.
async fn close(session: &mut Session) {
    tokio::select! {
        () = session.close() => {}
        _ = tokio::signal::ctrl_c() => std::process::exit(i32::from(Exit::Interrupted as u8)),
    }
}
