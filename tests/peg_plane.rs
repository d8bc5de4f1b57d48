//! PEG against a plane (peg25): a plane is a half-space, and its pair with a
//! polytope takes PEG's own rows, a vertex–face U (003 eq. (34)) per vertex
//! within the reach ε or below the plane (`collision::features::
//! plane_potential_contacts`; `pipeline::lcp::peg`, "Plane"). Before, the pair
//! kept the standard rows, whose penetration manifold has no gap points, and
//! Housner's rocking block left the floor at its landing
//! (`tests/contact_rocking.rs`).
//!
//! A 0.2 m cube (1 kg, μ = 0.5) is dropped from rest onto the plane under PEG,
//! flat, on an edge (turned 40° about x) and on a corner (a body diagonal 5°
//! off vertical about each of two axes), at h = 1 ms and 10 ms, for 2 s; the
//! edge and corner drops topple onto a face, a second impact:
//! - the energy E = T + V never exceeds its start E₀ by more than 1e-9 m g L
//!   (the step is inelastic, friction dissipates and the semi-implicit Euler
//!   fall loses ½ m g² h² a step, so E₀ is an upper bound up to round-off;
//!   1e-9 of the energy scale is round-off's order for the sums over the steps);
//! - at every step the lowest vertex is below the plane by at most the
//!   allowance δ = 1e-5 m (the standard rows' `[lcp] allowance`, where they rest;
//!   PEG's rows aim at ψ ≥ 0, so PEG's depth is round-off: measured ≤ 4.1e-11 m;
//!   with the standard rows on the plane, before peg25, the drops on an edge and
//!   a corner went 0.5–6.2 mm deep and every drop rested at δ), and after 1.5 s
//!   the cube rests flat (|v| ≤ 1e-6
//!   m/s, |ω| ≤ 1e-5 rad/s, its bottom face within 1e-6 rad of level);
//! - no solver failure.

mod common;

use common::load_str;
use rtphys::{Data, Pipeline};

const HALF: f64 = 0.1;
const G: f64 = 9.81;

/// The cube's start: rpy (each 5° off the balanced pose, so that the cube
/// topples onto a face: dropped exactly on an edge or a corner it stays
/// balanced there, an equilibrium), its centre √3 L/2 + 5 cm above the plane
/// (the lowest vertex at least 5 cm up).
fn start(pose: &str) -> [f64; 3] {
    let off = 5f64.to_radians();
    let quarter = std::f64::consts::FRAC_PI_4;
    match pose {
        "flat" => [0.0, 0.0, 0.0],
        "edge" => [quarter - off, 0.0, 0.0],
        // A body diagonal vertical: roll 45°, pitch atan(1/√2).
        _ => [quarter - off, (0.5f64).sqrt().atan() - off, 0.0],
    }
}

fn scene(pose: &str, dt: f64) -> String {
    let rpy = start(pose);
    let z = HALF * 3f64.sqrt() + 0.05;
    format!(
        "[world]\ngravity = [0.0, 0.0, -{G}]\ndt = {dt}\nmethod = \"peg\"\n\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\n\
         material = {{ mu = 0.5 }}\n\n\
         [[body]]\nname = \"cube\"\nshape = {{ type = \"box\", half_extents = [{HALF}, {HALF}, {HALF}] }}\n\
         mass = 1.0\nposition = [0.0, 0.0, {z}]\nrpy = [{}, {}, {}]\nmaterial = {{ mu = 0.5 }}\n",
        rpy[0], rpy[1], rpy[2]
    )
}

struct Drop {
    /// max (E − E₀) / (m g L), L = the cube's edge.
    gain: f64,
    /// The deepest vertex below the plane after 1.5 s, m (≤ 0: above).
    rest_depth: f64,
    /// The deepest vertex at any step, m.
    depth: f64,
    v: f64,
    w: f64,
    /// The bottom face's tilt at the end, rad.
    tilt: f64,
    failures: u64,
}

fn drop(pose: &str, dt: f64) -> Drop {
    let model = load_str(&scene(pose, dt));
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let b = model.body_id("cube").expect("cube");
    let e = |d: &Data| d.kinetic_energy(&model) + d.potential_energy(&model);
    let e0 = e(&data);
    let es = G * 2.0 * HALF;
    let lowest = |d: &Data| {
        let s = d.state[b];
        let mut low = f64::INFINITY;
        for i in 0..8 {
            let c = rtphys::math::Vec3::new(
                if i & 1 == 0 { -HALF } else { HALF },
                if i & 2 == 0 { -HALF } else { HALF },
                if i & 4 == 0 { -HALF } else { HALF },
            );
            low = low.min((s.x + s.q * c).z);
        }
        -low
    };
    let (mut gain, mut rest_depth, mut depth) = (f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0f64);
    let steps = (2.0 / dt).round() as usize;
    for k in 0..steps {
        pipe.step(&model, &mut data);
        gain = gain.max((e(&data) - e0) / es);
        let d = lowest(&data);
        depth = depth.max(d);
        if (k + 1) as f64 * dt >= 1.5 {
            rest_depth = rest_depth.max(d);
        }
    }
    let s = data.state[b];
    // The face most nearly down: the tilt of the axis most nearly vertical.
    let tilt = [
        rtphys::math::Vec3::x(),
        rtphys::math::Vec3::y(),
        rtphys::math::Vec3::z(),
    ]
    .iter()
    .map(|a| (s.q * a).z.abs().min(1.0).acos())
    .fold(f64::INFINITY, f64::min);
    assert_eq!(data.stats.quarantined, 0, "{pose} h = {dt}: quarantined");
    Drop {
        gain,
        rest_depth,
        depth,
        v: s.v.norm(),
        w: s.w.norm(),
        tilt,
        failures: data.stats.solver_failures,
    }
}

/// The cube dropped flat, on an edge and on a corner onto the plane under PEG
/// (bounds in the module doc).
#[test]
fn cube_dropped_on_a_plane_under_peg_keeps_energy_and_rests_on_the_surface() {
    let mut fails = Vec::new();
    for pose in ["flat", "edge", "corner"] {
        for dt in [1e-3, 1e-2] {
            let r = drop(pose, dt);
            let line = format!(
                "{pose:6} h = {dt:5}: max (E − E₀)/(m g L) = {:+.2e}, deepest {:.2e} m, \
                 at rest {:.2e} m, |v| {:.1e} m/s, |ω| {:.1e} rad/s, tilt {:.1e} rad, \
                 solver failures {}",
                r.gain, r.depth, r.rest_depth, r.v, r.w, r.tilt, r.failures
            );
            println!("{line}");
            if r.gain > 1e-9
                || r.depth > 1e-5
                || r.v > 1e-6
                || r.w > 1e-5
                || r.tilt > 1e-6
                || r.failures > 0
            {
                fails.push(line);
            }
        }
    }
    assert!(fails.is_empty(), "PEG on a plane:\n{}", fails.join("\n"));
}
