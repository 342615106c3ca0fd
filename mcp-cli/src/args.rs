//! The command line: global options, the target and the subcommands
//! (clap derive).
//!
//! The server to talk to comes after `--`: a command and its arguments
//! (stdio), or one `http://` / `https://` URL (Streamable HTTP). `--url`
//! names a URL explicitly. Everything before `--` is parsed by clap; see
//! [`split_target`].

use clap::{Args, Parser, Subcommand, ValueEnum};

/// The top-level command line.
#[derive(Debug, Parser)]
#[command(
    name = "mcp",
    version,
    about = "A command-line Model Context Protocol client.",
    override_usage = "mcp [OPTIONS] <COMMAND> [ARGS]... -- <SERVER COMMAND [ARGS]... | URL>\n       \
                      mcp [OPTIONS] --url <URL> | --server <NAME> <COMMAND> [ARGS]...\n       \
                      mcp [OPTIONS] [@NAME] <COMMAND> [ARGS]...   (a held connection)",
    after_help = after_help()
)]
pub(crate) struct Cli {
    /// Options shared by every command.
    #[command(flatten)]
    pub(crate) global: Global,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The text after the options list: targets, examples, exit codes.
const fn after_help() -> &'static str {
    concat!(
        "Targets:\n",
        "  -- COMMAND [ARGS]...   a stdio server started as a child process\n",
        "  -- URL | --url URL     a Streamable HTTP server (http:// or https://)\n",
        "  --server NAME          a server of an mcpServers config (--config FILE)\n",
        "  @NAME                  a connection held by `mcp connect NAME -- ...`\n",
        "  (none)                 the most recent held connection\n",
        "\n",
        "Examples:\n",
        "  mcp tools list -- demo-server\n",
        "  mcp tools call echo text=hello -- demo-server\n",
        "  mcp --json tools call add --args '{\"a\": 2, \"b\": 3}' -- demo-server\n",
        "  mcp info --url http://127.0.0.1:8080/mcp --bearer \"$TOKEN\"\n",
        "\n",
        "Exit codes:\n",
        "  0    success\n",
        "  1    the tool ran and reported an error (isError: true)\n",
        "  2    usage: bad arguments, or tool arguments the tool's input schema refuses (nothing sent)\n",
        "  3    protocol: the server answered with a JSON-RPC error or broke the protocol\n",
        "  4    transport: the server could not be started or reached, or the connection was lost\n",
        "  5    timeout: the server did not answer in time\n",
        "  130  interrupted: Ctrl-C cancelled the call in flight\n",
        "\n",
        "Environment: NO_COLOR turns colours off; MCP_BEARER_TOKEN is the default of --bearer."
    )
}

