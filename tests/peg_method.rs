//! The PEG method (003 Secs. 3–6, `method = "peg"`, issue 12) as physics:
//! - a box resting on a static box (four vertex–face U constraints) rests as under
//!   the standard model: the same contact force m g, no drift, and on the surface
//!   instead of the standard model's allowance δ deep;
//! - the 3D analogue of the SM trap of Fig. 2: a vertex sliding frictionless over
//!   a face toward the face's edge passes the edge with its speed unchanged (PEG's
//!   vertex–edge I constraint lets it choose the side) and never enters the body;
//! - fast vertex–vertex and edge–edge impacts: no interpenetration;
//! - the 5-stack of boxes on a static box rests without drift or overlap.
//!
//! Overlap is measured independently of the method: the exact intersection volume
//! (`collision::overlap`) of every pair of polytope geoms, relative to L³.

mod common;
use common::load_str;
use rtphys::Data;

fn world(method: &str, dt: f64, g: f64) -> String {
    format!("[world]\ngravity = [0.0, 0.0, {g}]\ndt = {dt}\nmethod = \"{method}\"\n\n")
}

fn body(name: &str, fixed: bool, shape: &str, pos: [f64; 3], mu: f64) -> String {
    let kind = if fixed {
        "static = true".to_string()
    } else {
        "mass = 1.0".to_string()
    };
    format!(
        "[[body]]\nname = \"{name}\"\n{kind}\nshape = {shape}\nposition = [{}, {}, {}]\nmaterial = {{ mu = {mu} }}\n\n",
        pos[0], pos[1], pos[2]
    )
}

const BOX: &str = "{ type = \"box\", half_extents = [0.05, 0.05, 0.05] }";
const TABLE: &str = "{ type = \"box\", half_extents = [0.5, 0.5, 0.1] }";
const PYR_DOWN: &str = "{ type = \"polytope\", points = [[0.0, 0.0, 0.0], [0.1, 0.1, 0.1], [-0.1, 0.1, 0.1], [0.1, -0.1, 0.1], [-0.1, -0.1, 0.1]] }";
const PYR_UP: &str = "{ type = \"polytope\", points = [[0.0, 0.0, 0.0], [0.1, 0.1, -0.1], [-0.1, 0.1, -0.1], [0.1, -0.1, -0.1], [-0.1, -0.1, -0.1]] }";
const WEDGE_UP: &str = "{ type = \"polytope\", points = [[-0.2, 0.0, 0.0], [0.2, 0.0, 0.0], [-0.2, 0.1, -0.1], [0.2, 0.1, -0.1], [-0.2, -0.1, -0.1], [0.2, -0.1, -0.1]] }";
const WEDGE_DOWN: &str = "{ type = \"polytope\", points = [[0.0, -0.2, 0.0], [0.0, 0.2, 0.0], [0.1, -0.2, 0.1], [0.1, 0.2, 0.1], [-0.1, -0.2, 0.1], [-0.1, 0.2, 0.1]] }";

fn body_index(model: &rtphys::Model, name: &str) -> usize {
    model
        .bodies
        .iter()
        .position(|b| b.name == name)
        .expect("body")
}

