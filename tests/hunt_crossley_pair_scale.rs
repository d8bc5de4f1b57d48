//! Hunt–Crossley's energy monitor with a scale per pair (`[hunt_crossley]
//! pair_energy_scale = true`): a light body touching a heavy one is integrated to its
//! own tolerance. With the world's E_s (kinetic + elastic + Σ m g L over every moving
//! body), a 1,000 kg body's m g L sets the tolerance of a 1 kg body's impact.

mod common;

use common::load_str;
use rtphys::Data;

/// A 1 kg ball (r = 0.05 m, e = 0.5, μ = 0.5) dropped 0.5 m onto a 1,000 kg slab
/// (half extents 0.5 × 0.5 × 0.05 m) resting on the floor, dt = 1 ms: the apex of the
/// first rebound, ball bottom over the slab's top, m.
fn slab_rebound(extra: &str) -> f64 {
    let mat = "material = { mu = 0.5, restitution = 0.5 }";
    let text = format!(
        "[world]\ndt = 0.001\nmethod = \"hunt_crossley\"\n[hunt_crossley]\n{extra}\n\
         [[body]]\nname = \"floor\"\nstatic = true\nshape = {{ type = \"plane\" }}\n{mat}\n\n\
         [[body]]\nname = \"slab\"\nshape = {{ type = \"box\", half_extents = [0.5, 0.5, 0.05] }}\n\
         mass = 1000.0\nposition = [0.0, 0.0, 0.05]\n{mat}\n\n\
         [[body]]\nname = \"ball\"\nshape = {{ type = \"sphere\", radius = 0.05 }}\nmass = 1.0\n\
         position = [0.0, 0.0, 0.65]\n{mat}\n"
    );
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    let (slab, ball) = (1, 2);
    let gap = |d: &Data| d.state[ball].x.z - 0.05 - (d.state[slab].x.z + 0.05);
    let (mut bounced, mut apex) = (false, f64::NEG_INFINITY);
    for _ in 0..1500 {
        pipeline.step(&model, &mut data);
        let vz = data.state[ball].v.z;
        if !bounced && vz > 0.0 {
            bounced = true;
        }
        if bounced {
            if vz < 0.0 {
                break;
            }
            apex = apex.max(gap(&data));
        }
    }
    println!(
        "[{extra}] rebound apex {apex:.5} m (e² h = 0.125), {} sub-steps",
        data.stats.substeps_total
    );
    apex
}

/// 1 kg sphere at 1 m/s on a resting 1,000 kg one, weightless, e = 1: v₁'.
fn elastic_light_on_heavy(extra: &str) -> f64 {
    let mat = "material = { mu = 0.0, restitution = 1.0 }";
    let text = format!(
        "[world]\ngravity = [0.0, 0.0, 0.0]\ndt = 0.001\nmethod = \"hunt_crossley\"\n\
         [hunt_crossley]\n{extra}\n\
         [[body]]\nname = \"a\"\nshape = {{ type = \"sphere\", radius = 0.05 }}\nmass = 1.0\n\
         position = [-0.5, 0.0, 0.0]\nvelocity = [1.0, 0.0, 0.0]\n{mat}\n\n\
         [[body]]\nname = \"b\"\nshape = {{ type = \"sphere\", radius = 0.05 }}\nmass = 1000.0\n\
         position = [0.0, 0.0, 0.0]\n{mat}\n"
    );
    let model = load_str(&text);
    let mut data = Data::new(&model);
    let mut pipeline = rtphys::Pipeline::new(&model);
    for _ in 0..1000 {
        pipeline.step(&model, &mut data);
    }
    let v1 = data.state[0].v.x;
    // Law: v₁' = (m₁ − m₂)/(m₁ + m₂) v = −0.998002 m/s.
    println!(
        "[{extra}] v1' = {v1:.5} m/s (law {:.5}), {} sub-steps",
        -999.0 / 1001.0,
        data.stats.substeps_total
    );
    v1
}

/// The ball's rebound over the slab follows e² h within 2 % with the scale per pair
/// (the world's scale: +17 %, 0.1461 m).
#[test]
fn ball_on_a_heavy_slab_rebounds_to_e2h_with_the_pair_scale() {
    let world = slab_rebound("pair_energy_scale = false");
    let pair = slab_rebound("pair_energy_scale = true");
    println!("world scale {world:.5} m, pair scale {pair:.5} m");
    assert!((pair / 0.125 - 1.0).abs() < 0.02, "rebound {pair} m");
}

/// Light on heavy, elastic: v₁' within 0.5 % of the law with the scale per pair
/// (the world's scale: 1.3 % slow).
#[test]
fn light_sphere_off_a_heavy_one_follows_the_law_with_the_pair_scale() {
    let law = -999.0 / 1001.0;
    let world = elastic_light_on_heavy("pair_energy_scale = false");
    let pair = elastic_light_on_heavy("pair_energy_scale = true");
    println!("world scale {world:.5}, pair scale {pair:.5}");
    assert!((pair / law - 1.0).abs() < 0.005, "v1' {pair}");
}
