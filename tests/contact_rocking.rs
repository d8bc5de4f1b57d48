//! Housner's rocking block (G. W. Housner, "The behavior of inverted pendulum
//! structures during earthquakes", BSSA 53(2), 1963), a scene written outside the
//! project: a rectangular block 2a × 2b (a = 0.05 m half-width along x, b = 0.1 m
//! half-height), released at rest on its +x bottom edge tilted by θ₀ = 0.2 rad < α
//! (α = atan(a/b) = 0.4636 rad: its centre of mass is inside the edge), on a floor
//! with μ = 1 (enough for the edge to hold), g = 9.81, h = 1 ms.
//!
//! The analytic motion, rigid and without slip:
//! - it turns back about the held edge, I_p θ̈ = −m g R sin(α − θ) with
//!   I_p = (4/3) m R², R = √(a² + b²), and lands on its other edge at t₁ (0.1443 s,
//!   integrated below);
//! - at each landing, angular momentum about the landing edge is kept (a plastic
//!   impact, the old edge lifting): ω⁺ = (1 − (3/2) sin²α) ω⁻ = 0.7 ω⁻, so the
//!   energy above the upright rest, m g R (cos(α − θ) − cos α), keeps the share
//!   (1 − (3/2) sin²α)² = 0.49 at each impact.
//!
//! Found (session 32): under penalty, the default method, the held edge slid
//! 21 mm without friction while the block fell back, the landing came at 0.084 s
//! and kept 7 % of the energy (Housner: 49 %). The tilt rule
//! (`contact::friction::Tilt`) held the rotation about the edge as an elastic tilt
//! about the centre of mass, so the anchor held the centre of mass still; a body
//! whose centre of mass is beyond its patch turns about the patch's edge as a
//! rigid body (`friction::over_patch`).

mod common;

use common::load_str;
use rtphys::math::Vec3;
use rtphys::{Data, Pipeline};

const A: f64 = 0.05;
const B: f64 = 0.1;
const THETA0: f64 = 0.2;
const G: f64 = 9.81;
const H: f64 = 1e-3;

fn alpha() -> f64 {
    A.atan2(B)
}

/// The block on its +x edge at the origin, tilted by θ₀ about y (top toward +x),
/// 1 nm above the floor, under `method`.
fn scene(method: &str) -> String {
    let (rx, rz) = (
        A * THETA0.cos() - B * THETA0.sin(),
        -A * THETA0.sin() - B * THETA0.cos(),
    );
    format!(
        "[world]\ngravity = [0.0, 0.0, -{G}]\ndt = {H}\nmethod = \"{method}\"\n\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\n\
         material = {{ mu = 1.0 }}\n\n\
         [[body]]\nname = \"block\"\nshape = {{ type = \"box\", half_extents = [{A}, 0.05, {B}] }}\n\
         mass = 1.0\nposition = [{}, 0.0, {}]\nrpy = [0.0, {THETA0}, 0.0]\nmaterial = {{ mu = 1.0 }}\n",
        -rx,
        -rz + 1e-9
    )
}

/// The rigid fall about the held edge from θ₀ at rest (RK4, 1 µs): the time of
/// the first landing and the angular speed there.
fn analytic_landing() -> (f64, f64) {
    let (al, r) = (alpha(), A.hypot(B));
    let k = G * r / (4.0 / 3.0 * r * r);
    let acc = |th: f64| -k * (al - th).sin();
    let (mut th, mut w, mut t, dt) = (THETA0, 0.0f64, 0.0, 1e-6);
    while th > 0.0 {
        let (k1t, k1w) = (w, acc(th));
        let (k2t, k2w) = (w + 0.5 * dt * k1w, acc(th + 0.5 * dt * k1t));
        let (k3t, k3w) = (w + 0.5 * dt * k2w, acc(th + 0.5 * dt * k2t));
        let (k4t, k4w) = (w + dt * k3w, acc(th + dt * k3t));
        th += dt / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t);
        w += dt / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
        t += dt;
    }
    (t, -w)
}

/// Energy above the upright rest on an edge, per m g R, at tilt amplitude θ.
fn energy(theta: f64) -> f64 {
    (alpha() - theta.abs()).cos() - alpha().cos()
}

struct Rocking {
    /// The first landing (θ crosses zero), s.
    landing: f64,
    /// The largest |x| of the held edge before it, m (it starts at x = 0).
    slip: f64,
    /// The amplitude between the first and the second landing, rad.
    rebound: f64,
    /// The landing edge's largest depth below the floor over the 20 steps from
    /// the first landing, m (0 if it never goes below).
    landing_depth: f64,
}

fn rock(method: &str) -> Rocking {
    let model = load_str(&scene(method));
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let b = model.body_id("block").expect("block");
    let (mut landing, mut slip, mut rebound, mut landings) = (None, 0.0f64, 0.0f64, 0);
    let (mut landing_depth, mut since) = (0.0f64, 0);
    for _ in 0..(1.0 / H) as usize {
        pipe.step(&model, &mut data);
        let s = data.state[b];
        let th = 2.0 * s.q.j.atan2(s.q.w);
        match landings {
            0 if th <= 0.0 => {
                landings = 1;
                landing = Some(data.time);
            }
            0 => slip = slip.max((s.x.x + A * th.cos() - B * th.sin()).abs()),
            1 if th > 0.0 => landings = 2,
            1 => rebound = rebound.max(-th),
            _ => break,
        }
        if landings > 0 && since < 20 {
            // The landing edge: the −x bottom corners (the block is symmetric in y).
            let corner = s.x + s.q * Vec3::new(-A, 0.05, -B);
            landing_depth = landing_depth.max(-corner.z);
            since += 1;
        }
    }
    Rocking {
        landing: landing.unwrap_or(f64::INFINITY),
        slip,
        rebound,
        landing_depth,
    }
}

