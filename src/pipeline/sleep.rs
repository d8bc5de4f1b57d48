//! Sleeping islands (docs/ARCHITECTURE.md "Sleeping islands"): bodies whose
//! island of touching bodies has stayed at rest for `rest_time` sleep and cost
//! ≈ 0 until something wakes the island.
//!
//! The stages, in the outline of `Pipeline::step_with`:
//!
//! ```text
//! wake        after the broad phase: union–find over the bodies joined by the
//!             touching pairs (and by a candidate pair of a sleeping body with an
//!             awake moving one) and robots' links; an island holding an awake
//!             body or an input (xfrc ≠ 0, a robot's qfrc_cmd ≠ 0) wakes whole
//! activate    the pairs with no awake moving side and a sleeping one leave the
//!             candidates (and `Data::pairs`) for the step: no narrow phase, no
//!             rows; their memory waits, frozen, in the workspace
//! inputs      a wrench landing on a sleeping island wakes it; its pairs join
//!             the step and get their narrow phase (appended)
//! mask        sleeping bodies (and robots) are treated as static by the
//!             steppers and the CCD: `Data::frozen` (robots' `frozen`) holds
//!             frozen ∪ asleep while the method advances
//! deactivate  pair memory scattered back, contacts' pair indices mapped back,
//!             the quarantine's flags restored
//! fall asleep at the end of the step: each body's time under (v_rest, w_rest)
//!             grows by h (else 0); an island all of whose bodies have
//!             rest_s ≥ rest_time sleeps with v = ω = 0 (q̇ = 0 for a robot)
//! ```
//!
//! Static bodies and quarantined ones cut the graph; a robot is one node (its
//! link proxies joined). Roots are the lowest body index of an island (the
//! smaller root wins every union), bodies visited in index order: the same
//! state gives the same islands. Rigid IPC never sleeps (its barrier couples
//! every pair closer than d̂, touching or not).

use super::CollideWorkspace;
use crate::data::{Data, PairState};
use crate::math::Wrench;
use crate::model::{BodyKind, Method, Model};

/// Root of `x` with path halving.
#[inline]
pub(crate) fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let g = parent[parent[x as usize] as usize];
        parent[x as usize] = g;
        x = g;
    }
    x
}

/// Join the sets of `a` and `b`; the smaller root wins (independent of the
/// order of the unions).
#[inline]
pub(crate) fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        parent[hi as usize] = lo;
    }
}

/// The working memory of the sleeping stages (not state).
#[derive(Clone, Debug, Default)]
pub struct SleepWorkspace {
    parent: Vec<u32>,
    /// Per root: the island wakes (wake stage) / may sleep (fall-asleep stage).
    flag: Vec<bool>,
    /// Whether `col.candidates` / `data.pairs` hold the active subset now.
    active: bool,
    full_candidates: Vec<(u32, u32)>,
    full_pairs: Vec<PairState>,
    /// Per active pair, its index in the full list; per full pair, whether active.
    active_of: Vec<usize>,
    is_active: Vec<bool>,
    /// The edit stamp (`Data::edits`) of the last activate that chose the pairs:
    /// while it holds (the same sleeping and frozen sets) and the candidates are
    /// last step's (`FixedGeoms::unchanged`), so are the active pairs.
    active_edits: Option<u64>,
    /// The quarantine's flags while the mask is on.
    frozen: Vec<bool>,
    robot_frozen: Vec<bool>,
    masked: bool,
}

impl SleepWorkspace {
    pub fn new(model: &Model) -> Self {
        let nb = model.nbody();
        let np = crate::collision::capacity::PAIRS_PER_GEOM * model.ngeom();
        SleepWorkspace {
            parent: Vec::with_capacity(nb),
            flag: Vec::with_capacity(nb),
            full_candidates: Vec::with_capacity(np),
            full_pairs: Vec::with_capacity(np),
            active_of: Vec::with_capacity(np),
            is_active: Vec::with_capacity(np),
            frozen: Vec::with_capacity(nb),
            robot_frozen: Vec::with_capacity(model.robots.len()),
            ..Default::default()
        }
    }
}

/// Whether the world sleeps at all.
#[inline]
pub fn enabled(model: &Model) -> bool {
    model.opt.sleep.enabled && !matches!(model.opt.method, Method::Ipc(_))
}