/// A 0.1 m, 1 kg box resting on a static table (box–box: four vertex–face U
/// constraints under PEG), 1 s at 1 kHz, μ = 0.5, g = 9.81: under PEG the contact
/// force is m g (within 1e-8 relative: W carries a 1e-9 relative regularization
/// per row and Lemke's answer is accepted at a 1e-6 residual; measured 1.7e-9), the box does not move (|Δx| ≤ 1e-9 m,
/// |v| ≤ 1e-9 m/s) and rests on the surface (gap in [−1e-12, 1e-9] m: measured
/// −1.3e-14 m, round-off; overlap ≤ 1e-9 L³);
/// under the standard model the same force, at rest δ = 1e-5 m deep.
#[test]
fn resting_box_peg_matches_standard() {
    let mut rest = Vec::new();
    for method in ["lcp", "peg"] {
        let text = world(method, 1e-3, -9.81)
            + &body("table", true, TABLE, [0.0, 0.0, -0.1], 0.5)
            + &body("box", false, BOX, [0.0, 0.0, 0.05], 0.5);
        let model = load_str(&text);
        let mut data = Data::new(&model);
        let mut pl = rtphys::Pipeline::new(&model);
        let b = body_index(&model, "box");
        for _ in 0..1000 {
            pl.step(&model, &mut data);
        }
        let x0 = data.state[b].x;
        let mut fz = 0.0;
        let mut worst_overlap = 0.0f64;
        for _ in 0..1000 {
            pl.step(&model, &mut data);
            fz = data.contact_wrench[b].force.z;
            worst_overlap = worst_overlap.max(common::polytope_overlap(&model, &data));
        }
        let st = data.state[b];
        let gap = st.x.z - 0.05;
        println!(
            "{method}: Fz = {fz:.12} N, gap = {gap:.3e} m, |Δx| = {:.2e} m, |v| = {:.2e}, \
             overlap {worst_overlap:.2e} m³, Lemke failures {}",
            (st.x - x0).norm(),
            st.v.norm(),
            data.stats.solver_failures
        );
        assert!((fz - 9.81).abs() <= 9.81 * 1e-8, "{method}: Fz = {fz}");
        assert!((st.x - x0).norm() <= 1e-9, "{method}: drift");
        assert!(
            st.v.norm() <= 1e-9 && st.w.norm() <= 1e-9,
            "{method}: moving"
        );
        assert_eq!(data.stats.solver_failures, 0, "{method}");
        rest.push((gap, worst_overlap));
    }
    // Standard: δ deep; PEG: on the surface.
    assert!((rest[0].0 + 1e-5).abs() <= 1e-9, "lcp gap {}", rest[0].0);
    assert!(
        rest[1].0 >= -1e-12 && rest[1].0 <= 1e-9,
        "peg gap {}",
        rest[1].0
    );
    assert!(rest[1].1 <= 1e-12, "peg overlap {} m³", rest[1].1);
}

/// The SM trap of Fig. 2 in 3D: a pyramid standing on its apex slides
/// frictionless at 0.5 m/s along the top face of a static table toward the
/// table's edge (g = 9.81, 1 kHz). PEG: the apex passes the edge (vertex–edge:
/// I(C(v, top), C(v, side)), the vertex may pass on either side), keeping
/// v_x = 0.5 m/s to 1e-9 relative while on the face, and the pyramid never
/// overlaps the table (≤ 1e-9 L³, L = 0.1 m). (The standard model as built here
/// passes the edge too — its narrow phase reports the top face's normal — with 196
/// Lemke failures and 9.8e-9 L³ of overlap; printed, not asserted.)
#[test]
fn vertex_slides_over_an_edge_peg() {
    for method in ["lcp", "peg"] {
        let text = world(method, 1e-3, -9.81)
            + &body("table", true, TABLE, [0.0, 0.0, -0.1], 0.0)
            + &body("pyr", false, PYR_DOWN, [0.4, 0.0, 0.0], 0.0);
        let model = load_str(&text);
        let mut data = Data::new(&model);
        let b = body_index(&model, "pyr");
        data.state[b].v.x = 0.5;
        let mut pl = rtphys::Pipeline::new(&model);
        let apex = |d: &Data| {
            let st = d.state[b];
            let g = &model.geoms[model.bodies[b].geoms.start];
            (st.pose() * g.x_bg).translation.vector
        };
        let (mut vx_min, mut vx_max) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut worst = 0.0f64;
        let mut passed = false;
        for _ in 0..400 {
            pl.step(&model, &mut data);
            let a = apex(&data);
            worst = worst.max(common::polytope_overlap(&model, &data) / 1e-3);
            // On the face, before the pyramid's side reaches the edge.
            if a.x < 0.49 {
                vx_min = vx_min.min(data.state[b].v.x);
                vx_max = vx_max.max(data.state[b].v.x);
            } else if a.x > 0.52 {
                passed = true;
            }
        }
        println!(
            "{method}: passed {passed}, v_x on the face in [{vx_min:.9}, {vx_max:.9}] m/s, \
             max overlap {worst:.2e} L³, Lemke failures {}",
            data.stats.solver_failures
        );
        if method == "peg" {
            assert!(passed, "the apex did not pass the edge");
            assert!((vx_min - 0.5).abs() <= 5e-10 && (vx_max - 0.5).abs() <= 5e-10);
            assert!(worst <= 1e-9, "overlap {worst:e} L³");
        }
    }
}

