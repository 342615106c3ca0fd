//! A batteries-included async Model Context Protocol client.
//!
//! Not written yet: this crate will assemble `mcp-core` and the transports
//! into one `Client` handle with one driver task per connection.
