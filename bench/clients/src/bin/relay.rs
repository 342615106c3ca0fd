//! `relay PROGRAM [ARGS...]`: runs the program with piped stdin and stdout
//! and copies bytes between them and its own, unchanged, until either side
//! ends. `cargo xtask bench --table --cold-tlb` puts a stdio server behind a
//! chain of these, pinned to the client's CPU: each call's request and
//! reply then pass through address spaces of their own, more of them than
//! the kernel keeps tagged TLB entries for (x86's PCIDs), so the client
//! finds its TLB empty at each turn, as it does after every switch on a
//! CPU without PCID. Its CPU time is not the client's, so it adds to no
//! figure but through what it evicts.

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: relay PROGRAM [ARGS...]");
        return ExitCode::from(2);
    };
    let mut child = match Command::new(&program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("relay: start {}: {e}", program.to_string_lossy());
            return ExitCode::from(2);
        }
    };
    let (Some(mut to_child), Some(mut from_child)) = (child.stdin.take(), child.stdout.take())
    else {
        return ExitCode::from(2);
    };
    // Upstream on a thread of its own; its end closes the child's stdin.
    std::thread::spawn(move || pump(&mut std::io::stdin().lock(), &mut to_child));
    pump(&mut from_child, &mut std::io::stdout().lock());
    let _ = child.wait();
    ExitCode::SUCCESS
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
