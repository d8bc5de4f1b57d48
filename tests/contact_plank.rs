//! A plank leaning against a wall (docs/EXPERIMENTS.md, "Outside scenes, session
//! 36"; `benches/scripts/outside_probes_36.py`).
//!
//! A 1 m plank (half length l = 0.5 m, half thickness t = 1 cm, half width 10 cm,
//! 1 kg) leans in the x–z plane at α₀ from the floor, the two end edges of its
//! underside placed on the floor (z = 0) and on a static wall's face (x = 0).
//!
//! **Frictionless floor and wall: the plank leaves the wall.** With both contacts
//! held it has one coordinate α: its centre is at x_c = l cos α + t sin α,
//! z_c = l sin α + t cos α, so T = ½ M(α) α̇² with
//! M(α) = m (l² + t² − 2 l t sin 2α) + I_c, I_c = m (l² + t²)/3, and Lagrange gives
//! M α̈ + ½ M′ α̇² + m g (l cos α − t sin α) = 0. The wall's force is m ẍ_c; it
//! vanishes at the parting (for a thin rod at sin α = ⅔ sin α₀), and from then on
//! no horizontal force acts: the centre keeps its horizontal speed ẋ_c at the
//! parting through the fall and the landing on the frictionless floor. That speed,
//! integrated here by RK4 at 1 µs, is the test's reference.
//!
//! **Floor friction μ, frictionless wall: the plank stands iff μ ≥ μ*.** Moments
//! about the foot: the wall's force N_w 2l sin α = m g (l cos α − t sin α), and
//! the floor's friction carries N_w with normal force m g, so μ* = (l cos α −
//! t sin α)/(2 l sin α) (0.2787 at α = 60°).

mod common;

use common::load_str;
use rtphys::{Data, Model, Pipeline};

const L: f64 = 0.5;
const T: f64 = 0.01;
const W: f64 = 0.1;
const G: f64 = 9.81;

/// The plank placed touching the floor and the wall at α₀ (rad), stepped at `h`
/// under `method` (with `world` TOML in its `[world]` table and `extra` TOML
/// appended), floor friction `mu`.
fn scene(method: &str, alpha0: f64, mu: f64, h: f64, (world, extra): (&str, &str)) -> Model {
    let (s, c) = alpha0.sin_cos();
    let (cx, cz) = (L * c + T * s, L * s + T * c);
    // Body z along the plank (−cos α, 0, sin α): a turn about y by −(π/2 − α).
    let pitch = -(std::f64::consts::FRAC_PI_2 - alpha0);
    load_str(&format!(
        "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = {h:?}\nmethod = \"{method}\"\n{world}\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\n\
         material = {{ mu = {mu:?} }}\n\n\
         [[body]]\nname = \"wall\"\nstatic = true\n\
         shape = {{ type = \"box\", half_extents = [0.5, 1.0, 2.0] }}\n\
         position = [-0.5, 0.0, 2.0]\nmaterial = {{ mu = 0.0 }}\n\n\
         [[body]]\nname = \"b\"\nshape = {{ type = \"box\", half_extents = [{T:?}, {W:?}, {L:?}] }}\n\
         mass = 1.0\nposition = [{cx:?}, 0.0, {cz:?}]\nrpy = [0.0, {pitch:?}, 0.0]\n\
         material = {{ mu = {mu:?} }}\n{extra}"
    ))
}

/// The centre's horizontal speed at the parting from a frictionless wall, m/s
/// (module doc), by RK4 at 1 µs on (α, α̇) until the wall's force m ẍ_c vanishes.
fn parting_speed(alpha0: f64) -> f64 {
    let r2 = L * L + T * T;
    let acc = |a: f64, ad: f64| {
        let m = r2 - 2.0 * L * T * (2.0 * a).sin() + r2 / 3.0;
        let dm = -4.0 * L * T * (2.0 * a).cos();
        -(0.5 * dm * ad * ad + G * (L * a.cos() - T * a.sin())) / m
    };
    let wall = |a: f64, ad: f64| {
        (-L * a.sin() + T * a.cos()) * acc(a, ad) + (-L * a.cos() - T * a.sin()) * ad * ad
    };
    let (mut a, mut ad, h) = (alpha0, 0.0f64, 1e-6);
    while !(wall(a, ad) <= 0.0 && ad < 0.0) {
        let k1 = (ad, acc(a, ad));
        let k2 = (
            ad + h / 2.0 * k1.1,
            acc(a + h / 2.0 * k1.0, ad + h / 2.0 * k1.1),
        );
        let k3 = (
            ad + h / 2.0 * k2.1,
            acc(a + h / 2.0 * k2.0, ad + h / 2.0 * k2.1),
        );
        let k4 = (ad + h * k3.1, acc(a + h * k3.0, ad + h * k3.1));
        a += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
        ad += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
    }
    (-L * a.sin() + T * a.cos()) * ad
}

