//! A robot link as the haptic tool: the device pose drives `arm/link7` of the
//! 7-DoF arm through the coupling (the wrench on the link's body enters the arm's
//! dynamics), and the device feels the arm's resistance (its servos hold the
//! start pose): the rendered force is −s Rᵀ K (x_d − x_link), pointing back.

use rtphys::math::Vec3;
use rtphys::runtime::World;
use rtphys::Data;

/// The arm (its servos on the first joints, the rest free under gravity) with the
/// device held at the link's start, or moved 5 cm along +x over 0.5 s: returns
/// the link's final position and velocity and the force rendered.
fn run(target: Vec3) -> (Vec3, Vec3, Vec3, Vec3) {
    let dir = std::path::Path::new("config/scenes");
    let base = std::fs::read_to_string(dir.join("arm.toml")).unwrap();
    let arm = rtphys::model::scene::load_scene_str(&base, "arm.toml", dir).unwrap();
    let link = arm.body_id("arm/link7").expect("link7 has geometry");
    // The link's start: the forward kinematics at the arm's initial q (a link
    // proxy's `pose0` is not its pose).
    let p0 = Data::new(&arm).state[link].x;
    let text = format!(
        "{base}\n[[haptic]]\nname = \"hand\"\ntool = \"arm/link7\"\nstiffness = 400.0\n\
         damping = 10.0\noffset = [{}, {}, {}]\nworkspace_min = [-0.2, -0.2, -0.2]\n\
         workspace_max = [0.2, 0.2, 0.2]\nmax_force = 50.0\nmax_stiffness = 1000.0\n\
         gravity_compensation = false\n",
        p0.x, p0.y, p0.z
    );
    let model = rtphys::model::scene::load_scene_str(&text, "arm_haptic.toml", dir).unwrap();
    assert_eq!(model.haptics[0].tool, link);
    let mut w = World::new(1, "arm".into(), model, 1, 16);
    for k in 0..800u64 {
        let s = (k as f64 / 500.0).min(1.0);
        let sample = rtphys::haptics::scripts::sample(k, target * s, None);
        w.step_with_device(Some((0, &sample)), &mut || 0.0);
    }
    assert_eq!(w.data.stats.quarantined, 0, "the arm stays sane");
    let s = &w.data.state[link];
    (p0, s.x, s.v, w.haptic[0].out.force_env)
}

#[test]
fn device_drives_a_robot_link_and_feels_the_arm() {
    let target = Vec3::new(0.05, 0.0, 0.0);
    let (_, x_hold, _, _) = run(Vec3::zeros());
    let (p0, x_move, v_link, f) = run(target);
    let pulled = (x_move - x_hold).x;
    println!(
        "link7 pulled {:.2} mm along x by the device's 50 mm (vs the device held); \
         device feels {f:?} N",
        pulled * 1e3
    );
    assert!(pulled > 1e-3, "the link follows the device: {pulled} m");
    // Rendered = −[K (x_d − x_link) + B (v_d − v_link)] (scale 1, identity
    // rotation; the device holds still at the end: v_d = 0).
    let expect = -((p0 + target - x_move) * 400.0 - v_link * 10.0);
    assert!(
        (f - expect).norm() < 1e-9 * (1.0 + expect.norm()),
        "{f:?} vs {expect:?}"
    );
}
