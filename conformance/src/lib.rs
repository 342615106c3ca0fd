//! The client the official MCP conformance suite drives.
//!
//! Not written yet: it arrives with the facade (`mcp-client`).
