//! Hunt–Crossley contact of 002 (Deguet, Joukhadar, Laugier) §2.2: the restitution
//! relation, drops that rebound to e²h, a force that never pulls.

mod common;
use common as common_scene;

use common_scene::load_str;
use rtphys::contact::hunt_crossley::{damping_exact, damping_paper, restitution};
use rtphys::{Data, Model};

/// A body dropped onto a plane under Hunt–Crossley contact.
fn drop_scene(shape: &str, e: f64, rule: &str, drop: f64, extra: &str) -> Model {
    load_str(&format!(
        r#"
[world]
dt = 0.001
method = "hunt_crossley"
[hunt_crossley]
damping_rule = "{rule}"
{extra}
[[body]]
name = "ground"
static = true
shape = {{ type = "plane" }}
material = {{ mu = 0.0, restitution = 1.0 }}
[[body]]
name = "body"
shape = {shape}
mass = 1.0
position = [0.0, 0.0, {drop}]
material = {{ mu = 0.0, restitution = {e} }}
"#
    ))
}

/// Drop, then measure the first rebound: the peak height above `rest_height` after
/// the vertical velocity turns upward, and over the ticks that start in contact the
/// largest, smallest and last contact force.
struct Rebound {
    rise: f64,
    f_max: f64,
    f_last: f64,
    f_min: f64,
    contact_ticks: usize,
    substeps: u64,
    ticks: u64,
}

fn rebound(model: &Model, rest_height: f64) -> Rebound {
    let mut data = Data::new(model);
    let mut pipeline = rtphys::Pipeline::new(model);
    let b = model.body_id("body").expect("body");
    let (mut f_max, mut f_last, mut f_min) = (0.0f64, 0.0, f64::INFINITY);
    let mut contact_ticks = 0;
    let mut up = false;
    let mut peak = f64::NEG_INFINITY;
    for _ in 0..5000 {
        pipeline.step(model, &mut data);
        let s = &data.state[b];
        if data.stats.contact_pairs > 0 && !(up && peak > rest_height) {
            let fz = data.contact_wrench[b].force.z;
            f_max = f_max.max(fz);
            f_min = f_min.min(fz);
            f_last = fz;
            contact_ticks += 1;
        }
        if s.v.z > 0.0 {
            up = true;
        }
        if up {
            if s.v.z < 0.0 {
                break;
            }
            peak = peak.max(s.x.z);
        }
    }
    Rebound {
        rise: peak - rest_height,
        f_max,
        f_last,
        f_min,
        contact_ticks,
        substeps: data.stats.substeps_total,
        ticks: data.tick,
    }
}

#[test]
fn exact_relation_at_c_0_2() {
    // c·v_in − ln(1 + c·v_in) = −c·v_out − ln(1 − c·v_out), c = 0.2 s/m, v_in = 1 m/s.
    let e = restitution(0.2, 1.0);
    println!("c = 0.2 s/m at 1 m/s: e = {e:.5} (expected 0.88219)");
    assert!((e - 0.88219).abs() < 0.01 * 0.88219, "e = {e}");
    // Independent of the speed scale: c·v is the only group.
    assert!((restitution(0.1, 2.0) - e).abs() < 1e-12);
    // The inversion gives back c.
    assert!((damping_exact(e, 1.0) - 0.2).abs() < 1e-9);
}

/// Impact speed of a fall from `h`, m/s.
fn v_impact(h: f64) -> f64 {
    (2.0 * 9.81 * h).sqrt()
}

/// Rebound heights of a sphere (depth measure) and of a box landing flat (volume
/// measure) dropped from h = 1 m, for both damping rules. λ from the §5 rule with
/// f = 1e-5: the relation (HC) neglects gravity during the contact, and with
/// f = 1e-5 the weight's impulse over the contact is ≲ 1 % of e·m·v_in (the default
/// f = 0.005 rows show the effect of a soft contact).
#[test]
fn drops_rebound_to_e_squared_h() {
    let h = 1.0;
    println!("| body | rule | f | requested e | c at impact (s/m) | e predicted by (HC) | achieved e = √(rise/h) | rise / e²h − 1 |");
    println!("|---|---|---|---|---|---|---|---|");
    for (name, shape, half) in [
        (
            "sphere r 0.1 m (depth)",
            "{ type = \"sphere\", radius = 0.1 }",
            0.1,
        ),
        (
            "box 0.2 m landing flat (volume)",
            "{ type = \"box\", half_extents = [0.1, 0.1, 0.1] }",
            0.1,
        ),
    ] {
        for (rule, f) in [("exact", 1e-5), ("paper", 1e-5), ("exact", 0.005)] {
            for e in [0.3, 0.5, 0.8] {
                let extra = format!("penetration_fraction = {f}");
                let model = drop_scene(shape, e, rule, h + half, &extra);
                let rb = rebound(&model, half);
                let v = v_impact(h);
                let c = if rule == "exact" {
                    damping_exact(e, v)
                } else {
                    damping_paper(e, v)
                };
                let e_pred = restitution(c, v);
                let e_got = (rb.rise / h).max(0.0).sqrt();
                let rel = rb.rise / (e * e * h) - 1.0;
                println!(
                    "| {name} | {rule} | {f} | {e} | {c:.4} | {e_pred:.4} | {e_got:.4} | {:+.2} % |",
                    100.0 * rel
                );
                if rule == "exact" && f == 1e-5 {
                    assert!(
                        rel.abs() < 0.03,
                        "{name}, e = {e}: rise {} vs e²h {}",
                        rb.rise,
                        e * e * h
                    );
                }
                if rule == "paper" {
                    // The paper's rule achieves what (HC) predicts for its c.
                    assert!(
                        (e_got - e_pred).abs() < 0.03 * e_pred,
                        "{name}, paper rule, e = {e}: achieved {e_got} vs (HC) {e_pred}"
                    );
                }
            }
        }
    }
}

/// Hunt–Crossley's point over Kelvin–Voigt: the damping term scales with x, so the
/// force never pulls and fades to zero at separation (no sticking). Soft contact (the
/// default §5 rule) so that the contact spans many ticks; e = 0.3 (strong damping).
#[test]
fn contact_force_never_attractive() {
    let model = drop_scene("{ type = \"sphere\", radius = 0.1 }", 0.3, "exact", 1.1, "");
    let rb = rebound(&model, 0.1);
    println!(
        "sphere, e = 0.3, f = 0.005: {} contact ticks, peak force {:.1} N, min {:.3} N, at the last contact tick {:.3} N; {:.2} sub-steps per tick",
        rb.contact_ticks, rb.f_max, rb.f_min, rb.f_last, rb.substeps as f64 / rb.ticks as f64
    );
    assert!(rb.contact_ticks >= 10, "contact too short to observe");
    assert!(rb.f_min >= 0.0, "attractive force {}", rb.f_min);
    assert!(
        rb.f_last < 0.05 * rb.f_max,
        "force at separation {} of peak {}",
        rb.f_last,
        rb.f_max
    );
}
