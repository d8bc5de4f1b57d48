//! Head-on impacts between two free spheres, weightless, no friction, under every
//! method: the velocities after the impact are Newton's impact law,
//!
//!   v_cm = (m₁ v₁ + m₂ v₂)/(m₁ + m₂),
//!   v₁' = v_cm − e m₂ (v₁ − v₂)/(m₁ + m₂),  v₂' = v_cm + e m₁ (v₁ − v₂)/(m₁ + m₂),
//!
//! with e the materials' restitution, and the momentum m₁ v₁ + m₂ v₂ is kept.
//! Scenes a user writes without tuning anything: equal masses, 1,000:1 either
//! way, and a 100 m/s sphere of 2 cm radius (10 cm per step at h = 1 ms, more
//! than its diameter: the continuous-collision stage catches it).
//!
//! What each method promises, and so the tolerances:
//! - penalty (000's impulses at impacts) and LCP (Newton restitution on the
//!   normal rows, the scene's e) resolve an impact as one impulse: the law
//!   holds to round-off under penalty (1e-12 of the approach speed) and to the
//!   solvers' tolerance under LCP (1e-8: Lemke and PGS stop at a residual of
//!   1e-9; measured 1e-9–2e-9);
//! - Hunt–Crossley integrates the visco-elastic force over the contact with the
//!   damping fixed from e (the exact rule) and a step chosen by the energy
//!   monitor (ε = 1e-4 per sub-step): the law within 2 % of the approach speed,
//!   e = 0 excepted (its damping is unbounded there; the method's docs ask for
//!   e ≳ 0.2: only momentum is checked), and momentum kept to round-off (its
//!   forces are equal and opposite);
//! - every method keeps momentum to 1e-12 relative, also when the continuous
//!   collision stage resolves the impact (before, it added its impulse to the
//!   other body on top of what Hunt–Crossley's sub-steps had already done:
//!   50 % of the momentum created at 100 m/s).

mod common;

use common::load_str;
use rtphys::Data;

struct Impact {
    v: f64,
    r: f64,
    m1: f64,
    m2: f64,
    e: f64,
}

const METHODS: [(&str, &str); 4] = [
    ("penalty", ""),
    ("hunt_crossley", ""),
    ("lcp", "[lcp]\nsolver = \"lemke\"\n"),
    ("lcp", "[lcp]\nsolver = \"pgs\"\n"),
];

/// Runs the impact to well after the separation; returns (v₁', v₂').
fn collide(method: &str, extra: &str, c: &Impact) -> (f64, f64) {
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.001\nmethod = \"{method}\"\n{extra}\n\
         [[body]]\nname = \"a\"\nshape = {{ type = \"sphere\", radius = {r:?} }}\nmass = {m1:?}\n\
         position = [-0.5, 0.0, 0.0]\nvelocity = [{v:?}, 0.0, 0.0]\nmaterial = {{ mu = 0.0, restitution = {e:?} }}\n\n\
         [[body]]\nname = \"b\"\nshape = {{ type = \"sphere\", radius = {r:?} }}\nmass = {m2:?}\n\
         position = [0.0, 0.0, 0.0]\nmaterial = {{ mu = 0.0, restitution = {e:?} }}\n",
        r = c.r,
        m1 = c.m1,
        m2 = c.m2,
        v = c.v,
        e = c.e,
    );
    let model = load_str(&text);
    let (a, b) = (
        model.body_id("a").expect("a"),
        model.body_id("b").expect("b"),
    );
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    // The gap of 0.5 − 2r closes at ≈ (0.5/v) s; 0.2 s more for the contact.
    let steps = ((0.5 / c.v + 0.2) / 1e-3) as usize;
    common::run(&mut pipeline, &model, &mut data, steps);
    let (sa, sb) = (data.state[a], data.state[b]);
    for s in [sa, sb] {
        assert!(
            s.v.y.abs() < 1e-12 && s.v.z.abs() < 1e-12 && s.w.norm() < 1e-12,
            "{method}: a head-on impact left the line: v {:?}, ω {:?}",
            s.v,
            s.w
        );
    }
    (sa.v.x, sb.v.x)
}

fn check(c: &Impact) {
    let (m1, m2, v, e) = (c.m1, c.m2, c.v, c.e);
    let v_cm = m1 * v / (m1 + m2);
    let v1 = v_cm - e * m2 * v / (m1 + m2);
    let v2 = v_cm + e * m1 * v / (m1 + m2);
    for (method, extra) in METHODS {
        let (a, b) = collide(method, extra, c);
        let p_err = (m1 * a + m2 * b - m1 * v).abs() / (m1 * v);
        let err = (a - v1).abs().max(b - v2).max(v2 - b) / v;
        eprintln!(
            "{method} {extra:?} v = {v} m = {m1}/{m2} e = {e}: v1' {a:.6} ({v1:.6}), v2' {b:.6} ({v2:.6}), \
             law error {err:.2e} of v, momentum error {p_err:.2e}"
        );
        assert!(p_err <= 1e-12, "{method}: momentum error {p_err:.3e}");
        let bound = match method {
            "penalty" => 1e-12,
            "lcp" => 1e-8,
            _ => 2e-2,
        };
        if method == "hunt_crossley" && e < 0.2 {
            continue;
        }
        assert!(
            err <= bound,
            "{method} {extra:?} m = {m1}/{m2} e = {e}: v1' {a} (law {v1}), v2' {b} (law {v2})"
        );
    }
}

