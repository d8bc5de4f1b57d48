//! The state ring: a fixed array of preallocated frames, each guarded by a seqlock,
//! written by the physics thread only and read by any number of subscribers.
//!
//! The physics thread writes frame `f` into slot `f % len` and then advances `head`;
//! it never waits for a reader and never allocates. A reader copies a frame out and
//! checks the slot's sequence number before and after: if the physics thread
//! overwrote the slot meanwhile, the copy is discarded and the frame counted as lost
//! by that subscriber only. Frame words are `AtomicU64` (f64 bit patterns), so the
//! concurrent read is well defined.

use std::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};

/// Words of the frame header.
pub mod hdr {
    pub const TICK: usize = 0;
    pub const TIME: usize = 1;
    pub const MONO_NS: usize = 2;
    /// bit 0 paused; bits 8..16 mode (1 realtime, 2 lockstep, 3 max).
    pub const FLAGS: usize = 3;
    pub const GEN: usize = 4;
    pub const FRAME: usize = 5;
    pub const LEN: usize = 6;
}

/// Words per body: x(3) q(4: w x y z) v(3) w(3) force(3) torque(3) flags(1: bit 0
/// frozen, bit 1 asleep).
pub mod body {
    pub const X: usize = 0;
    pub const Q: usize = 3;
    pub const V: usize = 7;
    pub const W: usize = 10;
    pub const F: usize = 13;
    pub const T: usize = 16;
    pub const FROZEN: usize = 19;
    pub const LEN: usize = 20;
}

/// Words per controller acknowledgement.
pub mod ack {
    /// 0 = slot inactive.
    pub const STREAM_ID: usize = 0;
    pub const SEQ: usize = 1;
    pub const APPLY_TICK: usize = 2;
    pub const CLIENT_NS: usize = 3;
    pub const RECV_NS: usize = 4;
    pub const APPLY_NS: usize = 5;
    pub const COMMANDS: usize = 6;
    /// bit 0 tripped, bit 1 watchdog enabled, bits 8..16 safe behaviour (1 zero, 2 hold, 3 damp).
    pub const FLAGS: usize = 7;
    pub const TRIPS: usize = 8;
    pub const TIMEOUT_NS: usize = 9;
    pub const LEN: usize = 10;
}

/// Words per robot joint (DoF joints of all robots, in model order).
pub mod joint {
    pub const Q: usize = 0;
    pub const QD: usize = 1;
    pub const EFFORT: usize = 2;
    pub const PASSIVE: usize = 3;
    pub const QACC: usize = 4;
    pub const LEN: usize = 5;
}

/// Words per named frame: x(3) q(4: w x y z) v(3) w(3), world.
pub mod frame {
    pub const X: usize = 0;
    pub const Q: usize = 3;
    pub const V: usize = 7;
    pub const W: usize = 10;
    pub const LEN: usize = 13;
}

/// Words per sensor: six values.
pub mod sensor {
    pub const LEN: usize = 6;
}

/// The contact section: a count, the number of pairs that did not fit, then one
/// record per touching pair.
pub mod contact {
    pub const COUNT: usize = 0;
    pub const DROPPED: usize = 1;
    pub const HDR: usize = 2;
    pub const BODY_A: usize = 0;
    pub const BODY_B: usize = 1;
    pub const P: usize = 2;
    pub const N: usize = 5;
    pub const F: usize = 8;
    pub const DEPTH: usize = 11;
    pub const LEN: usize = 12;
}

/// Sizes of the sections of a frame: header, bodies, acknowledgements, joints,
/// frames, sensors, contacts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    pub nbody: usize,
    pub nctrl: usize,
    pub njoint: usize,
    pub nframe: usize,
    pub nsensor: usize,
    /// Capacity of the contact list.
    pub ncontact: usize,
}

impl Layout {
    pub fn body_base(&self, b: usize) -> usize {
        hdr::LEN + b * body::LEN
    }
    pub fn ack_base(&self, c: usize) -> usize {
        hdr::LEN + self.nbody * body::LEN + c * ack::LEN
    }
    pub fn joint_base(&self, j: usize) -> usize {
        self.ack_base(self.nctrl) + j * joint::LEN
    }
    pub fn frame_base(&self, f: usize) -> usize {
        self.joint_base(self.njoint) + f * frame::LEN
    }
    pub fn sensor_base(&self, s: usize) -> usize {
        self.frame_base(self.nframe) + s * sensor::LEN
    }
    /// The contact section's header.
    pub fn contacts_base(&self) -> usize {
        self.sensor_base(self.nsensor)
    }
    pub fn contact_base(&self, c: usize) -> usize {
        self.contacts_base() + contact::HDR + c * contact::LEN
    }
    pub fn words(&self) -> usize {
        self.contact_base(self.ncontact)
    }
}

struct Slot {
    /// 2f+1 while frame f is being written, 2f+2 once written.
    seq: AtomicU64,
    words: Box<[AtomicU64]>,
}

/// Outcome of reading one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    Ok,
    /// Overwritten by a newer frame before or while it was read.
    Lost,
    /// Not published yet.
    NotYet,
}

pub struct StateRing {
    pub gen: u64,
    pub nbody: usize,
    pub nctrl: usize,
    pub layout: Layout,
    pub words: usize,
    slots: Box<[Slot]>,
    /// Frames published so far (the newest is head - 1).
    head: AtomicU64,
    /// Set when the world was replaced: readers move to the new ring.
    retired: AtomicBool,
}

