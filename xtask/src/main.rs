//! `cargo xtask`: the project's automation, in Rust, with no heavy dependencies.
//!
//! * `cargo xtask ci`: everything CI checks (format, lints, tests, docs, tidy,
//!   and the external suites as they land).
//! * `cargo xtask tidy`: the repository's own rules (see [`tidy`]).

mod ci;
mod tidy;
mod util;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("ci") => ci::run(&args[1..]),
        Some("tidy") => tidy::run(),
        Some("help" | "--help" | "-h") | None => {
            print_help();
            Ok(())
        }
        Some(other) => Err(format!("unknown command {other:?}; try `cargo xtask help`")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print_help() {
    println!(
        "cargo xtask <command>\n\n\
         ci      format check, clippy, tests, docs, tidy (what CI runs)\n\
         tidy    repository rules: module docs, file sizes, sans-I/O dependencies\n"
    );
}
