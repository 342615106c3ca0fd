//! `cargo xtask features`: `mcp-client` builds warning-free with every
//! feature set a user is likely to pick: none, each feature alone, and all
//! of them (`cargo clippy -p mcp-client --no-default-features --features
//! ... -- -D warnings`, the library only). The default set is the
//! workspace's own clippy step. Then the tests of `xtask/size/hello-stdio`
//! with `stdio` only, the one place `mcp-client` runs without `http` (inside
//! the workspace its tests' dev-dependencies turn the defaults back on): an
//! HTTP URL is a typed error there. A step of `cargo xtask ci`.

use crate::{install, util};

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
    let hello = crate::size::hello_dir()?;
    util::run(
        "mcp-client without http: hello-stdio's tests",
        util::cargo()
            .current_dir(&hello)
            .env(
                "CARGO_TARGET_DIR",
                install::cache_dir().join("features-check"),
            )
            .args(["test", "--quiet", "--no-default-features"]),
    )?;
    println!(
        "xtask features: {} feature sets build warning-free",
        SETS.len()
    );
    Ok(())
}