/// Whether body `b` is a node of the island graph: a free body or a robot link
/// proxy, not quarantined.
#[inline]
fn node(model: &Model, data: &Data, b: usize) -> bool {
    match model.bodies[b].kind {
        BodyKind::Static => false,
        BodyKind::Free => !data.frozen[b],
        BodyKind::Link { robot, .. } => {
            !data.robots[robot as usize].frozen
                && model.robots[robot as usize]
                    .link_body
                    .iter()
                    .flatten()
                    .next()
                    .is_some()
        }
    }
}

/// Whether body `b` moves faster than the rest thresholds.
#[inline]
fn moving(model: &Model, data: &Data, b: usize) -> bool {
    let p = &model.opt.sleep;
    let s = &data.state[b];
    s.v.norm() > p.v_rest || s.w.norm() > p.w_rest
}

/// Whether an input acts on body `b`: a wrench, or (a link) its robot's joint
/// commands.
#[inline]
fn driven(model: &Model, data: &Data, b: usize) -> bool {
    if data.xfrc[b] != Wrench::ZERO {
        return true;
    }
    match model.bodies[b].kind {
        BodyKind::Link { robot, .. } => {
            let r = &model.robots[robot as usize];
            data.qfrc_cmd[r.v_offset..r.v_offset + r.nv()]
                .iter()
                .any(|&t| t != 0.0)
        }
        _ => false,
    }
}

/// The two bodies of a pair.
#[inline]
fn bodies(model: &Model, p: &PairState) -> (usize, usize) {
    (
        model.geoms[p.geom_a as usize].body,
        model.geoms[p.geom_b as usize].body,
    )
}

/// Union–find over the nodes: robots' links joined, and each pair between two
/// nodes for which `edge(pair, a, b)` holds.
fn islands(
    model: &Model,
    data: &Data,
    pairs: &[PairState],
    parent: &mut Vec<u32>,
    mut edge: impl FnMut(&PairState, usize, usize) -> bool,
) {
    parent.clear();
    parent.extend(0..model.nbody() as u32);
    for r in &model.robots {
        let mut links = r.link_body.iter().flatten();
        if let Some(&first) = links.next() {
            for &l in links {
                union(parent, first as u32, l as u32);
            }
        }
    }
    for p in pairs {
        let (a, b) = bodies(model, p);
        if a != b && node(model, data, a) && node(model, data, b) && edge(p, a, b) {
            union(parent, a as u32, b as u32);
        }
    }
}

/// Whether the world sleeps and some body sleeps now (O(1): the awake list is
/// shorter than the bodies).
#[inline]
pub(crate) fn some_asleep(model: &Model, data: &Data) -> bool {
    enabled(model) && data.awake.len() < data.asleep.len()
}

/// Wake stage (module doc), after the broad phase: whole islands wake when they
/// hold an awake body (one that touches them, one moving into their boxes, one
/// woken by [`Data::wake`]) or a driven one. `bridge`: whether a candidate pair
/// may join a sleeping body to another (`collide::FixedGeoms::bridge`); without
/// one, and with no sleeping body driven, no island can wake and the pairs are
/// not walked. Returns whether any body still sleeps; `data.stats.sleeping`
/// counts them.
pub(crate) fn wake(model: &Model, data: &mut Data, sw: &mut SleepWorkspace, bridge: bool) -> bool {
    // A step unwound by a panic (the runtime catches it; Reset restores `Data`)
    // leaves the flags of its activate/mask stages: the broad phase has rebuilt
    // the full lists, so they only need clearing.
    sw.active = false;
    sw.masked = false;
    if !some_asleep(model, data) {
        data.stats.sleeping = 0;
        return false;
    }
    // An island of sleeping bodies alone wakes only by an input.
    if !bridge && !(0..model.nbody()).any(|b| data.asleep[b] && driven(model, data, b)) {
        data.stats.sleeping = data.asleep.iter().filter(|&&s| s).count();
        return true;
    }
    let SleepWorkspace { parent, flag, .. } = sw;
    {
        let d: &Data = data;
        islands(model, d, &d.pairs, parent, |p, a, b| {
            p.touching
                || (d.asleep[a] != d.asleep[b] && (moving(model, d, a) || moving(model, d, b)))
        });
    }
    flag.clear();
    flag.resize(model.nbody(), false);
    for b in 0..model.nbody() {
        if node(model, data, b) && (!data.asleep[b] || driven(model, data, b)) {
            flag[find(parent, b as u32) as usize] = true;
        }
    }
    wake_flagged(data, parent, flag)
}

