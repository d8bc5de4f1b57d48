//! A standing domino's tipping threshold (a scene of the kind written outside the
//! project: a thin body standing on its narrow face).
//!
//! A 0.1 kg box of half extents (a, 0.025, b) stands on a plane and is set turning
//! about its bottom edge at x = +a with angular velocity ω about y (its centre of
//! mass moving with ω × r, so no impact at the edge). A rigid body tips over iff
//! its kinetic energy ½ I_e ω² (I_e about the edge) lifts the centre of mass over
//! the edge, ΔU = m g (√(a² + b²) − b):
//!
//!   ω* = √(2 m g (√(a² + b²) − b) / I_e),
//!
//! and below ω* = f ω* it turns up to θ_max = θ₀ − acos((b + f² ΔU/(m g)) / √(a² + b²)),
//! θ₀ = atan(a/b), and falls back. For a = 5 mm, b = 50 mm: ω* = 1.2055 rad/s,
//! θ_max(0.9) = 3.22°.
//!
//! Asserted: each method stands at 0.9 ω* and tips at 1.1 ω* (the threshold within
//! 10 %); where the contact is rigid (LCP, PEG, Rigid IPC) or held mode by mode
//! (penalty's `distribution = "modal"`), θ_max(0.9) within 5 % of the rigid one
//! (measured 0.96–1.03; the bound is the energy the 1 ms steps' contact dissipates
//! or stores at the edge, ≈ 2 % of ΔU, doubled). MuJoCo 4.0 on the same scene:
//! stands at 0.97, tips at 1.03, θ_max(0.9) = 3.14° (docs/EXPERIMENTS.md, "A standing
//! domino"). Under penalty's default share (000's 1/r) the patch holds a tilt by
//! kp a² only, about m g b for these gains: the domino tips from 0.17 ω*, and a
//! phone 8 mm thick stood at rest falls over — the ignored tests pin that.

mod common;

use common::load_str;
use rtphys::math::Vec3;
use rtphys::{Data, Model, Pipeline};

const MASS: f64 = 0.1;
const G: f64 = 9.81;

fn scene(method: &str, extra: &str, (a, b): (f64, f64), omega: f64) -> String {
    format!(
        r#"
[world]
gravity = [0.0, 0.0, -{G}]
dt = 0.001
method = "{method}"
{extra}
[[body]]
name = "ground"
static = true
shape = {{ type = "plane" }}
material = {{ mu = 0.8 }}
[[body]]
name = "domino"
shape = {{ type = "box", half_extents = [{a}, 0.025, {b}] }}
mass = {MASS}
position = [0.0, 0.0, {b}]
velocity = [{}, 0.0, {}]
angular_velocity = [0.0, {omega}, 0.0]
material = {{ mu = 0.8 }}
"#,
        b * omega,
        a * omega
    )
}

/// ω* of the rigid domino, rad/s.
fn omega_star((a, b): (f64, f64)) -> f64 {
    let i_edge = MASS * (4.0 * a * a + 4.0 * b * b) / 12.0 + MASS * (a * a + b * b);
    (2.0 * MASS * G * (a.hypot(b) - b) / i_edge).sqrt()
}

/// The rigid domino's largest tilt at f ω* (f < 1), degrees.
fn rigid_tilt((a, b): (f64, f64), f: f64) -> f64 {
    let lift = f * f * (a.hypot(b) - b);
    ((a / b).atan() - ((b + lift) / a.hypot(b)).acos()).to_degrees()
}

/// The scene loaded, its state and pipeline, and the domino's body index.
fn world(
    method: &str,
    extra: &str,
    size: (f64, f64),
    omega: f64,
) -> (Model, Data, Pipeline, usize) {
    let model = load_str(&scene(method, extra, size, omega));
    let data = Data::new(&model);
    let pipe = Pipeline::new(&model);
    let d = model
        .bodies
        .iter()
        .position(|b| b.name == "domino")
        .expect("domino");
    (model, data, pipe, d)
}

/// (Largest tilt over the run, tilt at the end), degrees: the angle of the
/// domino's axis from the vertical, toward +x positive.
fn run(method: &str, extra: &str, size: (f64, f64), omega: f64, steps: usize) -> (f64, f64) {
    let (model, mut data, mut pipe, d) = world(method, extra, size, omega);
    let tilt = |data: &Data| {
        let axis = data.state[d].q * Vec3::z();
        axis.x.atan2(axis.z).to_degrees()
    };
    let mut worst = f64::NEG_INFINITY;
    for _ in 0..steps {
        pipe.step(&model, &mut data);
        worst = worst.max(tilt(&data));
    }
    assert!(data.state[d].is_finite(), "{method} {extra}: non-finite");
    (worst, tilt(&data))
}