/// A fast sharp impact under PEG (frictionless, g = 0, 1 kHz, 0.3 s): the top
/// hits the static base at 2 m/s, 5 mm off centre. Returns (max overlap / L³,
/// max (T − T₀)/T₀) with L = 0.1 m.
fn impact(base: &str, top: &str) -> (f64, f64) {
    let text = world("peg", 1e-3, 0.0)
        + &body("base", true, base, [0.0, 0.0, 0.0], 0.0)
        + &body("top", false, top, [0.005, 0.005, 0.01], 0.0);
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let b = body_index(&model, "top");
    data.state[b].v.z = -2.0;
    let mut pl = rtphys::Pipeline::new(&model);
    let t0 = data.kinetic_energy(&model);
    let (mut worst, mut gain) = (0.0f64, f64::NEG_INFINITY);
    for _ in 0..300 {
        pl.step(&model, &mut data);
        worst = worst.max(common::polytope_overlap(&model, &data) / 1e-3);
        gain = gain.max((data.kinetic_energy(&model) - t0) / t0);
    }
    println!(
        "max overlap {worst:.2e} L³, max (T − T₀)/T₀ = {gain:+.2e}, Lemke failures {}, \
         retried steps {}, overlap retries {}, sub-steps {}",
        data.stats.solver_failures,
        data.stats.peg_retried_steps,
        data.stats.peg_overlap_retries,
        data.stats.peg_substeps
    );
    (worst, gain)
}

/// Edge–edge: a ridge-down wedge hits a crossed ridge-up wedge. The exact overlap
/// stays ≤ 1e-9 L³ at every step and the kinetic energy never exceeds its
/// initial value by 1 %.
#[test]
fn edge_edge_impact_does_not_interpenetrate_peg() {
    let (worst, gain) = impact(WEDGE_UP, WEDGE_DOWN);
    assert!(worst <= 1e-9, "overlap {worst:e} L³");
    assert!(gain <= 0.01, "energy gain {gain:e}");
}

/// Vertex–vertex: an apex-down pyramid hits an apex-up one. Was open, ignored: the
/// impact spins the top from rest to 7 rad/s within the step, and the rows' lead
/// for the rotation (h²|ω|²r) uses the start-of-step ω, so one step ends 2.8e-9 L³
/// deep (1.7e-9 the next); no energy is gained. With the predicted reach on
/// (peg.rs, `PEG_PASSES` = 2 or 3, lead only or lead and reach) this test passes,
/// but `tests/peg_large_step.rs` then fails (h = 5e-2: more pivots per step than
/// one Lemke attempt, or a Lemke failure at step 17), so it is off. Step 17's
/// island LCP (n = 414, dumped and re-solved offline, branch peg6) ends every
/// Lemke attempt on a ray along an internal-force direction of the two bodies (a
/// friction variable enters and four normal impulses grow with it, no rate
/// changes; only PEG slack rows fall, at ≤ 1.2e-6 per unit, under the zero-pivot
/// tolerance): docs/EXPERIMENTS.md, "Step 17" (peg6). A proximal regularization
/// of that LCP (M + εD on the p and β rows, ε = 1e-5 of the unit diagonal,
/// branch peg7) ends on a ray too, with large internal forces (ε|z| = 5.7e-2
/// against an accepted residual of 5.8e-5): not kept. Re-run peg7 with
/// `PEG_PASSES` = 2: this test passes (all 5 of `peg_method`). peg13: the pass
/// count is the scene key `[lcp] peg_passes`; with 2 passes (the predicted pass
/// with the gap's second-order term) this run ends 6.8e-12 L³ deep and
/// `peg_large_step`'s run keeps its criteria (both asserted in
/// `tests/peg_passes.rs`), but the pass makes three of the five pours' runs worse,
/// so the default stays one pass and this test, at the default, stays ignored
/// (docs/EXPERIMENTS.md, peg13). peg14: with the work check the 2-pass run ends
/// 8.0e-10 L³ deep, and 2 passes are worse than one on one pour run left (2D
/// h = 1e-2 seed 1): it stayed ignored. peg32: at the default since then (one
/// pass, PEG's retry at depth 2 + τ = 1e-11) the step whose overlap rises is
/// split by the overlap trigger and the run ends 9.93e-12 L³ deep with no
/// energy gain and no Lemke failure (at depth 0: 2.79e-9 L³, as before,
/// `peg_passes::predicted_pass_closes_the_vertex_vertex_impact`): the test
/// runs, its criteria unchanged (docs/EXPERIMENTS.md, peg32).
#[test]
fn vertex_vertex_impact_does_not_interpenetrate_peg() {
    let (worst, gain) = impact(PYR_UP, PYR_DOWN);
    assert!(worst <= 1e-9, "overlap {worst:e} L³");
    assert!(gain <= 0.01, "energy gain {gain:e}");
}

