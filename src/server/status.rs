//! The one mapping from runtime errors to gRPC statuses.

use crate::runtime::SimError;
use tonic::Status;

impl From<SimError> for Status {
    fn from(e: SimError) -> Status {
        match e {
            SimError::InvalidArgument { .. } => Status::invalid_argument(e.to_string()),
            SimError::NotFound { .. } => Status::not_found(e.to_string()),
            SimError::FailedPrecondition(m) => Status::failed_precondition(m),
            SimError::ResourceExhausted(m) => Status::resource_exhausted(m),
            SimError::Unavailable(m) => Status::unavailable(m),
        }
    }
}

/// The physics thread dropped a reply channel: it is gone or shutting down.
pub fn physics_gone<E>(_: E) -> Status {
    Status::unavailable("the physics thread is not running (server shutting down)")
}
