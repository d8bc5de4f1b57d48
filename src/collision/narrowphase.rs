//! Narrow phase: a dispatch table indexed by the two shape kinds (STUB).

use super::{ContactSet, Shape, ShapeKind};
use crate::math::Pose;

/// Scratch buffers reused across calls so that a warmed-up pass does not allocate.
#[derive(Clone, Debug, Default)]
pub struct NarrowScratch {}

/// Whether the pair of kinds has a collision routine.
pub fn pair_supported(_a: ShapeKind, _b: ShapeKind) -> bool {
    true
}

/// Collide geoms `ga` (shape `sa` at world pose `xa`) and `gb`. If they penetrate,
/// append one manifold (normal toward `ga`) and its points to `out` and return true.
#[allow(clippy::too_many_arguments)]
pub fn collide_pair(
    _ga: usize,
    _sa: &Shape,
    _xa: &Pose,
    _gb: usize,
    _sb: &Shape,
    _xb: &Pose,
    _scratch: &mut NarrowScratch,
    _out: &mut ContactSet,
) -> bool {
    false
}
