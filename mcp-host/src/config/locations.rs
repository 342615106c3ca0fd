//! Where hosts keep their MCP configs, per platform.

use std::path::{Path, PathBuf};

/// The application whose config a location holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HostApp {
    /// Claude Desktop (`claude_desktop_config.json`).
    ClaudeDesktop,
    /// Claude Code (`.mcp.json`, `~/.claude.json`).
    ClaudeCode,
    /// Cursor (`mcp.json`).
    Cursor,
    /// VS Code (`mcp.json`, `servers` key).
    VsCode,
    /// Windsurf (`mcp_config.json`).
    Windsurf,
}

/// Whether a config belongs to the user or to one project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// In the user's home or application data.
    User,
    /// In a project directory.
    Project,
}

/// One place a config may be (it need not exist).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigLocation {
    /// Whose config it is.
    pub app: HostApp,
    /// User or project.
    pub scope: Scope,
    /// The file.
    pub path: PathBuf,
}

/// The usual locations on this machine, project ones first (most specific
/// first), from `HOME`/`USERPROFILE`, `APPDATA` and `XDG_CONFIG_HOME`.
/// Filter with `path.exists()` to find the configs present.
pub fn default_locations(project: Option<&Path>) -> Vec<ConfigLocation> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = var("HOME").or_else(|| var("USERPROFILE"));
    let appdata = var("APPDATA");
    let xdg = var("XDG_CONFIG_HOME");
    locations_for(
        std::env::consts::OS,
        home.as_deref(),
        appdata.as_deref(),
        xdg.as_deref(),
        project,
    )
}

/// The locations for `os` (`"macos"`, `"windows"`, `"linux"`, ...) with the
/// given directories; [`default_locations`] with everything explicit.
///
/// ```
/// use std::path::Path;
/// use mcp_host::config::{locations_for, HostApp};
/// let all = locations_for("macos", Some(Path::new("/Users/me")), None, None, None);
/// let desktop = all.iter().find(|l| l.app == HostApp::ClaudeDesktop).unwrap();
/// assert_eq!(
///     desktop.path,
///     Path::new("/Users/me/Library/Application Support/Claude/claude_desktop_config.json")
/// );
/// ```
pub fn locations_for(
    os: &str,
    home: Option<&Path>,
    appdata: Option<&Path>,
    xdg_config: Option<&Path>,
    project: Option<&Path>,
) -> Vec<ConfigLocation> {
    let mut out = Vec::new();
    let mut push = |app, scope, path: PathBuf| out.push(ConfigLocation { app, scope, path });
    if let Some(p) = project {
        push(HostApp::ClaudeCode, Scope::Project, p.join(".mcp.json"));
        push(HostApp::Cursor, Scope::Project, p.join(".cursor/mcp.json"));
        push(HostApp::VsCode, Scope::Project, p.join(".vscode/mcp.json"));
    }
    // The per-user application directory: Application Support, APPDATA or
    // the XDG config directory.
    let app_dir: Option<PathBuf> = match os {
        "macos" => home.map(|h| h.join("Library/Application Support")),
        "windows" => appdata.map(Path::to_path_buf),
        _ => xdg_config
            .map(Path::to_path_buf)
            .or_else(|| home.map(|h| h.join(".config"))),
    };
    if let Some(dir) = &app_dir {
        push(
            HostApp::ClaudeDesktop,
            Scope::User,
            dir.join("Claude/claude_desktop_config.json"),
        );
        push(HostApp::VsCode, Scope::User, dir.join("Code/User/mcp.json"));
    }
    if let Some(h) = home {
        push(HostApp::ClaudeCode, Scope::User, h.join(".claude.json"));
        push(HostApp::Cursor, Scope::User, h.join(".cursor/mcp.json"));
        push(
            HostApp::Windsurf,
            Scope::User,
            h.join(".codeium/windsurf/mcp_config.json"),
        );
    }
    out
}
