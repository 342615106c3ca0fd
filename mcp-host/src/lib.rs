//! Many Model Context Protocol servers as one, the way real hosts run them.
//!
//! [`config`] reads the config files hosts already write (`mcpServers`,
//! VS Code `servers`) into one typed entry per server.

pub mod config;