fn plank(model: &Model) -> usize {
    model.body_id("b").expect("body b")
}

/// The frictionless fall from α₀ = 75° at step `h`: (the centre's horizontal
/// speed 1.5 s after release — past the parting, the fall and the landing —,
/// the largest energy before the landing over the start's, the energy just
/// before the landing over the start's). The energy is m g z + ½ m |v|² +
/// ½ I_y ω_y² (the plank turns about y only).
fn fall(method: &str, h: f64) -> (f64, f64, f64) {
    let model = scene(method, 75f64.to_radians(), 0.0, h, ("", ""));
    let b = plank(&model);
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let iy = ((2.0 * L).powi(2) + (2.0 * T).powi(2)) / 12.0;
    let energy = |d: &Data| {
        let s = &d.state[b];
        G * s.x.z + 0.5 * s.v.norm_squared() + 0.5 * iy * s.w.y * s.w.y
    };
    // From the first step's end: Rigid IPC starts bodies placed touching d̂
    // apart (1 mm up: +0.2 % of the energy).
    pipeline.step(&model, &mut data);
    let e0 = energy(&data);
    let (mut emax, mut e_land, mut landed) = (e0, e0, false);
    for _ in 1..(1.5 / h).round() as usize {
        pipeline.step(&model, &mut data);
        // Landed: the centre within 3 t of lying flat.
        landed |= data.state[b].x.z < 3.0 * T;
        if !landed {
            e_land = energy(&data);
            emax = emax.max(e_land);
        }
    }
    assert!(landed, "{method} h = {h}: the plank did not land");
    (data.state[b].v.x, emax / e0, e_land / e0)
}

/// The plank leaves a frictionless wall with the analytic horizontal speed
/// (0.96658 m/s from 75°) within 1.5 % at h = 1 ms and 5 ms under penalty,
/// Hunt–Crossley, the standard LCP and Rigid IPC (measured: penalty +0.12 % /
/// +0.92 %, Hunt–Crossley +0.02 % / +0.02 %, LCP 0.00 % / −0.17 %, IPC
/// +0.48 % at 5 ms). The bound is the compliant methods' geometry: the plank's
/// ends ride 0.1–1 mm into the floor and the wall, which moves the parting of a
/// 1 m plank by that order. And no method adds energy before the landing (the
/// sliding contacts are frictionless; 1e-6 of the start's, round-off), nor
/// loses more than 1.5 % of it.
///
/// Before session 36 the continuous-collision stage rewound the plank under
/// the LCP at h = 5 ms: it read "the rest of the step carries the geom deeper"
/// by the body's origin, which falls 2.6 mm a step while the foot stays on the
/// floor, above a quarter of the plank's 1 cm inner radius; the rewind removed
/// the centre's vertical velocity at the start pose (86 % of the energy lost by
/// the landing, −17.6 % on the speed). It now reads the points that meet
/// (`collide::Reach::Points`).
#[test]
fn a_plank_leaves_a_frictionless_wall_with_the_analytic_speed() {
    let v_ref = parting_speed(75f64.to_radians());
    assert!((v_ref - 0.96658).abs() < 1e-4, "reference {v_ref}");
    for method in ["penalty", "hunt_crossley", "lcp", "ipc"] {
        for h in [1e-3, 5e-3] {
            let (vx, emax, e_land) = fall(method, h);
            println!(
                "{method:14} h {h}: vx {vx:.5} ({:+.2} %), energy max {emax:.7}, before landing {e_land:.5}",
                (vx / v_ref - 1.0) * 100.0
            );
            assert!((vx / v_ref - 1.0).abs() <= 0.015, "{method} h {h}: vx {vx}");
            assert!(emax <= 1.0 + 1e-6, "{method} h {h}: energy gained {emax}");
            assert!(e_land >= 0.985, "{method} h {h}: energy lost {e_land}");
        }
    }
}

/// The same under PEG at h = 1 ms and 5 ms, within 1 % (the brief for
/// peg30; measured +0.11 % at 5 ms in session 36 with the points' reading),
/// with no energy gained before the landing and ≤ 1.5 % lost. Until peg30 PEG's
/// continuous collision (its own, `pipeline::lcp::peg_retry`) read the depth by
/// the bodies' origins and rewound the plank at 5 ms (−18.7 %); it now reads
/// the points that meet (`[lcp] peg_ccd_points`, default true).
#[test]
fn a_plank_leaves_a_frictionless_wall_under_peg() {
    let v_ref = parting_speed(75f64.to_radians());
    for h in [1e-3, 5e-3] {
        let (vx, emax, e_land) = fall("peg", h);
        println!(
            "peg h {h}: vx {vx:.5} ({:+.2} %), energy max {emax:.7}, before landing {e_land:.5}",
            (vx / v_ref - 1.0) * 100.0
        );
        assert!((vx / v_ref - 1.0).abs() <= 0.01, "h {h}: vx {vx}");
        assert!(emax <= 1.0 + 1e-6, "h {h}: energy gained {emax}");
        assert!(e_land >= 0.985, "h {h}: energy lost {e_land}");
    }
}