/// Five 0.1 m, 1 kg boxes stacked on a static table under PEG (μ = 0.8, 1 kHz,
/// g = 9.81, 1 s): the corners of aligned boxes meet vertex on vertex, so every
/// interface carries I and X constraints. The top box stays within 1e-6 m of where
/// it was after the first 0.3 s and no body moves faster than 1e-6 m/s at the end
/// (measured: drift 1.1e-10 m, |v| 1.0e-8 m/s). The corners' contacts are one row
/// each (peg.rs, "Equal rows"): a 120-variable LCP (was 424, 83 Lemke failures in
/// 1,000 steps; now 1). The overlap reached 3.2e-8 L³ when this was written,
/// above PEG's 1e-9 target; measured since (peg32) 3.21e-12 L³ at the default
/// (the retry at depth 2 + τ = 1e-11, with no step retried and no overlap
/// retry: the unsplit step's run), so the target is now asserted
/// (docs/EXPERIMENTS.md, peg32).
#[test]
fn stack_of_five_rests_peg() {
    let mut text = world("peg", 1e-3, -9.81) + &body("table", true, TABLE, [0.0, 0.0, -0.1], 0.8);
    for i in 0..5 {
        text += &body(
            &format!("box{i}"),
            false,
            BOX,
            [0.0, 0.0, 0.05 + 0.1 * i as f64],
            0.8,
        );
    }
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let mut pl = rtphys::Pipeline::new(&model);
    let top = body_index(&model, "box4");
    let mut worst = 0.0f64;
    for _ in 0..300 {
        pl.step(&model, &mut data);
        worst = worst.max(common::polytope_overlap(&model, &data) / 1e-3);
    }
    let x0 = data.state[top].x;
    let mut drift = 0.0f64;
    for _ in 0..700 {
        pl.step(&model, &mut data);
        worst = worst.max(common::polytope_overlap(&model, &data) / 1e-3);
        drift = drift.max((data.state[top].x - x0).norm());
    }
    let vmax = data
        .state
        .iter()
        .map(|s| s.v.norm().max(s.w.norm()))
        .fold(0.0, f64::max);
    println!(
        "5-stack PEG: drift {drift:.2e} m, max overlap {worst:.2e} L³, |v|max {vmax:.2e}, \
         LCP size {}, Lemke failures {}, retried steps {}, overlap retries {}, sub-steps {}",
        data.stats.lcp_size,
        data.stats.solver_failures,
        data.stats.peg_retried_steps,
        data.stats.peg_overlap_retries,
        data.stats.peg_substeps
    );
    assert!(drift <= 1e-6, "drift {drift:e} m");
    assert!(vmax <= 1e-6, "moving: {vmax:e}");
    assert_eq!(data.stats.quarantined, 0);
    assert!(worst <= 1e-9, "overlap {worst:e} L³");
}
