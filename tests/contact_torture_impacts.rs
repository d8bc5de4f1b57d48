//! Impacts under the force models (issue 11, classes 3 and 4): the frictionless
//! five-cube drop and the restitution-0 / 0.5 ball for the penalty method (000:
//! impulses for impacts, the PID force for continuing contact), and the ball for
//! Hunt–Crossley (002). The LCP versions are in `contact_torture_lcp.rs`,
//! Hunt–Crossley's stack in `contact_torture_soft.rs`.
//!
//! Scenes (g = 9.81, semi-implicit Euler, h = 1e-2 and 1e-3):
//! - **five-cube drop**: five 1 m, 1 kg frictionless cubes (restitution 0) stacked
//!   with 1 m gaps, the bottom one 1 m above the floor, 10 s; penalty with
//!   `box_on_plane.toml`'s gains (kp, kv, ki = 1e5, 500, 5e3 per kg, λ = 0.9) and
//!   with the `PenaltyParams` defaults;
//! - **ball**: r = 0.1 m, 1 kg, dropped from 1 m (its bottom 1 m above the floor),
//!   restitution e = 0 and 0.5, μ = 0.5, 3 s.
//!
//! Tolerances and where they come from:
//! - stack at rest (every |v| < 1e-3 m/s, the settle threshold of
//!   `contact_torture_soft.rs`'s Hunt–Crossley stack) within 1 s of its last
//!   landing — issue 11 class 3 ("still bounces at 10 s"); its max penetration
//!   within 2 g h² of the PID's resting depth (`penalty_five_cube_drop_rests`);
//! - no topple: every cube within 1 mm of the axis (the Hunt–Crossley stack's bound);
//! - resting penetration of every contact ≤ 1 mm (issue 11's bound for the force
//!   models' stacks);
//! - ball e = 0 rebounds < 1 mm, e = 0.5 reaches e²·1 m within 2 % (issue 11
//!   class 4 and 002's restitution figure) at 1 kHz;
//! - landing penetration (at the end of the step of the impulse): at most g h² for
//!   the ball at 1 kHz (the impulse acts in the step the gap closes and the body
//!   ends that step at the surface — within the g h² gravity adds in the step;
//!   it was one step's travel, 4.3 mm). The ball then sinks to the PID's resting
//!   depth g/(kp + ki/(1 − λ)) = 0.065 mm, not a landing figure.
//!
//! Figures printed (`cargo test --release --test contact_torture_impacts --
//! --nocapture`) and in docs/EXPERIMENTS.md "Penalty impacts in the closing step".
mod common;
use common::load_str;
use rtphys::{Data, Model};

const G: f64 = 9.81;
/// The gains of `config/scenes/box_on_plane.toml`.
const GAINS: &str = "[penalty]\nkp_per_mass = 100000.0\nkv_per_mass = 500.0\nki_per_mass = 5000.0\nforgetting = 0.9\n\n";

fn world(method: &str, dt: f64, gains: bool) -> String {
    let mut s = format!("[world]\ngravity = [0.0, 0.0, -{G}]\ndt = {dt}\nintegrator = \"semi_implicit_euler\"\nmethod = \"{method}\"\n\n");
    if method == "penalty" && gains {
        s += GAINS;
    }
    s
}

fn ground(mu: f64, e: f64) -> String {
    format!("[[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = {mu}, restitution = {e} }}\n\n")
}

fn cube(name: &str, z: f64) -> String {
    format!("[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", half_extents = [0.5, 0.5, 0.5] }}\nmass = 1.0\nposition = [0.0, 0.0, {z}]\nmaterial = {{ mu = 0.0, restitution = 0.0 }}\n\n")
}

fn body(model: &Model, n: &str) -> usize {
    model.body_id(n).expect("body")
}

/// The five-cube drop's figures.
struct Stack {
    /// Largest penetration of any contact (floor or between cubes), m.
    max_pen: f64,
    /// The largest at the end, m.
    end_pen: f64,
    /// Largest distance of a cube from the axis, m.
    lateral: f64,
    /// Last time a cube moved at |v| ≥ 1e-3 m/s, s.
    last_move: f64,
    quarantined: u64,
}

