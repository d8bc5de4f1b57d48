//! Figures (ignored): where a settling pile's energy goes, stage by stage —
//! the probe behind docs/EXPERIMENTS.md "scale25" (issue 18: pile_1000 does not
//! come to rest).
//!
//! `SCALE25_SCENE=pile_100 SCALE25_STEPS=5000 SCALE25_EVERY=250 cargo test --release
//! --test scale25_energy -- --ignored --nocapture` steps
//! `benches/scenes/scaling/SCENE.json` as `rtphys bench --sleep --rest-tol 1e-12`
//! does (`SCALE25_SLEEP=0`: sleeping off) with the penalty stepper's probe on
//! (`pipeline::penalty::PenaltyProbe`) and prints one line per window of EVERY
//! steps: the kinetic energy and the bodies asleep at its end, then the window's
//! sums of the energy (KE + gravitational PE) each stage changed — the impact
//! stage's impulses, its rewind, the integration with the first normal solve's
//! rates, friction with the second normal solve, and what happened between
//! steps — each as its sum and its positive part (J), then pass 0's impulses per
//! step by kind (new contact, bounce, gap closing) with the kinetic energy they
//! changed, and the sweeps' impulses per step (by sweep 1, 2–3, 4–7, 8–15, 16+;
//! on resting and on impact pairs) with theirs.

mod common;

