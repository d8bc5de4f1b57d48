//! Impacts by impulses and the contact-phase machine of 000 Fig. 2.

mod common;
use common as common_scene;

use common_scene::load_str;
use rtphys::data::ContactPhase;
use rtphys::Data;

const HEAD: &str = r#"
[world]
dt = 0.001
integrator = "semi_implicit_euler"

[penalty]
kp_per_mass = 20000.0
kv_per_mass = 300.0
ki_per_mass = 1000.0

[[body]]
name = "ground"
static = true
shape = { type = "plane" }
material = { mu = 0.5, restitution = 1.0 }
"#;

/// A ball dropped from 1 m: the impact is one impulse with Newton's restitution e,
/// taken in the step in which the gap closes (a speculative impact: the ball is
/// still δ = z₀ − r above the ground at the start of that step and would end it
/// inside). Exact rules of that step, semi-implicit Euler (to 1e-9):
/// - velocity at its end: e·v_in − g h (the impulse, then gravity; the separating
///   ball gets no penalty force: its gap rows would pull and are off);
/// - position at its end: the impact at τ = δ/(v_in + g h) (the gap closing at the
///   step's discrete approach speed), i.e. the integrator's z₀ + h v_out rewound by
///   τ times the impulse's velocity change (1 + e) v_in.
///
/// Before this rule the impulse came one step later, after the ball had overlapped
/// the ground by up to h·v_in (v_out was the same e·v_in − g h, measured from the
/// overlapped position). The ball then rises (e v_in)²/(2g) above the *surface*
/// (semi-implicit Euler ballistics, 1 %; was measured above the overlapped impact
/// point).
#[test]
fn dropped_ball_rebounds_with_restitution() {
    for e in [0.3, 0.5, 0.8] {
        let model = load_str(&format!(
            "{HEAD}\n[[body]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.1 }}\nmass = 1.0\nposition = [0.0, 0.0, 1.1]\nmaterial = {{ mu = 0.5, restitution = {e} }}\n"
        ));
        let (g, h, r) = (9.81, model.opt.dt, 0.1);
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        let mut impact: Option<f64> = None; // v_in
        let mut apex: f64 = f64::NEG_INFINITY;
        let mut impulses = 0;
        for _ in 0..3000 {
            let before = data.state[1];
            pipeline.step(&model, &mut data);
            impulses += data.stats.impulses;
            if data.stats.impulses > 0 && impact.is_none() {
                let v_in = -before.v.z;
                let v_out = data.state[1].v.z;
                assert!(
                    (v_out - (e * v_in - g * h)).abs() < 1e-9,
                    "v_out {v_out}, e v_in − g h {}",
                    e * v_in - g * h
                );
                let gap = before.x.z - r;
                assert!(
                    gap > 0.0 && gap < h * (v_in + g * h),
                    "the impulse in the closing step: gap {gap} m"
                );
                let tau = gap / (v_in + g * h);
                let z_end = before.x.z + h * v_out - tau * (1.0 + e) * v_in;
                assert!(
                    (data.state[1].x.z - z_end).abs() < 1e-9,
                    "end of the impact step at {}, the impact at τ = {tau} puts it at {z_end}",
                    data.state[1].x.z
                );
                impact = Some(v_in);
            }
            if impact.is_some() {
                apex = apex.max(data.state[1].x.z);
                if data.state[1].v.z < 0.0 {
                    break;
                }
            }
        }
        let v_in = impact.expect("no impact");
        let rise = apex - r;
        let want = (e * v_in).powi(2) / (2.0 * g);
        eprintln!("e = {e}: v_in {v_in:.4} m/s, rise above the ground {rise:.5} m, (e v)²/2g = {want:.5} m");
        assert_eq!(impulses, 1, "one impact, one impulse");
        assert!(
            ((rise - want) / want).abs() < 0.01,
            "rise {rise}, want {want}"
        );
    }
}

