use rtphys::collision::Shape;
use rtphys::math::{Pose, Vec3};
use rtphys::model::*;
use rtphys::{step, Data};
fn main() {
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
    let mat = Material {
        mu: 0.5,
        restitution: 0.0,
    };
    b.add_body(BodySpec::fixed("g", Shape::plane(), Pose::identity()).material(mat));
    b.add_body(
        BodySpec::free("box", Shape::cuboid(Vec3::repeat(0.1)).unwrap())
            .mass(1.0)
            .at(Vec3::new(0.0, 0.0, 0.1))
            .material(mat),
    );
    let m = b.finalize().unwrap();
    let mut d = Data::new(&m);
    d.state[1].v = Vec3::new(2.0, 0.0, 0.0);
    for k in 0..700 {
        step(&m, &mut d);
        if k > 395 && k < 440 || k % 50 == 0 {
            let cw = d.contact_wrench[1];
            println!(
                "{k} v={:.3e} w={:.3e} F_n={:.4} F_t={:.4} anchor={} pen={:.3e}",
                d.state[1].v.x,
                d.state[1].w.y,
                cw.force.z,
                cw.force.x,
                d.pairs.first().map(|p| p.anchor.is_some()).unwrap_or(false),
                d.stats.max_penetration
            );
        }
    }
}
