//! The step performs no heap allocation once warmed up: a counting global allocator
//! over 1,000 steps of the 20-object pile, and at N = 1,000 on the scaling scenes.

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::load_scene_str;
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

#[test]
fn pile_steps_without_allocating() {
    for (kind, integrator) in [
        (PileKind::Bench, "semi_implicit_euler"),
        (PileKind::Paper, "rk4"),
    ] {
        let text = pile_scene(kind, 20, 7).replace("semi_implicit_euler", integrator);
        let model = load_scene_str(&text, "pile", std::path::Path::new(".")).expect("scene");
        let (data, n) = alloc_counter::warmed_step_allocations(&model, 3000, 1000);
        assert!(data.stats.contact_pairs > 10, "pile has no contacts");
        assert_eq!(
            n, 0,
            "{kind:?}/{integrator}: {n} allocations in 1,000 warmed-up steps"
        );
    }
}

/// The counter sees allocations (so the zero counts above mean something), and only
/// this thread's.
#[test]
fn counter_counts_this_threads_allocations() {
    let (v, n) = alloc_counter::count(|| Vec::<u64>::with_capacity(16));
    assert!(n >= 1 && v.capacity() >= 16, "{n} allocations counted");
    let (_, n) = alloc_counter::count(|| {
        std::thread::spawn(|| vec![0u8; 64].len())
            .join()
            .map_or(0, |l| l)
    });
    // Spawning allocates on this thread; the 64-byte vector on the other does not count.
    assert!(n >= 1);
    let (_, n) = alloc_counter::count(|| 1 + 1);
    assert_eq!(n, 0);
}

/// The same at N = 1,000: the peer's grid_1000 (1,000 boxes resting on the floor,
/// 8,000 contact points) and its dense 10-layer pile_100, from the committed scaling
/// scenes (`rtphys::tools::scaling`): the grid broad phase, the support graph and
/// the implicit solve keep their buffers.
#[test]
fn scaling_scenes_step_without_allocating() {
    for (name, warm, counted) in [("grid_1000", 300, 200), ("pile_100", 500, 200)] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(rtphys::tools::scaling::SCALING_DIR)
            .join(format!("{name}.json"));
        let text = rtphys::tools::scaling::scene_from_json_file(&path).expect("scaling scene");
        let model = load_scene_str(&text, name, std::path::Path::new(".")).expect("scene");
        let (data, n) = alloc_counter::warmed_step_allocations(&model, warm, counted);
        assert!(
            data.stats.contact_points >= 100,
            "{name}: {} contact points",
            data.stats.contact_points
        );
        assert_eq!(n, 0, "{name}: {n} allocations in {counted} warmed-up steps");
    }
}
