//! Every scene shipped in config/scenes loads and steps 3 s without a non-finite or
//! quarantined body, and comes to rest where it should.

use rtphys::model::scene::load_scene_file;
use rtphys::Data;
use std::path::Path;

#[test]
fn shipped_scenes_load_and_step() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenes");
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .expect("config/scenes")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
    {
        let model = load_scene_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        for _ in 0..3000 {
            pipeline.step(&model, &mut data);
        }
        let ke = data.kinetic_energy(&model);
        eprintln!(
            "{}: KE after 3 s {ke:.3e} J, contacts {}",
            path.display(),
            data.stats.contact_pairs
        );
        assert_eq!(data.stats.quarantined, 0, "{}", path.display());
        assert!(
            data.state.iter().all(|s| s.is_finite()),
            "{}",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 5, "only {n} scenes");
}

#[test]
fn every_shape_kind_comes_to_rest() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenes/shapes.toml");
    let model = load_scene_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    for _ in 0..4000 {
        pipeline.step(&model, &mut data);
    }
    for (b, s) in model.bodies.iter().zip(&data.state) {
        if b.mass > 0.0 {
            eprintln!(
                "{}: z = {:.4}, |v| = {:.2e}, |w| = {:.2e}",
                b.name,
                s.x.z,
                s.v.norm(),
                s.w.norm()
            );
            assert!(s.x.z > 0.0 && s.x.z < 0.3, "{} at z = {}", b.name, s.x.z);
        }
    }
    let ke = data.kinetic_energy(&model);
    assert!(ke < 1e-6, "KE {ke:.3e} J after 4 s");
}
