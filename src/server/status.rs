//! The one mapping from runtime errors to gRPC statuses.

use crate::runtime::SimError;
use tonic::Status;

/// Longest status message sent (bytes). The message travels in the `grpc-message`
/// header: echoing a client's 100 kB body name there made the client's HTTP/2 layer
/// close the whole connection ("header list way too large"), failing every other
/// call on it (found by tests/fuzz_api.rs).
pub const MAX_STATUS_MESSAGE: usize = 1024;

/// `m` cut to [`MAX_STATUS_MESSAGE`] bytes (at a character boundary), marked.
pub fn bounded(m: String) -> String {
    if m.len() <= MAX_STATUS_MESSAGE {
        return m;
    }
    let mut i = MAX_STATUS_MESSAGE;
    while !m.is_char_boundary(i) {
        i -= 1;
    }
    format!("{}… ({} bytes, truncated)", &m[..i], m.len())
}

impl From<SimError> for Status {
    fn from(e: SimError) -> Status {
        match e {
            SimError::InvalidArgument { .. } => Status::invalid_argument(bounded(e.to_string())),
            SimError::NotFound { .. } => Status::not_found(bounded(e.to_string())),
            SimError::FailedPrecondition(m) => Status::failed_precondition(bounded(m)),
            SimError::ResourceExhausted(m) => Status::resource_exhausted(bounded(m)),
            SimError::Unavailable(m) => Status::unavailable(bounded(m)),
        }
    }
}

/// The physics thread dropped a reply channel: it is gone or shutting down.
pub fn physics_gone<E>(_: E) -> Status {
    Status::unavailable("the physics thread is not running (server shutting down)")
}
