use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::load_scene_str;
use rtphys::{step, Data};
fn main() {
    let m = load_scene_str(
        &pile_scene(PileKind::Paper, 20, 3),
        "p",
        std::path::Path::new("."),
    )
    .unwrap();
    let mut d = Data::new(&m);
    for k in 0..6500 {
        step(&m, &mut d);
        if k % 500 == 0 && k > 1000 {
            let (mut best, mut bke) = (0, 0.0);
            for (i, (b, s)) in m.bodies.iter().zip(&d.state).enumerate() {
                let ke = 0.5 * b.mass * s.v.norm_squared();
                if ke > bke {
                    bke = ke;
                    best = i;
                }
            }
            let s = &d.state[best];
            println!(
                "t={:.2} KE={:.3e} top {} m={:.1} ke={:.2e} x={:?} v={:?} imp={}",
                d.time,
                d.kinetic_energy(&m),
                m.bodies[best].name,
                m.bodies[best].mass,
                bke,
                s.x.as_slice(),
                s.v.as_slice(),
                d.stats.impulses
            );
        }
    }
}
