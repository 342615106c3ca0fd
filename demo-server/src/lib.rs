//! A demonstration MCP server used by the examples, tests and benchmarks.
//!
//! Not written yet.
