//! PEG's block path (`[lcp] peg_block_gs = true`, `pipeline/lcp/peg_bgs.rs`)
//! performs no heap allocation once warmed up (issue 12, peg8's open item 2): a
//! tower of boxes resting face on face on a static table is one island (every
//! contact connected through the moving boxes) of more than `PEG_MAX_LCP`
//! variables, so every step goes to the block Gauss–Seidel over its two-body
//! groups (one per face pair, each group's LCP by Lemke's ladder), then the
//! constraint PGS if unconverged. Warmed up for 100 steps, the next 100 are
//! counted.

use rtphys::model::scene::load_scene_str;
use rtphys::pipeline::lcp::peg::PEG_MAX_LCP;
#[path = "common/alloc_counter.rs"]
mod alloc_counter;
#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

/// Boxes in the tower: an island of 720 variables after 200 steps (measured,
/// 66 s at load 5; 12 boxes: 1,124 variables, 154 s).
const N: usize = 8;

fn tower(block_gs: bool) -> String {
    let mut s = format!(
        "[world]\ndt = 0.001\nmethod = \"peg\"\n\n[lcp]\nsolver = \"lemke\"\npeg_block_gs = {block_gs}\n\n\
         [[body]]\nname = \"table\"\nstatic = true\nshape = {{ type = \"box\", half_extents = [0.5, 0.5, 0.1] }}\nposition = [0.0, 0.0, -0.1]\n\n"
    );
    for i in 0..N {
        s += &format!(
            "[[body]]\nname = \"b{i}\"\nmass = 1.0\nshape = {{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }}\nposition = [0.0, 0.0, {}]\n\n",
            0.05 + 0.1 * i as f64
        );
    }
    s
}

#[test]
fn peg_block_path_steps_without_allocating() {
    let model = load_scene_str(&tower(true), "tower", std::path::Path::new(".")).expect("tower");
    let (data, n) = alloc_counter::warmed_step_allocations(&model, 100, 100);
    let s = &data.stats;
    println!(
        "tower of {N}: LCP of {} variables (cap {PEG_MAX_LCP}), iterations {}, unconverged {}, failures {}, {n} allocations",
        s.lcp_size, s.solver_iterations, s.solver_unconverged, s.solver_failures
    );
    // The block path is reached (an island over the cap) ...
    assert!(
        s.lcp_size > PEG_MAX_LCP,
        "island of {} variables",
        s.lcp_size
    );
    assert_eq!(s.quarantined, 0);
    // ... and allocates nothing once warmed up.
    assert_eq!(n, 0, "{n} allocations in 100 warmed-up steps");
}
