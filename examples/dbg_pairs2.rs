use rtphys::model::scene::load_scene_str;
use rtphys::{step, Data};
fn main() {
    let head = "[world]\ndt = 0.001\n[penalty]\nkp_per_mass = 20000.0\nkv_per_mass = 300.0\nki_per_mass = 1000.0\ndamping_limit = 0.3\n[[body]]\nname = \"floor\"\nstatic = true\nshape = { type = \"plane\" }\nmaterial = { mu = 0.8 }\n";
    let cases = [
        ("sphere", "[[body]]\nname=\"a\"\nshape={type=\"sphere\",radius=0.05}\ndensity=1000.0\nposition=[0,0,0.05]\nvelocity=[0.1,0,0]\nmaterial={mu=0.8}\n"),
        ("capsule lying", "[[body]]\nname=\"a\"\nshape={type=\"capsule\",radius=0.03,half_length=0.04}\ndensity=1000.0\nposition=[0,0,0.03]\nrpy=[1.5707963,0,0.3]\nmaterial={mu=0.8}\n"),
        ("cylinder standing", "[[body]]\nname=\"a\"\nshape={type=\"cylinder\",radius=0.05,half_length=0.05}\ndensity=1000.0\nposition=[0,0,0.05]\nmaterial={mu=0.8}\n"),
        ("cylinder lying", "[[body]]\nname=\"a\"\nshape={type=\"cylinder\",radius=0.05,half_length=0.05}\ndensity=1000.0\nposition=[0,0,0.05]\nrpy=[1.5707963,0,0]\nmaterial={mu=0.8}\n"),
        ("box tilted drop", "[[body]]\nname=\"a\"\nshape={type=\"box\",half_extents=[0.05,0.04,0.03]}\ndensity=1000.0\nposition=[0,0,0.1]\nrpy=[0.4,0.3,0.2]\nmaterial={mu=0.8}\n"),
        ("box on box", "[[body]]\nname=\"a\"\nshape={type=\"box\",half_extents=[0.05,0.05,0.05]}\ndensity=1000.0\nposition=[0,0,0.05]\nmaterial={mu=0.8}\n[[body]]\nname=\"b\"\nshape={type=\"box\",half_extents=[0.04,0.04,0.04]}\ndensity=1000.0\nposition=[0.01,0,0.14]\nrpy=[0,0,0.3]\nmaterial={mu=0.8}\n"),
        ("boxes side", "[[body]]\nname=\"a\"\nshape={type=\"box\",half_extents=[0.05,0.05,0.05]}\ndensity=1000.0\nposition=[0,0,0.05]\nmaterial={mu=0.8}\n[[body]]\nname=\"b\"\nshape={type=\"box\",half_extents=[0.05,0.05,0.05]}\ndensity=1000.0\nposition=[0.0995,0.02,0.05]\nmaterial={mu=0.8}\n"),
        ("sphere on box", "[[body]]\nname=\"a\"\nshape={type=\"box\",half_extents=[0.05,0.05,0.05]}\ndensity=1000.0\nposition=[0,0,0.05]\nmaterial={mu=0.8}\n[[body]]\nname=\"b\"\nshape={type=\"sphere\",radius=0.04}\ndensity=1000.0\nposition=[0.0,0,0.14]\nmaterial={mu=0.8}\n"),
        ("capsule on box", "[[body]]\nname=\"a\"\nshape={type=\"box\",half_extents=[0.05,0.05,0.05]}\ndensity=1000.0\nposition=[0,0,0.05]\nmaterial={mu=0.8}\n[[body]]\nname=\"b\"\nshape={type=\"capsule\",radius=0.03,half_length=0.03}\ndensity=1000.0\nposition=[0.0,0,0.13]\nrpy=[1.5707963,0,0.2]\nmaterial={mu=0.8}\n"),
        ("sphere sphere", "[[body]]\nname=\"a\"\nshape={type=\"sphere\",radius=0.05}\ndensity=1000.0\nposition=[0,0,0.05]\nmaterial={mu=0.8}\n[[body]]\nname=\"b\"\nshape={type=\"sphere\",radius=0.05}\ndensity=1000.0\nposition=[0.099,0,0.05]\nmaterial={mu=0.8}\n"),
    ];
    for (name, body) in cases {
        let text = format!("{head}{body}");
        let m = load_scene_str(&text, name, std::path::Path::new(".")).unwrap();
        let mut d = Data::new(&m);
        let mut ke = vec![];
        for k in 0..4000 {
            step(&m, &mut d);
            if k % 1000 == 999 {
                ke.push(d.kinetic_energy(&m));
            }
        }
        println!(
            "{name:20} KE at 1..4 s: {:?} pen={:.2e} pts={} q={}",
            ke, d.stats.max_penetration, d.stats.contact_points, d.stats.quarantined
        );
    }
}
