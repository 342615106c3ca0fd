//! The sans-I/O engine of a Model Context Protocol client.
//!
//! Not written yet: this crate will hold every decision a client makes
//! (lifecycle and era negotiation, correlation, deadlines, pagination,
//! multi-round-trip requests, task polling, caching, header derivation)
//! with time passed in as an argument and no I/O of its own.
