mod common;
use common::load_str;
use rtphys::Data;
#[test]
fn probe() {
    for (kp, kv, ki) in [(1e5, 500.0, 5e3), (1e6, 1000.0, 5e4)] {
    for (method, dt) in [("penalty", 1e-2)] {
    let mut text = format!("[world]\ngravity = [0.0, 0.0, -9.81]\ndt = {dt}\nintegrator = \"semi_implicit_euler\"\nmethod = \"{method}\"\n\n");
    text += &format!("[penalty]\nkp_per_mass = {kp:?}\nkv_per_mass = {kv:?}\nki_per_mass = {ki:?}\nforgetting = 0.9\n\n");
    text += "[[body]]\nname = \"ground\"\nstatic = true\nshape = { type = \"plane\" }\nmaterial = { mu = 0.5, restitution = 0.0 }\n\n[[body]]\nname = \"box\"\nshape = { type = \"box\", half_extents = [0.5, 0.5, 0.5] }\nmass = 10.0\nposition = [0.0, 0.0, 0.5]\nvelocity = [1.0, 0.0, 0.0]\nmaterial = { mu = 0.5, restitution = 0.0 }\n\n";
    let model = load_str(&text);
    let mut d = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let b = 1;
    for i in 0..40 {
        pl.step(&model, &mut d);
        let s = &d.state[b];
        if true {
            println!("t {:.3} vx {:.3e} vz {:.3e} wy {:.3e} z {:.4e} anchor {}", d.time, s.v.x, s.v.z, s.w.y, s.x.z - 0.5, d.pairs[0].anchor.is_some());
        }
    }
    }
    }
}
