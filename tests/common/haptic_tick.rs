//! One physics-thread tick for a world's haptic devices, as src/runtime/physics.rs
//! runs it (`haptic_boundary`, `watchdog`, the coupling at the step's inputs
//! point, `render`), for offline tests: `sample` (if any) lands at the tick
//! boundary, the watchdog reads the clock `now_ns`.

use crossbeam::queue::ArrayQueue;
use rtphys::haptics::render::{DeviceSample, HapticOut};
use rtphys::model::Model;
use rtphys::runtime::World;
use rtphys::Data;

pub fn haptic_tick(
    w: &mut World,
    out: &ArrayQueue<HapticOut>,
    sample: Option<&DeviceSample>,
    now_ns: i64,
) {
    if let Some(s) = sample {
        w.haptic[0].receive(s);
    }
    let tick = w.data.tick;
    let World {
        model,
        data,
        pipeline,
        haptic,
        ..
    } = w;
    for (h, spec) in haptic.iter_mut().zip(&model.haptics) {
        h.watchdog(spec, now_ns, tick);
    }
    let mut inputs = |m: &Model, d: &mut Data| {
        for x in d.xfrc.iter_mut() {
            *x = rtphys::math::Wrench::ZERO;
        }
        for (h, spec) in haptic.iter_mut().zip(&m.haptics) {
            h.apply(spec, m, d);
        }
    };
    pipeline.step_with(model, data, &mut inputs);
    for (h, spec) in haptic.iter_mut().zip(&model.haptics) {
        h.render(spec, model, data);
        let _ = out.force_push(h.out);
    }
}
