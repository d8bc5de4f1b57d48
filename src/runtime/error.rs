//! Domain errors of the runtime. The server maps each to one gRPC status
//! (`impl From<SimError> for tonic::Status` in `server::status`).

/// Why a request was refused; messages name the offending field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// Malformed or out-of-range input (NaN, wrong vector length, limit exceeded).
    #[error("{field}: {message}")]
    InvalidArgument { field: String, message: String },
    /// Unknown body name, id out of range, or an id from an older world generation.
    #[error("{field}: {message}")]
    NotFound { field: String, message: String },
    /// Valid request at the wrong time (e.g. Step while running in realtime).
    #[error("{0}")]
    FailedPrecondition(String),
    /// Too many streams, controllers, snapshots or queued commands.
    #[error("{0}")]
    ResourceExhausted(String),
    /// The physics thread is gone or shutting down.
    #[error("{0}")]
    Unavailable(String),
}

impl SimError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        SimError::InvalidArgument {
            field: field.into(),
            message: message.into(),
        }
    }
    pub fn not_found(field: impl Into<String>, message: impl Into<String>) -> Self {
        SimError::NotFound {
            field: field.into(),
            message: message.into(),
        }
    }
    /// google.rpc.Code of the error (reported for rejected control-stream commands).
    pub fn code(&self) -> i32 {
        match self {
            SimError::InvalidArgument { .. } => 3,
            SimError::NotFound { .. } => 5,
            SimError::FailedPrecondition(_) => 9,
            SimError::ResourceExhausted(_) => 8,
            SimError::Unavailable(_) => 14,
        }
    }
}
