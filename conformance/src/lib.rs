//! The client the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) drives.
//!
//! `cargo xtask conformance` runs every client scenario the suite lists, at
//! every revision it names for it (2025-03-26 to 2026-07-28). For each, the suite starts a test server and runs the
//! `conformance` binary with the server URL as its last argument and the
//! scenario in the environment ([`invocation`]); the binary looks the scenario
//! up in the [`registry`] and runs it through the public `mcp-client` API.
//!
//! Exit codes: see [`exit`]. `conformance/SCENARIOS.md` specifies what every
//! scenario must do; the scenario functions live in [`scenarios`], one
//! module per family.

pub mod invocation;
pub mod registry;
pub mod scenarios;

/// The binary's exit codes.
pub mod exit {
    /// The scenario ran to completion.
    pub const SUCCESS: u8 = 0;
    /// The scenario ran and failed.
    pub const SCENARIO_FAILED: u8 = 1;
    /// The environment or arguments were unusable.
    pub const BAD_INVOCATION: u8 = 2;
    /// The scenario is not implemented (for that revision).
    pub const UNKNOWN_SCENARIO: u8 = 3;
    /// The async runtime could not start.
    pub const RUNTIME: u8 = 4;
}
