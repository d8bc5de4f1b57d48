//! `rtphys replay SCENE LOG`: rebuild the world from the scene, apply a command
//! log's records at their ticks through the physics thread's own composition of the
//! inputs, step, and check the final state hash against the one the server wrote.

use super::command::SourceWrench;
use super::physics::compose_inputs;
use super::record::{state_hash, Event, Footer, Item, LogReader, SlotState, ALL, UNARY};
use crate::data::Data;
use crate::model::{BodyKind, Model};
use anyhow::Context as _;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `rtphys replay` arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct ReplayArgs {
    /// The scene the server ran (the log's fingerprint must match it).
    pub scene: PathBuf,
    /// The command log (`rtphys serve --record-inputs FILE` or StartRecording).
    pub log: PathBuf,
    /// Write per step: tick, time, state hash, and x, y, z of every free body.
    #[arg(long)]
    pub csv: Option<PathBuf>,
}

/// What a replay reproduced.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub tick: u64,
    pub hash: u64,
    pub records: u64,
    /// The log's end record (None: the server stopped without writing it).
    pub recorded: Option<Footer>,
}

impl Outcome {
    /// The replay ended at the recorded tick with the recorded hash.
    pub fn identical(&self) -> bool {
        self.recorded
            .is_some_and(|f| f.tick == self.tick && f.hash == self.hash && f.lost == 0)
    }
}

