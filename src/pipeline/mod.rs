//! The step (STUB while the spine is written).

use crate::data::Data;
use crate::model::Model;

/// Advance `data` by one step of `model.opt.dt`.
pub fn step(model: &Model, data: &mut Data) {
    let _ = model;
    data.time += model.opt.dt;
    data.tick += 1;
}
