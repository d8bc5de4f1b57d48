//! The physics thread: pacing, modes, command and snapshot queues (to be written).
