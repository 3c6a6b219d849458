//! A tree of moves, as RenLib libraries hold it: every line of play from the empty board, with
//! comments, stored compactly (a few bytes of links per node) so that large libraries fit.

use crate::rules::Move;

/// No node (links are `u32` to keep nodes small).
const NONE: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Node {
    mv: Move,
    comment: Option<Box<str>>,
    parent: u32,
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
}

/// Lines of play branching from the empty board. Nodes are numbered in the order they were
/// added; children keep that order, so the main line follows the first child at each branch.
/// Two trees are equal when they hold the same lines, in the same order, with the same comments,
/// however their nodes are numbered.
#[derive(Clone, Debug)]
pub struct MoveTree {
    nodes: Vec<Node>,
    first_root: u32,
    last_root: u32,
}

impl Default for MoveTree {
    fn default() -> MoveTree {
        MoveTree::new()
    }
}

impl PartialEq for MoveTree {
    fn eq(&self, other: &MoveTree) -> bool {
        if self.len() != other.len() {
            return false;
        }
        let mut pairs = vec![(None, None)];
        while let Some((mine, theirs)) = pairs.pop() {
            let mut a = self.children(mine);
            let mut b = other.children(theirs);
            loop {
                match (a.next(), b.next()) {
                    (None, None) => break,
                    (Some(x), Some(y)) => {
                        let same = self.nodes[x].mv == other.nodes[y].mv
                            && self.nodes[x].comment == other.nodes[y].comment;
                        if !same {
                            return false;
                        }
                        pairs.push((Some(x), Some(y)));
                    }
                    _ => return false,
                }
            }
        }
        true
    }
}

impl Eq for MoveTree {}

fn link(index: u32) -> Option<usize> {
    (index != NONE).then_some(index as usize)
}

impl MoveTree {
    /// The most nodes a tree holds (a bound on memory, far above real libraries).
    pub const MAX_NODES: usize = 2_000_000;

    pub fn new() -> MoveTree {
        MoveTree {
            nodes: Vec::new(),
            first_root: NONE,
            last_root: NONE,
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The child of `parent` (`None`: the empty board) playing `mv`, if there is one.
    pub fn child(&self, parent: Option<usize>, mv: Move) -> Option<usize> {
        self.children(parent)
            .find(|&child| self.nodes[child].mv == mv)
    }

    /// Adds `mv` as the last child of `parent` (`None`: a first move) and returns its number;
    /// `None` when the tree is full ([`MoveTree::MAX_NODES`]) or `parent` is not a node.
    pub fn push(&mut self, parent: Option<usize>, mv: Move) -> Option<usize> {
        if self.nodes.len() >= Self::MAX_NODES || parent.is_some_and(|p| p >= self.nodes.len()) {
            return None;
        }
        let index = self.nodes.len() as u32;
        let parent = parent.map_or(NONE, |p| p as u32);
        let previous = match link(parent) {
            Some(p) => std::mem::replace(&mut self.nodes[p].last_child, index),
            None => std::mem::replace(&mut self.last_root, index),
        };
        match (link(previous), link(parent)) {
            (Some(previous), _) => self.nodes[previous].next_sibling = index,
            (None, Some(p)) => self.nodes[p].first_child = index,
            (None, None) => self.first_root = index,
        }
        self.nodes.push(Node {
            mv,
            comment: None,
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
        });
        Some(index as usize)
    }

    /// The move of node `index`.
    pub fn mv(&self, index: usize) -> Option<Move> {
        self.nodes.get(index).map(|node| node.mv)
    }

    pub fn comment(&self, index: usize) -> Option<&str> {
        self.nodes.get(index)?.comment.as_deref()
    }

    pub fn set_comment(&mut self, index: usize, comment: Option<String>) {
        if let Some(node) = self.nodes.get_mut(index) {
            node.comment = comment.map(String::into_boxed_str);
        }
    }

    /// The node before `index` in its line (`None` for a first move).
    pub fn parent(&self, index: usize) -> Option<usize> {
        link(self.nodes.get(index)?.parent)
    }

    /// The children of `parent` (`None`: the first moves), in order.
    pub fn children(&self, parent: Option<usize>) -> impl Iterator<Item = usize> + '_ {
        let first = match parent {
            Some(p) => self.nodes.get(p).map_or(NONE, |node| node.first_child),
            None => self.first_root,
        };
        std::iter::successors(link(first), |&child| link(self.nodes[child].next_sibling))
    }

    /// The nodes where a line ends: one per variation.
    pub fn leaves(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.nodes.len()).filter(|&index| self.nodes[index].first_child == NONE)
    }

    /// The moves from the empty board to node `index`, inclusive.
    pub fn line(&self, index: usize) -> Vec<Move> {
        let mut moves: Vec<Move> =
            std::iter::successors((index < self.nodes.len()).then_some(index), |&i| {
                self.parent(i)
            })
            .map(|i| self.nodes[i].mv)
            .collect();
        moves.reverse();
        moves
    }

    /// The main line: the first child at each branch, from the empty board.
    pub fn main_line(&self) -> Vec<Move> {
        std::iter::successors(self.children(None).next(), |&i| {
            self.children(Some(i)).next()
        })
        .map(|i| self.nodes[i].mv)
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(text: &str) -> Move {
        Move::Place(text.parse().unwrap())
    }

    #[test]
    fn lines_children_and_leaves() {
        let mut tree = MoveTree::new();
        let h8 = tree.push(None, mv("h8")).unwrap();
        let h9 = tree.push(Some(h8), mv("h9")).unwrap();
        let i9 = tree.push(Some(h8), mv("i9")).unwrap();
        let j10 = tree.push(Some(h9), mv("j10")).unwrap();
        tree.set_comment(i9, Some("diagonal".into()));
        assert_eq!(tree.len(), 4);
        assert_eq!(tree.children(Some(h8)).collect::<Vec<_>>(), [h9, i9]);
        assert_eq!(tree.child(Some(h8), mv("i9")), Some(i9));
        assert_eq!(tree.child(Some(h8), mv("a1")), None);
        assert_eq!(tree.leaves().collect::<Vec<_>>(), [i9, j10]);
        assert_eq!(tree.line(j10), [mv("h8"), mv("h9"), mv("j10")]);
        assert_eq!(tree.main_line(), tree.line(j10));
        assert_eq!(tree.comment(i9), Some("diagonal"));
        assert_eq!(tree.parent(h8), None);
        assert_eq!(tree.push(Some(99), Move::Pass), None);
        assert!(tree.line(99).is_empty());
        assert!(MoveTree::default().main_line().is_empty());
        // Equality is by lines, not by node numbers.
        let mut same = MoveTree::new();
        let h8 = same.push(None, mv("h8")).unwrap();
        let h9 = same.push(Some(h8), mv("h9")).unwrap();
        same.push(Some(h9), mv("j10")).unwrap();
        let i9 = same.push(Some(h8), mv("i9")).unwrap();
        assert_ne!(same, tree);
        same.set_comment(i9, Some("diagonal".into()));
        assert_eq!(same, tree);
        same.push(Some(i9), Move::Pass).unwrap();
        assert_ne!(same, tree);
    }
}
