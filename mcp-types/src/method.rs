//! Marker traits that tie a method name to its params and result types.
//!
//! Each method of each revision has a zero-sized marker type implementing
//! [`RequestMethod`] or [`NotificationMethod`], so code that sends a request
//! knows at compile time which type to decode the response with.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A request method: its wire name, params and result types.
pub trait RequestMethod {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// The `params` object.
    type Params: Serialize + DeserializeOwned + Send + 'static;
    /// The `result` object of a successful response.
    type Result: Serialize + DeserializeOwned + Send + 'static;
}

/// A notification method: its wire name and params type.
pub trait NotificationMethod {
    /// The method name on the wire.
    const METHOD: &'static str;
    /// The `params` object.
    type Params: Serialize + DeserializeOwned + Send + 'static;
}
