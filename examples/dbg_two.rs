use rtphys::model::scene::load_scene_str;
use rtphys::{step, Data};
fn main() {
    let head = "[world]\ndt = 0.001\n[penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\n[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\nmaterial = { mu = 0.8 }\n";
    let which = std::env::args().nth(1).unwrap_or_default();
    let body = if which == "side" {
        "[[body]]\nname=\"a\"\nshape={type=\"box\",half_extents=[0.05,0.05,0.05]}\ndensity=1000.0\nposition=[0,0,0.05]\nmaterial={mu=0.8}\n[[body]]\nname=\"b\"\nshape={type=\"box\",half_extents=[0.05,0.05,0.05]}\ndensity=1000.0\nposition=[0.0995,0.02,0.05]\nmaterial={mu=0.8}\n"
    } else {
        "[[body]]\nname=\"a\"\nshape={type=\"box\",half_extents=[0.05,0.05,0.05]}\ndensity=1000.0\nposition=[0,0,0.05]\nmaterial={mu=0.8}\n[[body]]\nname=\"b\"\nshape={type=\"box\",half_extents=[0.04,0.04,0.04]}\ndensity=1000.0\nposition=[0.01,0,0.14]\nrpy=[0,0,0.3]\nmaterial={mu=0.8}\n"
    };
    let m = load_scene_str(&format!("{head}{body}"), "x", std::path::Path::new(".")).unwrap();
    let mut d = Data::new(&m);
    for k in 0..3000 {
        step(&m, &mut d);
        if k % 300 == 0 || (k > 2990) {
            let s = |i: usize| {
                format!(
                    "v={:?} w={:?}",
                    d.state[i].v.as_slice(),
                    d.state[i].w.as_slice()
                )
            };
            println!("{k} a: {} b: {}", s(1), s(2));
            for (mi, man) in d.contacts.manifolds.iter().enumerate() {
                let p = &d.pairs[d.contact_pair[mi]];
                println!(
                    "   pair {}-{} n={:.3?} npts={} anchor={} phase={:?}",
                    man.geom_a,
                    man.geom_b,
                    man.normal.as_slice(),
                    man.points.len(),
                    p.anchor.is_some(),
                    p.phase
                );
            }
        }
    }
}