fn five_cube_drop(dt: f64, gains: bool) -> Stack {
    let mut text = world("penalty", dt, gains) + &ground(0.0, 0.0);
    for i in 0..5 {
        text += &cube(&format!("c{i}"), 1.5 + 2.0 * i as f64);
    }
    let model = load_str(&text);
    let ids: Vec<usize> = (0..5).map(|i| body(&model, &format!("c{i}"))).collect();
    let mut d = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let mut s = Stack {
        max_pen: 0.0,
        end_pen: 0.0,
        lateral: 0.0,
        last_move: 0.0,
        quarantined: 0,
    };
    for _ in 0..(10.0 / dt).round() as usize {
        pl.step(&model, &mut d);
        let z: Vec<f64> = ids.iter().map(|&b| d.state[b].x.z).collect();
        let mut p = 0.5 - z[0];
        for i in 1..5 {
            p = p.max(1.0 - (z[i] - z[i - 1]));
        }
        s.max_pen = s.max_pen.max(p);
        s.end_pen = p;
        for &b in &ids {
            let x = d.state[b].x;
            s.lateral = s.lateral.max(x.x.hypot(x.y));
        }
        if ids.iter().any(|&b| d.state[b].v.norm() >= 1e-3) {
            s.last_move = d.time;
        }
    }
    s.quarantined = d.stats.quarantined;
    println!(
        "penalty five-cube drop, {} h = {dt}: max penetration {:.3e} m, at 10 s {:.3e} m, lateral {:.2e} m, last |v| ≥ 1e-3 at {:.3} s",
        if gains { "box_on_plane gains" } else { "defaults" },
        s.max_pen,
        s.end_pen,
        s.lateral,
        s.last_move
    );
    s
}

/// At h = 1e-3 and 1e-2 (box_on_plane gains) the stack lands and rests (issue 11
/// class 3), with tolerances from the physics of the scene:
/// - **at rest** (every |v| < 1e-3 m/s) within 1 s of the last landing, the top
///   cube's 5 m fall onto the four below at t = √(2·5 m/g) = 1.01 s: the PID settles
///   in a few 1/(ζω) = 4 ms (ω = √kp = 316 /s, ζ = kv/2√kp = 0.79) and its integral
///   forgets in h/(1 − λ) ≤ 0.1 s (λ = 0.9 per step, h ≤ 1e-2): 1 s is ten times that;
/// - **max penetration** of any contact over the run ≤ 2 g h² + (1 + o) g/kp:
///   every landing is an impulse in the step its gap closes, carried down the
///   stack to the ground (e = 0: the struck cubes stop), so the step ends at the
///   surface within the g h² gravity adds in it, the next step's gravity adds at
///   most g h² more before the force acts, and the landed load is a step load on
///   the PID's spring–damper (gains per kg of the load a contact carries): static
///   g/kp = 9.8e-5 m before the integral builds up, overshoot o =
///   exp(−πζ/√(1 − ζ²)) = 1.7 %;
/// - no topple (lateral < 1 mm) and resting penetration ≤ 1 mm (the bounds of
///   Hunt–Crossley's stack test in tests/contact_torture_soft.rs).
///
/// Before the narrow phase's touching floor (`narrowphase::collide_pair_within`:
/// the speculative copy shifted by at least 1e-7 (1 + scale) m, a hundred times the
/// pair routines' 1e-9·scale touching tolerance) the h = 1e-2 stack was still
/// moving at 10 s: a face–face pair at a gap of round-off got no manifold at all,
/// its memory reset, the cube fell one step and landed inside, every 5 steps. Before
/// the impact sweeps (`penalty::resolve_impacts`) a cube landing on the stack
/// struck only the pair below it once: the cube kept half its speed into the stack
/// and the springs took it (3.8 mm at 1 kHz, 2.4e-2 m at h = 1e-2). The defaults
/// (soft on purpose: `PenaltyParams`' doc) are printed, with lateral drift and
/// quarantines asserted.
#[test]
fn penalty_five_cube_drop_rests() {
    // box_on_plane's gains (per kg): kp, kv.
    let (kp, kv) = (1e5, 500.0);
    let zeta: f64 = kv / (2.0 * f64::sqrt(kp));
    let overshoot = (-std::f64::consts::PI * zeta / (1.0 - zeta * zeta).sqrt()).exp();
    let t_land = (2.0 * 5.0 / G).sqrt();
    for dt in [1e-3, 1e-2] {
        let s = five_cube_drop(dt, true);
        assert_eq!(s.quarantined, 0);
        assert!(
            s.last_move < t_land + 1.0,
            "h = {dt}: still moving at {} s (last landing {t_land:.3} s)",
            s.last_move
        );
        let bound = 2.0 * G * dt * dt + (1.0 + overshoot) * G / kp;
        assert!(
            s.max_pen <= bound,
            "h = {dt}: max penetration {} m > 2 g h² + (1 + o) g/kp = {bound} m",
            s.max_pen
        );
        assert!(
            s.lateral < 1e-3,
            "h = {dt}: toppled, {} m off the axis",
            s.lateral
        );
        assert!(s.end_pen <= 1e-3, "h = {dt}: rests {} m deep", s.end_pen);
    }
    // The defaults (soft on purpose: `PenaltyParams`' doc), for the record.
    for dt in [1e-2, 1e-3] {
        let s = five_cube_drop(dt, false);
        assert_eq!(s.quarantined, 0);
        assert!(s.lateral < 1e-3, "defaults h = {dt}: toppled");
    }
}

