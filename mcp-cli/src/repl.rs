//! `mcp repl`: one connection, many commands, typed one per line.
//!
//! Each line is split like a shell would (quotes `'...'` and `"..."`,
//! backslash escapes) and parsed as the arguments of `mcp`, so every
//! command and its options work as on the command line (the connection
//! options of a line are ignored: the connection is made once). Ctrl-C
//! cancels the command in flight and returns to the prompt; Ctrl-C at the
//! prompt, Ctrl-D, `exit` or `quit` end the session. The prompt is shown
//! on a terminal only.

use std::io::{BufRead, Write};

use clap::Parser;

use crate::args::{Cli, Command};
use crate::commands;
use crate::connect::Session;
use crate::exit::{CliError, Exit};
use crate::render::Out;
use crate::ui::Ui;

/// Reads and runs commands until the end of input.
pub(crate) async fn run(session: &mut Session, ui: &Ui) -> Result<Exit, CliError> {
    let prompt = ui.interactive();
    loop {
        let read = tokio::task::spawn_blocking(move || read_line(prompt));
        let line = tokio::select! {
            r = read => r.ok().flatten(),
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some(line) = line else { break };
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
        let argv = std::iter::once("mcp".to_owned()).chain(words);
        let cli = match Cli::try_parse_from(argv) {
            Ok(cli) => cli,
            Err(e) => {
                let _ = e.print();
                continue;
            }
        };
        if matches!(
            cli.command,
            Command::Repl | Command::Connect { .. } | Command::Daemon
        ) {
            ui.note("mcp: not inside the repl");
            continue;
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
    Ok(Exit::Ok)
}

/// One line from stdin; `None` at the end of input.
fn read_line(prompt: bool) -> Option<String> {
    if prompt {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "mcp> ");
        let _ = err.flush();
    }
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
