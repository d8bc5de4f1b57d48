// Shared helpers for the integration tests (included with `mod common_scene;`).
#![allow(dead_code)]

use rtphys::model::scene::{load_scene_file, load_scene_str};
use rtphys::Model;
use std::path::{Path, PathBuf};

pub fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("config/scenes")
        .join(name)
}

pub fn load(name: &str) -> Model {
    match load_scene_file(scene_path(name)) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

pub fn load_str(text: &str) -> Model {
    match load_scene_str(text, "<test>", Path::new(".")) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

/// Steps `model` `steps` times.
pub fn run(pipeline: &mut rtphys::Pipeline, model: &Model, data: &mut rtphys::Data, steps: usize) {
    for _ in 0..steps {
        pipeline.step(model, data);
    }
}

/// Steps `model` `steps` times from its initial state; the state of body `name`
/// after each step.
pub fn body_states(model: &Model, name: &str, steps: usize) -> Vec<rtphys::data::BodyState> {
    let b = model
        .body_id(name)
        .unwrap_or_else(|| panic!("no body {name}"));
    let mut data = rtphys::Data::new(model);
    let mut pipe = rtphys::Pipeline::new(model);
    (0..steps)
        .map(|_| {
            pipe.step(model, &mut data);
            data.state[b]
        })
        .collect()
}

/// Gravity torques of robot 0 at q (rnea(q, 0, 0)), into `out`.
pub fn gravity_torques(
    model: &Model,
    ad: &mut rtphys::dynamics::ArticulatedData,
    q: &[f64],
    out: &mut [f64],
) {
    let r = &model.robots[0];
    let zero = vec![0.0; r.nv()];
    rtphys::dynamics::rnea(&r.tree, ad, q, &zero, &zero, &Default::default()).expect("rnea");
    out.copy_from_slice(ad.tau.as_slice());
}

/// Robot 0 with its servos disabled and `qfrc_cmd = rnea(q, 0, 0)` written every
/// tick, `steps` steps from its initial state: the largest |q − q₀| on the way
/// (rad or m). Quarantine-free runs only.
pub fn gravity_compensated_drift(model: &Model, steps: usize) -> f64 {
    let mut data = rtphys::Data::new(model);
    let mut pipeline = rtphys::Pipeline::new(model);
    for s in &mut data.robots[0].servo {
        s.enabled = false;
    }
    let r = &model.robots[0];
    let (qs, vs) = (
        r.q_offset..r.q_offset + r.nq(),
        r.v_offset..r.v_offset + r.nv(),
    );
    let q0 = data.qpos[qs.clone()].to_vec();
    let mut ad = rtphys::dynamics::ArticulatedData::new(&r.tree);
    let (mut q, mut tau) = (q0.clone(), vec![0.0; r.nv()]);
    let mut drift = 0.0f64;
    for _ in 0..steps {
        q.copy_from_slice(&data.qpos[qs.clone()]);
        gravity_torques(model, &mut ad, &q, &mut tau);
        data.qfrc_cmd[vs.clone()].copy_from_slice(&tau);
        pipeline.step(model, &mut data);
        let d = data.qpos[qs.clone()]
            .iter()
            .zip(&q0)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        drift = drift.max(d);
    }
    assert_eq!(data.stats.quarantined, 0, "quarantined");
    drift
}

/// The exact overlap volume (m³) summed over every pair of polytope geoms (boxes,
/// hulls; `collision::overlap`), at the data's state.
pub fn polytope_overlap(model: &Model, data: &rtphys::Data) -> f64 {
    use rtphys::collision::overlap::{intersection_volume, OverlapScratch};
    use rtphys::collision::Shape;
    let poly = |g: &rtphys::model::Geom| match &g.shape {
        Shape::Box { poly, .. } => Some(poly.clone()),
        Shape::Polytope(p) => Some(p.clone()),
        _ => None,
    };
    let mut s = OverlapScratch::default();
    let mut total = 0.0;
    for (i, ga) in model.geoms.iter().enumerate() {
        for gb in &model.geoms[i + 1..] {
            if let (Some(pa), Some(pb)) = (poly(ga), poly(gb)) {
                let xa = data.state[ga.body].pose() * ga.x_bg;
                let xb = data.state[gb.body].pose() * gb.x_bg;
                total += intersection_volume(&pa, &xa, &pb, &xb, &mut s);
            }
        }
    }
    total
}

/// The Stewart–Trinkle LCP of a contact problem (per point `p_n`, `β_1…β_k`,
/// `λ`; `f_t = Σ β_j d_j`, d_j the k-gon's vertex directions, `Σ β_j ≤ μ p_n`:
/// the same k-gon of radius μ p_n, or on face patches `Σ β_j ≤ s_i μ Σ_{j∈P}
/// p_n(j)`, lcp33) solved by Lemke; returns `(p_n, f_t)` per
/// point, or None when Lemke does not solve it. Independent of the primal
/// solver's projections: W is taken from the problem's blocks.
pub fn lemke_contacts(p: &rtphys::solver::ContactProblem) -> Option<Vec<f64>> {
    use rtphys::solver::{LcpProblem, LemkeParams, LemkeSolver, LemkeStatus};
    let n = p.n();
    let k = p.table.k as usize;
    let m = k + 2;
    let d: Vec<(f64, f64)> = (0..k)
        .map(|j| {
            let a = std::f64::consts::TAU * j as f64 / k as f64;
            (a.cos(), a.sin())
        })
        .collect();
    let mut a = nalgebra::DMatrix::<f64>::zeros(m * n, m * n);
    let mut q = nalgebra::DVector::<f64>::zeros(m * n);
    for i in 0..n {
        let (qn, q1, q2) = (p.q[3 * i], p.q[3 * i + 1], p.q[3 * i + 2]);
        q[m * i] = qn;
        for (j, &(c, s)) in d.iter().enumerate() {
            q[m * i + 1 + j] = c * q1 + s * q2;
        }
        for b in p.row_start[i]..p.row_start[i + 1] {
            let l = p.col[b] as usize;
            let w = &p.w[b];
            // Rows of point i: n and the tangent pair, against l's p_n and f_t.
            let row = |r: usize, col_f: (f64, f64)| w[3 * r + 1] * col_f.0 + w[3 * r + 2] * col_f.1;
            a[(m * i, m * l)] += w[0];
            for (jl, &dl) in d.iter().enumerate() {
                a[(m * i, m * l + 1 + jl)] += row(0, dl);
            }
            for (ji, &(c, s)) in d.iter().enumerate() {
                a[(m * i + 1 + ji, m * l)] += c * w[3] + s * w[6];
                for (jl, &dl) in d.iter().enumerate() {
                    a[(m * i + 1 + ji, m * l + 1 + jl)] += c * row(1, dl) + s * row(2, dl);
                }
            }
        }
        for j in 0..k {
            a[(m * i + 1 + j, m * i + k + 1)] = 1.0;
            a[(m * i + k + 1, m * i + 1 + j)] = -1.0;
        }
        match p.patch.get(i).filter(|pa| pa.len > 1) {
            // A face patch (lcp33): ρ_σ(i) = s_i μ_i Σ_{j ∈ P} p_n(j) − Σ β_i.
            Some(pa) => {
                let j0 = pa.first as usize;
                for j in (j0..j0 + pa.len as usize).filter(|&j| p.in_patch(j, pa)) {
                    a[(m * i + k + 1, m * j)] = p.mu[i] * pa.share;
                }
            }
            None => a[(m * i + k + 1, m * i)] = p.mu[i],
        }
    }
    let lcp = LcpProblem::new(a, q).ok()?;
    let mut solver = LemkeSolver::new(LemkeParams::default());
    let mut r = rtphys::solver::LemkeResults::default();
    if solver.solve(&lcp, None, &mut r) != LemkeStatus::Solved {
        return None;
    }
    let mut z = vec![0.0; 3 * n];
    for i in 0..n {
        z[3 * i] = r.z[m * i];
        for (j, &(c, s)) in d.iter().enumerate() {
            z[3 * i + 1] += c * r.z[m * i + 1 + j];
            z[3 * i + 2] += s * r.z[m * i + 1 + j];
        }
    }
    Some(z)
}

/// The tunnelling wall (`tests/contact_torture_ccd.rs`): a 1 m, 1 kg cube at
/// 1,000 m/s from x = −20.25 m toward a static wall 2 cm thick and 10 m × 10 m at
/// x = 0, no gravity, h = 0.01, μ = 0.5, restitution 0; `method` and `extra`
/// (scene text after `[world]`) as given. The cube is body "cube".
pub fn thin_wall_scene(method: &str, extra: &str) -> String {
    format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.01\nmethod = \"{method}\"\n{extra}\n\
         [[body]]\nname = \"wall\"\nstatic = true\nshape = {{ type = \"box\", half_extents = [0.01, 5.0, 5.0] }}\n\
         position = [0.0, 0.0, 0.0]\nmaterial = {{ mu = 0.5, restitution = 0.0 }}\n\n\
         [[body]]\nname = \"cube\"\nshape = {{ type = \"box\", half_extents = [0.5, 0.5, 0.5] }}\nmass = 1.0\n\
         position = [-20.25, 0.0, 0.0]\nvelocity = [1000.0, 0.0, 0.0]\nmaterial = {{ mu = 0.5, restitution = 0.0 }}\n"
    )
}

/// Steps [`thin_wall_scene`]'s `text` for 0.2 s (20 steps): (deepest entry of the
/// cube's leading face past the wall's near face x = −0.01, m; the cube's end x,
/// m; its largest speed after the first 3 steps, m/s; the stats).
pub fn thin_wall_run(text: &str) -> (f64, f64, f64, rtphys::data::StepStats) {
    let model = load_str(text);
    let b = model.body_id("cube").expect("cube");
    let mut data = rtphys::Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let (mut depth, mut vmax_after) = (f64::NEG_INFINITY, 0.0f64);
    for i in 0..20 {
        pipeline.step(&model, &mut data);
        let s = data.state[b];
        depth = depth.max(s.x.x + 0.5 + 0.01);
        if i >= 3 {
            vmax_after = vmax_after.max(s.v.norm());
        }
    }
    (depth, data.state[b].x.x, vmax_after, data.stats)
}

/// `model` with `[lcp] peg_vv_one_sided` = `on` (PEG's one-sided vertex–vertex
/// I sets, peg24; the pinned pour events re-found on its trajectory, peg25).
pub fn with_one_sided(model: &Model, on: bool) -> Model {
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.peg_vv_one_sided = on;
    }
    model.with_options(opt)
}