use common::load_str;
use rtphys::{Data, Pipeline};

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
#[ignore = "figures: seconds (pile_100) to an hour (pile_1000) of stepping"]
fn energy_trace() {
    let scene: String = env_or("SCALE25_SCENE", "pile_100".to_string());
    let steps: usize = env_or("SCALE25_STEPS", 5_000);
    let every: usize = env_or("SCALE25_EVERY", 250).max(1);
    let sleep: bool = env_or::<u8>("SCALE25_SLEEP", 1) != 0;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("benches/scenes/scaling/{scene}.json"));
    let text = rtphys::tools::scaling::scene_from_json_file(&path).expect("scene");
    let mut model = load_str(&text);
    let mut opt = model.opt;
    opt.sleep.enabled = sleep;
    if let rtphys::model::Method::Penalty(mut p) = opt.method {
        p.rest_tol = 1e-12;
        opt.method = rtphys::model::Method::Penalty(p);
    }
    model = model.with_options(opt);
    let mut data = Data::new(&model);
    let mut pipe = Pipeline::new(&model);
    pipe.penalty_probe_mut().expect("penalty").on = true;
    println!("scene {scene}, sleep {sleep}, rest_tol 1e-12");
    println!(
        "step,t,ke,pe,asleep,under,fastest(b:v:w),sliding/touching,period2/step,stuck>v_stick,stuck>v_slip,P+stick(n:W),P+slip(n:W),P-(W),max_pen,dK_normal,dK_friction,dE_impulse,+,dE_rewind,+,dE_normal,+,dE_friction,+,dE_between,+,\
         new,new_dK,bounce,bounce_dK,gap,gap_dK,sw1,sw2_3,sw4_7,sw8_15,sw16+,sw_rest,sw_impact,sw_dK"
    );
    // Sums over the window: five stages (sum, positive part), pass 0 (count, dK) × 3,
    // sweeps by bucket (5), by kind (2), dK.
    let mut de = [[0f64; 2]; 5];
    let mut dk = [0f64; 2];
    let mut p0 = [[0f64; 2]; 3];
    let mut sw = [0f64; 8];
    let mut last_end: Option<f64> = None;
    // SCALE25_FROM=S: each body's displacement from step S to the end, the
    // largest drops printed (which bodies carry the pile's loss of PE).
    let from: usize = env_or("SCALE25_FROM", 0);
    let mut at_from: Vec<rtphys::data::BodyState> = Vec::new();
    let mut turned = vec![0f64; data.state.len()];
    // Per pair: sticking at the last two steps' ends, and the steps of the
    // window at which a touching pair's stick/slip state flipped after
    // flipping at the step before (a period-2 stick/slip), summed.
    let (mut stuck1, mut stuck2) = (Vec::<bool>::new(), Vec::<bool>::new());
    let mut period2 = 0usize;
    // SCALE25_SWITCH=S with SCALE25_IMPACTS=0: impulses off from step S on.
    let switch: usize = env_or("SCALE25_SWITCH", 0);
    let impacts: bool = env_or::<u8>("SCALE25_IMPACTS", 1) != 0;
    // SCALE25_VARIANT=a,b,…: friction keys switched on at SCALE25_SWITCH
    // (solved_drag, implicit, late_pairs).
    let variant: String = env_or("SCALE25_VARIANT", String::new());
    for step in 1..=steps {
        if switch > 0 && step == switch {
            let mut opt = model.opt;
            if let rtphys::model::Method::Penalty(mut p) = opt.method {
                p.impacts.enabled = impacts;
                for v in variant.split(',').filter(|v| !v.is_empty()) {
                    match v {
                        "solved_drag" => p.friction.solved_drag = true,
                        "solved_stick" => p.friction.solved_stick = true,
                        "implicit" => p.friction.implicit = true,
                        "late_pairs" => p.friction.late_pairs = true,
                        "no_reimpact" => p.impacts.reimpact = false,
                        other => panic!("unknown variant {other}"),
                    }
                }
                opt.method = rtphys::model::Method::Penalty(p);
            }
            model = model.with_options(opt);
            println!("step {step}: impacts {impacts}, variant {variant:?}");
        }
        pipe.step(&model, &mut data);
        // SCALE25_BODY=B (with SCALE25_BODY_EVERY=K): body B's state and
        // contacts every K steps from SCALE25_FROM on.
        let tb: usize = env_or("SCALE25_BODY", usize::MAX);
        let tk: usize = env_or("SCALE25_BODY_EVERY", 100);
        if tb < data.state.len() && step >= from && step % tk == 0 {
            let s = &data.state[tb];
            let mut line = format!(
                "B {step} x {:.5} {:.5} {:.5} v {:.2e} {:.2e} {:.2e} w {:.3} {:.3} {:.3} |",
                s.x.x, s.x.y, s.x.z, s.v.x, s.v.y, s.v.z, s.w.x, s.w.y, s.w.z
            );
            for (m, (man, &pi)) in data
                .contacts
                .manifolds
                .iter()
                .zip(&data.contact_pair)
                .enumerate()
            {
                let (ba, bb) = (model.geoms[man.geom_a].body, model.geoms[man.geom_b].body);
                if ba != tb && bb != tb {
                    continue;
                }
                let other = if ba == tb { bb } else { ba };
                let sign = if ba == tb { 1.0 } else { -1.0 };
                let f = data.contact_force[m] * sign;
                let n = man.normal * sign;
                let fnn = f.dot(&n);
                let ft = (f - n * fnn).norm();
                let p = &data.pairs[pi];
                // The tangential slip speed at the deepest point's lever.
                let at = data.contacts.points[man.deepest].lever;
                let vel = |b: usize| {
                    let s = &data.state[b];
                    s.v + s.w.cross(&(at - s.x))
                };
                let u = vel(tb) - vel(other);
                let ut = (u - n * n.dot(&u)).norm();
                line += &format!(
                    " [{other} n {:.2} {:.2} {:.2} d {:.2e} fn {:.3} ft {:.3} ut {ut:.1e} {} {:?}]",
                    n.x,
                    n.y,
                    n.z,
                    man.max_depth(&data.contacts),
                    fnn,
                    ft,
                    if p.anchor.is_some() { "stick" } else { "slip" },
                    p.phase
                );
            }
            println!("{line}");
        }
        if from > 0 && step == from {
            at_from = data.state.clone();
        }
        if from > 0 && step > from {
            for (a, s) in turned.iter_mut().zip(&data.state) {
                *a += s.w.norm() * model.opt.dt;
            }
        }
        let pr = *pipe.penalty_probe_mut().expect("penalty");
        let stuck: Vec<bool> = data.pairs.iter().map(|p| p.anchor.is_some()).collect();
        if stuck1.len() == stuck.len() && stuck2.len() == stuck.len() {
            period2 += (0..stuck.len())
                .filter(|&i| {
                    data.pairs[i].touching && stuck[i] != stuck1[i] && stuck1[i] != stuck2[i]
                })
                .count();
        }
        stuck2 = std::mem::replace(&mut stuck1, stuck);
        let e = pr.energy;
        if e[0] != 0.0 || e[4] != 0.0 {
            let d = [
                e[1] - e[0],
                e[2] - e[1],
                e[3] - e[2],
                e[4] - e[3],
                last_end.map_or(0.0, |l| e[0] - l),
            ];
            for (a, x) in de.iter_mut().zip(d) {
                a[0] += x;
                a[1] += x.max(0.0);
            }
            last_end = Some(e[4]);
            let k = pr.kinetic;
            dk[0] += k[3] - k[2];
            dk[1] += k[4] - k[3];
        }
        for (a, (n, de)) in p0.iter_mut().zip(pr.pass0.iter().zip(&pr.pass0_de)) {
            a[0] += *n as f64;
            a[1] += de;
        }
        let b = &pr.sweep_by_pass;
        for (a, x) in sw.iter_mut().zip([
            b[0] as f64,
            (b[1]) as f64,
            b[2] as f64,
            b[3] as f64,
            b[4..].iter().sum::<usize>() as f64,
            pr.sweep_kind[0] as f64,
            pr.sweep_kind[1] as f64,
            pr.sweep_de,
        ]) {
            *a += x;
        }
        if step % every != 0 {
            continue;
        }
        let n = every as f64;
        // Sticking pairs whose surfaces slide (at the deepest point's lever,
        // end of step) faster than v_stick and than v_slip.
        let fp = match model.opt.method {
            rtphys::model::Method::Penalty(p) => p.friction,
            _ => unreachable!(),
        };
        let mut stuck_fast = [0usize; 2];
        // The friction force's power f_t·u (on a, u = a's slip against b at the
        // deepest point's lever; the force of the step's start, the velocities
        // of its end): positive — friction driving the slip — summed over the
        // sticking and the sliding pairs, and the negative part.
        let (mut power, mut power_n) = ([0f64; 3], [0usize; 2]);
        for (m, (man, &pi)) in data
            .contacts
            .manifolds
            .iter()
            .zip(&data.contact_pair)
            .enumerate()
        {
            if man.max_depth(&data.contacts) <= 0.0 {
                continue;
            }
            {
                let (ba, bb) = (model.geoms[man.geom_a].body, model.geoms[man.geom_b].body);
                let at = data.contacts.points[man.deepest].lever;
                let vel = |b: usize| {
                    let s = &data.state[b];
                    s.v + s.w.cross(&(at - s.x))
                };
                let u = vel(ba) - vel(bb);
                let f = data.contact_force[m];
                let ft = f - man.normal * man.normal.dot(&f);
                let pw = ft.dot(&(u - man.normal * man.normal.dot(&u)));
                let k = data.pairs[pi].anchor.is_none() as usize;
                if pw > 0.0 {
                    power[k] += pw;
                    power_n[k] += 1;
                } else {
                    power[2] += pw;
                }
            }
            if data.pairs[pi].anchor.is_none() {
                continue;
            }
            let (ba, bb) = (model.geoms[man.geom_a].body, model.geoms[man.geom_b].body);
            let at = data.contacts.points[man.deepest].lever;
            let vel = |b: usize| {
                let s = &data.state[b];
                s.v + s.w.cross(&(at - s.x))
            };
            let u = vel(ba) - vel(bb);
            let ut = (u - man.normal * man.normal.dot(&u)).norm();
            stuck_fast[0] += (ut > fp.v_stick) as usize;
            stuck_fast[1] += (ut > fp.v_slip) as usize;
        }
        let (v_rest, w_rest) = (model.opt.sleep.v_rest, model.opt.sleep.w_rest);
        let (mut under, mut fb, mut fv, mut fw) = (0, 0, 0.0f64, 0.0f64);
        for (b, st) in data.state.iter().enumerate() {
            if model.bodies[b].kind != rtphys::model::BodyKind::Free {
                continue;
            }
            let (v, w) = (st.v.norm(), st.w.norm());
            if v < v_rest && w < w_rest {
                under += 1;
            }
            if v / v_rest + w / w_rest > fv / v_rest + fw / w_rest {
                (fb, fv, fw) = (b, v, w);
            }
        }
        // SCALE25_LIST=1: every free body above the sleep thresholds at the
        // window's end, with its speed, spin, and touching contacts (other body,
        // stick/slip, slip speed at the deepest point's lever).
        if env_or::<u8>("SCALE25_LIST", 0) != 0 {
            for (b, st) in data.state.iter().enumerate() {
                if model.bodies[b].kind != rtphys::model::BodyKind::Free
                    || (st.v.norm() < v_rest && st.w.norm() < w_rest)
                {
                    continue;
                }
                let mut line = format!(
                    "  above {b} {} v {:.2e} w {:.2e} asleep {} |",
                    model.bodies[b].name,
                    st.v.norm(),
                    st.w.norm(),
                    data.asleep[b]
                );
                for (man, &pi) in data.contacts.manifolds.iter().zip(&data.contact_pair) {
                    let (ba, bb) = (model.geoms[man.geom_a].body, model.geoms[man.geom_b].body);
                    if (ba != b && bb != b) || man.max_depth(&data.contacts) <= 0.0 {
                        continue;
                    }
                    let at = data.contacts.points[man.deepest].lever;
                    let vel = |k: usize| {
                        let s = &data.state[k];
                        s.v + s.w.cross(&(at - s.x))
                    };
                    let u = vel(ba) - vel(bb);
                    let ut = (u - man.normal * man.normal.dot(&u)).norm();
                    let other = if ba == b { bb } else { ba };
                    let st = if data.pairs[pi].anchor.is_some() {
                        "stick"
                    } else {
                        "slip"
                    };
                    line += &format!(" {other}:{st}:{ut:.1e}");
                }
                println!("{line}");
            }
        }
        let mut cols: Vec<String> = dk.iter().map(|x| format!("{x:.3e}")).collect();
        for a in &de {
            cols.push(format!("{:.3e}", a[0]));
            cols.push(format!("{:.3e}", a[1]));
        }
        for a in &p0 {
            cols.push(format!("{:.2}", a[0] / n));
            cols.push(format!("{:.3e}", a[1]));
        }
        for (i, a) in sw.iter().enumerate() {
            if i < 7 {
                cols.push(format!("{:.2}", a / n));
            } else {
                cols.push(format!("{a:.3e}"));
            }
        }
        println!(
            "{step},{:.3},{:.3e},{:.6e},{},{under},{fb}:{fv:.1e}:{fw:.1e},{}/{},{:.1},{},{},{}:{:.3e},{}:{:.3e},{:.3e},{:.3e},{}",
            data.time,
            data.kinetic_energy(&model),
            data.potential_energy(&model),
            data.stats.sleeping,
            data.pairs.iter().filter(|p| p.touching && p.anchor.is_none()).count(),
            data.pairs.iter().filter(|p| p.touching).count(),
            period2 as f64 / n,
            stuck_fast[0],
            stuck_fast[1],
            power_n[0],
            power[0],
            power_n[1],
            power[1],
            power[2],
            data.stats.max_penetration,
            cols.join(",")
        );
        de = [[0.0; 2]; 5];
        period2 = 0;
        dk = [0.0; 2];
        p0 = [[0.0; 2]; 3];
        sw = [0.0; 8];
    }
    if !at_from.is_empty() {
        let mut d: Vec<(f64, usize)> = (0..data.state.len())
            .filter(|&b| model.bodies[b].kind == rtphys::model::BodyKind::Free)
            .map(|b| (at_from[b].x.z - data.state[b].x.z, b))
            .collect();
        d.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mass: f64 = model.bodies.iter().map(|b| b.mass).sum();
        let drop: f64 = d
            .iter()
            .map(|&(dz, b)| dz * model.bodies[b].mass)
            .sum::<f64>()
            / mass;
        println!("steps {from}..{steps}: mean (mass-weighted) drop {drop:.3e} m; largest:");
        println!("body,name,drop_m,horizontal_m,turned_rad,z_end,w_end");
        for &(dz, b) in d.iter().take(15) {
            let h = (data.state[b].x - at_from[b].x).xy().norm();
            println!(
                "{b},{},{dz:.3e},{h:.3e},{:.3},{:.4},{:.3e}",
                model.bodies[b].name,
                turned[b],
                data.state[b].x.z,
                data.state[b].w.norm()
            );
        }
    }
    assert!(data.state.iter().all(|s| s.is_finite()), "non-finite state");
}
