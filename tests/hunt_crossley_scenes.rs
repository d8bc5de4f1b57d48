//! `method = "hunt_crossley"` in shipped scenes, with `--method` overrides, scene
//! errors that name the key, snapshot determinism and no allocation per tick.

mod common;
use common as common_scene;

use common_scene::{load, load_str};
use rtphys::model::scene::MethodName;
use rtphys::model::{DampingRule, Method};
use rtphys::Data;

#[test]
fn shipped_scenes_load_and_settle() {
    for name in ["hc_box.toml", "hc_stack5.toml"] {
        let model = load(name);
        assert_eq!(model.opt.method.name(), "hunt_crossley");
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        for _ in 0..3000 {
            pipeline.step(&model, &mut data);
        }
        let ke = data.kinetic_energy(&model);
        println!(
            "{name}: KE after 3 s {ke:.2e} J, max penetration {:.2e} m, {} sub-steps in {} ticks",
            data.stats.max_penetration, data.stats.substeps_total, data.tick
        );
        assert_eq!(data.stats.quarantined, 0);
        assert!(ke < 1e-6, "{name} not at rest: KE {ke}");
    }
}

#[test]
fn method_override_and_fixed_step() {
    let model = load("box_on_plane.toml");
    let hc = rtphys::run::apply_overrides(&model, Some(MethodName::HuntCrossley), None, None)
        .expect("override");
    assert_eq!(hc.opt.method.name(), "hunt_crossley");
    let back =
        rtphys::run::apply_overrides(&hc, Some(MethodName::Penalty), None, None).expect("override");
    assert_eq!(back.opt.method.name(), "penalty");
    let m = load_str(
        "[world]\nmethod = \"hunt_crossley\"\n[hunt_crossley]\nadaptive = false\ndamping_rule = \"paper\"\nstiffness_volume = 1e7\n[[body]]\nname = \"g\"\nstatic = true\nshape = { type = \"plane\" }\n[[body]]\nname = \"b\"\nshape = { type = \"box\", half_extents = [0.1, 0.1, 0.1] }\nmass = 1.0\nposition = [0.0, 0.0, 0.2]\n",
    );
    let Method::HuntCrossley(p) = m.opt.method else {
        panic!("not hunt_crossley");
    };
    assert!(!p.adaptive);
    assert_eq!(p.damping_rule, DampingRule::Paper);
    assert_eq!(p.stiffness_volume, Some(1e7));
    let mut data = Data::new(&m);
    let mut pipeline = rtphys::Pipeline::new(&m);
    for _ in 0..500 {
        pipeline.step(&m, &mut data);
        assert_eq!(data.stats.substeps, 1);
    }
}

#[test]
fn scene_errors_name_the_key() {
    for (bad, key) in [
        (
            "penetration_fraction = 1.5",
            "hunt_crossley.penetration_fraction",
        ),
        ("stiffness_depth = -3.0", "hunt_crossley.stiffness_depth"),
        ("min_substep = 0.5", "hunt_crossley.min_substep"),
        ("damping_rule = \"magic\"", "damping_rule"),
        (
            "friction = { v_slip = 0.0 }",
            "hunt_crossley.friction.v_slip",
        ),
        ("bogus = 1", "bogus"),
    ] {
        let text = format!("[world]\nmethod = \"hunt_crossley\"\n[hunt_crossley]\n{bad}\n");
        let e = rtphys::model::scene::load_scene_str(&text, "t.toml", std::path::Path::new("."))
            .expect_err(bad);
        println!("{bad}: {e}");
        assert!(e.to_string().contains(key), "{bad}: {e}");
    }
}

#[test]
fn snapshot_restore_is_bit_identical() {
    let model = load("hc_stack5.toml");
    let mut a = Data::new(&model);
    let mut a_pipe = rtphys::Pipeline::new(&model);
    for _ in 0..150 {
        a_pipe.step(&model, &mut a);
    }
    let snap = a.snapshot();
    for _ in 0..200 {
        a_pipe.step(&model, &mut a);
    }
    let mut b = Data::new(&model);
    let mut b_pipe = rtphys::Pipeline::new(&model);
    assert!(b.restore(&snap));
    for _ in 0..200 {
        b_pipe.step(&model, &mut b);
    }
    assert_eq!(a.state, b.state);
    assert_eq!(a.pairs, b.pairs);
}
