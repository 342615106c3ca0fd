//! `cargo xtask features`: `mcp-client` builds warning-free with every
//! feature set a user is likely to pick: none, each feature alone, and all
//! of them (`cargo clippy -p mcp-client --no-default-features --features
//! ... -- -D warnings`, the library only). The default set is the
//! workspace's own clippy step. A step of `cargo xtask ci`.

use crate::util;

/// The feature sets checked besides the defaults.
const SETS: [&str; 8] = [
    "",
    "stdio",
    "http",
    "oauth",
    "output-schema",
    "strict-schema",
    "skills",
    "stdio,http,oauth,output-schema,strict-schema,skills",
];

/// Checks every set; fails on the first that does not build cleanly.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("unknown features option {a:?}"));
    }
    for set in SETS {
        let name = match set {
            "" => "no features".to_owned(),
            s => format!("features {s}"),
        };
        util::run(
            &format!("mcp-client, {name}"),
            util::cargo().args([
                "clippy",
                "--quiet",
                "-p",
                "mcp-client",
                "--no-default-features",
                "--features",
                set,
                "--",
                "-D",
                "warnings",
            ]),
        )?;
    }
    println!(
        "xtask features: {} feature sets build warning-free",
        SETS.len()
    );
    Ok(())
}
