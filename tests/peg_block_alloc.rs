//! PEG's block path (`[lcp] peg_block_gs = true`, `pipeline/lcp/peg_bgs.rs`)
//! performs no heap allocation once warmed up (issue 12, peg8's open item 2): a
//! tower of boxes resting face on face on a static table is one island (every
//! contact connected through the moving boxes) of more than `PEG_MAX_LCP`
//! variables, so every step goes to the block Gauss–Seidel over its two-body
//! groups (one per face pair, each group's LCP by Lemke's ladder), then the
//! constraint PGS if unconverged. Warmed up for 250 steps, the next 100 are
//! counted (100 steps of warm-up until lead37's end velocity; since then a
//! workspace of the block path still grows once in steps 150–199, peg31; 250
//! since PEG's retry is on by default, peg32: [`WARM_BLOCK`]).

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
    tower_with(block_gs, false)
}

fn tower_with(block_gs: bool, active: bool) -> String {
    let mut s = format!(
        "[world]\ndt = 0.001\nmethod = \"peg\"\n\n[lcp]\nsolver = \"lemke\"\npeg_block_gs = {block_gs}\npeg_active_set = {active}\n\n\
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

/// The warm-up: on the momentum's end velocity (lead37,
/// `rotation::kicked_velocity`) the block path's tower allocates 247 times in
/// its first 50 steps, once in steps 150–199 (a `Vec` reserve in
/// `peg::bgs::swap_in_constants`: growth to a new size), then 0 in every window
/// of 50 through step 599 ([`tower_allocations_by_window`], peg31). Since PEG's
/// retry is on by default (depth 2 + τ = 1e-11, peg32; its workspace sized when
/// the pipeline is built, `peg_retry::RetryWorkspace::new`) the over-cap
/// island's unconverged solves are retried as sub-steps, and the windows read
/// 164, 86, 0, 0, **9**, 0, 0, 0, 0, 0, **1**, 0 (the first of the 9 in steps
/// 200–249: a `Vec` reserve in `peg::solve`, the 1 in steps 500–549 one in
/// `peg::bgs::swap_in_constants` — per-row buffers grown to a size the run had
/// not reached, not the retry's workspace, which is sized when the pipeline is
/// built): the warm-up is 250, the counted steps 250–349 read 0
/// (docs/EXPERIMENTS.md, peg32; PEG's per-row buffers grown lazily is open).
const WARM_BLOCK: usize = 250;

#[test]
fn peg_block_path_steps_without_allocating() {
    let model = load_scene_str(&tower(true), "tower", std::path::Path::new(".")).expect("tower");
    let (data, n) = alloc_counter::warmed_step_allocations(&model, WARM_BLOCK, 100);
    let s = &data.stats;
    println!(
        "tower of {N}: LCP of {} variables (cap {PEG_MAX_LCP}), iterations {}, unconverged {}, failures {}, \
         retried steps {}, sub-steps {}, {n} allocations",
        s.lcp_size,
        s.solver_iterations,
        s.solver_unconverged,
        s.solver_failures,
        s.peg_retried_steps,
        s.peg_substeps
    );
    // The block path is reached (an island over the cap) ...
    assert!(
        s.lcp_size > PEG_MAX_LCP,
        "island of {} variables",
        s.lcp_size
    );
    assert_eq!(s.quarantined, 0);
    // ... the default's retry takes steps again as sub-steps (peg32) ...
    assert!(s.peg_retried_steps > 0, "the retry was not exercised");
    // ... and allocates nothing once warmed up.
    assert_eq!(n, 0, "{n} allocations in 100 warmed-up steps");
}

/// The active-set Lemke (peg12, `[lcp] peg_active_set = true`,
/// `peg_bgs::solve_island_active`) on the same tower without the block path: the
/// constraint PGS alone leaves the tower's over-cap island unconverged at its
/// sweep limit on almost every step (measured 395 of 400); with the active set
/// an unconverged solve is re-solved by Lemke on the force variables that push
/// or are violated, and accepted only if every dropped one holds, i.e. an exact
/// solution of the island's LCP. Asserted: the path is reached (the PGS alone
/// unconverged on ≥ half the steps), the active set leaves at most one in
/// twenty of those unconverged (measured 1 of 395), the boxes end at rest —
/// max |v| ≤ 1e-6 m/s, the bound `tests/peg_method.rs` asserts on five resting
/// boxes (measured 7.2e-9 m/s; the PGS alone 1.2e-3 m/s, asserted above the
/// bound so that the test tells the two apart) — no body is quarantined, and
/// no allocation in 100 steps after a warm-up of [`WARM_ACTIVE`] (the reduced
/// LCP's buffers grow to the largest size the tower reaches; after 100 steps of
/// warm-up they still grew twice). On the momentum's end velocity (lead37;
/// peg31, 450 steps): the PGS alone 445 of 450 unconverged, max |v| 1.572e-3
/// m/s; the active set 0 unconverged, max |v| 2.487e-7 m/s (7.2e-9 before),
/// 0 allocations.
#[test]
fn peg_active_set_solves_the_tower_without_allocating() {
    let run = |active: bool| {
        let model = load_scene_str(
            &tower_with(false, active),
            "tower",
            std::path::Path::new("."),
        )
        .expect("tower");
        let (data, n) = alloc_counter::warmed_step_allocations(&model, WARM_ACTIVE, 100);
        let vmax = data.state.iter().map(|b| b.v.norm()).fold(0.0f64, f64::max);
        let s = &data.stats;
        println!(
            "active set {active}: LCP of {} variables, unconverged {}, failures {}, quarantined {}, \
             max |v| {vmax:.3e} m/s, {n} allocations in 100 warmed-up steps",
            s.lcp_size, s.solver_unconverged, s.solver_failures, s.quarantined
        );
        (s.solver_unconverged, s.quarantined, vmax, n)
    };
    let (u_off, _, v_off, _) = run(false);
    let (u_on, q_on, v_on, n_on) = run(true);
    assert!(
        2 * u_off >= WARM_ACTIVE as u64 + 100,
        "the PGS alone: {u_off} unconverged of {} steps",
        WARM_ACTIVE + 100
    );
    assert!(
        20 * u_on <= u_off,
        "active set: {u_on} unconverged against {u_off}"
    );
    assert!(v_off > 1e-6, "the PGS alone: max |v| {v_off:e} m/s");
    assert!(v_on <= 1e-6, "active set: max |v| {v_on:e} m/s");
    assert_eq!(q_on, 0);
    assert_eq!(n_on, 0, "{n_on} allocations in 100 warmed-up steps");
}

/// The active-set test's warm-up: 300 until lead37's end velocity
/// (`rotation::kicked_velocity`); on it the active-set tower allocates 252
/// times in its first 50 steps, once in steps 100–149 (`lcp::rows::contact_rows`),
/// once in 150–199 (`peg::bgs::swap_in_constants`), twice in 300–349
/// (`collision::overlap::intersection_volume`), each a `Vec` growing to a new
/// size, then 0 in every window of 50 through step 599 while its LCP ranges
/// over 192–720 variables ([`tower_allocations_by_window`], peg31).
const WARM_ACTIVE: usize = 350;

/// The retry of a failed PEG step (`[lcp] peg_retry_depth`, `peg_retry.rs`,
/// peg20) allocates nothing once warmed up: the tower without the block path
/// leaves its over-cap island unconverged on almost every step (above), so at
/// depth 1 such a step is put back (bodies, pairs, stats from the workspace's
/// copies) and taken as two half steps, each with its geoms posed and its
/// narrow phase run again. Asserted: retries happen in the counted window, and
/// no allocation in its 20 steps after a warm-up of 300 (as the active-set
/// test above: the tower's potential contacts still grow their buffers after
/// 60 steps, measured 8 allocations in `features::potential_contacts`).
#[test]
fn peg_retry_steps_without_allocating() {
    let text = tower_with(false, false).replace(
        "peg_active_set = false\n",
        "peg_active_set = false\npeg_retry_depth = 1\n",
    );
    let model = load_scene_str(&text, "tower", std::path::Path::new(".")).expect("tower");
    let mut data = rtphys::Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    for _ in 0..300 {
        pl.step(&model, &mut data);
    }
    let r0 = data.stats.peg_retried_steps;
    alloc_counter::start();
    for _ in 0..20 {
        pl.step(&model, &mut data);
    }
    let n = alloc_counter::stop();
    let s = &data.stats;
    println!(
        "tower of {N}, retry depth 1: LCP of {} variables, retried steps {} (in the counted 20: {}), \
         sub-steps {}, unconverged {}, {n} allocations",
        s.lcp_size,
        s.peg_retried_steps,
        s.peg_retried_steps - r0,
        s.peg_substeps,
        s.solver_unconverged
    );
    assert!(
        s.peg_retried_steps - r0 >= 10,
        "retried {}",
        s.peg_retried_steps - r0
    );
    assert_eq!(s.quarantined, 0);
    assert_eq!(n, 0, "{n} allocations in 20 warmed-up steps");
}

/// The overlap trigger of the retry (`[lcp] peg_retry_overlap`, `peg_retry.rs`,
/// "The overlap trigger", peg21) allocates nothing once warmed up: the tower of
/// [`peg_retry_steps_without_allocating`] at depth 2 with τ = 1e-11, so that
/// every attempt above the deepest level takes its candidates' overlaps at its
/// start (into the workspace's preallocated `ov0`) and every such attempt whose
/// solve did not fail compares them with its end (`peg::overlap_rose`, the
/// stepper's own overlap scratch). Asserted: retries in the counted window, no
/// allocation in its 20 steps after 300 of warm-up.
#[test]
fn peg_overlap_retry_steps_without_allocating() {
    let text = tower_with(false, false).replace(
        "peg_active_set = false\n",
        "peg_active_set = false\npeg_retry_depth = 2\npeg_retry_overlap = 1e-11\n",
    );
    let model = load_scene_str(&text, "tower", std::path::Path::new(".")).expect("tower");
    let mut data = rtphys::Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    for _ in 0..300 {
        pl.step(&model, &mut data);
    }
    let (r0, o0) = (data.stats.peg_retried_steps, data.stats.peg_overlap_retries);
    alloc_counter::start();
    for _ in 0..20 {
        pl.step(&model, &mut data);
    }
    let n = alloc_counter::stop();
    let s = &data.stats;
    println!(
        "tower of {N}, retry depth 2, τ 1e-11: retried steps in the counted 20: {}, overlap retries {} \
         (in the 20: {}), sub-steps {}, {n} allocations",
        s.peg_retried_steps - r0,
        s.peg_overlap_retries,
        s.peg_overlap_retries - o0,
        s.peg_substeps,
    );
    assert!(
        s.peg_retried_steps - r0 >= 10,
        "retried {}",
        s.peg_retried_steps - r0
    );
    assert_eq!(s.quarantined, 0);
    assert_eq!(n, 0, "{n} allocations in 20 warmed-up steps");
}

/// The retry's second chance (`[lcp] peg_retry_second_chance`, peg22) takes no
/// allocation either: the same tower at depth 2 with τ = 1e-11 and the key,
/// whose deepest-level sub-steps fail (the over-cap island left unconverged) and
/// are each taken a second time, 0 allocations in 20 steps after the warm-up.
#[test]
fn peg_second_chance_steps_without_allocating() {
    let text = tower_with(false, false).replace(
        "peg_active_set = false\n",
        "peg_active_set = false\npeg_retry_depth = 2\npeg_retry_overlap = 1e-11\n\
         peg_retry_second_chance = true\n",
    );
    let model = load_scene_str(&text, "tower", std::path::Path::new(".")).expect("tower");
    let mut data = rtphys::Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    for _ in 0..300 {
        pl.step(&model, &mut data);
    }
    let c0 = data.stats.peg_second_chances;
    alloc_counter::start();
    for _ in 0..20 {
        pl.step(&model, &mut data);
    }
    let n = alloc_counter::stop();
    let s = &data.stats;
    println!(
        "tower of {N}, retry depth 2, τ 1e-11, second chance: second chances in the counted 20: {} \
         (kept {} since the start), {n} allocations",
        s.peg_second_chances - c0,
        s.peg_second_kept,
    );
    assert!(
        s.peg_second_chances - c0 >= 10,
        "second chances {}",
        s.peg_second_chances - c0
    );
    assert_eq!(s.quarantined, 0);
    assert_eq!(n, 0, "{n} allocations in 20 warmed-up steps");
}

/// The retry's continuous collision (`[lcp] peg_ccd_retry` with `peg_ccd_held`,
/// peg23) takes no allocation: the same tower at depth 2 with τ = 1e-11 and
/// both keys (each attempt's sweep check, the rows' scan, a kept attempt's
/// sweep), 0 allocations in 20 steps after the warm-up.
#[test]
fn peg_ccd_retry_steps_without_allocating() {
    let text = tower_with(false, false).replace(
        "peg_active_set = false\n",
        "peg_active_set = false\npeg_retry_depth = 2\npeg_retry_overlap = 1e-11\n\
         peg_ccd_retry = true\npeg_ccd_held = true\n",
    );
    let model = load_scene_str(&text, "tower", std::path::Path::new(".")).expect("tower");
    let mut data = rtphys::Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    for _ in 0..300 {
        pl.step(&model, &mut data);
    }
    let r0 = data.stats.peg_retried_steps;
    alloc_counter::start();
    for _ in 0..20 {
        pl.step(&model, &mut data);
    }
    let n = alloc_counter::stop();
    let s = &data.stats;
    println!(
        "tower of {N}, retry depth 2, τ 1e-11, peg_ccd_retry + held: retried steps in the counted 20: {}, \
         CCD splits {}, rewinds {} since the start, {n} allocations",
        s.peg_retried_steps - r0,
        s.peg_ccd_retries,
        s.peg_ccd_impacts,
    );
    assert_eq!(s.quarantined, 0);
    assert_eq!(n, 0, "{n} allocations in 20 warmed-up steps");
}

/// PEG's rows on a plane (peg25, `features::plane_potential_contacts`): a box
/// tilted 0.2 rad on one bottom edge of a plane (Housner's rocking block of
/// `tests/contact_rocking.rs`, h = 1 ms) falls back, lands on its other edge at
/// step ≈ 145 and rocks on with smaller landings until it rests on its face:
/// the plane pair's rows change in number (two corners, four at a landing, two,
/// then four) with no allocation over 1,000 steps once the motion has set the
/// buffers' capacity (600 steps of warm-up). Measured per window of 100 steps
/// from the start: 41, 9 (the first landing), 0, 0, 0, 1 (step 500–600), then
/// 0 through step 2,000 — growth to a new size, not per tick.
#[test]
fn peg_plane_rows_step_without_allocating() {
    let (a, b, th) = (0.05f64, 0.1f64, 0.2f64);
    let (rx, rz) = (a * th.cos() - b * th.sin(), -a * th.sin() - b * th.cos());
    let text = format!(
        "[world]\ndt = 0.001\nmethod = \"peg\"\n\n\
         [[body]]\nname = \"ground\"\nstatic = true\nshape = {{ type = \"plane\" }}\nmaterial = {{ mu = 1.0 }}\n\n\
         [[body]]\nname = \"block\"\nmass = 1.0\nshape = {{ type = \"box\", half_extents = [{a}, 0.05, {b}] }}\n\
         position = [{}, 0.0, {}]\nrpy = [0.0, {th}, 0.0]\nmaterial = {{ mu = 1.0 }}\n",
        -rx,
        -rz + 1e-9
    );
    let model = load_scene_str(&text, "rocking", std::path::Path::new(".")).expect("rocking");
    let (data, n) = alloc_counter::warmed_step_allocations(&model, 600, 1000);
    assert!(data.stats.lcp_size > 0, "no contacts");
    assert_eq!(data.stats.quarantined, 0);
    assert_eq!(n, 0, "{n} allocations in 1,000 warmed-up steps");
}

/// Tool (peg31): the tower's allocations per window of 50 steps over 600 steps,
/// with the block path (`TOWER_BLOCK_GS=1`) or the active set
/// (`TOWER_ACTIVE=1`), each window's first allocation's backtrace with
/// `RTPHYS_ALLOC_BACKTRACE=1`: tells growth to a new size (a few windows, then
/// none) from an allocation per tick (every window). `cargo test --release
/// --test peg_block_alloc -- --ignored --nocapture tower_allocations_by_window`.
#[test]
#[ignore = "tool: the tower's allocations per 50 steps (peg31)"]
fn tower_allocations_by_window() {
    let flag = |k: &str| std::env::var(k).is_ok_and(|v| v == "1");
    let (block, active) = (flag("TOWER_BLOCK_GS"), flag("TOWER_ACTIVE"));
    let model = load_scene_str(
        &tower_with(block, active),
        "tower",
        std::path::Path::new("."),
    )
    .expect("tower");
    let mut data = rtphys::Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    for w in 0..12 {
        alloc_counter::start();
        for _ in 0..50 {
            pl.step(&model, &mut data);
        }
        let n = alloc_counter::stop();
        println!(
            "block {block} active {active}: steps {}–{}: {n} allocations (LCP {} variables)",
            50 * w,
            50 * w + 49,
            data.stats.lcp_size
        );
    }
}
