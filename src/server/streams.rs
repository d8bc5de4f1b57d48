//! Streaming replies as hand-written `Stream`s polled directly by the HTTP/2 stream
//! task: no spawned task and no channel between the physics thread's frame and the
//! encoder, and for control streams the inbound commands are decoded, validated and
//! queued from the same poll. A disconnect drops the stream, which releases its
//! subscriber and controller slots.

use super::convert::{self, Selection};
use super::pb;
use crate::runtime::clock::mono_ns;
use crate::runtime::{
    CtrlGuard, FrameView, Read, Runtime, SimError, StateRing, SubGuard, WorldView,
};
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio_stream::Stream;
use tonic::Status;

/// A subscriber's cursor over the state ring.
pub struct StateFeed {
    rt: Runtime,
    sub: SubGuard,
    ring: Arc<StateRing>,
    cursor: u64,
    next_deliver: u64,
    decimation: u64,
    latest_only: bool,
    /// Frames this subscriber lost (not counting decimation).
    pub dropped: u64,
    /// The frame last delivered.
    pub buf: Vec<u64>,
}

impl StateFeed {
    pub fn new(rt: Runtime, sub: SubGuard, decimation: u32, latest_only: bool) -> StateFeed {
        let ring = rt.world().ring.clone();
        // Start with the newest state, so a new subscriber sees the world at once.
        let cursor = ring.head().saturating_sub(1);
        StateFeed {
            rt,
            sub,
            cursor,
            next_deliver: cursor,
            decimation: decimation.max(1) as u64,
            latest_only,
            dropped: 0,
            buf: Vec::with_capacity(ring.words),
            ring,
        }
    }

