//! Penalty's modal share (`[penalty] distribution = "modal"`, `contact::modal`)
//! under semi-implicit Euler: the implicit rows' mode rows
//! (`pipeline::penalty_implicit`, "Modal pairs").

mod common;

use common::load_str;
use rtphys::math::Vec3;
use rtphys::{Data, Model, Pipeline};

const MODAL: &str = "[penalty]\ndistribution = \"modal\"\n";

/// Linear momentum of the bodies (both free here) and
/// [`Data::angular_momentum`].
fn momenta(model: &Model, data: &Data) -> (Vec3, Vec3) {
    let p =
        (model.bodies.iter().zip(&data.state)).fold(Vec3::zeros(), |p, (b, s)| p + s.v * b.mass);
    (p, data.angular_momentum(model))
}

/// Two boxes in free space, one spinning into the other off-centre: the mode
/// rows apply equal and opposite forces at the same points (K_m = Σ_i w_im J_i
/// on both bodies), so both momenta are kept to round-off through the blow
/// (measured 4e-16 and 3e-14; the bound 1e-10 is 1/r's in
/// `tests/momentum_glancing.rs`). Before the share's tied points left together
/// the angular momentum drifted 4.9e-8 here.
#[test]
fn an_off_centre_blow_keeps_both_momenta() {
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.001\nmethod = \"penalty\"\n{MODAL}\
         [[body]]\nname = \"a\"\nshape = {{ type = \"box\", size = [0.2, 0.2, 0.2] }}\n\
         density = 1000.0\nposition = [-0.5, 0.05, 0.0]\nvelocity = [1.0, 0.0, 0.0]\n\
         angular_velocity = [0.0, 0.0, 2.0]\nmaterial = {{ mu = 0.5 }}\n\
         [[body]]\nname = \"b\"\nshape = {{ type = \"box\", size = [0.3, 0.1, 0.2] }}\n\
         density = 500.0\nposition = [0.0, -0.05, 0.0]\nrpy = [0.0, 0.0, 0.3]\n\
         material = {{ mu = 0.5 }}\n"
    );
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let (p0, l0) = momenta(&model, &data);
    let (mut dp, mut dl, mut touching) = (0.0f64, 0.0f64, 0);
    for _ in 0..400 {
        pipe.step(&model, &mut data);
        let (p, l) = momenta(&model, &data);
        dp = dp.max((p - p0).norm() / p0.norm());
        dl = dl.max((l - l0).norm() / l0.norm());
        touching += usize::from(data.stats.contact_points > 0);
    }
    println!("|ΔP|/|P₀| ≤ {dp:.2e}, |ΔL|/|L₀| ≤ {dl:.2e}, {touching} steps in contact");
    assert!(touching > 10, "no blow ({touching} steps)");
    assert!(dp <= 1e-10 && dl <= 1e-10, "momenta moved: {dp:e}, {dl:e}");
}

/// A box resting flat on a plane: its patch is symmetric about the centre of
/// mass under uniform depth, so the share is 1/r's (module doc of
/// `contact::modal`) — the rest depth and pose of the default, to round-off
/// (measured: the same positions to the bit over 300 steps; the bound 1e-12 m
/// is round-off's of the summed modes, far below the 0.33 mm rest depth).
#[test]
fn a_box_resting_flat_rests_as_under_one_over_r() {
    let scene = |extra: &str| {
        format!(
            "[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"penalty\"\n{extra}\
             [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\n\
             [[body]]\nname = \"box\"\nshape = {{ type = \"box\", half_extents = [0.3, 0.2, 0.1] }}\n\
             mass = 5.0\nposition = [0.0, 0.0, 0.1]\n"
        )
    };
    let end = |extra: &str| {
        let model = load_str(&scene(extra));
        let mut data = Data::new(&model);
        let mut pipe = Pipeline::new(&model);
        for _ in 0..1000 {
            pipe.step(&model, &mut data);
        }
        let b = model
            .bodies
            .iter()
            .position(|b| b.name == "box")
            .expect("box");
        (data.state[b].x, data.state[b].q)
    };
    let (x_count, q_count) = end("");
    let (x_modal, q_modal) = end(MODAL);
    let dx = (x_modal - x_count).norm();
    let dq = q_modal.angle_to(&q_count);
    println!(
        "rest depth {:.4e} m (1/r) vs {:.4e} m (modal): |Δx| {dx:.1e} m, Δθ {dq:.1e} rad",
        0.1 - x_count.z,
        0.1 - x_modal.z
    );
    assert!(0.1 - x_count.z > 1e-5, "not resting on the plane");
    assert!(dx <= 1e-12 && dq <= 1e-12, "|Δx| {dx:e} m, Δθ {dq:e} rad");
}
