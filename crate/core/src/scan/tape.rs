//! Reading simd-json tapes: the few moves every extractor needs (step over a value, walk an
//! object's members or an array's items, read a scalar).

use simd_json::{Node, StaticNode};

/// Number of tape nodes a value occupies, itself included.
pub fn width(n: &Node) -> usize {
    match n {
        Node::Object { count, .. } | Node::Array { count, .. } => count + 1,
        _ => 1,
    }
}

/// Iterates `(key, value_index)` over the object whose header is at `tape[at]`.
pub fn entries<'t, 'i>(tape: &'t [Node<'i>], at: usize) -> impl Iterator<Item = (&'i str, usize)> + 't
where
    'i: 't,
{
    let len = match tape.get(at) {
        Some(Node::Object { len, .. }) => *len,
        _ => 0,
    };
    let mut i = at + 1;
    let mut left = len;
    std::iter::from_fn(move || {
        if left == 0 {
            return None;
        }
        left -= 1;
        let key = match tape.get(i)? {
            Node::String(s) => *s,
            _ => return None,
        };
        let v = i + 1;
        i = v + width(tape.get(v)?);
        Some((key, v))
    })
}

pub fn as_str<'i>(tape: &[Node<'i>], at: usize) -> Option<&'i str> {
    match tape.get(at)? {
        Node::String(s) => Some(*s),
        _ => None,
    }
}

pub fn as_bool(tape: &[Node], at: usize) -> bool {
    matches!(tape.get(at), Some(Node::Static(StaticNode::Bool(true))))
}

pub fn as_u64(tape: &[Node], at: usize) -> Option<u64> {
    match tape.get(at)? {
        Node::Static(StaticNode::U64(v)) => Some(*v),
        Node::Static(StaticNode::I64(v)) => Some((*v).max(0) as u64),
        Node::Static(StaticNode::F64(v)) if v.is_finite() && *v >= 0.0 => Some(*v as u64),
        _ => None,
    }
}

/// Value indexes of the array whose header is at `tape[at]`.
pub fn items<'t>(tape: &'t [Node], at: usize) -> impl Iterator<Item = usize> + 't {
    let len = match tape.get(at) {
        Some(Node::Array { len, .. }) => *len,
        _ => 0,
    };
    let mut i = at + 1;
    let mut left = len;
    std::iter::from_fn(move || {
        if left == 0 {
            return None;
        }
        left -= 1;
        let v = i;
        i += width(tape.get(v)?);
        Some(v)
    })
}

/// The value index of member `name` of the object at `tape[at]`.
pub fn field(tape: &[Node], at: usize, name: &str) -> Option<usize> {
    entries(tape, at).find(|(k, _)| *k == name).map(|(_, v)| v)
}