impl StateRing {
    pub fn new(gen: u64, layout: Layout, len: usize) -> StateRing {
        let (nbody, nctrl) = (layout.nbody, layout.nctrl);
        let words = layout.words();
        let slots = (0..len.max(2))
            .map(|_| Slot {
                seq: AtomicU64::new(0),
                words: (0..words).map(|_| AtomicU64::new(0)).collect(),
            })
            .collect();
        StateRing {
            gen,
            nbody,
            nctrl,
            layout,
            words,
            slots,
            head: AtomicU64::new(0),
            retired: AtomicBool::new(false),
        }
    }

    pub fn len(&self) -> u64 {
        self.slots.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    pub fn head(&self) -> u64 {
        self.head.load(Ordering::SeqCst)
    }

    pub fn retired(&self) -> bool {
        self.retired.load(Ordering::SeqCst)
    }

    pub(crate) fn retire(&self) {
        self.retired.store(true, Ordering::SeqCst);
    }

    /// Oldest frame that may still be readable.
    pub fn oldest(&self) -> u64 {
        self.head().saturating_sub(self.len())
    }

    /// Write the next frame (physics thread only): `fill` stores the words.
    pub(crate) fn publish(&self, fill: impl FnOnce(&FrameWriter<'_>)) -> u64 {
        let f = self.head.load(Ordering::Relaxed);
        let slot = &self.slots[(f % self.len()) as usize];
        slot.seq.store(2 * f + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        fill(&FrameWriter { w: &slot.words });
        slot.words[hdr::FRAME].store(f, Ordering::Relaxed);
        slot.seq.store(2 * f + 2, Ordering::Release);
        self.head.store(f + 1, Ordering::SeqCst);
        f
    }

    /// Copy frame `f` into `out` (resized to the frame length once).
    pub fn read(&self, f: u64, out: &mut Vec<u64>) -> Read {
        if f >= self.head() {
            return Read::NotYet;
        }
        let slot = &self.slots[(f % self.len()) as usize];
        let s1 = slot.seq.load(Ordering::Acquire);
        if s1 != 2 * f + 2 {
            return Read::Lost;
        }
        out.resize(self.words, 0);
        for (o, w) in out.iter_mut().zip(slot.words.iter()) {
            *o = w.load(Ordering::Relaxed);
        }
        fence(Ordering::Acquire);
        if slot.seq.load(Ordering::Relaxed) != s1 {
            return Read::Lost;
        }
        Read::Ok
    }

    /// Copy the newest frame; `None` if nothing was published yet.
    pub fn read_latest(&self, out: &mut Vec<u64>) -> Option<u64> {
        for _ in 0..64 {
            let h = self.head();
            if h == 0 {
                return None;
            }
            if self.read(h - 1, out) == Read::Ok {
                return Some(h - 1);
            }
        }
        None
    }
}

/// Stores the words of one frame.
pub struct FrameWriter<'a> {
    w: &'a [AtomicU64],
}

impl FrameWriter<'_> {
    #[inline]
    pub fn u(&self, i: usize, v: u64) {
        self.w[i].store(v, Ordering::Relaxed);
    }
    #[inline]
    pub fn f(&self, i: usize, v: f64) {
        self.w[i].store(v.to_bits(), Ordering::Relaxed);
    }
}

/// Read access to a copied frame.
#[derive(Clone, Copy)]
pub struct FrameView<'a> {
    pub words: &'a [u64],
    pub nbody: usize,
    pub nctrl: usize,
    pub layout: Layout,
}

impl<'a> FrameView<'a> {
    pub fn new(words: &'a [u64], ring: &StateRing) -> Self {
        FrameView {
            words,
            nbody: ring.nbody,
            nctrl: ring.nctrl,
            layout: ring.layout,
        }
    }
    #[inline]
    pub fn u(&self, i: usize) -> u64 {
        self.words[i]
    }
    #[inline]
    pub fn f(&self, i: usize) -> f64 {
        f64::from_bits(self.words[i])
    }
    pub fn tick(&self) -> u64 {
        self.u(hdr::TICK)
    }
    pub fn time(&self) -> f64 {
        self.f(hdr::TIME)
    }
    pub fn body_base(&self, b: usize) -> usize {
        self.layout.body_base(b)
    }
    /// Three consecutive words as f64 from absolute index `i`.
    pub fn f3(&self, i: usize) -> [f64; 3] {
        [self.f(i), self.f(i + 1), self.f(i + 2)]
    }
    pub fn body3(&self, b: usize, off: usize) -> [f64; 3] {
        let i = self.body_base(b) + off;
        [self.f(i), self.f(i + 1), self.f(i + 2)]
    }
    pub fn body4(&self, b: usize, off: usize) -> [f64; 4] {
        let i = self.body_base(b) + off;
        [self.f(i), self.f(i + 1), self.f(i + 2), self.f(i + 3)]
    }
    pub fn ack_base(&self, c: usize) -> usize {
        self.layout.ack_base(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_reader_loses_oldest_only() {
        let layout = Layout {
            nbody: 1,
            nctrl: 1,
            ..Default::default()
        };
        let r = StateRing::new(1, layout, 4);
        for t in 0..10u64 {
            r.publish(|w| w.u(hdr::TICK, t));
        }
        let mut buf = Vec::new();
        assert_eq!(r.read(0, &mut buf), Read::Lost);
        assert_eq!(r.read(5, &mut buf), Read::Lost);
        assert_eq!(r.read(6, &mut buf), Read::Ok);
        assert_eq!(buf[hdr::TICK], 6);
        assert_eq!(r.read(10, &mut buf), Read::NotYet);
        assert_eq!(r.read_latest(&mut buf), Some(9));
    }
}
