//! The Hunt–Crossley adaptive step performs no heap allocation once warmed up: a
//! counting allocator over 1,000 ticks of the 20-object pile, both integrators.

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::{load_scene_str, MethodName};
use rtphys::Data;
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

#[test]
fn hunt_crossley_pile_steps_without_allocating() {
    for integrator in ["semi_implicit_euler", "rk4"] {
        let text = pile_scene(PileKind::Bench, 20, 7).replace("semi_implicit_euler", integrator);
        let model = load_scene_str(&text, "pile", std::path::Path::new(".")).expect("scene");
        let model =
            rtphys::run::apply_overrides(&model, Some(MethodName::HuntCrossley), None, None)
                .expect("override");
        let mut data = Data::new(&model);
        let mut pipeline = rtphys::Pipeline::new(&model);
        for _ in 0..2000 {
            pipeline.step(&model, &mut data);
        }
        alloc_counter::start();
        let s0 = data.stats.substeps_total;
        for _ in 0..1000 {
            pipeline.step(&model, &mut data);
        }
        let n = alloc_counter::stop();
        println!(
            "{integrator}: {} sub-steps per tick, {} contact pairs",
            (data.stats.substeps_total - s0) as f64 / 1000.0,
            data.stats.contact_pairs
        );
        assert!(data.stats.contact_pairs > 10, "pile has no contacts");
        assert_eq!(
            n, 0,
            "{integrator}: {n} allocations in 1,000 warmed-up ticks"
        );
    }
}