    pub fn view(&self) -> FrameView<'_> {
        FrameView::new(&self.buf, &self.ring)
    }

    fn lose(&mut self, n: u64) {
        if n > 0 {
            self.dropped += n;
            self.rt
                .shared
                .frames_dropped
                .fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Ready(Some) with the next frame in `buf`; Ready(None) on shutdown.
    pub fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<()>> {
        loop {
            if self.rt.shared.is_shutting_down() {
                return Poll::Ready(None);
            }
            if self.ring.retired() {
                let v = self.rt.world();
                if !Arc::ptr_eq(&v.ring, &self.ring) {
                    self.ring = v.ring.clone();
                    self.cursor = self.ring.oldest();
                    self.next_deliver = self.cursor;
                }
            }
            let head = self.ring.head();
            if self.cursor < self.next_deliver && head > self.next_deliver {
                self.cursor = self.next_deliver;
            }
            if self.cursor < head && self.cursor >= self.next_deliver {
                if self.latest_only && head - 1 > self.cursor {
                    self.lose((head - 1 - self.cursor) / self.decimation);
                    self.cursor = head - 1;
                }
                let oldest = self.ring.oldest();
                if self.cursor < oldest {
                    self.lose((oldest - self.cursor).div_ceil(self.decimation));
                    self.cursor = oldest;
                }
                let f = self.cursor;
                self.cursor += 1;
                match self.ring.read(f, &mut self.buf) {
                    Read::Ok => {
                        self.next_deliver = f + self.decimation;
                        return Poll::Ready(Some(()));
                    }
                    Read::Lost => {
                        self.lose(1);
                        self.next_deliver = self.cursor;
                        continue;
                    }
                    Read::NotYet => {}
                }
            }
            // Nothing to deliver: ask the physics thread for a wake-up at the next
            // frame we want, then look again (no lost wake-up between the two).
            let slot = self.sub.slot();
            slot.waker.register(cx.waker());
            let want = self.cursor.max(self.next_deliver);
            slot.next_wake.store(want, Ordering::SeqCst);
            if self.ring.head() > want || self.ring.retired() || self.rt.shared.is_shutting_down() {
                continue;
            }
            return Poll::Pending;
        }
    }

    /// Copy the newest frame into `buf` (for replies that must not wait).
    pub fn read_latest(&mut self) -> bool {
        self.ring.read_latest(&mut self.buf).is_some()
    }
}

/// The next client message a bidirectional stream has ready in this poll: `None`
/// while none is ready (the waker is registered) or once the client half-closed
/// (`done` set); an error that ends the stream (a message that does not decode, a
/// reset stream or a broken connection: a status, never OK) as `Some(Err)`.
fn next_inbound<T>(
    inbound: &mut Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>,
    done: &mut bool,
    cx: &mut Context<'_>,
) -> Option<Result<T, Status>> {
    if *done {
        return None;
    }
    match inbound.as_mut().poll_next(cx) {
        Poll::Ready(Some(msg)) => Some(msg.map_err(inbound_error)),
        Poll::Ready(None) => {
            *done = true;
            None
        }
        Poll::Pending => None,
    }
}

/// An error of a Control stream's inbound side as the stream's final status: a
/// message that does not decode is the client's fault (INVALID_ARGUMENT, with
/// tonic's description); a reset or broken connection keeps its own status.
pub fn inbound_error(e: Status) -> Status {
    if e.code() == tonic::Code::Internal || e.code() == tonic::Code::InvalidArgument {
        Status::invalid_argument(format!("malformed ControlRequest: {}", e.message()))
    } else {
        e
    }
}

fn shutting_down() -> Status {
    Status::unavailable("server is shutting down")
}

/// `StreamState`: frames out, decimated, with field selection.
pub struct StateStream {
    feed: StateFeed,
    sel: Selection,
    ended: bool,
}

impl StateStream {
    pub fn new(feed: StateFeed, sel: Selection) -> Self {
        StateStream {
            feed,
            sel,
            ended: false,
        }
    }
}

impl Stream for StateStream {
    type Item = Result<pb::State, Status>;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let me = self.get_mut();
        if me.ended {
            return Poll::Ready(None);
        }
        match me.feed.poll_frame(cx) {
            Poll::Ready(Some(())) => {
                let mut st = convert::state_from_frame(&me.feed.view(), &me.sel);
                st.dropped = me.feed.dropped;
                st.send_time_ns = mono_ns();
                Poll::Ready(Some(Ok(st)))
            }
            Poll::Ready(None) => {
                me.ended = true;
                Poll::Ready(Some(Err(shutting_down())))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// A Control stream's inbound side (tonic's, or through network injection).
pub type Inbound = Pin<Box<dyn Stream<Item = Result<pb::ControlRequest, Status>> + Send>>;

/// `Control`: commands in (validated and queued inside this poll), states out.
pub struct ControlStream {
    rt: Runtime,
    inbound: Inbound,
    inbound_done: bool,
    ctrl: CtrlGuard,
    feed: StateFeed,
    sel: Selection,
    view: Arc<WorldView>,
    errors: Vec<pb::CommandError>,
    last_pushed_seq: u64,
    last_acked_seq: u64,
    ended: bool,
}

impl ControlStream {
    pub fn new(
        rt: Runtime,
        inbound: Inbound,
        ctrl: CtrlGuard,
        feed: StateFeed,
        sel: Selection,
    ) -> Self {
        let view = rt.world();
        ControlStream {
            rt,
            inbound,
            inbound_done: false,
            ctrl,
            feed,
            sel,
            view,
            errors: Vec::new(),
            last_pushed_seq: 0,
            last_acked_seq: 0,
            ended: false,
        }
    }

    pub fn stream_id(&self) -> u64 {
        self.ctrl.stream_id
    }

    /// Validate and queue one command; a rejected command is reported in the next
    /// state and never reaches physics. A protocol error (a second hello, an empty
    /// message) is returned: it ends the stream with INVALID_ARGUMENT.
    pub fn handle(&mut self, req: pb::ControlRequest) -> Result<(), Status> {
        let recv_ns = mono_ns();
        let r = match req.msg {
            Some(pb::control_request::Msg::Command(c)) => {
                if self.view.gen != self.rt.world().gen {
                    self.view = self.rt.world();
                }
                let seq = c.header.as_ref().map(|h| h.seq).unwrap_or(0);
                if seq <= self.last_pushed_seq {
                    // Sequence numbers strictly increase per stream (acks never go back).
                    self.rt.shared.stale_seq.fetch_add(1, Ordering::Relaxed);
                    self.reject(
                        seq,
                        SimError::FailedPrecondition(format!(
                            "command.header.seq: {seq} is not above the last accepted {} \
                             (sequence numbers strictly increase per stream, from 1)",
                            self.last_pushed_seq
                        )),
                    );
                    return Ok(());
                }
                let lim = &self.rt.shared.cfg.limits;
                convert::control_command(
                    &c,
                    &self.view,
                    lim,
                    self.ctrl.slot,
                    self.ctrl.stream_id,
                    recv_ns,
                )
                .and_then(|input| self.rt.submit(input))
                .map(|()| seq)
                .map_err(|e| (seq, e))
            }
            Some(pb::control_request::Msg::Hello(_)) => {
                return Err(Status::invalid_argument(
                    "hello: ControlHello is only accepted as the first message",
                ))
            }
            None => {
                return Err(Status::invalid_argument(
                    "msg: empty ControlRequest (neither hello nor command)",
                ))
            }
        };
        match r {
            Ok(seq) => self.last_pushed_seq = seq,
            Err((seq, e)) => self.reject(seq, e),
        }
        Ok(())
    }

    fn reject(&mut self, seq: u64, e: SimError) {
        self.rt.shared.controllers[self.ctrl.slot]
            .rejected
            .fetch_add(1, Ordering::Relaxed);
        if self.errors.len() < 64 {
            self.errors.push(pb::CommandError {
                seq,
                code: e.code(),
                message: e.to_string(),
            });
        }
    }

    fn state(&mut self) -> pb::State {
        let v = self.feed.view();
        let mut st = convert::state_from_frame(&v, &self.sel);
        if let Some(a) = (0..v.nctrl).find_map(|c| {
            convert::ack_from_frame(&v, c).filter(|a| a.stream_id == self.ctrl.stream_id)
        }) {
            self.last_acked_seq = a.seq;
            if !self.sel.acks {
                st.acks.push(a);
            }
        }
        st.stream_id = self.ctrl.stream_id;
        st.dropped = self.feed.dropped;
        st.errors = std::mem::take(&mut self.errors);
        st.send_time_ns = mono_ns();
        st
    }
}

impl Stream for ControlStream {
    type Item = Result<pb::State, Status>;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let me = self.get_mut();
        if me.ended {
            return Poll::Ready(None);
        }
        // 1. Commands in: decode, validate, queue, all in this poll.
        while let Some(msg) = next_inbound(&mut me.inbound, &mut me.inbound_done, cx) {
            if let Err(st) = msg.and_then(|req| me.handle(req)) {
                me.ended = true;
                return Poll::Ready(Some(Err(st)));
            }
        }
        // 2. States out.
        match me.feed.poll_frame(cx) {
            Poll::Ready(Some(())) => return Poll::Ready(Some(Ok(me.state()))),
            Poll::Ready(None) => {
                me.ended = true;
                return Poll::Ready(Some(Err(shutting_down())));
            }
            Poll::Pending => {}
        }
        // A rejected command is answered at once, even if no tick is coming.
        if !me.errors.is_empty() && me.feed.read_latest() {
            return Poll::Ready(Some(Ok(me.state())));
        }
        // 3. The client closed its side: end once its last command is acknowledged.
        if me.inbound_done && me.last_acked_seq >= me.last_pushed_seq {
            me.ended = true;
            return Poll::Ready(None);
        }
        Poll::Pending
    }
}

/// A Haptic stream's inbound side (tonic's, or through network injection).
pub type HapticInbound = Pin<Box<dyn Stream<Item = Result<pb::HapticRequest, Status>> + Send>>;

/// `Haptic`: device samples in (validated and queued inside this poll), one
/// feedback per tick out — the newest rendered output (a stream that fell behind
/// skips to it and counts the skipped ones in `dropped`).
pub struct HapticStream {
    rt: Runtime,
    inbound: HapticInbound,
    inbound_done: bool,
    guard: crate::runtime::HapticGuard,
    view: Arc<WorldView>,
    errors: Vec<pb::CommandError>,
    last_seq: u64,
    last_out: Option<crate::haptics::render::HapticOut>,
    dropped: u64,
    ended: bool,
    /// The last samples queued (seq, device position, orientation): the viewer's
    /// target is the one the feedback names as applied.
    sent: std::collections::VecDeque<(u64, crate::math::Vec3, crate::math::Quat)>,
}

/// Samples remembered for the viewer's target (the physics thread applies one of
/// the latest few; older seqs fall back to the newest remembered).
const SENT_KEPT: usize = 64;

impl HapticStream {
    pub fn new(rt: Runtime, inbound: HapticInbound, guard: crate::runtime::HapticGuard) -> Self {
        let view = rt.world();
        HapticStream {
            rt,
            inbound,
            inbound_done: false,
            guard,
            view,
            errors: Vec::new(),
            last_seq: 0,
            last_out: None,
            dropped: 0,
            ended: false,
            sent: std::collections::VecDeque::with_capacity(SENT_KEPT),
        }
    }

    fn reject(&mut self, seq: u64, e: SimError) {
        if self.errors.len() < 64 {
            self.errors.push(pb::CommandError {
                seq,
                code: e.code(),
                message: e.to_string(),
            });
        }
    }

    /// Validate and queue one sample; a protocol error ends the stream.
    fn handle(&mut self, req: pb::HapticRequest) -> Result<(), Status> {
        let recv_ns = mono_ns();
        let s = match req.msg {
            Some(pb::haptic_request::Msg::Sample(s)) => s,
            Some(pb::haptic_request::Msg::Hello(_)) => {
                return Err(Status::invalid_argument(
                    "hello: HapticHello is only accepted as the first message",
                ))
            }
            None => {
                return Err(Status::invalid_argument(
                    "msg: empty HapticRequest (neither hello nor sample)",
                ))
            }
        };
        if self.rt.world().gen != self.view.gen {
            return Err(Status::failed_precondition(
                "the world changed (LoadScene) while the device was connected; reopen the stream",
            ));
        }
        if s.seq <= self.last_seq {
            self.reject(
                s.seq,
                SimError::FailedPrecondition(format!(
                    "sample.seq: {} is not above the last accepted {} (strictly increasing, from 1)",
                    s.seq, self.last_seq
                )),
            );
            return Ok(());
        }
        let Some(spec) = self.view.model.haptics.get(self.guard.device) else {
            return Err(Status::failed_precondition("the device left the world"));
        };
        let r = convert::device_sample(&s, spec, recv_ns).and_then(|sample| {
            self.rt
                .submit_haptic(crate::runtime::HapticInput {
                    device: self.guard.device as u32,
                    gen: self.view.gen,
                    stream_id: self.guard.stream_id,
                    sample,
                })
                .map(|()| sample)
        });
        match r {
            Ok(sample) => {
                self.last_seq = s.seq;
                if self.sent.len() == SENT_KEPT {
                    self.sent.pop_front();
                }
                self.sent.push_back((sample.seq, sample.x, sample.q));
            }
            Err(e) => self.reject(s.seq, e),
        }
        Ok(())
    }

    /// The coupling as this feedback reports it, for the web viewer (world frame).
    fn publish_view(&self, o: &crate::haptics::render::HapticOut) {
        let Some(spec) = self.view.model.haptics.get(self.guard.device) else {
            return;
        };
        let m = &spec.mapping;
        let target = match self.sent.iter().rev().find(|(seq, ..)| *seq <= o.seq) {
            Some((_, x, q)) if o.seq > 0 => m.pose_to_world(x, q),
            _ => spec.tool_pose0,
        };
        let pose7 = |p: &crate::math::Pose| {
            let (t, r) = (p.translation.vector, p.rotation);
            [t.x, t.y, t.z, r.w, r.i, r.j, r.k]
        };
        let f = m.rotation * o.force / m.scale;
        self.guard.set_view(crate::runtime::HapticView {
            gen: self.view.gen,
            tick: o.tick,
            seq: o.seq,
            target: pose7(&target),
            tool: pose7(&o.tool),
            force: [f.x, f.y, f.z],
            contact: o.contact,
        });
    }

    fn feedback(&mut self, o: &crate::haptics::render::HapticOut) -> pb::HapticFeedback {
        self.publish_view(o);
        let mut fb = convert::haptic_feedback(o, self.view.gen);
        fb.errors = std::mem::take(&mut self.errors);
        fb.dropped = self.dropped;
        fb
    }
}

impl Stream for HapticStream {
    type Item = Result<pb::HapticFeedback, Status>;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let me = self.get_mut();
        if me.ended {
            return Poll::Ready(None);
        }
        if me.rt.shared.is_shutting_down() {
            me.ended = true;
            return Poll::Ready(Some(Err(shutting_down())));
        }
        // 1. Samples in.
        while let Some(msg) = next_inbound(&mut me.inbound, &mut me.inbound_done, cx) {
            if let Err(st) = msg.and_then(|req| me.handle(req)) {
                me.ended = true;
                return Poll::Ready(Some(Err(st)));
            }
        }
        if me.inbound_done {
            me.ended = true;
            return Poll::Ready(None);
        }
        // 2. The newest rendered output (register first: no lost wake-up).
        me.guard.slot().waker.register(cx.waker());
        let mut newest = None;
        while let Some(o) = me.guard.slot().out.pop() {
            if newest.is_some() {
                me.dropped += 1;
            }
            newest = Some(o);
        }
        if let Some(o) = newest {
            me.last_out = Some(o);
            return Poll::Ready(Some(Ok(me.feedback(&o))));
        }
        // A rejected sample is answered at once, even if no tick is coming.
        if !me.errors.is_empty() {
            let o = me.last_out.unwrap_or_else(|| {
                let h = &me.view.model.haptics[me.guard.device];
                crate::haptics::render::HapticState::new(h, &me.view.model).out
            });
            return Poll::Ready(Some(Ok(me.feedback(&o))));
        }
        Poll::Pending
    }
}