/// Options shared by every command.
#[derive(Debug, Args)]
pub(crate) struct Global {
    /// A Streamable HTTP server URL (instead of `-- URL`).
    #[arg(long, global = true, value_name = "URL")]
    pub(crate) url: Option<String>,
    /// A server by its name in an `mcpServers` / VS Code `servers` config.
    #[arg(long, short = 's', global = true, value_name = "NAME")]
    pub(crate) server: Option<String>,
    /// The config file for --server (default: the usual locations of
    /// Claude, Claude Code, Cursor, VS Code and Windsurf configs).
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) config: Option<std::path::PathBuf>,
    /// An HTTP header for every request, `Name: value` (repeatable).
    #[arg(
        long = "header",
        short = 'H',
        global = true,
        value_name = "NAME: VALUE"
    )]
    pub(crate) headers: Vec<String>,
    /// A bearer token for HTTP (never printed).
    #[arg(long, global = true, env = "MCP_BEARER_TOKEN", hide_env_values = true)]
    pub(crate) bearer: Option<String>,
    /// Log in with OAuth when the HTTP server asks (browser, loopback
    /// redirect; tokens kept in a 0600 file, see `mcp auth`).
    #[arg(long, global = true)]
    pub(crate) oauth: bool,
    /// The loopback port of the OAuth redirect.
    #[arg(long, global = true, value_name = "PORT", default_value_t = crate::oauth::DEFAULT_PORT)]
    pub(crate) oauth_port: u16,
    /// Enterprise-managed authorization: exchange the ID token from
    /// `mcp auth ema-login` for access to the HTTP server.
    #[arg(long, global = true)]
    pub(crate) ema: bool,
    /// With --ema: the identity provider to use when signed in at several.
    #[arg(long, global = true, value_name = "URL")]
    pub(crate) ema_idp: Option<String>,
    /// With --ema: this client's id at the MCP server's authorization server.
    #[arg(long, global = true, value_name = "ID")]
    pub(crate) ema_client_id: Option<String>,
    /// With --ema: this client's secret at the MCP server's authorization
    /// server (never printed).
    #[arg(
        long,
        global = true,
        env = "MCP_EMA_CLIENT_SECRET",
        hide_env_values = true,
        value_name = "SECRET"
    )]
    pub(crate) ema_client_secret: Option<String>,
    /// Which protocol era to speak.
    #[arg(long, global = true, value_enum, default_value_t = EraArg::Auto)]
    pub(crate) era: EraArg,
    /// Machine output: one JSON document (JSON lines for streams).
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// Show the traffic and diagnostics on stderr (secrets redacted).
    #[arg(long, short = 'v', global = true)]
    pub(crate) verbose: bool,
    /// Seconds to wait for each answer (0: no limit).
    #[arg(long, global = true, default_value_t = 60.0, value_name = "SECONDS")]
    pub(crate) timeout: f64,
    /// Never prompt: refuse elicitation and sampling requests.
    #[arg(long, global = true)]
    pub(crate) no_input: bool,
    /// A root the client offers the server (a path or file:// URI; repeatable).
    #[arg(long = "root", global = true, value_name = "PATH")]
    pub(crate) roots: Vec<String>,
    /// Where images and binary contents are saved (default: the temp dir).
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) save_dir: Option<std::path::PathBuf>,
    /// Log messages at or above this level are shown on stderr.
    #[arg(long, global = true, value_enum, value_name = "LEVEL")]
    pub(crate) log_level: Option<LevelArg>,
}

/// `--era`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum EraArg {
    /// Detect the era (probe 2026-07-28, fall back to 2025-11-25).
    Auto,
    /// 2025-11-25: `initialize` and sessions.
    Legacy,
    /// 2026-07-28: stateless requests and `server/discover`.
    Modern,
}

/// A log level, as the protocol names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[allow(missing_docs, reason = "the protocol's level names")]
pub(crate) enum LevelArg {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Era, protocol version, server info, capabilities, instructions.
    Info,
    /// List or call tools.
    #[command(subcommand)]
    Tools(ToolsCmd),
    /// List or get prompts.
    #[command(subcommand)]
    Prompts(PromptsCmd),
    /// List, read or subscribe to resources.
    #[command(subcommand)]
    Resources(ResourcesCmd),
    /// Skills the server serves (SEP-2640): list, get, load, read (verified).
    #[command(subcommand)]
    Skills(SkillsCmd),
    /// Ask for completions of a prompt argument or a template variable.
    Complete(CompleteArgs),
    /// Check that the server answers.
    Ping,
    /// Set the server's log level.
    LogLevel {
        /// The level.
        #[arg(value_enum)]
        level: LevelArg,
    },
    /// Show the server's log messages until Ctrl-C.
    Logs {
        /// The lowest level shown.
        #[arg(value_enum, default_value_t = LevelArg::Debug)]
        level: LevelArg,
        /// Stop after this many messages.
        #[arg(long)]
        count: Option<u64>,
    },
    /// Tasks the server runs for this client.
    #[command(subcommand)]
    Tasks(TasksCmd),
    /// The roots the client offers.
    #[command(subcommand)]
    Roots(RootsCmd),
    /// Show notifications and list changes until Ctrl-C.
    Watch {
        /// Also watch updates of this resource (repeatable).
        #[arg(long = "resource", value_name = "URI")]
        resources: Vec<String>,
        /// Stop after this many notifications.
        #[arg(long)]
        count: Option<u64>,
    },
    /// The servers of the config files (--config, or the usual locations).
    Servers,
    /// Hold a connection open under NAME; later commands use `@NAME` (or
    /// the most recent connection when no server is given).
    Connect {
        /// The connection's name.
        name: String,
    },
    /// Close a held connection (default: the most recent).
    Disconnect {
        /// The connection's name.
        name: Option<String>,
    },
    /// The held connections, most recent first.
    Connections,
    /// Questions servers asked held connections, answered from here.
    #[command(subcommand)]
    Elicitation(ElicitationCmd),
    /// The connection holder itself (started by `connect`).
    #[command(hide = true)]
    Daemon,
    /// Type commands one per line on one connection.
    Repl,
    /// The OAuth registrations and tokens `--oauth` stored.
    #[command(subcommand)]
    Auth(AuthCmd),
    /// A concise guide for a model driving this CLI.
    AgentHelp,
}

