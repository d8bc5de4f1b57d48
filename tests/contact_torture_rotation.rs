//! Free rotation (issue 11, class 7): a torque-free box tumbling near its
//! intermediate principal axis (the Dzhanibekov effect) and a symmetric spinner,
//! under every method's first-order step (penalty and Hunt–Crossley with
//! semi-implicit Euler, LCP by Lemke and PGS), against the analytic solution.
//!
//! The body: a 3 kg box of half extents (0.5, 0.3, 0.1) m, principal moments
//! I = (0.10, 0.26, 0.34) kg·m², no gravity, no other body, ω₀ = (0.3, 6, 0.3) rad/s
//! (body = world frame at t = 0), h = 1e-3 s, 20 s.
//!
//! **The flip period** (Landau & Lifshitz, Mechanics, §37). With I₁ < I₂ < I₃,
//! E the kinetic energy and M = |L|: for M² > 2 E I₂
//!
//! ```text
//! ω₁ = √((2EI₃ − M²)/(I₁(I₃ − I₁))) cn τ,  ω₂ = √((2EI₃ − M²)/(I₂(I₃ − I₂))) sn τ,
//! ω₃ = √((M² − 2EI₁)/(I₃(I₃ − I₁))) dn τ,
//! τ = ω_p t,  ω_p = √((I₃ − I₂)(M² − 2EI₁)/(I₁I₂I₃)),
//! k² = (I₂ − I₁)(2EI₃ − M²) / ((I₃ − I₂)(M² − 2EI₁))
//! ```
//!
//! and for M² < 2 E I₂ the same with the indices 1 and 3 exchanged. sn has period
//! 4K(k) in τ, so ω₂ (the intermediate-axis component, body frame) returns to the
//! same sign change every T = 4K(k)/ω_p: two flips. K is computed by the
//! arithmetic–geometric mean, K(k) = π / (2 AGM(1, √(1 − k²))). The formula is
//! cross-checked against RK4 at h = 1e-4 (both branches of M² vs 2EI₂), which
//! conserves E and |L| to ~1e-12 there.
//!
//! **The symmetric spinner** (I₁ = I₂, box (0.3, 0.3, 0.1)): in the body frame
//! (ω₁, ω₂) turns about the symmetry axis at Ω = (I₃ − I₁) ω₃ / I₁; in the world
//! the symmetry axis precesses about L at |L| / I₁.
//!
//! Tolerances: |L| and E drift ≤ 0.1 % (max over the run, relative), flip period
//! within 1 % of T, precession rates within 0.1 %.

mod common;

use common::load_str;
use rtphys::math::Vec3;
use rtphys::Data;

const H: f64 = 1e-3;
const SECONDS: f64 = 20.0;
const OMEGA0: [f64; 3] = [0.3, 6.0, 0.3];

fn scene(
    method: &str,
    integrator: &str,
    solver: &str,
    dt: f64,
    half: [f64; 3],
    w: [f64; 3],
) -> String {
    format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = {dt}\nintegrator = \"{integrator}\"\nmethod = \"{method}\"\n\n\
         [lcp]\nsolver = \"{solver}\"\n\n\
         [[body]]\nname = \"box\"\nshape = {{ type = \"box\", half_extents = [{}, {}, {}] }}\nmass = 3.0\n\
         position = [0.0, 0.0, 0.0]\nangular_velocity = [{}, {}, {}]\n",
        half[0], half[1], half[2], w[0], w[1], w[2]
    )
}