/// Replay `log` on `model` (the scene as loaded; the log's step is applied).
pub fn replay(
    model: Model,
    log: &Path,
    mut csv: Option<&mut dyn Write>,
) -> anyhow::Result<Outcome> {
    let name = log.display().to_string();
    let f = std::fs::File::open(log).with_context(|| format!("cannot open {name}"))?;
    let mut rd = LogReader::new(std::io::BufReader::with_capacity(1 << 16, f), &name)?;
    let h = rd.header.clone();
    let model = if h.dt.to_bits() != model.opt.dt.to_bits() {
        let mut opt = model.opt;
        opt.dt = h.dt;
        model.with_options(opt)
    } else {
        model
    };
    let fp = super::record::model_fingerprint(&model);
    if fp != h.fingerprint {
        anyhow::bail!(
            "{name} was recorded on another scene (\"{}\", fingerprint {:016x}; this scene's is {fp:016x})",
            h.scene,
            h.fingerprint
        );
    }
    let nb = model.nbody();
    let nctrl = h.nctrl as usize;
    let mut data = Data::new(&model);
    let mut pipe = crate::pipeline::Pipeline::new(&model);
    let mut unary: Vec<Option<SourceWrench>> = vec![None; nb];
    let mut ctrl: Vec<Vec<Option<SourceWrench>>> = vec![vec![None; nb]; nctrl];
    let mut slots = vec![SlotState::default(); nctrl];
    let damping = h.damping;
    if let Some(w) = csv.as_deref_mut() {
        write!(w, "tick,time,state_hash")?;
        for b in model.bodies.iter().filter(|b| b.kind == BodyKind::Free) {
            write!(w, ",{0}.x,{0}.y,{0}.z", b.name)?;
        }
        writeln!(w)?;
    }
    let mut records = 0u64;
    let mut step_to = |target: u64,
                       data: &mut Data,
                       unary: &mut Vec<Option<SourceWrench>>,
                       ctrl: &mut Vec<Vec<Option<SourceWrench>>>,
                       slots: &Vec<SlotState>,
                       csv: &mut Option<&mut dyn Write>|
     -> anyhow::Result<()> {
        while data.tick < target {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut inputs =
                    |m: &Model, d: &mut Data| compose_inputs(m, d, unary, ctrl, slots, damping);
                pipe.step_with(&model, data, &mut inputs);
            }));
            if r.is_err() {
                anyhow::bail!(
                    "the step panicked at tick {} (as the server's may have)",
                    data.tick
                );
            }
            if let Some(w) = csv.as_deref_mut() {
                write!(
                    w,
                    "{},{},{:016x}",
                    data.tick,
                    data.time,
                    state_hash(&model, data)
                )?;
                for (b, s) in model.bodies.iter().zip(&data.state) {
                    if b.kind == BodyKind::Free {
                        write!(w, ",{},{},{}", s.x.x, s.x.y, s.x.z)?;
                    }
                }
                writeln!(w)?;
            }
        }
        Ok(())
    };
    let recorded = loop {
        let at = rd.offset;
        match rd.next_item()? {
            Item::Record(r) => {
                if r.tick < data.tick {
                    anyhow::bail!(
                        "{name}: byte {at}: record for tick {} after tick {} (records must not go back)",
                        r.tick,
                        data.tick
                    );
                }
                step_to(r.tick, &mut data, &mut unary, &mut ctrl, &slots, &mut csv)?;
                records += 1;
                let bad =
                    || anyhow::anyhow!("{name}: byte {at}: {:?} does not fit this scene", r.ev);
                match r.ev {
                    Event::Set { src, body, w } => {
                        let t = if src == UNARY {
                            &mut unary
                        } else {
                            ctrl.get_mut(src as usize).ok_or_else(bad)?
                        };
                        *t.get_mut(body as usize).ok_or_else(bad)? = Some(w);
                    }
                    Event::Clear { src, body } => {
                        let t = if src == UNARY {
                            &mut unary
                        } else {
                            ctrl.get_mut(src as usize).ok_or_else(bad)?
                        };
                        if body == ALL {
                            t.iter_mut().for_each(|e| *e = None);
                        } else {
                            *t.get_mut(body as usize).ok_or_else(bad)? = None;
                        }
                    }
                    Event::Effort { dof, value } => {
                        *data.qfrc_cmd.get_mut(dof as usize).ok_or_else(bad)? = value;
                    }
                    Event::Servo { robot, servo, t } => {
                        *data
                            .robots
                            .get_mut(robot as usize)
                            .and_then(|r| r.servo.get_mut(servo as usize))
                            .ok_or_else(bad)? = t;
                    }
                    Event::Slot { slot, slot_state } => {
                        *slots.get_mut(slot as usize).ok_or_else(bad)? = slot_state;
                    }
                    Event::Reset => {
                        data.reset(&model);
                        unary.iter_mut().for_each(|e| *e = None);
                        for t in ctrl.iter_mut() {
                            t.iter_mut().for_each(|e| *e = None);
                        }
                    }
                }
            }
            Item::End(f) => {
                if f.tick < data.tick {
                    anyhow::bail!(
                        "{name}: end record at tick {} after tick {}",
                        f.tick,
                        data.tick
                    );
                }
                step_to(f.tick, &mut data, &mut unary, &mut ctrl, &slots, &mut csv)?;
                break Some(f);
            }
            Item::Eof => break None,
        }
    };
    Ok(Outcome {
        tick: data.tick,
        hash: state_hash(&model, &data),
        records,
        recorded,
    })
}

/// Entry point of `rtphys replay`.
pub fn replay_main(a: ReplayArgs) -> anyhow::Result<()> {
    let (model, _) = crate::server::load_scene(Some(&a.scene), &crate::config::Config::default())?;
    let mut file = match &a.csv {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
        None => None,
    };
    let o = replay(model, &a.log, file.as_mut().map(|w| w as &mut dyn Write))?;
    if let Some(mut w) = file {
        w.flush()?;
    }
    println!(
        "replayed {} records to tick {}: state hash {:016x}",
        o.records, o.tick, o.hash
    );
    match o.recorded {
        Some(f) => {
            println!(
                "recorded: tick {}, state hash {:016x}, {} records, {} lost, ended: {}",
                f.tick,
                f.hash,
                f.records,
                f.lost,
                f.reason.name()
            );
            if f.lost > 0 {
                anyhow::bail!(
                    "the log is incomplete: {} records were lost (queue full)",
                    f.lost
                );
            }
            if !o.identical() {
                anyhow::bail!("the replay differs from the recorded run");
            }
            println!("identical");
        }
        None => println!(
            "the log has no end record (the server stopped without closing it): nothing to compare"
        ),
    }
    Ok(())
}
