//! 003's 2D pouring experiment (Sec. 6, Figs. 20–22) in the planar world: random
//! convex polygons dropped one every 0.25 s into an open box fixed in space,
//! simulated with the standard contact model (`method = "lcp"`, eqs. (8)–(9)) and
//! with PEG (`method = "peg"`, eqs. (48)–(49), the planar rows of
//! `pipeline::lcp::peg`, "Planar world") from the same initial conditions; the
//! accuracy metric is the exact area of overlap among all polygons at the end of
//! every step (`collision::polygon::overlap_area`), relative to L².
//!
//! The planar world is a 3D world whose bodies are locked to the plane
//! (`model::Locks::PLANAR`: z, rx, ry locked — issue 12 item 4's option A): each
//! polygon is a right prism along z (`type = "polygon"`), gravity is −y.
//!
//! The paper does not give sizes; ours (stated, not tuned):
//! - **Polygons**: the convex hull of [`HULL_POINTS`] points on the unit circle at
//!   uniform angles, each axis scaled by U(0.6, 1) × [`RADIUS`] (every polygon
//!   fits a disc of diameter L = 0.2 m), random angle, thickness 0.1 m, density
//!   1000 kg/m³, μ = 0.5 (one in-plane friction direction: the tangent along z is
//!   locked).
//! - **Box**: three static rectangles (a union of convex polygons): a floor
//!   1.0 × 0.1 m (top at y = 0) and two walls 0.05 m thick, 1.0 m high, enclosing
//!   a 0.8 m wide interior.
//! - **Release protocol** (the paper's): polygon i appears at t = 0.25 i s at rest
//!   at (x, y) = (U(−0.25, 0.25), [`DROP_Y`]), until t = 5 s: [`BODIES`] = 20. Until
//!   then it is parked far away and frozen ([`super::peg_pour::PourDriver`]).
//! - The metric sums the overlap area of every pair of polygons of different
//!   bodies except the box pieces among themselves.
//! - **Contacts and SM traps per step** (Fig. 22): at the start of every step,
//!   over every pair of polygons (moving or not) within the step's reach ε =
//!   h (|v_a| + |ω_a| r_a + |v_b| + |ω_b| r_b) + h² |g| + 1 mm, the 2D potential
//!   contacts of `collision::polygon` (vertex–edge and the four of each
//!   vertex–vertex configuration) and the vertex–vertex configurations: a vertex
//!   near another body's corner, where the standard model puts the vertex against
//!   the lines of two edges — the SM trap of 003 Fig. 2 that PEG's I/X constraints
//!   (eq. (33)) resolve. The same count for both models (it is geometry, not the
//!   method's rows).

use super::peg_pour::{run_scene, PegKeys, PourMethod, PourProbe, PourRun, PourScene};
use crate::collision::features::{Constraint, FeatureParams};
use crate::collision::polygon::{
    planar_pose, potential_contacts_2d, ConvexPolygon, PolygonScratch, PotentialContacts2,
};
use crate::data::Data;
use crate::math::{SplitMix64, Vec3};
use crate::model::Model;
use crate::pipeline::lcp::peg::{planar_pairs, planar_polygons, OverlapArea};
use std::fmt::Write;
use std::sync::Arc;

/// Polygons poured (one every [`RELEASE_EVERY`] s from t = 0 until t = 5 s).
pub const BODIES: usize = 20;
/// Seconds between releases.
pub const RELEASE_EVERY: f64 = 0.25;
/// Simulated time of a full run, s.
pub const DURATION: f64 = 5.0;
/// Radius of the disc every polygon fits in, m; L = 2 × RADIUS.
pub const RADIUS: f64 = 0.1;
/// Body size L of the overlap metric (area / L²), m.
pub const L: f64 = 2.0 * RADIUS;
/// Points whose convex hull is one polygon.
pub const HULL_POINTS: usize = 8;
/// Height of the drop point, m.
pub const DROP_Y: f64 = 1.3;

/// The 2D pour of `seed` at step `h` under `method`, as scene TOML and schedule.
pub fn pour_scene_2d(seed: u64, method: PourMethod, h: f64) -> PourScene {
    let mut rng = SplitMix64::new(seed);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# 003 Sec. 6 2D pour (src/experiments/peg_pour_2d.rs), seed {seed}.\n\n\
         [world]\ngravity = [0.0, -9.81, 0.0]\ndt = {h:?}\nmethod = \"{}\"\n\n{}",
        method.name(),
        super::peg_pour::pour_lcp_table()
    );
    let mat = "material = { mu = 0.5 }";
    // The box: (name, centre, half extents) of three rectangles.
    let (a, t, wh) = (0.4, 0.025, 0.5);
    let pieces = [
        ("floor", [0.0, -0.05], [a + 2.0 * t + 0.05, 0.05]),
        ("wall_px", [a + t, wh], [t, wh]),
        ("wall_nx", [-(a + t), wh], [t, wh]),
    ];
    for (name, c, he) in pieces {
        let (x, y) = (he[0], he[1]);
        let _ = writeln!(
            s,
            "[[body]]\nname = \"{name}\"\nstatic = true\nshape = {{ type = \"polygon\", points = [[{x:?}, {y:?}], [{:?}, {y:?}], [{:?}, {:?}], [{x:?}, {:?}]], thickness = 0.1 }}\nposition = [{:?}, {:?}, 0.0]\n{mat}\n",
            -x, -x, -y, -y, c[0], c[1]
        );
    }
    let mut releases = Vec::with_capacity(BODIES);
    for i in 0..BODIES {
        // Draws in a fixed order per body: scales, points, angle, drop point.
        let sc = [
            rng.uniform(0.6, 1.0) * RADIUS,
            rng.uniform(0.6, 1.0) * RADIUS,
        ];
        let mut pts = String::new();
        for k in 0..HULL_POINTS {
            let phi = rng.uniform(0.0, std::f64::consts::TAU);
            let sep = if k == 0 { "" } else { ", " };
            let _ = write!(
                pts,
                "{sep}[{:?}, {:?}]",
                phi.cos() * sc[0],
                phi.sin() * sc[1]
            );
        }
        let theta = rng.uniform(0.0, std::f64::consts::TAU);
        let drop = Vec3::new(rng.uniform(-0.25, 0.25), DROP_Y, 0.0);
        releases.push((RELEASE_EVERY * i as f64, drop));
        let _ = writeln!(
            s,
            "[[body]]\nname = \"poly{i}\"\nshape = {{ type = \"polygon\", points = [{pts}], thickness = 0.1 }}\ndensity = 1000.0\nlock = [\"planar\"]\nposition = [{:?}, 100.0, 0.0]\nrpy = [0.0, 0.0, {theta:?}]\n{mat}\n",
            10.0 + i as f64,
        );
    }
    PourScene { toml: s, releases }
}