const DOMINO: (f64, f64) = (0.005, 0.05);

fn check_threshold(method: &str, extra: &str, steps: usize, rigid_bound: Option<f64>) {
    let w = omega_star(DOMINO);
    let (below, below_end) = run(method, extra, DOMINO, 0.9 * w, steps);
    let (above, above_end) = run(method, extra, DOMINO, 1.1 * w, steps);
    let rigid = rigid_tilt(DOMINO, 0.9);
    println!(
        "{method} {extra:?}: 0.9 ω*: largest tilt {below:.3}° (rigid {rigid:.3}°), end {below_end:.2}°; \
         1.1 ω*: largest {above:.2}°, end {above_end:.2}°"
    );
    assert!(
        below_end.abs() < 10.0 && below < 45.0,
        "{method} {extra:?}: tipped at 0.9 ω* (end {below_end}°)"
    );
    assert!(
        above_end > 80.0,
        "{method} {extra:?}: stood at 1.1 ω* (end {above_end}°)"
    );
    if let Some(tol) = rigid_bound {
        assert!(
            (below / rigid - 1.0).abs() <= tol,
            "{method} {extra:?}: largest tilt {below}° against the rigid {rigid}°"
        );
    }
}

/// The rigid domino turning about its edge as a pendulum, integrated (RK4,
/// 1e-6 s): I_e ψ̈ = m g R sin ψ, ψ the angle of the edge→centre line from the
/// vertical, ψ(0) = −atan(a/b), ψ̇(0) = ω. Returns the largest tilt ψ − ψ(0),
/// degrees, or `None` if the centre of mass passes over the edge (ψ > 0).
fn pendulum_tilt((a, b): (f64, f64), omega: f64) -> Option<f64> {
    let i_edge = MASS * (4.0 * a * a + 4.0 * b * b) / 12.0 + MASS * (a * a + b * b);
    let k = MASS * G * a.hypot(b) / i_edge;
    let acc = |psi: f64| k * psi.sin();
    let (psi0, h) = (-(a / b).atan(), 1e-6);
    let (mut psi, mut w) = (psi0, omega);
    while w > 0.0 {
        let (k1p, k1w) = (w, acc(psi));
        let (k2p, k2w) = (w + 0.5 * h * k1w, acc(psi + 0.5 * h * k1p));
        let (k3p, k3w) = (w + 0.5 * h * k2w, acc(psi + 0.5 * h * k2p));
        let (k4p, k4w) = (w + h * k3w, acc(psi + h * k3p));
        psi += h / 6.0 * (k1p + 2.0 * k2p + 2.0 * k3p + k4p);
        w += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w);
        if psi > 0.0 {
            return None;
        }
    }
    Some((psi - psi0).to_degrees())
}

#[test]
fn rigid_threshold_matches_the_pendulum() {
    // The closed forms the other tests compare with, against the rigid body's
    // equation of motion integrated: it stands just below ω*, tips just above it,
    // and turns to θ_max(f) (to 1e-6 of the angle: the step's error).
    for size in [DOMINO, (0.0025, 0.05), (0.05, 0.05)] {
        let w = omega_star(size);
        assert!(
            pendulum_tilt(size, 0.999 * w).is_some(),
            "{size:?}: tipped below ω*"
        );
        assert!(
            pendulum_tilt(size, 1.001 * w).is_none(),
            "{size:?}: stood above ω*"
        );
        for f in [0.5, 0.9, 0.97] {
            let tilt = pendulum_tilt(size, f * w).expect("stands");
            let closed = rigid_tilt(size, f);
            assert!(
                (tilt / closed - 1.0).abs() < 1e-6,
                "{size:?} f {f}: {tilt}° against {closed}°"
            );
        }
    }
}

#[test]
fn domino_tips_at_the_rigid_threshold_under_lcp_and_peg() {
    check_threshold("lcp", "", 1500, Some(0.05));
    check_threshold("peg", "", 1500, Some(0.05));
}

#[test]
fn domino_tips_at_the_rigid_threshold_under_ipc() {
    check_threshold("ipc", "", 1000, Some(0.05));
}

/// Penalty's modal share (RK4 only for now: `contact::modal`).
const MODAL: &str = "integrator = \"rk4\"\n[penalty]\ndistribution = \"modal\"";

#[test]
fn domino_tips_at_the_rigid_threshold_under_modal_penalty() {
    check_modal(MODAL);
}

