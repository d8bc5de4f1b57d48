//! `[penalty.friction] over_relaxation` (scale23): the linear anchors' sweeps
//! over-relaxed, x ← P(x + ω (x̂ − x)) (`contact::friction::LinearSticks`).

mod common;

use rtphys::model::scene::load_scene_str;
use rtphys::model::{Method, OverRelaxation};
use std::path::Path;

/// Two boxes on the floor 3 cm apart and a ball resting on their top edges
/// (its weight pushes them apart; their anchors on the floor hold them), the
/// friction section's `extra` appended.
fn groove(extra: &str) -> String {
    let mut s = String::from(
        "[world]\ndt = 0.001\nintegrator = \"semi_implicit_euler\"\nmethod = \"penalty\"\n\n\
         [[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\nmaterial = { mu = 0.8 }\n",
    );
    for (name, y) in [("left", -0.055), ("right", 0.055)] {
        s += &format!(
            "\n[[body]]\nname = \"{name}\"\nshape = {{ type = \"box\", half_extents = [0.04, 0.04, 0.04] }}\n\
             mass = 0.5\nposition = [0.0, {y}, 0.0401]\nmaterial = {{ mu = 0.8 }}\n"
        );
    }
    s += "\n[[body]]\nname = \"ball\"\nshape = { type = \"sphere\", radius = 0.03 }\nmass = 0.4\n\
          position = [0.0, 0.0, 0.1065]\nmaterial = { mu = 0.8 }\n";
    s + extra
}

fn omega_of(extra: &str) -> Result<OverRelaxation, String> {
    let m =
        load_scene_str(&groove(extra), "<groove>", Path::new(".")).map_err(|e| e.to_string())?;
    match m.opt.method {
        Method::Penalty(p) => Ok(p.friction.over_relaxation),
        _ => Err("not penalty".into()),
    }
}

/// The key reads a number in (0, 2) or "adaptive"; anything else is an error
/// that names the key (projected SOR diverges for ω ∉ (0, 2)).
#[test]
fn the_key_reads_omega_and_names_itself_when_wrong() {
    let key = |v: &str| format!("\n[penalty.friction]\nover_relaxation = {v}\n");
    assert_eq!(omega_of(""), Ok(OverRelaxation::Fixed(1.0)));
    assert_eq!(omega_of(&key("1.3")), Ok(OverRelaxation::Fixed(1.3)));
    assert_eq!(omega_of(&key("\"adaptive\"")), Ok(OverRelaxation::Adaptive));
    for bad in ["0.0", "2.0", "2.5", "-1.0", "\"fast\"", "true"] {
        let e = omega_of(&key(bad)).expect_err(bad);
        assert!(e.contains("over_relaxation"), "{bad}: {e}");
    }
}

/// Final poses of the groove after `steps` steps under `extra`.
fn poses(extra: &str, steps: usize) -> Vec<(rtphys::math::Vec3, rtphys::math::Quat)> {
    let model = common::load_str(&groove(extra));
    let mut d = rtphys::Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    common::run(&mut pl, &model, &mut d, steps);
    d.state.iter().map(|s| (s.x, s.q)).collect()
}

/// ω = 1 written out is today's Gauss–Seidel, bit for bit; ω = 1.3 and the
/// adaptive rule leave the groove where Gauss–Seidel does within 1e-8 m after
/// 2 s. Why that bound: the sweeps solve the same fixed point to their stop
/// (a change of 1e-6 of the largest force per sweep), and a force error ε F
/// moves a box by ε F / k on its anchor (k = 1e5 N/m per kg · 0.5 kg): with the
/// ball's push F < 4 N that is < 1e-10 m a step, carried by the anchor's
/// stretch, not accumulated (the anchors hold their material points).
#[test]
fn over_relaxed_groove_rests_where_gauss_seidel_does() {
    let steps = 2000;
    let gs = poses("", steps);
    let one = poses("\n[penalty.friction]\nover_relaxation = 1.0\n", steps);
    assert_eq!(gs, one, "ω = 1.0 written out differs from the default");
    for v in ["1.3", "\"adaptive\""] {
        let sor = poses(
            &format!("\n[penalty.friction]\nover_relaxation = {v}\n"),
            steps,
        );
        let apart = gs
            .iter()
            .zip(&sor)
            .map(|(a, b)| (a.0 - b.0).norm())
            .fold(0.0f64, f64::max);
        let moved = gs
            .iter()
            .zip(poses("", 1).iter())
            .map(|(a, b)| (a.0 - b.0).norm())
            .fold(0.0f64, f64::max);
        println!("over_relaxation = {v}: largest distance from Gauss-Seidel's poses {apart:.3e} m (bodies moved up to {moved:.3e} m from step 1)");
        assert!(apart <= 1e-8, "over_relaxation = {v}: {apart:e} m");
    }
}