/// Complete elliptic integral of the first kind, K(k) = π / (2 AGM(1, √(1 − k²))).
fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..64 {
        if (a - b).abs() <= 1e-16 * a {
            break;
        }
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

/// T = 4K(k)/ω_p for principal moments `i` (ascending) and body angular velocity
/// `w` (module doc).
fn flip_period(i: [f64; 3], w: [f64; 3]) -> f64 {
    let [i1, i2, i3] = i;
    let e = 0.5 * (i1 * w[0] * w[0] + i2 * w[1] * w[1] + i3 * w[2] * w[2]);
    let m2 = (i1 * w[0]).powi(2) + (i2 * w[1]).powi(2) + (i3 * w[2]).powi(2);
    let (k2, wp) = if m2 > 2.0 * e * i2 {
        (
            (i2 - i1) * (2.0 * e * i3 - m2) / ((i3 - i2) * (m2 - 2.0 * e * i1)),
            ((i3 - i2) * (m2 - 2.0 * e * i1) / (i1 * i2 * i3)).sqrt(),
        )
    } else {
        (
            (i3 - i2) * (m2 - 2.0 * e * i1) / ((i2 - i1) * (2.0 * e * i3 - m2)),
            ((i2 - i1) * (2.0 * e * i3 - m2) / (i1 * i2 * i3)).sqrt(),
        )
    };
    4.0 * elliptic_k(k2.sqrt()) / wp
}

/// What a run measured.
struct Tumble {
    /// Max relative drift of |L| and of the kinetic energy.
    l_drift: f64,
    e_drift: f64,
    /// Max drift of the world L vector, relative to |L₀|.
    lvec_drift: f64,
    /// Times of the sign changes of ω₂ (body frame), upward and downward.
    up: Vec<f64>,
    down: Vec<f64>,
    /// Body-frame angle of (ω₁, ω₂), unwrapped, at the end; world precession angle
    /// of the body z axis about L, unwrapped, at the end.
    body_angle: f64,
    world_angle: f64,
    principal: [f64; 3],
}

fn tumble(text: &str, seconds: f64) -> Tumble {
    let model = load_str(text);
    let h = model.opt.dt;
    let b = model
        .bodies
        .iter()
        .position(|b| b.name == "box")
        .expect("box");
    let inertia = model.bodies[b].inertia;
    for r in 0..3 {
        for c in 0..3 {
            assert!(
                r == c || inertia[(r, c)].abs() < 1e-12,
                "box inertia not diagonal"
            );
        }
    }
    let principal = [inertia[(0, 0)], inertia[(1, 1)], inertia[(2, 2)]];
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let (e0, l0) = (data.kinetic_energy(&model), data.angular_momentum(&model));
    let l_hat = l0.normalize();
    // A reference direction ⊥ L for the world precession angle.
    let ref_a = l_hat.cross(&Vec3::x()).normalize();
    let ref_b = l_hat.cross(&ref_a);
    let world_phase = |d: &Data| {
        let z = d.state[b].q.transform_vector(&Vec3::z());
        z.dot(&ref_b).atan2(z.dot(&ref_a))
    };
    let body_w = |d: &Data| d.state[b].q.inverse_transform_vector(&d.state[b].w);
    let mut out = Tumble {
        l_drift: 0.0,
        e_drift: 0.0,
        lvec_drift: 0.0,
        up: Vec::new(),
        down: Vec::new(),
        body_angle: 0.0,
        world_angle: 0.0,
        principal,
    };
    let mut wb = body_w(&data);
    let mut body_phase = wb.y.atan2(wb.x);
    let mut wphase = world_phase(&data);
    let steps = (seconds / h).round() as usize;
    let unwrap = |d: f64| {
        let tau = std::f64::consts::TAU;
        d - tau * (d / tau).round()
    };
    for _ in 0..steps {
        let t0 = data.time;
        pipeline.step(&model, &mut data);
        assert!(data.stats.quarantined == 0 && data.stats.contact_pairs == 0);
        let (e, l) = (data.kinetic_energy(&model), data.angular_momentum(&model));
        out.e_drift = out.e_drift.max((e - e0).abs() / e0);
        out.l_drift = out.l_drift.max((l.norm() - l0.norm()).abs() / l0.norm());
        out.lvec_drift = out.lvec_drift.max((l - l0).norm() / l0.norm());
        let w1 = body_w(&data);
        if (wb.y < 0.0) != (w1.y < 0.0) {
            let t = t0 + h * (-wb.y) / (w1.y - wb.y);
            if w1.y >= 0.0 {
                out.up.push(t);
            } else {
                out.down.push(t);
            }
        }
        let p = w1.y.atan2(w1.x);
        out.body_angle += unwrap(p - body_phase);
        body_phase = p;
        let wp = world_phase(&data);
        out.world_angle += unwrap(wp - wphase);
        wphase = wp;
        wb = w1;
    }
    out
}

/// Periods between successive sign changes of ω₂ in the same direction.
fn periods(t: &Tumble) -> Vec<f64> {
    let mut p: Vec<f64> = t.up.windows(2).map(|w| w[1] - w[0]).collect();
    p.extend(t.down.windows(2).map(|w| w[1] - w[0]));
    p
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Checks one configuration of the intermediate-axis tumble; returns the mean
/// measured period.
fn check_tumble(label: &str, text: &str, tol_drift: f64, tol_period: f64) -> f64 {
    let t = tumble(text, SECONDS);
    let t_an = flip_period(t.principal, OMEGA0);
    let ps = periods(&t);
    let worst = ps
        .iter()
        .map(|p| (p - t_an).abs() / t_an)
        .fold(0.0f64, f64::max);
    println!(
        "{label}: |L| drift {:.3e}, E drift {:.3e}, L vector drift {:.3e}, flip period {:.5} s \
         (analytic {:.5} s, {} periods, worst {:.3e} rel)",
        t.l_drift,
        t.e_drift,
        t.lvec_drift,
        mean(&ps),
        t_an,
        ps.len(),
        worst
    );
    assert!(ps.len() >= 4, "{label}: {} periods measured", ps.len());
    assert!(
        t.l_drift <= tol_drift,
        "{label}: |L| drift {:.3e}",
        t.l_drift
    );
    assert!(t.e_drift <= tol_drift, "{label}: E drift {:.3e}", t.e_drift);
    assert!(
        worst <= tol_period,
        "{label}: flip period off by {worst:.3e}"
    );
    mean(&ps)
}

/// The analytic period against RK4 at h = 1e-4 (both branches of M² vs 2EI₂).
#[test]
fn flip_period_formula_matches_rk4() {
    for w in [OMEGA0, [0.5, 6.0, 0.2]] {
        let text = scene("penalty", "rk4", "lemke", 1e-4, [0.5, 0.3, 0.1], w);
        let t = tumble(&text, SECONDS);
        let t_an = flip_period(t.principal, w);
        let ps = periods(&t);
        let worst = ps
            .iter()
            .map(|p| (p - t_an).abs() / t_an)
            .fold(0.0f64, f64::max);
        println!(
            "rk4 h=1e-4 ω0={w:?}: |L| drift {:.3e}, E drift {:.3e}, period {:.6} s, analytic {:.6} s, worst {:.3e}",
            t.l_drift,
            t.e_drift,
            mean(&ps),
            t_an,
            worst
        );
        assert!(ps.len() >= 4);
        assert!(t.l_drift < 1e-8 && t.e_drift < 1e-8);
        assert!(worst < 1e-4, "RK4 period vs analytic: {worst:.3e}");
    }
}

#[test]
fn penalty_semi_implicit_euler_conserves_tumbling() {
    for method in ["penalty", "penalty_deepest"] {
        let text = scene(
            method,
            "semi_implicit_euler",
            "lemke",
            H,
            [0.5, 0.3, 0.1],
            OMEGA0,
        );
        check_tumble(&format!("{method} sie"), &text, 1e-3, 1e-2);
    }
}

#[test]
fn hunt_crossley_semi_implicit_euler_conserves_tumbling() {
    let text = scene(
        "hunt_crossley",
        "semi_implicit_euler",
        "lemke",
        H,
        [0.5, 0.3, 0.1],
        OMEGA0,
    );
    check_tumble("hunt_crossley sie", &text, 1e-3, 1e-2);
}

#[test]
fn lcp_conserves_tumbling() {
    for solver in ["lemke", "pgs"] {
        let text = scene(
            "lcp",
            "semi_implicit_euler",
            solver,
            H,
            [0.5, 0.3, 0.1],
            OMEGA0,
        );
        check_tumble(&format!("lcp {solver}"), &text, 1e-3, 1e-2);
    }
}

/// The symmetric spinner: body-frame rate Ω = (I₃ − I₁) ω₃ / I₁ and world
/// precession |L| / I₁, within 0.1 %; E and |L| within 0.1 %.
#[test]
fn symmetric_spinner_precesses_at_the_analytic_rate() {
    let w = [1.0, 0.0, 5.0];
    for (label, method, integrator) in [
        ("penalty sie", "penalty", "semi_implicit_euler"),
        ("lcp", "lcp", "semi_implicit_euler"),
        ("penalty rk4", "penalty", "rk4"),
    ] {
        let text = scene(method, integrator, "lemke", H, [0.3, 0.3, 0.1], w);
        let seconds = 10.0;
        let t = tumble(&text, seconds);
        let [i1, i2, i3] = t.principal;
        assert!((i1 - i2).abs() < 1e-12 * i1);
        let omega = (i3 - i1) * w[2] / i1;
        let l = ((i1 * w[0]).powi(2) + (i3 * w[2]).powi(2)).sqrt();
        let rate_body = t.body_angle / seconds;
        let rate_world = t.world_angle / seconds;
        println!(
            "{label}: body rate {rate_body:.6} (analytic {omega:.6}), world precession \
             {rate_world:.6} (analytic {:.6}) rad/s, |L| drift {:.3e}, E drift {:.3e}",
            l / i1,
            t.l_drift,
            t.e_drift
        );
        assert!(t.l_drift <= 1e-3 && t.e_drift <= 1e-3, "{label}");
        assert!(
            (rate_body - omega).abs() <= 1e-3 * omega.abs(),
            "{label}: body rate"
        );
        assert!(
            (rate_world - l / i1).abs() <= 1e-3 * (l / i1),
            "{label}: world rate"
        );
    }
}
