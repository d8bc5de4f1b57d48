//! The Rigid IPC step performs no heap allocation once warmed up: three cubes (a
//! two-stack and one sliding on its own) on a static slab, friction on (μ = 0.5,
//! two lagged passes), so that the constraint set, the friction pairs, the CCD
//! buffers and the dense Newton system are all in use; with `[ipc] count_once`
//! (the default: the max approximator's terms, their merge, the gathered friction,
//! scratch kept between steps) and without (004's set).

use rtphys::model::scene::load_scene_str;
use rtphys::Data;
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

const SCENE: &str = r#"
[world]
dt = 0.01
method = "ipc"
[ipc]
friction_iterations = 2

[[body]]
name = "slab"
static = true
shape = { type = "box", half_extents = [3.0, 3.0, 0.5] }
position = [0.0, 0.0, -0.5]
material = { mu = 0.5 }

[[body]]
name = "a"
mass = 1.0
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
position = [0.0, 0.0, 0.1005]
material = { mu = 0.5 }

[[body]]
name = "b"
mass = 1.0
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
position = [0.02, 0.0, 0.302]
material = { mu = 0.5 }

[[body]]
name = "c"
mass = 2.0
shape = { type = "box", half_extents = [0.1, 0.1, 0.1] }
position = [1.0, 0.0, 0.1005]
velocity = [1.0, 0.0, 0.0]
material = { mu = 0.5 }
"#;

#[test]
fn ipc_steps_without_allocating() {
    for scene in [
        SCENE.to_string(),
        SCENE.replace("[ipc]\n", "[ipc]\ncount_once = false\n"),
    ] {
        steps_without_allocating(&scene);
    }
}

fn steps_without_allocating(scene: &str) {
    let model = load_scene_str(scene, "ipc_alloc", std::path::Path::new(".")).expect("scene");
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    for _ in 0..100 {
        pipeline.step(&model, &mut data);
    }
    alloc_counter::start();
    let mut pairs = 0;
    for _ in 0..100 {
        pipeline.step(&model, &mut data);
        pairs = pairs.max(data.stats.contact_pairs);
    }
    let n = alloc_counter::stop();
    assert!(
        pairs >= 3,
        "only {pairs} contact pairs: the scene is not in contact"
    );
    assert!(data.state.iter().all(|s| s.is_finite()), "non-finite state");
    assert_eq!(n, 0, "{n} allocations in 100 warmed-up IPC steps");
}