#[test]
fn equal_spheres_follow_the_impact_law() {
    for e in [0.0, 0.5, 1.0] {
        check(&Impact {
            v: 1.0,
            r: 0.05,
            m1: 1.0,
            m2: 1.0,
            e,
        });
    }
}

#[test]
fn mass_ratio_1000_follows_the_impact_law() {
    for (m1, m2) in [(1.0, 1000.0), (1000.0, 1.0)] {
        check(&Impact {
            v: 1.0,
            r: 0.05,
            m1,
            m2,
            e: 1.0,
        });
    }
}

/// 100 m/s, r = 2 cm: 10 cm of travel per step against a 4 cm target.
#[test]
fn fast_sphere_on_a_resting_one_keeps_momentum() {
    for e in [0.0, 1.0] {
        check(&Impact {
            v: 100.0,
            r: 0.02,
            m1: 1.0,
            m2: 1.0,
            e,
        });
    }
}

/// Kinetic energy of the free bodies (translation and rotation).
fn kinetic(model: &rtphys::Model, data: &Data) -> f64 {
    data.kinetic_energy(model)
}

/// Oblique elastic impacts under Hunt–Crossley (e = 1, μ = 0, weightless): the
/// kinetic energy after the impact equals the energy before. The §5 stiffness rule
/// follows each body's load, and an oblique impact changed that load while the
/// pair was compressed: λ u jumped with no work done, +9.4 % of the kinetic energy
/// for two 1 kg spheres at 7.54 m/s, +17 % for a spinning 0.1 kg cylinder on a
/// 1 kg sphere. A change of λ now moves the stored energy by at most the energy
/// monitor's tolerance per tick (`budgeted_stiffness`). Bound: 5e-3 of the
/// energy — the monitor accepts ε = 1e-4 of E_s per sub-step and per stiffness
/// change, and these contacts last ≤ 10 ticks of a few sub-steps each (measured
/// +2.1e-4 and +6.8e-4; the unrounded scratch scenes these come from kept their
/// energy to 7e-6 with a fixed stiffness — the integration's own error).
#[test]
fn oblique_hunt_crossley_impacts_keep_their_energy() {
    let sphere = "{ type = \"sphere\", radius = 0.05 }";
    let cylinder = "{ type = \"cylinder\", radius = 0.05, half_length = 0.02 }";
    let cases = [
        // (shape a, mass a, position a, orientation a, v, ω a)
        (
            sphere,
            1.0,
            [-0.4, 0.0128, 0.0248],
            [1.0, 0.0, 0.0, 0.0],
            7.54,
            [0.0; 3],
        ),
        (
            cylinder,
            0.1,
            [-0.4, -2.0e-5, -0.017465],
            [0.138087, 0.432868, 0.887871, -0.072405],
            2.72,
            [7.43, 7.99, -9.64],
        ),
    ];
    for (shape, m, x, q, v, w) in cases {
        let text = format!(
            "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.001\nmethod = \"hunt_crossley\"\n\n\
             [[body]]\nname = \"a\"\nshape = {shape}\nmass = {m:?}\nposition = {x:?}\norientation = {q:?}\n\
             velocity = [{v:?}, 0.0, 0.0]\nangular_velocity = {w:?}\nmaterial = {{ mu = 0.0, restitution = 1.0 }}\n\n\
             [[body]]\nname = \"b\"\nshape = {sphere}\nmass = 1.0\nposition = [0.0, 0.0, 0.0]\n\
             material = {{ mu = 0.0, restitution = 1.0 }}\n"
        );
        let model = load_str(&text);
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        let e0 = kinetic(&model, &data);
        let mut e_max = e0;
        for _ in 0..((0.4 / v + 0.2) / 1e-3) as usize {
            pipeline.step(&model, &mut data);
            e_max = e_max.max(kinetic(&model, &data));
        }
        let e1 = kinetic(&model, &data);
        let (gain, change) = ((e_max - e0) / e0, (e1 - e0) / e0);
        eprintln!("{shape} m = {m}: kinetic energy {e0:.6} J → {e1:.6} J ({change:+.2e}), largest {gain:+.2e}");
        assert!(
            data.contacts.manifolds.is_empty(),
            "{shape}: still in contact at the end"
        );
        assert!(
            gain <= 5e-3 && change.abs() <= 5e-3,
            "{shape} m = {m}: kinetic energy {e0} J → {e1} J (largest {e_max} J)"
        );
    }
}
