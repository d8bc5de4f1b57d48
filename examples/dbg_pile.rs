use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::load_scene_str;
use rtphys::{step, Data};
fn main() {
    let kind = if std::env::args().nth(1).as_deref() == Some("bench") {
        PileKind::Bench
    } else {
        PileKind::Paper
    };
    let m = load_scene_str(&pile_scene(kind, 20, 3), "p", std::path::Path::new(".")).unwrap();
    let mut d = Data::new(&m);
    for k in 0..8000 {
        step(&m, &mut d);
        if k % 1000 == 999 {
            println!(
                "t={:.1} KE={:.3e} maxpen={:.3e} pairs={} q={}",
                d.time,
                d.kinetic_energy(&m),
                d.stats.max_penetration,
                d.stats.contact_pairs,
                d.stats.quarantined
            );
        }
    }
    for (b, s) in m.bodies.iter().zip(&d.state) {
        if b.mass > 0.0 {
            let ke = 0.5 * b.mass * s.v.norm_squared();
            if ke > 1e-5 || s.w.norm() > 1e-2 {
                println!(
                    "{} m={:.1} {:?} v={:.3e} w={:.3e} x={:.3?}",
                    b.name,
                    b.mass,
                    b.geoms
                        .clone()
                        .map(|g| m.geoms[g].shape.kind().name())
                        .collect::<Vec<_>>(),
                    s.v.norm(),
                    s.w.norm(),
                    s.x.as_slice()
                );
            }
        }
    }
}
