//! Tab completion in `mcp repl`: command and subcommand names (from the
//! clap definition, so they never drift from the parser), tool and prompt
//! names (from the connected server), and argument names as `key=` (from
//! the tool's input schema, or the prompt's arguments).
//!
//! The names of the server come from a [`Catalog`] snapshot the repl
//! refreshes between lines; completing never sends a request.

use std::sync::{Arc, Mutex, PoisonError};

use clap::CommandFactory;
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use crate::args::Cli;

/// What the server offers, by name: tools and prompts with their argument
/// names.
#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    /// `(tool, argument names)`, as listed.
    pub(crate) tools: Vec<(String, Vec<String>)>,
    /// `(prompt, argument names)`, as listed.
    pub(crate) prompts: Vec<(String, Vec<String>)>,
}

/// The repl's rustyline helper: completion only (no hints, colours or
/// multi-line validation).
pub(crate) struct ReplHelper {
    catalog: Arc<Mutex<Catalog>>,
}

impl ReplHelper {
    /// A helper completing from `catalog` (shared with the repl, which
    /// refreshes it).
    pub(crate) fn new(catalog: Arc<Mutex<Catalog>>) -> ReplHelper {
        ReplHelper { catalog }
    }
}

/// The candidates for the word being typed, given the words before it.
pub(crate) fn candidates(catalog: &Catalog, before: &[&str], typed: &str) -> Vec<String> {
    let named = |list: &[(String, Vec<String>)]| -> Vec<String> {
        list.iter().map(|(n, _)| n.clone()).collect()
    };
    let args_of = |list: &[(String, Vec<String>)], name: &str| -> Vec<String> {
        let given: Vec<&str> = before
            .iter()
            .filter_map(|w| w.split_once('=').map(|(k, _)| k))
            .collect();
        list.iter()
            .find(|(n, _)| n == name)
            .map(|(_, args)| {
                args.iter()
                    .filter(|a| !given.contains(&a.as_str()))
                    .map(|a| format!("{a}="))
                    .collect()
            })
            .unwrap_or_default()
    };
    let words: Vec<String> = match before {
        [] => {
            let mut names = subcommand_names(&[]);
            names.extend(["exit".to_owned(), "quit".to_owned()]);
            names
        }
        ["tools", "call"] => named(&catalog.tools),
        ["prompts", "get"] => named(&catalog.prompts),
        ["tools", "call", tool, ..] if !typed.starts_with('-') => args_of(&catalog.tools, tool),
        ["prompts", "get", prompt, ..] if !typed.starts_with('-') => {
            args_of(&catalog.prompts, prompt)
        }
        [first] => subcommand_names(&[first]),
        _ => Vec::new(),
    };
    let mut out: Vec<String> = words.into_iter().filter(|w| w.starts_with(typed)).collect();
    out.sort();
    out.dedup();
    out
}

/// The visible subcommand names at `path` (`[]`: the top level).
fn subcommand_names(path: &[&str]) -> Vec<String> {
    let mut cmd = Cli::command();
    for name in path {
        match cmd.find_subcommand(name) {
            Some(sub) => cmd = sub.clone(),
            None => return Vec::new(),
        }
    }
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_owned())
        .filter(|n| n != "help")
        .collect()
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let head = &line[..pos];
        let start = head.rfind(char::is_whitespace).map_or(0, |i| i + 1);
        let before: Vec<&str> = head[..start].split_whitespace().collect();
        let catalog = self
            .catalog
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let found = candidates(&catalog, &before, &head[start..]);
        let pairs = found
            .into_iter()
            .map(|w| {
                // A finished word gets its blank; `key=` waits for its value.
                let replacement = if w.ends_with('=') {
                    w.clone()
                } else {
                    format!("{w} ")
                };
                Pair {
                    display: w,
                    replacement,
                }
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog() -> Catalog {
        Catalog {
            tools: vec![
                ("echo".into(), vec!["text".into()]),
                ("add".into(), vec!["a".into(), "b".into()]),
            ],
            prompts: vec![("greet".into(), vec!["name".into()])],
        }
    }

    #[test]
    fn commands_subcommands_tools_and_arguments_complete() {
        let c = catalog();
        assert_eq!(candidates(&c, &[], "too"), ["tools"]);
        assert!(candidates(&c, &[], "").contains(&"exit".to_owned()));
        assert!(!candidates(&c, &[], "da").contains(&"daemon".to_owned()));
        assert_eq!(candidates(&c, &["tools"], ""), ["call", "list"]);
        assert_eq!(candidates(&c, &["tools", "call"], "e"), ["echo"]);
        assert_eq!(candidates(&c, &["tools", "call", "add"], ""), ["a=", "b="]);
        assert_eq!(
            candidates(&c, &["tools", "call", "add", "a=1"], ""),
            ["b="],
            "a given argument is not offered again"
        );
        assert_eq!(candidates(&c, &["prompts", "get", "greet"], "n"), ["name="]);
        assert!(candidates(&c, &["tools", "call", "nope"], "").is_empty());
    }
}
