//! The connection holder (`mcp daemon`): owns named sessions and runs
//! commands on them for `mcp` processes that ask over the socket.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::OwnedWriteHalf;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{Mutex, mpsc};

use super::pending::{Pending, Response};
use crate::args::{Cli, Command, ElicitationCmd};
use crate::connect::{Session, Target, connect};
use crate::exit::{CliError, Exit};
use crate::render::{Frame, Out};
use crate::ui::Ui;

/// Grace before a holder with no connection exits.
const EMPTY_GRACE: Duration = Duration::from_secs(5);
/// A holder that got no request for this long exits.
const IDLE_MAX: Duration = Duration::from_secs(30 * 60);

/// One held connection.
struct Held {
    name: String,
    target: String,
    session: Arc<Mutex<Session>>,
}

/// What the holder holds: connections, most recent last.
#[derive(Default)]
struct State {
    held: Vec<Held>,
    last_request: Option<Instant>,
    /// Questions of every held connection waiting for an answer.
    pending: Pending,
}

type Shared = Arc<std::sync::Mutex<State>>;

fn lock(state: &Shared) -> std::sync::MutexGuard<'_, State> {
    state
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Serves until idle; removes the socket on the way out.
pub(crate) async fn serve() -> Result<Exit, CliError> {
    let path = super::socket_path()?;
    if UnixStream::connect(&path).await.is_ok() {
        return Err(CliError::usage("a connection holder already runs"));
    }
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path)
        .map_err(|e| CliError::transport(format!("cannot listen on {}: {e}", path.display())))?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| CliError::transport(format!("cannot protect {}: {e}", path.display())))?;
    }
    let state: Shared = Arc::default();
    lock(&state).last_request = Some(Instant::now());
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                if let Ok((stream, _)) = accepted {
                    lock(&state).last_request = Some(Instant::now());
                    tokio::spawn(handle(stream, state.clone()));
                }
            }
            _ = tick.tick() => {
                let s = lock(&state);
                let quiet = s.last_request.map_or(Duration::ZERO, |t| t.elapsed());
                if (s.held.is_empty() && quiet > EMPTY_GRACE) || quiet > IDLE_MAX {
                    break;
                }
            }
        }
    }
    let _ = std::fs::remove_file(&path);
    let held = std::mem::take(&mut lock(&state).held);
    for h in held {
        h.session.lock().await.close().await;
    }
    Ok(Exit::Ok)
}

/// Serves one request.
async fn handle(stream: UnixStream, state: Shared) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read.take(super::MAX_LINE as u64));
    let mut line = String::new();
    if reader.read_line(&mut line).await.is_err() {
        return;
    }
    let req: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
    let (tx, rx) = mpsc::unbounded_channel();
    let ui = Ui::detect();
    let work = dispatch(&req, &state, tx, ui);
    let forward = forward(rx, &mut write);
    // The peer hanging up (Ctrl-C) cancels the command in flight.
    let hangup = async {
        let mut rest = Vec::new();
        let _ = reader.read_to_end(&mut rest).await;
    };
    let result = tokio::select! {
        (r, ()) = async { tokio::join!(work, forward) } => r,
        () = hangup => return,
    };
    let frame = match result {
        Ok(exit) => json!({ "exit": exit as u8 }),
        Err(e) => json!({ "exit": e.exit as u8, "error": e.message }),
    };
    let _ = write_frame(&mut write, &frame).await;
    lock(&state).last_request = Some(Instant::now());
}

/// Relays output frames until the command drops its sender.
async fn forward(mut rx: mpsc::UnboundedReceiver<Frame>, write: &mut OwnedWriteHalf) {
    while let Some(frame) = rx.recv().await {
        let v = match frame {
            Frame::Out(t) => json!({ "out": t }),
            Frame::Err(t) => json!({ "err": t }),
        };
        if write_frame(write, &v).await.is_err() {
            return;
        }
    }
}

async fn write_frame(write: &mut OwnedWriteHalf, v: &Value) -> std::io::Result<()> {
    let mut bytes = v.to_string().into_bytes();
    bytes.push(b'\n');
    write.write_all(&bytes).await
}

async fn dispatch(
    req: &Value,
    state: &Shared,
    tx: mpsc::UnboundedSender<Frame>,
    ui: Ui,
) -> Result<Exit, CliError> {
    let name = req.get("name").and_then(Value::as_str).map(str::to_owned);
    let argv = strings(req, "argv");
    match req.get("op").and_then(Value::as_str) {
        Some("connect") => {
            let after = strings(req, "after");
            let name = name.ok_or_else(|| CliError::usage("connect needs a NAME"))?;
            open(state, &name, &argv, after, tx, ui).await
        }
        Some("run") => run(state, name.as_deref(), &argv, tx, ui).await,
        Some("disconnect") => disconnect(state, name.as_deref(), tx).await,
        Some("elicitation") => elicitation(state, &argv, tx, ui),
        Some("list") => {
            let out = Out::remote(ui, true, None, tx);
            let s = lock(state);
            let list: Vec<Value> = s
                .held
                .iter()
                .rev()
                .map(|h| json!({ "name": h.name, "target": h.target }))
                .collect();
            out.json_line(&json!({ "connections": list }));
            Ok(Exit::Ok)
        }
        _ => Err(CliError::usage(
            "the connection holder got an unknown request",
        )),
    }
}

