//! `mcp repl`: one connection, many commands, typed one per line.
//!
//! Each line is split like a shell would (quotes `'...'` and `"..."`,
//! backslash escapes) and parsed as the arguments of `mcp`, so every
//! command and its options work as on the command line (the connection
//! options of a line are ignored: the connection is made once). Ctrl-C
//! cancels the command in flight and returns to the prompt; Ctrl-C at the
//! prompt, Ctrl-D, `exit` or `quit` end the session.
//!
//! On a terminal the line is read with `rustyline` (default features off:
//! no file locking, no derive macros; it brings line editing, Tab
//! completion and history for a few small crates, where writing raw-mode
//! line editing here would be several hundred lines of terminal code):
//! Tab completes command names, tool and prompt names and their argument
//! names ([`complete`]); the history is kept in a 0600 file ([`history`]).
//! Without a terminal, lines are read plainly from stdin and no prompt is
//! shown.

mod complete;
mod history;

use std::io::BufRead;
use std::sync::{Arc, Mutex, PoisonError};

use clap::Parser;
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::{CompletionType, Config, Editor};

use crate::args::{Cli, Command};
use crate::commands;
use crate::connect::Session;
use crate::exit::{CliError, Exit};
use crate::render::Out;
use crate::ui::Ui;

use complete::{Catalog, ReplHelper};
use history::History;

/// The terminal line editor with its history file and completion catalog.
struct Terminal {
    /// Lent to the blocking thread while a line is edited.
    editor: Option<Box<Editor<ReplHelper, DefaultHistory>>>,
    history: Option<History>,
    catalog: Arc<Mutex<Catalog>>,
}

/// Where lines come from.
enum Lines {
    /// A terminal: rustyline.
    Terminal(Terminal),
    /// Plain stdin.
    Plain,
}

impl Lines {
    /// A line editor on a terminal, plain stdin otherwise (or when the
    /// editor cannot start).
    fn new(ui: &Ui) -> Lines {
        if !ui.interactive() {
            return Lines::Plain;
        }
        let config = Config::builder()
            .auto_add_history(false)
            .completion_type(CompletionType::List)
            .max_history_size(history::KEEP)
            .map(|b| b.build());
        let Ok(Ok(mut editor)) = config.map(Editor::<ReplHelper, DefaultHistory>::with_config)
        else {
            return Lines::Plain;
        };
        let catalog = Arc::new(Mutex::new(Catalog::default()));
        editor.set_helper(Some(ReplHelper::new(catalog.clone())));
        let mut history = History::open();
        for line in history.as_mut().map(History::load).unwrap_or_default() {
            let _ = editor.add_history_entry(line);
        }
        if let Some(h) = &history {
            greet(ui, h);
        }
        Lines::Terminal(Terminal {
            editor: Some(Box::new(editor)),
            history,
            catalog,
        })
    }

    /// The next line; `None` at the end of input or on Ctrl-C / Ctrl-D at
    /// the prompt.
    async fn next(&mut self) -> Option<String> {
        match self {
            Lines::Plain => {
                let read = tokio::task::spawn_blocking(read_line);
                tokio::select! {
                    r = read => r.ok().flatten(),
                    _ = tokio::signal::ctrl_c() => None,
                }
            }
            Lines::Terminal(t) => {
                // Raw mode while editing: Ctrl-C is a key, not a signal.
                let mut editor = t.editor.take()?;
                let (editor, read) = tokio::task::spawn_blocking(move || {
                    let r = editor.readline("mcp> ");
                    (editor, r)
                })
                .await
                .ok()?;
                let editor = t.editor.insert(editor);
                match read {
                    Ok(line) => {
                        let kept = t.history.as_mut().is_some_and(|h| h.add(&line));
                        if kept {
                            let _ = editor.add_history_entry(line.trim());
                        }
                        Some(line)
                    }
                    // Ctrl-C, Ctrl-D, or the terminal went away.
                    Err(ReadlineError::Interrupted | ReadlineError::Eof | _) => None,
                }
            }
        }
    }