/// The modal share's bounds: stands at 0.9 ω*, tips at 1.1 ω*, θ_max(0.9) within
/// 5 % of the rigid one; and a domino half as thick (a = 2.5 mm: the barrier is
/// 0.06 mm, a fifth of the contact's 0.33 mm rest depth) the same way.
fn check_modal(extra: &str) {
    check_threshold("penalty", extra, 1500, Some(0.05));
    let thin = (0.0025, 0.05);
    let w = omega_star(thin);
    let (below, end) = run("penalty", extra, thin, 0.9 * w, 1500);
    let rigid = rigid_tilt(thin, 0.9);
    println!(
        "penalty {extra:?}, a = 2.5 mm: 0.9 ω*: largest {below:.3}° (rigid {rigid:.3}°), end {end:.2}°"
    );
    assert!(end.abs() < 10.0 && (below / rigid - 1.0).abs() <= 0.05);
    let (_, end) = run("penalty", extra, thin, 1.1 * w, 1500);
    assert!(end > 80.0, "stood at 1.1 ω* ({end}°)");
}

/// The same share under semi-implicit Euler: the implicit rows' mode rows
/// (`pipeline::penalty_implicit`, "Modal pairs").
const MODAL_SIE: &str = "[penalty]\ndistribution = \"modal\"";

#[test]
fn domino_tips_at_the_rigid_threshold_under_modal_penalty_semi_implicit() {
    // The bounds of the RK4 case (measured: 3.240° at 0.9 ω* against the rigid
    // 3.222°, 1.623° against 1.615° at a = 2.5 mm; RK4's 3.31°, 1.66°).
    check_modal(MODAL_SIE);
}

#[test]
fn domino_tips_below_the_rigid_threshold_under_rk4_penalty_with_1_over_r() {
    // The same integrator with 000's share: the contrast that the modal share
    // removes (measured: 0.1 ω* leaves it tilted 1.0°, 0.3 ω* tips it).
    let (_, end) = run(
        "penalty",
        "integrator = \"rk4\"",
        DOMINO,
        0.3 * omega_star(DOMINO),
        1500,
    );
    println!("penalty rk4 1/r: 0.3 ω*: end {end:.2}°");
    assert!(
        end > 80.0,
        "1/r held the domino at 0.3 ω* ({end}°): the ignored tests' claim is stale"
    );
}

#[test]
fn domino_tips_near_the_rigid_threshold_under_hunt_crossley() {
    // A compliant volume contact: the edge sinks under the line load, which lowers
    // the barrier (measured: tips at 0.97 ω*); the threshold within 10 %.
    check_threshold("hunt_crossley", "", 1500, None);
}

/// An 8 mm × 15 cm phone stood on its edge at rest: it must stay standing.
fn phone_stands(method: &str, extra: &str) {
    let (worst, end) = run(method, extra, (0.004, 0.075), 0.0, 3000);
    println!("{method} {extra:?}: phone at rest, largest tilt {worst:.4}°, end {end:.4}°");
    assert!(
        end.abs() < 0.1,
        "{method} {extra:?}: the phone fell ({end}°)"
    );
}

#[test]
fn phone_stands_at_rest() {
    phone_stands("lcp", "");
    phone_stands("hunt_crossley", "");
    phone_stands("penalty", MODAL);
    phone_stands("penalty", MODAL_SIE);
}

#[test]
#[ignore = "found, not fixed (session 34): under penalty's default share (000's 1/r, kp = 2e4 per kg) the patch holds a tilt by kp m a² ≈ m g b only: the phone at rest falls over (90° at 3 s) and the domino tips from 0.17 ω*; `[penalty] distribution = \"modal\"` holds both, under RK4 and (mode rows, session 35) semi-implicit Euler: passes with that key (`phone_stands_at_rest`, `…_under_modal_penalty_semi_implicit`); the default not flipped yet"]
fn phone_stands_at_rest_under_default_penalty() {
    phone_stands("penalty", "");
    check_threshold("penalty", "", 1500, Some(0.05));
}

#[test]
#[ignore = "found, not fixed (session 34): Hunt–Crossley's edge sinks ≈ 0.1 mm under a 5 mm domino's line load, above the 0.06 mm barrier: 0.5 ω* turns it 1.61° (rigid 0.38°) and 0.9 ω* tips it"]
fn thin_domino_under_hunt_crossley() {
    let thin = (0.0025, 0.05);
    let w = omega_star(thin);
    let (below, end) = run("hunt_crossley", "", thin, 0.9 * w, 1500);
    println!("hunt_crossley thin: 0.9 ω*: largest {below:.3}°, end {end:.2}°");
    assert!(end.abs() < 10.0);
}