/// Fig. 2: once two bodies are in continuing contact the penalty method handles them
/// whatever their normal velocity — pushing a resting block hard into the ground
/// makes no impulse; dropping a third body on it does impact the (falling, resting)
/// pair, and the impacted resting block's ground pair gets its impulse through the
/// "body impacted" transition.
#[test]
fn phase_machine_impulses_only_for_new_impacts_and_third_bodies() {
    let model = load_str(&format!(
        "{HEAD}\n[[body]]\nname = \"base\"\nshape = {{ type = \"box\", half_extents = [0.2, 0.2, 0.1] }}\nmass = 5.0\nposition = [0.0, 0.0, 0.1]\nmaterial = {{ mu = 0.5 }}\n\n[[body]]\nname = \"dropped\"\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nmass = 1.0\nposition = [0.0, 0.0, 1.2]\nmaterial = {{ mu = 0.5 }}\n"
    ));
    let base = model.body_id("base").expect("base");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    // Placed touching, the base falls for one step before its contact exists: that
    // first contact arrives at g·h ≈ 1 cm/s > ε and is (correctly) a small impact.
    for _ in 0..50 {
        pipeline.step(&model, &mut data);
    }
    // Resting contact under a large downward push: penalty only.
    let mut impulses = 0;
    for k in 0..250 {
        if k > 50 && k < 150 {
            let x = data.state[base].x;
            data.apply_force_at(
                base,
                rtphys::math::Vec3::new(0.0, 0.0, -200.0),
                x,
                rtphys::math::Vec3::zeros(),
            );
        } else {
            data.xfrc[base] = Default::default();
        }
        pipeline.step(&model, &mut data);
        impulses += data.stats.impulses;
    }
    assert_eq!(impulses, 0, "resting contact was treated as an impact");
    let ground_pair = data
        .pairs
        .iter()
        .find(|p| {
            model.geoms[p.geom_b as usize].body == base
                || model.geoms[p.geom_a as usize].body == base
        })
        .unwrap_or_else(|| panic!("ground pair missing: {:?}", data.pairs));
    assert_eq!(ground_pair.phase, ContactPhase::Resting);
    // The dropped box hits the resting base (falls 1.0 m in ~0.45 s: ~4.4 m/s).
    let dropped = model.body_id("dropped").expect("dropped");
    let mut first_impact_impulses = 0;
    for _ in 0..600 {
        pipeline.step(&model, &mut data);
        if data.stats.impulses > 0 {
            first_impact_impulses = data.stats.impulses;
            break;
        }
    }
    let v = data.state[dropped].v.z;
    eprintln!(
        "impulses at the impact step: {first_impact_impulses}; dropped box v_z after it {v:.5} m/s"
    );
    // The impact impulse, the base's ground pair (body impacted), then the sweeps
    // that carry it on until no struck pair approaches faster than ε (sequential
    // impulses: the box and the base stop together, e = 0) — one sweep left the
    // box closing on the base at m v/(m + M) = 0.73 m/s.
    assert!(
        first_impact_impulses >= 2,
        "expected the impact impulse and the base's ground pair impulse (body impacted), got {first_impact_impulses}"
    );
    // After the impulses the box approaches at < ε; the rest of the step (gravity,
    // the implicit contact force) changes its velocity by at most g h downward.
    let (eps, g, h) = (1e-3, 9.81, model.opt.dt);
    assert!(
        v >= -(eps + g * h),
        "the dropped box still moves down at {v} m/s after its impact step (bound ε + g h = {})",
        eps + g * h
    );
    // Right after the impact, bounces (some points separating while others approach)
    // may still be resolved by impulses; once the pairs rest, none.
    let mut bounces = 0;
    for _ in 0..100 {
        pipeline.step(&model, &mut data);
        bounces += data.stats.impulses;
    }
    eprintln!("bounce impulses in the 0.1 s after the impact: {bounces}");
    let mut later = 0;
    for _ in 0..900 {
        pipeline.step(&model, &mut data);
        later += data.stats.impulses;
    }
    assert_eq!(later, 0, "continuing contact produced impulses");
    assert!(data.kinetic_energy(&model) < 1e-6);
}
