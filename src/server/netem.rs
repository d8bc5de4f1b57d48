//! Network condition injection (per stream, `NetworkConditions` in the ControlHello
//! or the StreamStateRequest): a stream adapter on the network side that drops each
//! message with a seeded probability and delivers the others a fixed delay plus a
//! uniform jitter later, in order. The physics thread never sees it: a delayed
//! command is validated and queued when it is delivered, a delayed state was
//! published when it would have been sent.

use super::pb;
use crate::math::SplitMix64;
use crate::runtime::SimError;
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::time::{Instant, Sleep};
use tokio_stream::Stream;
use tonic::Status;

/// Largest delay or jitter, s.
pub const MAX_DELAY_S: f64 = 10.0;
/// Messages held back at most (beyond: dropped and counted).
pub const MAX_HELD: usize = 1 << 15;

/// One direction's conditions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conditions {
    pub delay_s: f64,
    pub jitter_s: f64,
    pub loss: f64,
    pub seed: u64,
}

impl Conditions {
    fn active(&self) -> bool {
        self.delay_s > 0.0 || self.jitter_s > 0.0 || self.loss > 0.0
    }
}

fn check(v: f64, field: String, hi: f64) -> Result<f64, SimError> {
    if !v.is_finite() || !(0.0..=hi).contains(&v) {
        return Err(SimError::invalid(
            field,
            format!("{v} is out of range: must be in [0, {hi}]"),
        ));
    }
    Ok(v)
}

/// Validate `n`: (command path, state path); `None` = no injection on that path.
pub fn from_pb(
    n: Option<&pb::NetworkConditions>,
    prefix: &str,
) -> Result<(Option<Conditions>, Option<Conditions>), SimError> {
    let Some(n) = n else {
        return Ok((None, None));
    };
    let f = |k: &str| format!("{prefix}network.{k}");
    let seed = if n.seed == 0 {
        0x005e_ed0f_6e7e_0001
    } else {
        n.seed
    };
    let cmd = Conditions {
        delay_s: check(n.command_delay_s, f("command_delay_s"), MAX_DELAY_S)?,
        jitter_s: check(n.command_jitter_s, f("command_jitter_s"), MAX_DELAY_S)?,
        loss: check(n.command_loss, f("command_loss"), 1.0)?,
        seed,
    };
    let state = Conditions {
        delay_s: check(n.state_delay_s, f("state_delay_s"), MAX_DELAY_S)?,
        jitter_s: check(n.state_jitter_s, f("state_jitter_s"), MAX_DELAY_S)?,
        loss: check(n.state_loss, f("state_loss"), 1.0)?,
        // Another stream of numbers for the other direction.
        seed: seed ^ 0x9e37_79b9_7f4a_7c15,
    };
    Ok((cmd.active().then_some(cmd), state.active().then_some(state)))
}

/// A stream of `Result<T, Status>` passed through the conditions (errors and the end
/// of the stream are never dropped; they come after what is held back).
pub struct Netem<S: Stream> {
    inner: S,
    cond: Option<Conditions>,
    rng: SplitMix64,
    held: VecDeque<(Instant, S::Item)>,
    last: Option<Instant>,
    sleep: Pin<Box<Sleep>>,
    done: bool,
    /// Messages dropped by the loss setting (or because too many were held).
    pub dropped: u64,
}

impl<S, T> Netem<S>
where
    S: Stream<Item = Result<T, Status>> + Unpin,
{
    pub fn new(inner: S, cond: Option<Conditions>) -> Self {
        Netem {
            inner,
            rng: SplitMix64::new(cond.map(|c| c.seed).unwrap_or(1)),
            cond,
            held: VecDeque::new(),
            last: None,
            sleep: Box::pin(tokio::time::sleep(std::time::Duration::ZERO)),
            done: false,
            dropped: 0,
        }
    }

    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S, T> Stream for Netem<S>
where
    S: Stream<Item = Result<T, Status>> + Unpin,
    T: Unpin,
{
    type Item = Result<T, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let me = self.get_mut();
        let Some(c) = me.cond else {
            return Pin::new(&mut me.inner).poll_next(cx);
        };
        loop {
            while !me.done {
                match Pin::new(&mut me.inner).poll_next(cx) {
                    Poll::Ready(Some(item)) => {
                        let now = Instant::now();
                        if item.is_ok() {
                            // Two draws per message, whatever the outcome (reproducible).
                            let lose = me.rng.next_f64() < c.loss;
                            let j = me.rng.next_f64() * c.jitter_s;
                            if lose || me.held.len() >= MAX_HELD {
                                me.dropped += 1;
                                continue;
                            }
                            let mut at = now + std::time::Duration::from_secs_f64(c.delay_s + j);
                            if let Some(l) = me.last {
                                at = at.max(l);
                            }
                            me.last = Some(at);
                            me.held.push_back((at, item));
                        } else {
                            let at = me.last.map_or(now, |l| l.max(now));
                            me.held.push_back((at, item));
                            me.done = true;
                        }
                    }
                    Poll::Ready(None) => me.done = true,
                    Poll::Pending => break,
                }
            }
            match me.held.front() {
                Some(&(at, _)) => {
                    if at <= Instant::now() {
                        if let Some((_, item)) = me.held.pop_front() {
                            return Poll::Ready(Some(item));
                        }
                    }
                    me.sleep.as_mut().reset(at);
                    if std::future::Future::poll(me.sleep.as_mut(), cx).is_ready() {
                        continue;
                    }
                    return Poll::Pending;
                }
                None if me.done => return Poll::Ready(None),
                None => return Poll::Pending,
            }
        }
    }
}