/// Every method: the block turns about its held edge and lands on time, and the
/// first landing keeps Housner's share of the energy.
///
/// Bounds: the landing within 2 % of the rigid fall (two steps are 1.4 %; the
/// compliant methods' penetration, ≤ 0.8 mm here, shifts the pivot by less); the
/// edge's slip before it ≤ 1 mm (1 % of the half-height: the compliant methods'
/// springs and anchors move it by their penetration's order); the energy kept at
/// the landing within ±15 % of 0.49 — the compliant methods spread the impact over
/// several steps while the old edge's springs still push, which keeps more
/// (measured below), the rigid ones resolve it in one or two steps.
///
/// Measured (session 32, h = 1 ms): landing 0.146 / 0.144 / 0.146 / 0.144 /
/// 0.144 s (penalty, penalty_deepest, Hunt–Crossley, LCP, IPC; rigid 0.1447);
/// slip 6.1e-5 / 3.7e-4 / 2.1e-4 / 9.8e-5 / 1.2e-5 m; energy kept 0.540 / 0.477 /
/// 0.528 / 0.485 / 0.460 (Housner 0.490). Penalty before the fix: 0.084 s,
/// 2.1e-2 m, 0.066 (it fails all three bounds).
///
/// The landing edge under the rigid methods (LCP, IPC) goes no deeper than the
/// LCP's allowance δ = 1e-5 m with 10 % of it for the step's gravity and
/// friction terms (1.1e-5 m): in the step before it lands the edge is within the
/// speculative window and the step's motion (0.25 mm above the floor, closing at
/// 0.33 m/s), so it has gap rows that close its gap ψ exactly within the step
/// (ψ/h), after which the stabilization holds it at δ. Found in session 34 (lcpgap1): a pair that
/// already penetrates got no gap points, the edge had no row and landed 5.2e-5 m
/// deep (0.22 mm on another trajectory), and the push-out that followed set
/// the share. Measured (lcpgap1, with the patch merge of `rows::select_points`):
/// LCP 9.9e-6 m (main 5.2e-5), IPC 0; the LCP's landing 0.1450 s, slip 4.0e-6 m,
/// share 0.477 (main 0.1440 s, 9.8e-5 m, 0.485; at h = 2 / 0.5 / 0.2 / 0.1 ms
/// 0.436 / 0.476 / 0.483 / 0.480, main 0.486 / 0.491 / 0.494 / 0.548).
#[test]
fn rocking_block_turns_about_its_edge_and_keeps_housners_share() {
    let (t1, w1) = analytic_landing();
    let kept = (1.0 - 1.5 * alpha().sin().powi(2)).powi(2);
    // The integration against energy conservation: ½ I_p ω² = m g R ΔE.
    let r = A.hypot(B);
    let w_energy = (2.0 * G * r * energy(THETA0) / (4.0 / 3.0 * r * r)).sqrt();
    assert!(
        (w1 / w_energy - 1.0).abs() < 1e-5,
        "landing at {w1} rad/s, energy {w_energy}"
    );
    for method in ["penalty", "penalty_deepest", "hunt_crossley", "lcp", "ipc"] {
        let r = rock(method);
        let share = energy(r.rebound) / energy(THETA0);
        println!(
            "{method}: landing {:.4} s (rigid {t1:.4}), edge slip {:.2e} m, rebound {:.4} rad, energy kept {share:.3} (Housner {kept:.3}), landing edge {:.2e} m deep",
            r.landing, r.slip, r.rebound, r.landing_depth
        );
        if matches!(method, "lcp" | "ipc") {
            assert!(
                r.landing_depth <= 1.1e-5,
                "{method}: the landing edge went {} m deep",
                r.landing_depth
            );
        }
        assert!(
            (r.landing / t1 - 1.0).abs() <= 0.02,
            "{method}: lands at {} s, rigid {t1} s",
            r.landing
        );
        assert!(r.slip <= 1e-3, "{method}: the held edge slid {} m", r.slip);
        assert!(
            (share / kept - 1.0).abs() <= 0.15,
            "{method}: kept {share} of the energy, Housner {kept}"
        );
    }
}

/// PEG at h = 1 ms, with the bounds of every method above.
///
/// Found in session 32: the landing step pushed the block off the floor — it
/// left at v_z = +0.30 m/s and flew for four steps — and the rebound kept 0.61
/// of the energy (Housner 0.49): the plane pair kept the standard rows inside
/// the PEG step, a penetrating pair's manifold has no gap points, so the landing
/// corners had no row, landed 0.22 mm deep, and PEG kept the next step's
/// push-out as velocity. On a static box floor PEG kept 0.476. Fixed (peg25):
/// the plane–polytope pair takes PEG's own rows, a vertex–face U per vertex
/// within the reach (`pipeline::lcp::peg`, "Plane"). Measured: landing 0.1450 s,
/// edge slip 8.1e-6 m, energy kept 0.476 — the static box floor's figure.
#[test]
fn rocking_block_under_peg_keeps_housners_share() {
    let (t1, _) = analytic_landing();
    let kept = (1.0 - 1.5 * alpha().sin().powi(2)).powi(2);
    let r = rock("peg");
    let share = energy(r.rebound) / energy(THETA0);
    println!(
        "peg: landing {:.4} s (rigid {t1:.4}), edge slip {:.2e} m, rebound {:.4} rad, energy kept {share:.3} (Housner {kept:.3})",
        r.landing, r.slip, r.rebound
    );
    assert!((r.landing / t1 - 1.0).abs() <= 0.02);
    assert!(r.slip <= 1e-3);
    assert!((share / kept - 1.0).abs() <= 0.15, "kept {share}");
}
