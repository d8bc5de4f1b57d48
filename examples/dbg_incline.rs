use rtphys::collision::Shape;
use rtphys::math::{Pose, Quat, Vec3};
use rtphys::model::*;
use rtphys::{step, Data};
fn main() {
    let theta = 0.5f64.atan();
    let opt = Options {
        dt: 1e-3,
        method: Method::Penalty(PenaltyParams {
            kp: Gain::PerMass(20000.0),
            kv: Gain::PerMass(300.0),
            ki: Gain::PerMass(1000.0),
            ..Default::default()
        }),
        ..Options::default()
    };
    let mut b = ModelBuilder::new(opt);
    let tilt = Quat::from_axis_angle(&Vec3::y_axis(), -theta);
    let mat = Material {
        mu: 0.5,
        restitution: 0.0,
    };
    b.add_body(
        BodySpec::fixed(
            "slope",
            Shape::plane(),
            Pose::from_parts(Vec3::zeros().into(), tilt),
        )
        .material(mat),
    );
    let up = tilt * Vec3::z();
    b.add_body(
        BodySpec::free("box", Shape::cuboid(Vec3::repeat(0.1)).unwrap())
            .mass(1.0)
            .at(up * (0.1 - 9.81 * theta.cos() / 2e4))
            .rotated(tilt)
            .material(mat),
    );
    let m = b.finalize().unwrap();
    let mut d = Data::new(&m);
    let dir = tilt * Vec3::new(-1.0, 0.0, 0.0);
    for k in 0..60 {
        step(&m, &mut d);
        let cw = d.contact_wrench[1];
        println!(
            "{k} v_t={:.3e} F_n={:.4} F_t={:.4} anchor={} pts={} pen={:.3e} phase={:?} I={:.3e}",
            d.state[1].v.dot(&dir),
            cw.force.dot(&up),
            cw.force.dot(&dir),
            d.pairs.first().map(|p| p.anchor.is_some()).unwrap_or(false),
            d.stats.contact_points,
            d.stats.max_penetration,
            d.pairs.first().map(|p| p.phase),
            d.pairs.first().map(|p| p.integral).unwrap_or(0.0)
        );
    }
}
