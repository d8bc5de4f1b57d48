//! One file per shape pair (STUB).
