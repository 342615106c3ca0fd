//! Child-process (stdio) transport for Model Context Protocol clients.
//!
//! Not written yet: this crate will spawn a server, frame newline-delimited
//! JSON-RPC over its stdin and stdout, drain its stderr, and shut its process
//! tree down in stages.