/// Wake every sleeping body whose root is flagged; returns whether any sleeps.
/// (A wake changes the sleeping set: the awake list is rebuilt and the edit
/// stamp renewed.)
fn wake_flagged(data: &mut Data, parent: &mut [u32], flag: &[bool]) -> bool {
    let mut sleeping = 0;
    let mut woke = false;
    for b in 0..data.asleep.len() {
        if data.asleep[b] {
            if flag[find(parent, b as u32) as usize] {
                data.asleep[b] = false;
                data.rest_s[b] = 0.0;
                woke = true;
            } else {
                sleeping += 1;
            }
        }
    }
    if woke {
        data.rebuild_awake();
        data.edited();
    }
    data.stats.sleeping = sleeping;
    sleeping > 0
}

/// Whether a pair takes part in the step: not (no awake node on either side and
/// a sleeping body on one).
#[inline]
fn pair_active(model: &Model, data: &Data, p: &PairState) -> bool {
    let (a, b) = bodies(model, p);
    let awake = |x: usize| node(model, data, x) && !data.asleep[x];
    !(data.asleep[a] || data.asleep[b]) || awake(a) || awake(b)
}

/// Activate stage (module doc): `col.candidates` and `data.pairs` become the
/// pairs of the step; the full lists wait in the workspace.
pub(crate) fn activate(
    model: &Model,
    data: &mut Data,
    col: &mut CollideWorkspace,
    sw: &mut SleepWorkspace,
) {
    std::mem::swap(&mut col.candidates, &mut sw.full_candidates);
    std::mem::swap(&mut data.pairs, &mut sw.full_pairs);
    col.candidates.clear();
    data.pairs.clear();
    col.fixed.in_step = true;
    if col.fixed.unchanged && sw.active_edits == Some(data.edits) {
        // The candidates, the pairs' keys and the sleeping and frozen sets are
        // last step's: so are the active pairs (O(active)).
        for &i in &sw.active_of {
            col.candidates.push(sw.full_candidates[i]);
            data.pairs.push(sw.full_pairs[i]);
        }
        sw.active = true;
        return;
    }
    sw.active_edits = Some(data.edits);
    sw.active_of.clear();
    sw.is_active.clear();
    for (i, (p, &c)) in sw.full_pairs.iter().zip(&sw.full_candidates).enumerate() {
        let on = pair_active(model, data, p);
        sw.is_active.push(on);
        if on {
            col.candidates.push(c);
            data.pairs.push(*p);
            sw.active_of.push(i);
        }
    }
    sw.active = true;
}

/// Inputs stage (module doc): islands with a sleeping body that an input now
/// drives wake; their pairs are appended to the step's. Returns the index of
/// the first appended candidate if any were (their narrow phase is owed).
pub(crate) fn wake_driven(
    model: &Model,
    data: &mut Data,
    col: &mut CollideWorkspace,
    sw: &mut SleepWorkspace,
) -> Option<usize> {
    if !sw.active {
        return None;
    }
    let nb = model.nbody();
    if !(0..nb).any(|b| data.asleep[b] && driven(model, data, b)) {
        return None;
    }
    // The wake stage's islands still hold (nothing moved since).
    let SleepWorkspace {
        parent,
        flag,
        full_candidates,
        full_pairs,
        active_of,
        is_active,
        ..
    } = sw;
    flag.iter_mut().for_each(|f| *f = false);
    for b in 0..nb {
        if data.asleep[b] && driven(model, data, b) {
            flag[find(parent, b as u32) as usize] = true;
        }
    }
    wake_flagged(data, parent, flag);
    let first = col.candidates.len();
    for (i, (p, &c)) in full_pairs.iter().zip(full_candidates.iter()).enumerate() {
        if !is_active[i] && pair_active(model, data, p) {
            is_active[i] = true;
            col.candidates.push(c);
            data.pairs.push(*p);
            active_of.push(i);
        }
    }
    (col.candidates.len() > first).then_some(first)
}

/// Mask stage (module doc): sleeping bodies and robots count as frozen while the
/// method advances.
pub(crate) fn mask(model: &Model, data: &mut Data, sw: &mut SleepWorkspace) {
    if !sw.active {
        return;
    }
    sw.frozen.clear();
    sw.frozen.extend_from_slice(&data.frozen);
    for (f, &s) in data.frozen.iter_mut().zip(&data.asleep) {
        *f |= s;
    }
    sw.robot_frozen.clear();
    sw.robot_frozen.extend(data.robots.iter().map(|r| r.frozen));
    for (r, rd) in model.robots.iter().zip(data.robots.iter_mut()) {
        if let Some(&b) = r.link_body.iter().flatten().next() {
            rd.frozen |= data.asleep[b];
        }
    }
    sw.masked = true;
}