/// `tools ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum ToolsCmd {
    /// List the tools.
    List,
    /// Call a tool: `key=value` arguments typed from its input schema.
    Call(CallArgs),
}

/// `tools call`.
#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The tool's name.
    pub(crate) name: String,
    /// Arguments as `key=value`, typed from the tool's input schema.
    #[arg(value_name = "KEY=VALUE")]
    pub(crate) pairs: Vec<String>,
    /// All arguments as one JSON object, or `@FILE` (also `--json '{...}'`).
    #[arg(long, value_name = "JSON|@FILE")]
    pub(crate) args: Option<String>,
    /// Run the call as a task and wait for its result.
    #[arg(long)]
    pub(crate) task: bool,
}

/// `prompts ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum PromptsCmd {
    /// List the prompts.
    List,
    /// Get a prompt with `key=value` arguments.
    Get {
        /// The prompt's name.
        name: String,
        /// Arguments as `key=value`.
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        /// All arguments as one JSON object of strings, or `@FILE`.
        #[arg(long, value_name = "JSON|@FILE")]
        args: Option<String>,
    },
}

/// `resources ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum ResourcesCmd {
    /// List the resources.
    List,
    /// List the resource templates.
    Templates,
    /// Read a resource.
    Read {
        /// Its URI.
        uri: String,
    },
    /// Subscribe to a resource and show its updates until Ctrl-C.
    Subscribe {
        /// Its URI.
        uri: String,
        /// Stop after this many updates.
        #[arg(long)]
        count: Option<u64>,
    },
    /// Unsubscribe from a resource (2025-11-25).
    Unsubscribe {
        /// Its URI.
        uri: String,
    },
    /// The children of a directory resource (skills extension, when the
    /// server declares `directoryRead`).
    DirectoryRead {
        /// The directory's URI (no trailing slash).
        uri: String,
    },
}

/// `skills ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum SkillsCmd {
    /// List the skill entries (no skill file is read).
    List,
    /// The entry of one skill.
    Get {
        /// The URI of its `SKILL.md`.
        uri: String,
        /// Bypass any cached entry.
        #[arg(long)]
        refresh: bool,
    },
    /// Load a skill: read its `SKILL.md`, verified against its entry.
    Load {
        /// The URI of its `SKILL.md`.
        uri: String,
        /// Load an entry that lists no digests (nothing can be verified).
        #[arg(long)]
        allow_unverified: bool,
    },
    /// Read a supporting file of a skill by its path relative to the skill
    /// root, verified against the entry (loads the skill first).
    Read {
        /// The URI of the skill's `SKILL.md`.
        uri: String,
        /// The file's path relative to the skill root.
        path: String,
        /// Read from an entry that lists no digests (nothing is verified).
        #[arg(long)]
        allow_unverified: bool,
    },
}

/// `complete`.
#[derive(Debug, Args)]
pub(crate) struct CompleteArgs {
    /// Complete an argument of this prompt.
    #[arg(
        long,
        conflicts_with = "template",
        required_unless_present = "template"
    )]
    pub(crate) prompt: Option<String>,
    /// Complete a variable of this resource template URI.
    #[arg(long)]
    pub(crate) template: Option<String>,
    /// The argument or variable name.
    pub(crate) argument: String,
    /// What has been typed so far.
    #[arg(default_value = "")]
    pub(crate) value: String,
    /// Already chosen arguments, `key=value` (repeatable).
    #[arg(long = "context", value_name = "KEY=VALUE")]
    pub(crate) context: Vec<String>,
}

/// `tasks ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum TasksCmd {
    /// List the tasks (2025-11-25).
    List,
    /// A task's status.
    Get {
        /// The task id.
        id: String,
    },
    /// Wait for a task's result.
    Result {
        /// The task id.
        id: String,
    },
    /// Cancel a task.
    Cancel {
        /// The task id.
        id: String,
    },
    /// Answer a 2026-07-28 task's input requests: a JSON object of
    /// responses keyed by input request id (`tasks/update`).
    Update {
        /// The task id.
        id: String,
        /// The responses, as JSON or `@FILE`.
        #[arg(long, value_name = "JSON|@FILE")]
        responses: String,
    },
}

