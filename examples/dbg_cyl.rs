use rtphys::model::scene::load_scene_str;
use rtphys::{step, Data};
fn main() {
    let head = "[world]\ndt = 0.001\n[penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\n[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\nmaterial = { mu = 0.8 }\n";
    let body = "[[body]]\nname=\"a\"\nshape={type=\"cylinder\",radius=0.05,half_length=0.05}\ndensity=1000.0\nposition=[0,0,0.05]\nrpy=[1.5707963,0,0]\nmaterial={mu=0.8}\n";
    let m = load_scene_str(&format!("{head}{body}"), "x", std::path::Path::new(".")).unwrap();
    let mut d = Data::new(&m);
    for k in 0..400 {
        step(&m, &mut d);
        if (200..206).contains(&k) {
            let pts: Vec<String> = d
                .contacts
                .points
                .iter()
                .map(|p| format!("({:.4},{:.4},{:.2e})", p.p_w.x, p.p_w.y, p.depth))
                .collect();
            println!(
                "{k} w={:?} v={:?} anchor={} cw={:?} pts={}",
                d.state[1].w.as_slice(),
                d.state[1].v.as_slice(),
                d.pairs[0].anchor.is_some(),
                d.contact_wrench[1],
                pts.join(" ")
            );
        }
    }
}