/// The ball's figures: penetration at the end of the landing step (the first step
/// with an impulse; the largest penetration in 3 s for Hunt–Crossley, which has
/// none), rebound above the surface after the first landing.
fn ball(method: &str, dt: f64, e: f64) -> (f64, f64) {
    let text = world(method, dt, true)
        + &ground(0.5, e)
        + &format!("[[body]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nmass = 1.0\nposition = [0.0, 0.0, 1.1]\nmaterial = {{ mu = 0.5, restitution = {e} }}\n");
    let model = load_str(&text);
    let b = body(&model, "ball");
    let mut d = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let (mut pen, mut landed, mut peak, mut falling_again) =
        (0.0f64, false, f64::NEG_INFINITY, false);
    let mut landing: Option<f64> = None;
    for _ in 0..(3.0 / dt).round() as usize {
        let vz0 = d.state[b].v.z;
        pl.step(&model, &mut d);
        let z = d.state[b].x.z;
        pen = pen.max(0.1 - z);
        if landing.is_none() && d.stats.impulses > 0 {
            landing = Some(0.1 - z);
        }
        if !landed && vz0 < 0.0 && d.state[b].v.z >= 0.0 {
            landed = true;
        }
        if landed && !falling_again {
            peak = peak.max(z - 0.1);
            if d.state[b].v.z < 0.0 && z > 0.1 + 1e-3 {
                falling_again = true;
            }
        }
    }
    assert_eq!(d.stats.quarantined, 0);
    let landing = landing.unwrap_or(pen);
    println!(
        "{method} ball e = {e}, h = {dt}: landing penetration {landing:.3e} m, max in 3 s {pen:.3e} m, rebound {peak:.4} m (e² = {:.4} m, {:+.2} %)",
        e * e,
        if e > 0.0 {
            (peak - e * e) / (e * e) * 100.0
        } else {
            0.0
        }
    );
    (landing, peak)
}

#[test]
fn penalty_ball_lands_without_overlap() {
    let h = 1e-3;
    let (pen0, rebound0) = ball("penalty", h, 0.0);
    assert!(rebound0 < 1e-3, "e = 0 rebounds {rebound0} m");
    assert!(pen0 <= G * h * h, "e = 0 lands {pen0} m deep");
    let (pen5, rebound5) = ball("penalty", h, 0.5);
    assert!(
        ((rebound5 - 0.25) / 0.25).abs() < 0.02,
        "e = 0.5 rebounds {rebound5} m"
    );
    assert!(pen5 <= G * h * h, "e = 0.5 lands {pen5} m deep");
    // h = 1e-2: printed (figures in EXPERIMENTS.md).
    ball("penalty", 1e-2, 0.0);
    ball("penalty", 1e-2, 0.5);
}

#[test]
fn hunt_crossley_ball() {
    let (_, rebound0) = ball("hunt_crossley", 1e-3, 0.0);
    assert!(rebound0 < 1e-3, "e = 0 rebounds {rebound0} m");
    ball("hunt_crossley", 1e-3, 0.5);
    ball("hunt_crossley", 1e-2, 0.0);
    ball("hunt_crossley", 1e-2, 0.5);
}