/// The strings of the array `key` of a request.
fn strings(req: &Value, key: &str) -> Vec<String> {
    req.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn parse(argv: &[String]) -> Result<Cli, CliError> {
    Cli::try_parse_from(argv).map_err(|e| CliError::usage(e.to_string()))
}

async fn open(
    state: &Shared,
    name: &str,
    argv: &[String],
    after: Vec<String>,
    tx: mpsc::UnboundedSender<Frame>,
    ui: Ui,
) -> Result<Exit, CliError> {
    let cli = parse(argv)?;
    let (target, era) = Target::from_args(&cli.global, after)?;
    let pending = lock(state).pending.clone();
    let session = connect(&cli.global, &target, era, &ui, Some(pending)).await?;
    let out = Out::remote(ui, cli.global.json, None, tx);
    let info = crate::commands::connection_info(&session);
    let old = {
        let mut s = lock(state);
        let old = s
            .held
            .iter()
            .position(|h| h.name == name)
            .map(|i| s.held.remove(i));
        s.held.push(Held {
            name: name.to_owned(),
            target: target.describe(),
            session: Arc::new(Mutex::new(session)),
        });
        old
    };
    if let Some(old) = old {
        old.session.lock().await.close().await;
    }
    if out.json {
        out.json_doc(&json!({ "connected": name, "info": info }));
    } else {
        out.line(&format!(
            "connected {name}: {} ({} {})",
            info["serverInfo"]["name"].as_str().unwrap_or("?"),
            info["era"].as_str().unwrap_or("?"),
            info["protocolVersion"].as_str().unwrap_or("?")
        ));
    }
    Ok(Exit::Ok)
}

async fn run(
    state: &Shared,
    name: Option<&str>,
    argv: &[String],
    tx: mpsc::UnboundedSender<Frame>,
    ui: Ui,
) -> Result<Exit, CliError> {
    let cli = parse(argv)?;
    let session = {
        let s = lock(state);
        let held = match name {
            Some(n) => s.held.iter().find(|h| h.name == n),
            None => s.held.last(),
        };
        match held {
            Some(h) => h.session.clone(),
            None => {
                let names: Vec<&str> = s.held.iter().map(|h| h.name.as_str()).collect();
                return Err(CliError::usage(format!(
                    "no held connection {}; held: {}",
                    name.map_or_else(String::new, |n| format!("{n:?}")),
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.join(", ")
                    }
                )));
            }
        }
    };
    let mut session = session.lock().await;
    // Notifications that came while no command ran are stale.
    while session.events.try_recv().is_ok() {}
    if matches!(
        cli.command,
        Command::Connect { .. } | Command::Disconnect { .. }
    ) {
        return Err(CliError::usage("connect and disconnect take no @NAME"));
    }
    let pending = lock(state).pending.clone();
    pending.set_output(Some(tx.clone()));
    let out = Out::remote(ui, cli.global.json, cli.global.save_dir.clone(), tx);
    let result = crate::commands::run(&mut session, &cli.command, &out).await;
    pending.set_output(None);
    result
}

/// `elicitation list|respond`: needs no connection lock (the command that
/// caused the question holds it while it waits).
fn elicitation(
    state: &Shared,
    argv: &[String],
    tx: mpsc::UnboundedSender<Frame>,
    ui: Ui,
) -> Result<Exit, CliError> {
    let cli = parse(argv)?;
    let out = Out::remote(ui, cli.global.json, None, tx);
    let pending = lock(state).pending.clone();
    match cli.command {
        Command::Elicitation(ElicitationCmd::List) => {
            let list = pending.list();
            if out.json {
                out.json_doc(&json!({ "elicitations": list }));
            } else if list.is_empty() {
                out.line("no pending elicitations");
            } else {
                for e in &list {
                    out.line(&format!(
                        "{}  {}  {}",
                        e["id"],
                        e["mode"].as_str().unwrap_or(""),
                        e["message"].as_str().unwrap_or("")
                    ));
                }
            }
            Ok(Exit::Ok)
        }
        Command::Elicitation(ElicitationCmd::Respond {
            id,
            pairs,
            args,
            decline,
            cancel,
        }) => {
            let response = if decline {
                Response::Decline
            } else if cancel {
                Response::Cancel
            } else {
                let json = args
                    .as_deref()
                    .map(crate::tool_args::read_json_object)
                    .transpose()?
                    .unwrap_or_default();
                Response::Accept(json, pairs)
            };
            pending.respond(id, response)?;
            out.line(&format!("answered elicitation {id}"));
            Ok(Exit::Ok)
        }
        _ => Err(CliError::usage("not an elicitation command")),
    }
}

async fn disconnect(
    state: &Shared,
    name: Option<&str>,
    tx: mpsc::UnboundedSender<Frame>,
) -> Result<Exit, CliError> {
    let held = {
        let mut s = lock(state);
        let pos = match name {
            Some(n) => s.held.iter().position(|h| h.name == n),
            None => s.held.len().checked_sub(1),
        };
        pos.map(|i| s.held.remove(i))
    };
    let Some(h) = held else {
        return Err(CliError::usage(format!(
            "no held connection {}",
            name.unwrap_or("to disconnect")
        )));
    };
    h.session.lock().await.close().await;
    let _ = tx.send(Frame::Out(format!("disconnected {}", h.name)));
    Ok(Exit::Ok)
}
