//! How a body that never rests in a settled pile moves (issue 18, task 1): settle
//! a scene, pick the free bodies turning fastest, then
//! - per step for 12 steps, the last of them: v, ω, and each pair's normal force,
//!   tangential force and slip at the deepest point (a period-2 oscillation shows
//!   as ω reversing every step: docs/BENCHMARKS.md "Piles that rest … (scale5)");
//! - every 0.25 s for 1 s, each of them: v, ω, kinetic energy and, per manifold it
//!   is in, the normal, ω·n, point count, depth, the relative velocity at the
//!   deepest point (normal, tangential), whether the pair sticks and touches, its
//!   integral term and the deepest point relative to the body's centre; and the
//!   work over the window of the contact wrench, of gravity, and of each pair's
//!   normal and tangential force on the relative motion.
//!
//!     cargo run --release --example pocket_trace -- SCENE SETTLE_S [ROLLING_M] [N_BODIES]
//!
//! SCENE: `pile20` or a scaling scene's JSON, as `pile_rest`.

use rtphys::experiments::{pile_scene, PileKind};
use rtphys::model::scene::load_scene_str;
use rtphys::model::BodyKind;
use rtphys::{Data, Pipeline};
use std::path::Path;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map(String::as_str).unwrap_or("pile20");
    let settle: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(8.0);
    let rolling: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.0);
    let nshow: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(6);
    let text = if which == "pile20" {
        pile_scene(PileKind::Bench, 20, 7)
    } else {
        rtphys::tools::scaling::scene_from_json_file(Path::new(which))?
    };
    let model = load_scene_str(&text, which, Path::new("."))?.with_min_rolling(rolling);
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    let h = model.opt.dt;
    for _ in 0..(settle / h).round() as u64 {
        pipe.step(&model, &mut data);
    }
    let nb = model.nbody();
    let mut order: Vec<usize> = (0..nb)
        .filter(|&b| model.bodies[b].kind == BodyKind::Free)
        .collect();
    order.sort_by(|&a, &b| data.state[b].w.norm().total_cmp(&data.state[a].w.norm()));
    order.truncate(nshow);
    // Per step, the last body listed (the slowest of those shown): v, ω and each
    // pair's force on it (normal, tangential) and slip at the deepest point.
    if let Some(&b) = order.last() {
        for k in 0..12 {
            pipe.step(&model, &mut data);
            let s = data.state[b];
            print!(
                "step {k} body {b} v [{:+.2e} {:+.2e} {:+.2e}] w [{:+.4} {:+.4} {:+.4}] |",
                s.v.x, s.v.y, s.v.z, s.w.x, s.w.y, s.w.z
            );
            for (m, f) in data.contacts.manifolds.iter().zip(&data.contact_force) {
                let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
                if ba != b && bb != b {
                    continue;
                }
                let other = if ba == b { bb } else { ba };
                let sign = if ba == b { 1.0 } else { -1.0 };
                let n = m.normal * sign;
                let fb = f * sign;
                let p = data.contacts.points[m.deepest].p_w;
                let so = data.state[other];
                let rel = (s.v + s.w.cross(&(p - s.x))) - (so.v + so.w.cross(&(p - so.x)));
                let ft = fb - n * fb.dot(&n);
                let vt = rel - n * rel.dot(&n);
                print!(
                    " {other}: fn {:.3} ft [{:+.3} {:+.3} {:+.3}] vt [{:+.1e} {:+.1e} {:+.1e}]",
                    fb.dot(&n),
                    ft.x,
                    ft.y,
                    ft.z,
                    vt.x,
                    vt.y,
                    vt.z
                );
            }
            println!();
        }
    }
    // Power of each pair's force on the relative motion at its deepest point,
    // normal and tangential parts (< 0: the pair takes energy out), and the power of
    // the whole contact wrench and of the gravity on the body, summed over a window.
    let steps = 250;
    let mut p_n = vec![vec![0.0f64; nb]; nb];
    let mut p_t = vec![vec![0.0f64; nb]; nb];
    let mut p_w = vec![0.0f64; nb];
    let mut p_g = vec![0.0f64; nb];
    for step in 0..4 {
        for row in p_n.iter_mut().chain(p_t.iter_mut()) {
            row.iter_mut().for_each(|x| *x = 0.0);
        }
        p_w.iter_mut().for_each(|x| *x = 0.0);
        p_g.iter_mut().for_each(|x| *x = 0.0);
        for _ in 0..steps {
            pipe.step(&model, &mut data);
            for &b in &order {
                let s = data.state[b];
                let w = data.contact_wrench[b];
                p_w[b] += (w.force.dot(&s.v) + w.torque.dot(&s.w)) * h;
                p_g[b] += model.bodies[b].mass * model.opt.gravity.dot(&s.v) * h;
                for ((m, _), f) in data
                    .contacts
                    .manifolds
                    .iter()
                    .zip(&data.contact_pair)
                    .zip(&data.contact_force)
                {
                    let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
                    if ba != b && bb != b {
                        continue;
                    }
                    let other = if ba == b { bb } else { ba };
                    let sign = if ba == b { 1.0 } else { -1.0 };
                    let n = m.normal * sign;
                    let fb = f * sign;
                    let p = data.contacts.points[m.deepest].p_w;
                    let so = data.state[other];
                    let rel = (s.v + s.w.cross(&(p - s.x))) - (so.v + so.w.cross(&(p - so.x)));
                    let (fn_, vn) = (fb.dot(&n), rel.dot(&n));
                    p_n[b][other] += fn_ * vn * h;
                    p_t[b][other] += (fb - n * fn_).dot(&(rel - n * vn)) * h;
                }
            }
        }
        for &b in &order {
            print!(
                "body {b}: window work J: contact wrench {:+.2e} gravity {:+.2e}; per pair (normal, tangential):",
                p_w[b], p_g[b]
            );
            for (o, (pn, pt)) in p_n[b].iter().zip(&p_t[b]).enumerate() {
                if *pn != 0.0 || *pt != 0.0 {
                    print!(" {o}:({pn:+.1e},{pt:+.1e})");
                }
            }
            println!();
        }
        println!("--- t = {:.3} s", settle + (step + 1) as f64 * 0.25);
        for &b in &order {
            let s = data.state[b];
            let g = model.geoms.iter().position(|g| g.body == b).unwrap_or(0);
            let shape = model.geoms[g].shape.kind().name();
            let ke = 0.5 * model.bodies[b].mass * s.v.norm_squared()
                + 0.5 * s.w.dot(&(model.bodies[b].inertia * s.w));
            println!(
                "body {b} {shape} z {:.4} |v| {:.2e} v [{:+.1e} {:+.1e} {:+.1e}] |w| {:.3} w [{:+.3} {:+.3} {:+.3}] KE {ke:.2e}",
                s.x.z, s.v.norm(), s.v.x, s.v.y, s.v.z, s.w.norm(), s.w.x, s.w.y, s.w.z
            );
            for (m, &pi) in data.contacts.manifolds.iter().zip(&data.contact_pair) {
                let (ba, bb) = (model.geoms[m.geom_a].body, model.geoms[m.geom_b].body);
                if ba != b && bb != b {
                    continue;
                }
                let other = if ba == b { bb } else { ba };
                let sign = if ba == b { 1.0 } else { -1.0 };
                let n = m.normal * sign; // toward b
                let p = &data.contacts.points[m.deepest];
                let so = data.state[other];
                let rel = (s.v + s.w.cross(&(p.p_w - s.x))) - (so.v + so.w.cross(&(p.p_w - so.x)));
                let vn = rel.dot(&n);
                let vt = (rel - n * vn).norm();
                let pair = &data.pairs[pi];
                let wn = s.w.dot(&n);
                println!(
                    "   vs {other:3} ({:?}) n [{:+.2} {:+.2} {:+.2}] w·n {wn:+.3} npts {} depth {:.2e} vn {vn:+.1e} |vt| {vt:.1e} stick {} touch {} I {:.2e} r_rel [{:+.3} {:+.3} {:+.3}]",
                    model.bodies[other].kind,
                    n.x, n.y, n.z,
                    m.points.len(),
                    m.max_depth(&data.contacts),
                    pair.anchor.is_some(),
                    pair.touching,
                    pair.integral,
                    (p.p_w - s.x).x, (p.p_w - s.x).y, (p.p_w - s.x).z,
                );
            }
        }
    }
    Ok(())
}
