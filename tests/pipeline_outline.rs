//! The step's spine (`rtphys::pipeline`): a `Pipeline` is working memory only, so
//! any pipeline of a model steps equal `Data` to bit-identical results; outside input
//! applied at the step's inputs point acts exactly like the same wrench set before
//! the step; a pipeline handed another model rebuilds itself instead of failing.

mod common;

use rtphys::math::{Vec3, Wrench};
use rtphys::model::{LcpParams, Method, Model};
use rtphys::{Data, Pipeline};

fn bits(d: &Data) -> Vec<u64> {
    let mut out = Vec::new();
    for s in &d.state {
        out.extend(
            s.x.iter()
                .chain(s.v.iter())
                .chain(s.w.iter())
                .map(|x| x.to_bits()),
        );
        out.extend(s.q.coords.iter().map(|x| x.to_bits()));
    }
    out.extend(d.qpos.iter().chain(&d.qvel).map(|x| x.to_bits()));
    out
}

fn with_lcp(model: &Model) -> Model {
    let mut opt = model.opt;
    opt.method = Method::Lcp(LcpParams::default());
    model.with_options(opt)
}

/// Two pipelines, one warmed on another run and one fresh, continue a restored
/// snapshot bit for bit (penalty, Hunt–Crossley and LCP scenes).
#[test]
fn any_pipeline_of_a_model_continues_a_snapshot_bit_for_bit() {
    for model in [
        common::load("stack5.toml"),
        common::load("hc_stack5.toml"),
        with_lcp(&common::load("stack5.toml")),
        common::load("arm_table.toml"),
    ] {
        let mut data = Data::new(&model);
        let mut warm = Pipeline::new(&model);
        for _ in 0..300 {
            warm.step(&model, &mut data);
        }
        let snap = data.snapshot();
        let mut a = data.clone();
        for _ in 0..300 {
            warm.step(&model, &mut a);
        }
        let mut b = Data::new(&model);
        assert!(b.restore(&snap));
        let mut fresh = Pipeline::new(&model);
        for _ in 0..300 {
            fresh.step(&model, &mut b);
        }
        assert_eq!(bits(&a), bits(&b), "{:?}", model.opt.method);
    }
}

/// A wrench composed at the inputs point equals the same wrench written into
/// `Data::xfrc` before the step, bit for bit.
#[test]
fn inputs_land_at_the_inputs_point_like_a_preset_wrench() {
    let model = common::load("stack5.toml");
    let top = model.nbody() - 1;
    let push = |tick: u64| Wrench {
        force: Vec3::new(0.5 * (tick as f64 * 0.01).sin(), 0.2, 0.0),
        torque: Vec3::new(0.0, 0.0, 0.01),
    };
    let (mut a, mut b) = (Data::new(&model), Data::new(&model));
    let (mut pa, mut pb) = (Pipeline::new(&model), Pipeline::new(&model));
    for _ in 0..500 {
        a.xfrc[top] = push(a.tick);
        pa.step(&model, &mut a);
        let mut inputs = |_: &Model, d: &mut Data| d.xfrc[top] = push(d.tick);
        pb.step_with(&model, &mut b, &mut inputs);
    }
    assert_eq!(bits(&a), bits(&b));
    assert!(a.state[top].x.x.abs() > 1e-6, "the push moved nothing");
}

/// A pipeline made for one model and handed another (other sizes, other method)
/// rebuilds itself; the run equals one with a pipeline made for that model.
#[test]
fn a_pipeline_handed_another_model_rebuilds_itself() {
    let stack = common::load("stack5.toml");
    let arm = common::load("arm_table.toml");
    let arm_lcp = with_lcp(&arm);
    let mut reused = Pipeline::new(&stack);
    for model in [&arm, &arm_lcp] {
        let (mut a, mut b) = (Data::new(model), Data::new(model));
        let mut own = Pipeline::new(model);
        for _ in 0..200 {
            reused.step(model, &mut a);
            own.step(model, &mut b);
        }
        assert_eq!(bits(&a), bits(&b));
    }
}
