//! A world as the physics thread owns it: model, data, state ring and the input
//! tables of every source. Built off-thread (on load) and swapped in whole.

use super::command::SourceWrench;
use super::ring::StateRing;
use crate::data::{Data, PairState, Snapshot};
use crate::model::Model;
use std::sync::Arc;

pub struct World {
    pub gen: u64,
    pub name: String,
    pub model: Arc<Model>,
    pub data: Data,
    pub ring: Arc<StateRing>,
    /// Wrenches set by ApplyWrench, per body.
    pub unary: Vec<Option<SourceWrench>>,
    /// Wrenches of each controller slot, per body.
    pub ctrl: Vec<Vec<Option<SourceWrench>>>,
}

impl World {
    pub fn new(gen: u64, name: String, model: Model, nctrl: usize, ring_len: usize) -> World {
        let nb = model.nbody();
        let data = Data::new(&model);
        World {
            gen,
            name,
            ring: Arc::new(StateRing::new(gen, nb, nctrl, ring_len)),
            model: Arc::new(model),
            data,
            unary: vec![None; nb],
            ctrl: vec![vec![None; nb]; nctrl],
        }
    }

    /// An empty snapshot box with room for this world (filled by the physics thread).
    pub fn new_saved(&self) -> Box<Saved> {
        let nb = self.model.nbody();
        Box::new(Saved::with_capacity(self.gen, nb, 64 * nb.max(1)))
    }
}

/// A bit-exact copy of a world's future-determining state plus the ApplyWrench inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Saved {
    pub gen: u64,
    pub snap: Snapshot,
    pub unary: Vec<Option<SourceWrench>>,
}

impl Saved {
    pub fn with_capacity(gen: u64, nbody: usize, npairs: usize) -> Saved {
        Saved {
            gen,
            snap: Snapshot {
                time: 0.0,
                tick: 0,
                state: Vec::with_capacity(nbody),
                xfrc: Vec::with_capacity(nbody),
                frozen: Vec::with_capacity(nbody),
                pairs: Vec::<PairState>::with_capacity(npairs),
            },
            unary: Vec::with_capacity(nbody),
        }
    }

    /// Copy `w` into the preallocated buffers (no allocation while they are large enough).
    pub fn fill_from(&mut self, w: &World) {
        let d = &w.data;
        self.gen = w.gen;
        self.snap.time = d.time;
        self.snap.tick = d.tick;
        self.snap.state.clear();
        self.snap.state.extend_from_slice(&d.state);
        self.snap.xfrc.clear();
        self.snap.xfrc.extend_from_slice(&d.xfrc);
        self.snap.frozen.clear();
        self.snap.frozen.extend_from_slice(&d.frozen);
        self.snap.pairs.clear();
        self.snap.pairs.extend_from_slice(&d.pairs);
        self.unary.clear();
        self.unary.extend_from_slice(&w.unary);
    }
}