    /// Refreshes the names completion offers (terminal only: piped input
    /// sends no extra requests).
    async fn refresh(&self, session: &Session) {
        let Lines::Terminal(t) = self else { return };
        let client = &session.client;
        let mut catalog = Catalog::default();
        if let Ok(tools) = client.list_all_tools().await {
            catalog.tools = tools
                .iter()
                .map(|t| {
                    let args = t
                        .input_schema
                        .get("properties")
                        .and_then(serde_json::Value::as_object)
                        .map(|p| p.keys().cloned().collect())
                        .unwrap_or_default();
                    (t.name.clone(), args)
                })
                .collect();
        }
        if let Ok(prompts) = client.list_all_prompts().await {
            catalog.prompts = prompts
                .iter()
                .map(|p| {
                    let args = p.arguments.iter().flatten().map(|a| a.name.clone());
                    (p.name.clone(), args.collect())
                })
                .collect();
        }
        *t.catalog.lock().unwrap_or_else(PoisonError::into_inner) = catalog;
    }
}

/// Says where the history is kept (once, at start).
fn greet(ui: &Ui, history: &History) {
    ui.note(&format!(
        "mcp repl: Tab completes; history in {}; Ctrl-D or `exit` ends",
        history.path().display()
    ));
}

/// Reads and runs commands until the end of input.
pub(crate) async fn run(session: &mut Session, ui: &Ui) -> Result<Exit, CliError> {
    let mut lines = Lines::new(ui);
    lines.refresh(session).await;
    while let Some(line) = lines.next().await {
        let words = match split_words(&line) {
            Ok(w) => w,
            Err(e) => {
                ui.note(&format!("mcp: {e}"));
                continue;
            }
        };
        match words.first().map(String::as_str) {
            None => continue,
            Some("exit" | "quit") => break,
            Some(_) => {}
        }
        let lists = matches!(words[0].as_str(), "tools" | "prompts");
        run_line(session, ui, words).await;
        if lists {
            lines.refresh(session).await;
        }
    }
    Ok(Exit::Ok)
}

/// Parses and runs one line's words, reporting failures on stderr.
async fn run_line(session: &mut Session, ui: &Ui, words: Vec<String>) {
    let argv = std::iter::once("mcp".to_owned()).chain(words);
    let cli = match Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return;
        }
    };
    if matches!(
        cli.command,
        Command::Repl | Command::Connect { .. } | Command::Daemon
    ) {
        ui.note("mcp: not inside the repl");
        return;
    }
    let out = Out::new(ui.clone(), cli.global.json, cli.global.save_dir.clone());
    let result = tokio::select! {
        r = commands::run(session, &cli.command, &out) => r,
        _ = tokio::signal::ctrl_c() => Err(CliError::interrupted()),
    };
    ui.clear_status();
    match result {
        Ok(Exit::Ok) => {}
        Ok(code) => ui.note(&format!("mcp: exit {}", code as u8)),
        Err(e) => ui.note(&format!("mcp: {} (exit {})", e.message, e.exit as u8)),
    }
}

/// One line from stdin; `None` at the end of input.
fn read_line() -> Option<String> {
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line),
    }
}

/// Splits a line into words: blanks separate, quotes group, `\` escapes.
pub(crate) fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\\' => {
                let next = chars.next().ok_or("a line cannot end with \\")?;
                word.get_or_insert_default().push(next);
            }
            '\'' | '"' => {
                let w = word.get_or_insert_default();
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => {
                            w.push(chars.next().ok_or("a line cannot end with \\")?);
                        }
                        Some(other) => w.push(other),
                        None => return Err(format!("unclosed {c}")),
                    }
                }
            }
            other => word.get_or_insert_default().push(other),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"tools call add --args '{"a": 1}' text="x y" z\ w"#),
            Ok(vec![
                "tools".into(),
                "call".into(),
                "add".into(),
                "--args".into(),
                r#"{"a": 1}"#.into(),
                "text=x y".into(),
                "z w".into()
            ])
        );
        assert!(split_words("'open").is_err());
        assert_eq!(split_words("  "), Ok(vec![]));
    }
}
