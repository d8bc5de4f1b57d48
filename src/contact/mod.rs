//! Contact models (STUB while the spine is written).

/// Buffers of the bottom-of-volume point selection.
#[derive(Clone, Debug, Default)]
pub struct SelectScratch {}