/// Largest |ω_z| (rad/s) and |v_y| (m/s) of a box tipped over its edge at 1.1 ω*:
/// the scene is mirror-symmetric in y, so both stay at round-off.
fn mirror_break(method: &str, extra: &str, size: (f64, f64)) -> (f64, f64) {
    let (model, mut data, mut pipe, d) = world(method, extra, size, 1.1 * omega_star(size));
    let (mut wz, mut vy) = (0.0f64, 0.0f64);
    for _ in 0..1500 {
        pipe.step(&model, &mut data);
        wz = wz.max(data.state[d].w.z.abs());
        vy = vy.max(data.state[d].v.y.abs());
    }
    (wz, vy)
}

/// A box tipping over its edge keeps its mirror symmetry (the scene is
/// mirror-symmetric in y): penalty (both shares; the modal one since its tied
/// corners leave together: one left alone kicked the domino to |ω_z| 0.10 rad/s)
/// and Hunt–Crossley hold |ω_z| and |v_y| at round-off (measured ≤ 1e-15)
/// through the fall and the landing; the bound 1e-6
/// is far above round-off's growth and far below the kicks found under LCP and
/// PEG (the ignored tests below).
#[test]
fn tipping_box_keeps_its_mirror_symmetry() {
    for size in [DOMINO, (0.05, 0.05)] {
        for (method, extra) in [
            ("penalty", ""),
            ("penalty", MODAL_SIE),
            ("penalty", MODAL),
            ("hunt_crossley", ""),
        ] {
            let (wz, vy) = mirror_break(method, extra, size);
            println!(
                "{method} {extra:?} {size:?}: max |ω_z| {wz:.2e} rad/s, max |v_y| {vy:.2e} m/s"
            );
            assert!(
                wz < 1e-6 && vy < 1e-6,
                "{method} {extra:?} {size:?}: |ω_z| {wz}, |v_y| {vy}"
            );
        }
    }
}

/// The standard LCP (Lemke, PGS, primal) keeps the mirror symmetry too, at the
/// bound of the test above (1e-6: far above the solvers' round-off and
/// tolerances, far below the kick it pins).
///
/// Found in session 34: a box tipping over its edge was kicked about the normal
/// once δ·tan θ passed the 1 µm point merge (θ ≈ 5.7°): the side edges' plane
/// crossings made six points and the 4-point reduction kept one corner and the
/// other side's rim point at depth 0 — |ω_z| 5.6e-2 rad/s in 0.4 s and 8.6e-2
/// by 1.5 s, |v_y| 2.2e-3 m/s (domino), 1.4e-2 rad/s (0.1 m cube), every solver.
/// Fixed (lcpgap1) by the patch merge (`rows::select_points`: points within
/// 1e-3 of the manifold's extent merge, the deeper kept, before the reduction),
/// which waited for the penetrating pair's gap points (`collision::
/// collide_pair_within`; without them the merge moved Housner's rocking block
/// under LCP to 0.596 of the energy). Measured over 1,500 steps: domino |ω_z|
/// 1.5e-9 / 1.8e-8 / 6.8e-10 rad/s, |v_y| 8.1e-11 / 1.7e-9 / 1.2e-11 m/s; cube
/// |ω_z| 1.2e-10 / 2.6e-8 / 1.0e-11 rad/s (Lemke / PGS / primal).
#[test]
fn tipping_box_keeps_its_mirror_symmetry_under_lcp() {
    for size in [DOMINO, (0.05, 0.05)] {
        for solver in ["lemke", "pgs", "primal"] {
            let extra = format!("[lcp]\nsolver = \"{solver}\"");
            let (wz, vy) = mirror_break("lcp", &extra, size);
            println!("lcp {solver} {size:?}: max |ω_z| {wz:.2e} rad/s, max |v_y| {vy:.2e} m/s");
            assert!(wz < 1e-6 && vy < 1e-6);
        }
    }
}

#[test]
#[ignore = "found, attributed, not fixed (session 34, lcpgap1): under PEG the 5 mm domino tipped at 1.1 ω* keeps its mirror symmetry through the fall (|ω_z| ≤ 6e-16) and breaks it in the one step it lands on its face: |ω_z| 5.0e-3 rad/s, |v_y| 2.5e-4 m/s. The face's four corners on three rigid degrees of freedom leave the twist mode of the normal impulses free; Lemke returns a basic solution with one corner at 0 (0, 3.21e-2, 2.02e-2, 1.20e-2 N·s), and the corners' friction, bounded by μ p_n, is then not mirrored and yaws the body. The standard LCP loads the corners in mirror pairs (not through its proximal step: with it off it still keeps 2.2e-9; why, not determined). docs/EXPERIMENTS.md lcpgap1"]
fn tipping_box_keeps_its_mirror_symmetry_under_peg() {
    let (wz, vy) = mirror_break("peg", "", DOMINO);
    println!("peg: max |ω_z| {wz:.2e} rad/s, max |v_y| {vy:.2e} m/s");
    assert!(wz < 1e-6 && vy < 1e-6);
}