/// The per-step contact and SM-trap counts of the module doc (Fig. 22).
pub struct TrapCounter {
    polygon: Vec<Option<Arc<ConvexPolygon>>>,
    pairs: Vec<(u32, u32)>,
    scratch: PolygonScratch,
    pc: PotentialContacts2,
}

impl TrapCounter {
    pub fn new(model: &Model) -> Self {
        let polygon = planar_polygons(model);
        let pairs = planar_pairs(model, &polygon);
        TrapCounter {
            polygon,
            pairs,
            scratch: Default::default(),
            pc: Default::default(),
        }
    }

    /// (potential contacts, vertex–vertex configurations) at `data`'s state for a
    /// step `h`; frozen (parked) bodies are left out.
    pub fn count(&mut self, model: &Model, data: &Data, h: f64) -> (u32, u32) {
        let (mut contacts, mut traps) = (0u32, 0u32);
        let g = model.opt.gravity.norm();
        for &(a, b) in &self.pairs {
            let (a, b) = (a as usize, b as usize);
            let (ga, gb) = (&model.geoms[a], &model.geoms[b]);
            if data.frozen[ga.body] || data.frozen[gb.body] {
                continue;
            }
            let (Some(Some(pa)), Some(Some(pb))) = (self.polygon.get(a), self.polygon.get(b))
            else {
                continue;
            };
            let (sa, sb) = (&data.state[ga.body], &data.state[gb.body]);
            let reach = |s: &crate::data::BodyState, g: &crate::model::Geom| {
                s.v.norm() + s.w.norm() * g.shape.size()
            };
            let eps = h * (reach(sa, ga) + reach(sb, gb)) + h * h * g + 1e-3;
            let xa = planar_pose(&(sa.pose() * ga.x_bg));
            let xb = planar_pose(&(sb.pose() * gb.x_bg));
            let (Some(xa), Some(xb)) = (xa, xb) else {
                continue;
            };
            let params = FeatureParams::with_distance(eps);
            potential_contacts_2d(pa, &xa, pb, &xb, &params, &mut self.scratch, &mut self.pc);
            contacts += self.pc.contacts.len() as u32;
            // Each vertex–vertex configuration has two I constraints (eq. (33)).
            let is = self
                .pc
                .constraints
                .iter()
                .filter(|c| matches!(c, Constraint::Intercontact { .. }))
                .count() as u32;
            traps += is / 2;
        }
        (contacts, traps)
    }
}

/// One run of the 2D pour: [`PourRun`] with `potential` and `traps` filled.
pub type PourRun2d = PourRun;

/// The 2D pour's measurements: the overlap area / L² after each step, the potential
/// contacts and SM traps before it.
struct Probe2d {
    area: OverlapArea,
    counter: TrapCounter,
    h: f64,
}

impl PourProbe for Probe2d {
    fn before_step(&mut self, model: &Model, data: &Data, run: &mut PourRun) {
        let (c, t) = self.counter.count(model, data, self.h);
        run.potential.push(c);
        run.traps.push(t);
    }

    fn overlap(&mut self, model: &Model, data: &Data) -> f64 {
        self.area.area(model, &data.state) / (L * L)
    }
}

/// Runs the 2D pour of `seed` under `method` at step `h` for `duration` s.
pub fn run_pour_2d(
    seed: u64,
    method: PourMethod,
    h: f64,
    duration: f64,
) -> anyhow::Result<PourRun2d> {
    run_pour_2d_with(seed, method, h, duration, &PegKeys::default())
}

/// [`run_pour_2d`] with the PEG keys `keys` on the PEG runs.
pub fn run_pour_2d_with(
    seed: u64,
    method: PourMethod,
    h: f64,
    duration: f64,
    keys: &PegKeys,
) -> anyhow::Result<PourRun2d> {
    let mut scene = pour_scene_2d(seed, method, h);
    keys.apply(method, &mut scene);
    run_scene(
        &scene,
        "<peg-pour-2d>",
        method,
        seed,
        h,
        duration,
        |model| Probe2d {
            area: OverlapArea::new(model),
            counter: TrapCounter::new(model),
            h,
        },
    )
}