/// μ* of the plank at α (module doc).
fn mu_star(alpha: f64) -> f64 {
    (L * alpha.cos() - T * alpha.sin()) / (2.0 * L * alpha.sin())
}

/// The plank at 60° with floor friction `mu`: the centre's x after 1 s and
/// after 3 s, from its start.
fn lean(method: &str, mu: f64, keys: (&str, &str)) -> (f64, f64) {
    let model = scene(method, 60f64.to_radians(), mu, 1e-3, keys);
    let b = plank(&model);
    let mut data = Data::new(&model);
    let mut pipeline = Pipeline::new(&model);
    let x0 = data.state[b].x.x;
    let mut x1 = x0;
    for k in 1..=3000 {
        pipeline.step(&model, &mut data);
        if k == 1000 {
            x1 = data.state[b].x.x;
        }
    }
    (x1 - x0, data.state[b].x.x - x0)
}

/// Statics: at μ = 1.25 μ* the plank stands — its centre moves ≤ 0.2 mm between
/// 1 s and 3 s (the first second is the contacts' settling: penalty and
/// Hunt–Crossley sink 0.5–2 mm into their springs) under Hunt–Crossley, penalty
/// with clamped anchors, with the implicit rows, with `solved_drag`, RK4
/// penalty, the LCP and PEG; Rigid IPC's smoothed friction (004 §5) lets a loaded contact creep
/// below ε_v = 1e-4 m/s by design, so it is held to ε_v × 2 s. At μ = 0.9 μ* every
/// method's plank slides: the centre moves > 10 cm in 3 s.
#[test]
fn a_leaning_plank_stands_above_the_static_friction_and_slides_below() {
    let ms = mu_star(60f64.to_radians());
    assert!((ms - 0.2787).abs() < 1e-4, "mu* {ms}");
    let held = [
        ("hunt_crossley", ("", "")),
        ("penalty", ("", "[penalty.friction]\nlinear = false\n")),
        ("penalty", ("", "[penalty.friction]\nimplicit = true\n")),
        ("penalty", ("", "[penalty.friction]\nsolved_drag = true\n")),
        ("penalty", ("integrator = \"rk4\"", "")),
        ("lcp", ("", "")),
        ("peg", ("", "")),
        ("ipc", ("", "")),
    ];
    for (method, keys) in held {
        let (x1, x3) = lean(method, 1.25 * ms, keys);
        let (_, slid) = lean(method, 0.9 * ms, keys);
        let name = format!("{method} {}{}", keys.0, keys.1.replace('\n', " "));
        println!("{name}: stands: x {x1:.3e} m at 1 s, {x3:.3e} m at 3 s; slides: {slid:.3e} m");
        assert!((x3 - x1).abs() <= 2e-4, "{name}: moved {:e} m", x3 - x1);
        assert!(slid > 0.1, "{name}: held at 0.9 mu*: {slid} m");
    }
}

/// The same plank under penalty's default friction (semi-implicit Euler, the
/// linear anchors): found, not fixed (session 36). At μ = 1.25 μ* it creeps at
/// ≈ 0.3 mm/s and accelerates; at 1.08 μ* it falls within 4 s. Traced
/// (docs/EXPERIMENTS.md, "Outside scenes, session 36"): the anchors' block is
/// solved on the rates of the step's first normal solve, which has no friction
/// in it (the plank sliding, the floor carrying 9.20 N); the second normal
/// solve, with friction, carries the held plank (9.81 N) and moves the foot by
/// what the block did not see, so the anchor starts every step stretched past
/// its cone (k‖δ‖ = 3.28 N against μ Σf = 3.22 N) and is dragged every step.
/// With `[penalty.friction] solved_drag = true` (opt-in; an anchor dragged only
/// where its last solve reached the cone) it stands: the test above.
#[test]
#[ignore = "found, not fixed (session 36): penalty's linear anchors let the plank creep at 1.25 mu* \
            (0.64 mm from 1 s to 3 s, accelerating) and fall at 1.08 mu* within 4 s"]
fn a_leaning_plank_stands_under_penalty_defaults() {
    let ms = mu_star(60f64.to_radians());
    let (x1, x3) = lean("penalty", 1.25 * ms, ("", ""));
    assert!((x3 - x1).abs() <= 2e-4, "moved {:e} m", x3 - x1);
}
