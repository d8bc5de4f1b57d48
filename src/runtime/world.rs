//! A world as the physics thread owns it: model, data, state ring and the input
//! tables of every source. Built off-thread (on load) and swapped in whole.

use super::command::SourceWrench;
use super::ring::{Layout, StateRing};

/// Capacity of the contact list of a published state (touching pairs beyond it are
/// counted in `contacts_dropped`).
pub const MAX_STREAMED_CONTACTS: usize = 256;
use crate::data::{Data, PairState, Snapshot};
use crate::haptics::render::HapticState;
use crate::model::Model;
use crate::pipeline::Pipeline;
use std::sync::Arc;

pub struct World {
    pub gen: u64,
    pub name: String,
    pub model: Arc<Model>,
    pub data: Data,
    /// The step's working memory for this model.
    pub pipeline: Pipeline,
    pub ring: Arc<StateRing>,
    /// Wrenches set by ApplyWrench, per body.
    pub unary: Vec<Option<SourceWrench>>,
    /// Wrenches of each controller slot, per body.
    pub ctrl: Vec<Vec<Option<SourceWrench>>>,
    /// Haptic devices (`model.haptics`), in the same order.
    pub haptic: Vec<HapticState>,
}

impl World {
    pub fn new(gen: u64, name: String, model: Model, nctrl: usize, ring_len: usize) -> World {
        let nb = model.nbody();
        let data = Data::new(&model);
        let pipeline = Pipeline::new(&model);
        let haptic = model
            .haptics
            .iter()
            .map(|h| HapticState::new(h, &model))
            .collect();
        World {
            haptic,
            gen,
            name,
            ring: Arc::new(StateRing::new(
                gen,
                Layout {
                    nbody: nb,
                    nctrl,
                    njoint: model.joint_ids.len(),
                    nframe: model.frame_ids.len(),
                    nsensor: model.sensor_ids.len(),
                    ncontact: MAX_STREAMED_CONTACTS,
                },
                ring_len,
            )),
            model: Arc::new(model),
            data,
            pipeline,
            unary: vec![None; nb],
            ctrl: vec![vec![None; nb]; nctrl],
        }
    }

    /// An empty snapshot box with room for this world (filled by the physics thread).
    /// One offline tick with haptic devices (tests, benchmarks, tools): `sample`
    /// (if any) lands on device `sample.0` at the tick boundary, the wrenches are
    /// cleared, every device's coupling applies at the step's inputs point and its
    /// force is rendered after the step — what the physics thread does for its
    /// devices, without the slots, queues and watchdog. Returns the time `clock`
    /// measured over the devices' `apply` and `render` (pass `|| 0.0` for none).
    pub fn step_with_device(
        &mut self,
        sample: Option<(usize, &crate::haptics::render::DeviceSample)>,
        clock: &mut dyn FnMut() -> f64,
    ) -> f64 {
        if let Some((i, s)) = sample {
            if let Some(h) = self.haptic.get_mut(i) {
                h.receive(s);
            }
        }
        let World {
            model,
            data,
            pipeline,
            haptic,
            ..
        } = self;
        let mut spent = 0.0;
        let mut inputs = |m: &Model, d: &mut Data| {
            for x in d.xfrc.iter_mut() {
                *x = crate::math::Wrench::ZERO;
            }
            let t0 = clock();
            for (h, spec) in haptic.iter_mut().zip(&m.haptics) {
                h.apply(spec, m, d);
            }
            spent += clock() - t0;
        };
        pipeline.step_with(model, data, &mut inputs);
        let t0 = clock();
        for (h, spec) in haptic.iter_mut().zip(&model.haptics) {
            h.render(spec, model, data);
        }
        spent + (clock() - t0)
    }

    pub fn new_saved(&self) -> Box<Saved> {
        Box::new(Saved::with_capacity(self.gen, &self.model))
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
    /// Buffers large enough for `model` (64 pairs per body).
    pub fn with_capacity(gen: u64, model: &Model) -> Saved {
        let nbody = model.nbody();
        let npairs = 64 * nbody.max(1);
        let nservo = model.robots.iter().map(|r| r.servos.len()).sum();
        Saved {
            gen,
            snap: Snapshot {
                time: 0.0,
                tick: 0,
                state: Vec::with_capacity(nbody),
                xfrc: Vec::with_capacity(nbody),
                frozen: Vec::with_capacity(nbody),
                pairs: Vec::<PairState>::with_capacity(npairs),
                // One kept friction block per body (a resting box on the floor).
                rest_blocks: Vec::with_capacity(nbody),
                qpos: Vec::with_capacity(model.nq),
                qvel: Vec::with_capacity(model.nv),
                qfrc_cmd: Vec::with_capacity(model.nv),
                servo: Vec::with_capacity(nservo),
                robot_frozen: Vec::with_capacity(model.robots.len()),
                asleep: Vec::with_capacity(nbody),
                rest_s: Vec::with_capacity(nbody),
                lcp_interior: Vec::with_capacity(nbody + 1),
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
        self.snap.rest_blocks.clear();
        self.snap.rest_blocks.extend_from_slice(&d.rest_blocks);
        self.snap.qpos.clear();
        self.snap.qpos.extend_from_slice(&d.qpos);
        self.snap.qvel.clear();
        self.snap.qvel.extend_from_slice(&d.qvel);
        self.snap.qfrc_cmd.clear();
        self.snap.qfrc_cmd.extend_from_slice(&d.qfrc_cmd);
        self.snap.servo.clear();
        self.snap
            .servo
            .extend(d.robots.iter().flat_map(|r| r.servo.iter().copied()));
        self.snap.robot_frozen.clear();
        self.snap
            .robot_frozen
            .extend(d.robots.iter().map(|r| r.frozen));
        self.snap.asleep.clear();
        self.snap.asleep.extend_from_slice(&d.asleep);
        self.snap.rest_s.clear();
        self.snap.rest_s.extend_from_slice(&d.rest_s);
        self.snap.lcp_interior.clear();
        self.snap.lcp_interior.extend_from_slice(&d.lcp_interior);
        self.unary.clear();
        self.unary.extend_from_slice(&w.unary);
    }
}
