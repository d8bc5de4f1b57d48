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

/// The same with the rest memo and the kept normal rows on (`[penalty]
/// rest_tol = 1e-12`): grid_1000 counted from step 600 (resting: manifolds and
/// rows kept) and pile_100 from step 500 (creeping: found and built anew).
#[test]
fn scaling_scenes_with_rest_tol_step_without_allocating() {
    scaling_scenes_with("rest_tol = 1e-12\n");
}

/// The same under the modal share (`[penalty] distribution = "modal"`: the
/// modal pairs' mode rows and the share's active set, `pipeline::
/// penalty_implicit` "Modal pairs"), with the rest memo and kept rows on.
#[test]
fn scaling_scenes_under_the_modal_share_step_without_allocating() {
    scaling_scenes_with("rest_tol = 1e-12\ndistribution = \"modal\"\n");
}

/// The same with the stick/slip transitions decided on the anchors' solve
/// (`[penalty.friction] solved_stick`, scale26: trial anchors set and dropped in
/// place), with the rest memo and kept rows on.
#[test]
fn scaling_scenes_under_solved_stick_step_without_allocating() {
    scaling_scenes_with("rest_tol = 1e-12\nfriction.solved_stick = true\n");
}

/// grid_1000 and pile_100 with `keys` added to their `[penalty]` table.
fn scaling_scenes_with(keys: &str) {
    for (name, warm, counted) in [("grid_1000", 600, 200), ("pile_100", 500, 200)] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(rtphys::tools::scaling::SCALING_DIR)
            .join(format!("{name}.json"));
        let text = rtphys::tools::scaling::scene_from_json_file(&path)
            .expect("scaling scene")
            .replacen("[penalty]\n", &format!("[penalty]\n{keys}"), 1);
        assert!(text.contains(keys), "{name}: no [penalty] table");
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

/// With sleeping on, no step allocates either: the 5-stack falls asleep, is woken
/// by a push on its top box, falls asleep again — the counted second cycle runs
/// the wake, activate, mask and fall-asleep stages on warmed buffers.
#[test]
fn sleeping_cycle_steps_without_allocating() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/scenes/stack5.toml");
    let text = std::fs::read_to_string(&path).expect("stack5").replacen(
        "[world]\n",
        "[world]\nsleep = { enabled = true }\n",
        1,
    );
    let model = load_scene_str(&text, "stack5", std::path::Path::new(".")).expect("scene");
    let mut data = rtphys::Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let top = model.nbody() - 1;
    let cycle = |data: &mut rtphys::Data, pipeline: &mut rtphys::Pipeline| {
        let mut slept = 0;
        for k in 0..2500 {
            // A 2 N sideways tug for 5 ms at 1.5 s (an input on a sleeping island).
            data.xfrc[top].force.x = if (1500..1505).contains(&k) { 2.0 } else { 0.0 };
            pipeline.step(&model, data);
            slept = slept.max(data.stats.sleeping);
        }
        slept
    };
    assert_eq!(
        cycle(&mut data, &mut pipeline),
        5,
        "the stack did not sleep"
    );
    alloc_counter::start();
    let slept = cycle(&mut data, &mut pipeline);
    let n = alloc_counter::stop();
    assert_eq!(slept, 5);
    assert_eq!(n, 0, "{n} allocations in a warmed sleep–wake–sleep cycle");
}

/// A partly sleeping world at N = 1,000: grid_1000 asleep, then ten boxes kept
/// awake by a small downward force (a driven body never rests). The counted
/// steps run the awake list's passes, the broad phase's and the active pairs'
/// O(awake) paths, and a wake of one more box (a command, `Data::wake`) with its
/// fall asleep again: no allocation.
#[test]
fn a_partly_sleeping_world_of_1000_steps_without_allocating() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rtphys::tools::scaling::SCALING_DIR)
        .join("grid_1000.json");
    let text = rtphys::tools::scaling::scene_from_json_file(&path)
        .expect("scaling scene")
        .replacen("[world]\n", "[world]\nsleep = { enabled = true }\n", 1);
    let model = load_scene_str(&text, "grid_1000", std::path::Path::new(".")).expect("scene");
    let mut data = rtphys::Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    for _ in 0..1500 {
        pipeline.step(&model, &mut data);
    }
    assert_eq!(data.stats.sleeping, 1000, "grid_1000 did not sleep");
    let free: Vec<usize> = (0..model.nbody())
        .filter(|&b| model.bodies[b].kind == rtphys::model::BodyKind::Free)
        .collect();
    for &b in free.iter().step_by(100) {
        data.xfrc[b].force.z = -9.81e-3 * model.bodies[b].mass;
    }
    // Warm: the driven boxes wake, one more is woken and falls asleep again.
    let cycle = |data: &mut rtphys::Data, pipeline: &mut rtphys::Pipeline| {
        data.wake(&model, free[5]);
        for _ in 0..700 {
            pipeline.step(&model, data);
        }
    };
    cycle(&mut data, &mut pipeline);
    assert_eq!(data.stats.sleeping, 990);
    alloc_counter::start();
    cycle(&mut data, &mut pipeline);
    let n = alloc_counter::stop();
    assert_eq!(data.stats.sleeping, 990);
    assert_eq!(
        n, 0,
        "{n} allocations in 700 steps of a partly sleeping world"
    );
}
