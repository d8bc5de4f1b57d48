//! PEG against static boxes laid flush (`model::seams`): a box with a covered
//! face takes part as its extended box, whose features have no edge or face at
//! the seam, and the pair keeps the constraints that act over the box itself.
//!
//! Each fundamental constraint (Sec. 3: U, I, X) acts at one place — the
//! contacts of an I or X constraint are alternatives at one feature of the other
//! body — so a constraint is kept or dropped whole, by where its first contact
//! (U's contact, I's primary, X's first member of its first set) touches the
//! seamed box: over the box, or beyond a covered face (the neighbour's own pair
//! holds it; a contact exactly on the seam goes to the geom of lower index).
//! The contacts no kept constraint names are dropped and the indices renumbered,
//! so the pair's rows are those of the union's surface over this box.

use crate::collision::features::{Constraint, PotentialContact, PotentialContacts};
use crate::math::Vec3;

/// Working memory of [`clip`] (capacity kept across steps).
#[derive(Clone, Debug, Default)]
pub struct SeamScratch {
    /// Per old contact: its new index, or `u32::MAX` if dropped.
    remap: Vec<u32>,
    members: Vec<u32>,
    /// Per constraint: kept.
    keep: Vec<bool>,
}

/// Keep the constraints of `pc` whose first contact's point `at(c)` on the
/// seamed box lies on the inner side of every plane (n, c, tie) of `planes`
/// (n·p < c, or = c with `tie`); drop the rest and the contacts left unnamed.
pub fn clip(
    pc: &mut PotentialContacts,
    planes: &[(Vec3, f64, bool)],
    at: impl Fn(&PotentialContact) -> Vec3,
    s: &mut SeamScratch,
) {
    let over = |c: &PotentialContact| {
        let p = at(c);
        planes.iter().all(|&(n, off, tie)| {
            let v = n.dot(&p) - off;
            v < 0.0 || (v == 0.0 && tie)
        })
    };
    let first = |k: &Constraint, members: &[u32]| -> Option<u32> {
        match k {
            Constraint::Unilateral { contact } => Some(*contact),
            Constraint::Intercontact { primary, .. } => Some(*primary),
            Constraint::Cross { a, b } => members
                .get(a.start as usize)
                .or_else(|| members.get(b.start as usize))
                .copied(),
        }
    };
    let kept = |k: &Constraint, pc: &PotentialContacts| {
        first(k, &pc.members)
            .and_then(|c| pc.contacts.get(c as usize))
            .is_some_and(over)
    };
    s.keep.clear();
    s.keep.extend(pc.constraints.iter().map(|k| kept(k, pc)));
    if s.keep.iter().all(|&k| k) {
        return;
    }
    // The contacts the kept constraints name, renumbered in order.
    s.remap.clear();
    s.remap.resize(pc.contacts.len(), u32::MAX);
    for (k, _) in pc.constraints.iter().zip(&s.keep).filter(|(_, &y)| y) {
        let mut mark = |c: u32| {
            if let Some(r) = s.remap.get_mut(c as usize) {
                *r = 0;
            }
        };
        match k {
            Constraint::Unilateral { contact } => mark(*contact),
            Constraint::Intercontact { primary, others } => {
                mark(*primary);
                for &m in &pc.members[others.start as usize..others.end as usize] {
                    mark(m);
                }
            }
            Constraint::Cross { a, b } => {
                for r in [a, b] {
                    for &m in &pc.members[r.start as usize..r.end as usize] {
                        mark(m);
                    }
                }
            }
        }
    }
    let mut next = 0u32;
    for r in s.remap.iter_mut() {
        if *r == 0 {
            *r = next;
            next += 1;
        }
    }
    let mut to = 0;
    for i in 0..pc.contacts.len() {
        if s.remap[i] != u32::MAX {
            pc.contacts.swap(to, i);
            to += 1;
        }
    }
    pc.contacts.truncate(to);
    // The kept constraints, their members renumbered into a fresh list.
    s.members.clear();
    let mut to = 0;
    for i in 0..pc.constraints.len() {
        if !s.keep[i] {
            continue;
        }
        let k = pc.constraints[i].clone();
        let remap = &s.remap;
        let members = &mut s.members;
        let mut range = |r: &std::ops::Range<u32>| {
            let start = members.len() as u32;
            members.extend(
                pc.members[r.start as usize..r.end as usize]
                    .iter()
                    .map(|&m| remap[m as usize]),
            );
            start..members.len() as u32
        };
        pc.constraints[to] = match k {
            Constraint::Unilateral { contact } => Constraint::Unilateral {
                contact: remap[contact as usize],
            },
            Constraint::Intercontact { primary, others } => Constraint::Intercontact {
                primary: remap[primary as usize],
                others: range(&others),
            },
            Constraint::Cross { a, b } => Constraint::Cross {
                a: range(&a),
                b: range(&b),
            },
        };
        to += 1;
    }
    pc.constraints.truncate(to);
    std::mem::swap(&mut pc.members, &mut s.members);
}
