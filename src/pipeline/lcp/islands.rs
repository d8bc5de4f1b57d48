//! Contact islands: the points acting on each moving body (DoF block) and the
//! islands of points connected through moving bodies (union–find), in a
//! deterministic order; PGS sweeps and stops island by island.

use super::{LcpWorkspace, NO_BLOCK};
use crate::pipeline::sleep::{find, union};

/// Per moving body (DoF block) the points acting on it, in point order
/// (`blk_list[blk_start[b]..blk_start[b + 1]]`), and the islands: points
/// connected through moving bodies, by union–find over the blocks, listed in
/// `sparse.order` island by island (islands in the order of their first point,
/// points in index order: deterministic).
pub(super) fn block_contacts(ls: &mut LcpWorkspace) {
    let nb = ls.blocks.len();
    let nc = ls.contacts.len();
    let LcpWorkspace {
        contacts,
        blk_start,
        blk_list,
        parent,
        island_of,
        sparse: sp,
        ..
    } = ls;
    blk_start.clear();
    blk_start.resize(nb + 1, 0);
    for c in contacts.iter() {
        for s in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            blk_start[s.block as usize + 1] += 1;
        }
    }
    for b in 0..nb {
        blk_start[b + 1] += blk_start[b];
    }
    blk_list.clear();
    blk_list.resize(blk_start[nb], 0);
    // Fill with running cursors kept in `parent` (reset below for union–find).
    parent.clear();
    parent.extend(blk_start[..nb].iter().map(|&x| x as u32));
    for (ci, c) in contacts.iter().enumerate() {
        for s in c.side.iter().filter(|s| s.block != NO_BLOCK) {
            let cur = &mut parent[s.block as usize];
            blk_list[*cur as usize] = ci as u32;
            *cur += 1;
        }
    }
    // Union–find over blocks (a point joins its two moving bodies).
    parent.clear();
    parent.extend(0..nb as u32);
    // The smaller root wins: independent of the visiting order (the one
    // union–find of the pipeline, shared with the sleeping islands).
    for c in contacts.iter() {
        let [a, b] = [c.side[0].block, c.side[1].block];
        if a != NO_BLOCK && b != NO_BLOCK {
            union(parent, a, b);
        }
    }
    // Island label of each point: the root of its (first moving) body.
    island_of.clear();
    for c in contacts.iter() {
        let b = if c.side[0].block != NO_BLOCK {
            c.side[0].block
        } else {
            c.side[1].block
        };
        island_of.push(find(parent, b));
    }
    // Order: islands by first point, points in index order. Counting sort by
    // root: `blk_cursor` reuses the root's slot in a second pass.
    sp.order.clear();
    sp.island_start.clear();
    for ci in 0..nc {
        let root = island_of[ci];
        if root == NO_BLOCK {
            continue;
        }
        // First point of a new island: gather its points, mark them taken.
        sp.island_start.push(sp.order.len());
        for (cj, isl) in island_of.iter_mut().enumerate().skip(ci) {
            if *isl == root {
                sp.order.push(cj as u32);
                *isl = NO_BLOCK;
            }
        }
    }
    sp.island_start.push(sp.order.len());
}
