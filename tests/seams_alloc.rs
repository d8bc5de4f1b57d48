//! Crossing a seam between static boxes laid flush (`model::seams`) allocates
//! nothing: the clip to the covered planes (`collide::clip_to_seams`) keeps its
//! points in the contact buffer sized at creation — Hunt–Crossley's cut adds the
//! points where the region crosses the plane, the other methods drop points.
//! Boxes and balls warmed up on the first tile, then counted by a global
//! allocator through their first crossings, under every method.

mod common;

use common::load_str;
use rtphys::{Data, Pipeline};
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

/// Four static 1 × 4 × 0.2 m tiles in a row (seams at x = 0, 1, 2), top at
/// z = 0; six boxes (two yawed by 0.3 rad) and two balls start on the first
/// tile sliding at +2 m/s, frictionless.
fn scene(method: &str) -> String {
    let mut s =
        format!("[world]\ngravity = [0.0, 0.0, -9.81]\ndt = 0.001\nmethod = \"{method}\"\n");
    for (i, x) in [-0.5, 0.5, 1.5, 2.5].iter().enumerate() {
        s += &format!(
            "[[body]]\nname = \"g{i}\"\nstatic = true\n\
             shape = {{ type = \"box\", size = [1.0, 4.0, 0.2] }}\n\
             position = [{x:?}, 0.0, -0.1]\nmaterial = {{ mu = 0.0 }}\n"
        );
    }
    for i in 0..8 {
        let y = -1.75 + 0.5 * i as f64;
        let (shape, z, yaw): (&str, f64, f64) = match i {
            6 | 7 => ("{ type = \"sphere\", radius = 0.1 }", 0.1, 0.0),
            2 | 5 => ("{ type = \"box\", size = [0.2, 0.2, 0.1] }", 0.05, 0.3),
            _ => ("{ type = \"box\", size = [0.2, 0.2, 0.1] }", 0.05, 0.0),
        };
        s += &format!(
            "[[body]]\nname = \"b{i}\"\nshape = {shape}\nmass = 1.0\n\
             position = [-0.3, {y:?}, {z:?}]\norientation = [{:?}, 0.0, 0.0, {:?}]\n\
             velocity = [2.0, 0.0, 0.0]\nmaterial = {{ mu = 0.0 }}\n",
            (0.5 * yaw).cos(),
            (0.5 * yaw).sin()
        );
    }
    s
}

/// Steps `scene(method)` 50 ms on the first tile, then counts the allocations
/// of the next 0.7 s (the crossings of the seams at x = 0 and 1); with `rehearse`, the whole run is first
/// stepped once and the world restored to its 50 ms state (the solvers' buffers
/// have then met every problem size of the run). Returns (allocations, b0's x).
fn count(method: &str, rehearse: bool) -> (usize, f64) {
    let model = load_str(&scene(method));
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    // 50 ms on the first tile (the front faces reach the first seam at ≈ 0.1 s).
    for _ in 0..50 {
        pipe.step(&model, &mut data);
    }
    if rehearse {
        let at = data.snapshot();
        for _ in 0..700 {
            pipe.step(&model, &mut data);
        }
        assert!(data.restore(&at), "restore");
    }
    alloc_counter::start();
    for _ in 0..700 {
        pipe.step(&model, &mut data);
    }
    let n = alloc_counter::stop();
    let b0 = model.body_id("b0").expect("b0");
    (n, data.state[b0].x.x)
}

/// The force models' contact buffers are sized at creation
/// (`collision::capacity`): the first crossings themselves allocate nothing —
/// Hunt–Crossley's cut adds at most one point per covered plane (before it
/// added every crossing of a kept–dropped segment and grew the buffer 4 times
/// here).
#[test]
fn first_crossings_of_flush_tiles_do_not_allocate_under_the_force_models() {
    for method in ["penalty", "hunt_crossley"] {
        let (n, x) = count(method, false);
        println!("{method}: {n} allocations over the first crossings; b0 ends at x = {x:.4}");
        assert!(x > 1.1, "{method}: b0 did not cross the tiles (x = {x})");
        assert_eq!(n, 0, "{method}: {n} allocations while crossing seams");
    }
}

/// The complementarity and barrier steps grow their problem buffers (Lemke's
/// dense tableau, PEG's rows, IPC's constraint set) to the largest problem met,
/// by doubling: a box over two tiles is a larger problem than over one. Once
/// the run has been met, crossing again allocates nothing (a crossing is not a
/// per-tick allocation).
#[test]
fn rehearsed_crossings_of_flush_tiles_do_not_allocate_under_the_steps() {
    for method in ["lcp", "peg", "ipc"] {
        let (n, x) = count(method, true);
        println!("{method}: {n} allocations over the rehearsed crossings; b0 ends at x = {x:.4}");
        assert!(x > 1.1, "{method}: b0 did not cross the tiles (x = {x})");
        assert_eq!(n, 0, "{method}: {n} allocations while crossing seams");
    }
}