/// Deactivate stage (module doc): the quarantine's flags back, the step's pair
/// memory scattered into the full list, contacts' pair indices mapped to it.
pub(crate) fn deactivate(data: &mut Data, col: &mut CollideWorkspace, sw: &mut SleepWorkspace) {
    if sw.masked {
        data.frozen.copy_from_slice(&sw.frozen);
        for (rd, &f) in data.robots.iter_mut().zip(&sw.robot_frozen) {
            rd.frozen = f;
        }
        sw.masked = false;
    }
    if !sw.active {
        return;
    }
    for (p, &i) in data.pairs.iter().zip(&sw.active_of) {
        sw.full_pairs[i] = *p;
    }
    for m in data.contact_pair.iter_mut() {
        if let Some(&i) = sw.active_of.get(*m) {
            *m = i;
        }
    }
    std::mem::swap(&mut col.candidates, &mut sw.full_candidates);
    std::mem::swap(&mut data.pairs, &mut sw.full_pairs);
    col.fixed.in_step = false;
    sw.active = false;
}

/// Fall-asleep stage (module doc), at the end of the step.
pub(crate) fn fall_asleep(model: &Model, data: &mut Data, sw: &mut SleepWorkspace, h: f64) {
    if !enabled(model) {
        return;
    }
    let p = model.opt.sleep;
    // Rest clocks: free bodies (the awake ones: the awake list). Whether one of
    // them (or a robot) has rested long enough to fall asleep: if none has, no
    // island can (an island sleeps only when all its awake nodes have), and the
    // islands are not built.
    let mut ripe = false;
    for i in 0..data.awake.len() {
        let b = data.awake[i] as usize;
        if model.bodies[b].kind == BodyKind::Free && node(model, data, b) {
            let rest = !moving(model, data, b) && !driven(model, data, b);
            data.rest_s[b] = if rest { data.rest_s[b] + h } else { 0.0 };
            ripe |= data.rest_s[b] >= p.rest_time;
        }
    }
    // Robots: every link proxy and every joint rate under the thresholds.
    let q_rest = p.v_rest.min(p.w_rest);
    for (ri, r) in model.robots.iter().enumerate() {
        let Some(&first) = r.link_body.iter().flatten().next() else {
            continue;
        };
        if data.robots[ri].frozen || data.asleep[first] {
            continue;
        }
        let rest = r
            .link_body
            .iter()
            .flatten()
            .all(|&b| !moving(model, data, b) && data.xfrc[b] == Wrench::ZERO)
            && data.qvel[r.v_offset..r.v_offset + r.nv()]
                .iter()
                .all(|q| q.abs() <= q_rest)
            && !driven(model, data, first);
        let t = if rest { data.rest_s[first] + h } else { 0.0 };
        for &b in r.link_body.iter().flatten() {
            data.rest_s[b] = t;
        }
        ripe |= t >= p.rest_time;
    }
    // Nothing awake has rested long enough: nothing falls asleep (the islands
    // are not built).
    if !ripe {
        data.stats.sleeping = (0..model.nbody())
            .filter(|&b| data.asleep[b] && node(model, data, b))
            .count();
        return;
    }
    // Islands of touching bodies; one not at rest keeps its island awake.
    let SleepWorkspace { parent, flag, .. } = sw;
    {
        let d: &Data = data;
        islands(model, d, &d.pairs, parent, |p, _, _| p.touching);
    }
    flag.clear();
    flag.resize(model.nbody(), true);
    for b in 0..model.nbody() {
        if node(model, data, b) && !data.asleep[b] && data.rest_s[b] < p.rest_time {
            flag[find(parent, b as u32) as usize] = false;
        }
    }
    let mut sleeping = 0;
    let mut robot_slept = false;
    let mut slept = false;
    for b in 0..model.nbody() {
        if !node(model, data, b) {
            continue;
        }
        if !data.asleep[b] && flag[find(parent, b as u32) as usize] {
            if !slept {
                // The fixed geoms' memory must not be taken for this one.
                data.edited();
                slept = true;
            }
            data.asleep[b] = true;
            let s = &mut data.state[b];
            s.v.fill(0.0);
            s.w.fill(0.0);
            if let BodyKind::Link { robot, .. } = model.bodies[b].kind {
                let r = &model.robots[robot as usize];
                data.qvel[r.v_offset..r.v_offset + r.nv()].fill(0.0);
                robot_slept = true;
            }
        }
        sleeping += data.asleep[b] as usize;
    }
    if slept {
        data.rebuild_awake();
    }
    if robot_slept {
        data.pose_links(model);
    }
    data.stats.sleeping = sleeping;
}
