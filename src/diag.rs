//! Offline diagnostics written off the physics thread.
//!
//! A few debugging aids print from inside the step when an environment variable
//! asks for them (`RTPHYS_PEG_TRACE`, `RTPHYS_NEWTON_DUMP`). Writing to stderr or
//! to a file from the step could block the tick behind the terminal or the disk,
//! so they hand their text to [`emit`] instead: a bounded queue drained by one
//! writer thread, as the recorder drains its frames. `emit` never blocks: when
//! the queue is full the message is dropped and counted ([`dropped`]). The queue
//! and its thread are made on the first message, so a process that never asks
//! for a diagnostic has neither. Building the message allocates; these aids are
//! off by default and are meant for offline runs.
//!
//! [`flush`] waits (bounded) until the writer has written everything accepted;
//! the command-line entry point calls it before the process exits.

use crossbeam::channel::{bounded, Sender, TrySendError};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// One diagnostic for the writer thread.
#[derive(Debug)]
pub enum Output {
    /// Text for stderr (written as is: end it with a newline).
    Stderr(String),
    /// A whole file (text or binary), written (replaced) at `path`.
    File { path: String, contents: Vec<u8> },
}

/// Messages queued at most before [`emit`] drops.
pub const CAPACITY: usize = 1024;

struct Sink {
    tx: Sender<Output>,
    accepted: AtomicU64,
    written: AtomicU64,
    dropped: AtomicU64,
}

fn sink() -> &'static Sink {
    static SINK: OnceLock<Sink> = OnceLock::new();
    SINK.get_or_init(|| {
        let (tx, rx) = bounded::<Output>(CAPACITY);
        let spawned = std::thread::Builder::new()
            .name("rtphys-diag".into())
            .spawn(move || {
                for out in rx {
                    write(out);
                    sink().written.fetch_add(1, Ordering::Release);
                }
            });
        if let Err(e) = spawned {
            // No writer: every message will be dropped (the queue fills up).
            tracing::warn!("diagnostics writer thread not started: {e}");
        }
        Sink {
            tx,
            accepted: AtomicU64::new(0),
            written: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
        }
    })
}

fn write(out: Output) {
    match out {
        Output::Stderr(text) => {
            let mut err = std::io::stderr().lock();
            // stderr closed: nothing else to tell.
            let _ = err.write_all(text.as_bytes());
        }
        Output::File { path, contents } => {
            if let Err(e) = std::fs::write(&path, contents) {
                tracing::warn!("diagnostics: cannot write {path}: {e}");
            }
        }
    }
}

/// Queues `out` for the writer thread; never blocks. Returns false (and counts
/// it in [`dropped`]) when the queue is full.
pub fn emit(out: Output) -> bool {
    let _ = STARTED.set(());
    let s = sink();
    match s.tx.try_send(out) {
        Ok(()) => {
            s.accepted.fetch_add(1, Ordering::Release);
            true
        }
        Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
            s.dropped.fetch_add(1, Ordering::Relaxed);
            false
        }
    }
}

/// Messages dropped because the queue was full.
pub fn dropped() -> u64 {
    STARTED
        .get()
        .map_or(0, |_| sink().dropped.load(Ordering::Relaxed))
}

/// Set by the first [`emit`], so that [`dropped`] and [`flush`] never start the
/// writer themselves.
static STARTED: OnceLock<()> = OnceLock::new();

/// Waits until every accepted message is written, at most `timeout`. Returns
/// whether everything was written. Never called from the physics thread.
pub fn flush(timeout: Duration) -> bool {
    if STARTED.get().is_none() {
        return true;
    }
    let s = sink();
    let end = Instant::now() + timeout;
    loop {
        if s.written.load(Ordering::Acquire) >= s.accepted.load(Ordering::Acquire) {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_written_by_the_writer_thread() {
        let dir = std::env::temp_dir().join(format!("rtphys-diag-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("a.txt");
        assert!(emit(Output::File {
            path: path.to_string_lossy().into_owned(),
            contents: "hello".into(),
        }));
        assert!(flush(Duration::from_secs(5)));
        assert_eq!(std::fs::read_to_string(&path).expect("written"), "hello");
        assert_eq!(dropped(), 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
