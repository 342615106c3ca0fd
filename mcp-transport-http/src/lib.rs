//! Streamable HTTP transport for Model Context Protocol clients.
//!
//! Not written yet: this crate will carry JSON-RPC over Streamable HTTP for
//! both protocol eras, on a pooled hyper client with rustls.