/// `elicitation ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum ElicitationCmd {
    /// The pending questions, oldest first.
    List,
    /// Answer a pending question: accept with `key=value` (typed from its
    /// schema) or `--args`, or `--decline` / `--cancel`.
    Respond {
        /// The question's number.
        id: u64,
        /// Answers as `key=value`.
        #[arg(value_name = "KEY=VALUE")]
        pairs: Vec<String>,
        /// All answers as one JSON object, or `@FILE`.
        #[arg(long, value_name = "JSON|@FILE")]
        args: Option<String>,
        /// Decline the question.
        #[arg(long, conflicts_with = "cancel")]
        decline: bool,
        /// Cancel the question.
        #[arg(long)]
        cancel: bool,
    },
}

/// `auth ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum AuthCmd {
    /// Where registrations and tokens are stored, and for whom (never the
    /// secrets).
    List,
    /// Forget every stored registration and token.
    Clear,
    /// Sign in at the organisation's identity provider (OpenID Connect, in
    /// the browser) for enterprise-managed authorization (`--ema`).
    EmaLogin {
        /// The identity provider's issuer URL.
        #[arg(long, value_name = "URL")]
        idp: String,
        /// This client's id at the identity provider.
        #[arg(long, value_name = "ID")]
        client_id: String,
        /// This client's secret at the identity provider (never printed).
        #[arg(
            long,
            env = "MCP_IDP_CLIENT_SECRET",
            hide_env_values = true,
            value_name = "SECRET"
        )]
        client_secret: Option<String>,
    },
    /// Who is signed in at which identity provider (never the tokens).
    EmaStatus,
    /// Forget the identity provider sign-in and show its sign-out URL.
    EmaLogout {
        /// Only the sign-in at this issuer (default: every one).
        #[arg(long, value_name = "URL")]
        idp: Option<String>,
    },
}

/// `roots ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum RootsCmd {
    /// Show the roots the client offers (from `--root`).
    List,
    /// Replace the roots and tell the server.
    Set {
        /// Paths or file:// URIs.
        #[arg(value_name = "PATH")]
        roots: Vec<String>,
    },
}

/// Splits the raw arguments at the first `--`: what clap parses, and the
/// server target after it (empty when there is none).
///
/// `--json '{...}'` and `--json @FILE` after `tools call` or `prompts get`
/// are read as `--args`, so both spellings work; a bare `--json` stays the
/// output switch.
pub(crate) fn split_target(raw: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut iter = raw.into_iter();
    let mut before = Vec::new();
    for arg in iter.by_ref() {
        if arg == "--" {
            break;
        }
        before.push(arg);
    }
    let after: Vec<String> = iter.collect();
    let calls = before
        .iter()
        .position(|a| a == "call" || a == "get")
        .unwrap_or(usize::MAX);
    for i in 0..before.len() {
        let takes_args = i > calls
            && before[i] == "--json"
            && before
                .get(i + 1)
                .is_some_and(|next| next.starts_with('{') || next.starts_with('@'));
        if takes_args {
            before[i] = "--args".into();
        }
    }
    (before, after)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_target_is_what_follows_the_first_double_dash() {
        let (before, after) = split_target(strings(&["mcp", "ping", "--", "srv", "--", "x"]));
        assert_eq!(before, strings(&["mcp", "ping"]));
        assert_eq!(after, strings(&["srv", "--", "x"]));
    }

    #[test]
    fn json_with_an_object_after_call_means_arguments() {
        let (before, _) = split_target(strings(&[
            "mcp",
            "--json",
            "tools",
            "call",
            "add",
            "--json",
            "{\"a\":1}",
        ]));
        assert_eq!(
            before,
            strings(&[
                "mcp",
                "--json",
                "tools",
                "call",
                "add",
                "--args",
                "{\"a\":1}"
            ])
        );
    }

    #[test]
    fn global_options_parse_after_the_subcommand() {
        let cli = Cli::try_parse_from(["mcp", "tools", "list", "--json", "--era", "modern"])
            .expect("parses");
        assert!(cli.global.json);
        assert_eq!(cli.global.era, EraArg::Modern);
    }
}