/// `model` with PEG's two keys that are on by default since peg29 turned off
/// when `before` (`[lcp] peg_vv_feasible`, peg28, and `peg_retry_corrector`,
/// peg27: the default before peg29, on which the events of the tests that pin
/// it were found; docs/EXPERIMENTS.md, peg29), and PEG's continuous collision
/// reading the bodies' origins as it did then (`peg_ccd_points = false`, the
/// default since peg30), else as it is.
pub fn with_keys_before_peg29(model: &Model, before: bool) -> Model {
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        if before {
            p.peg_vv_feasible = false;
            p.peg_retry_corrector = false;
            p.peg_ccd_points = false;
        }
    }
    model.with_options(opt)
}

/// `model` with PEG's retry off (`[lcp] peg_retry_depth = 0`, `peg_retry_overlap
/// = 0`): one unsplit step of h, PEG's default before peg32 (since then the
/// depth is 2 and τ = 1e-11). The tests whose claim is about one step of h — a
/// single solve's event, a large step, a depth-0 baseline — set it explicitly
/// (docs/EXPERIMENTS.md, peg32).
pub fn without_retry(model: &Model) -> Model {
    let mut opt = model.opt;
    if let rtphys::model::Method::Lcp(p) = &mut opt.method {
        p.peg_retry_depth = 0;
        p.peg_retry_overlap = 0.0;
    }
    model.with_options(opt)
}
