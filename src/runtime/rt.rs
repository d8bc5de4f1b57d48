//! Real-time knobs of the physics thread. Each is optional; when the OS refuses
//! (no root / CAP_SYS_NICE / CAP_IPC_LOCK, a container's limits) the refusal is
//! logged and returned as a note, and the server goes on without it.

use crate::config::RealtimeConfig;

/// Apply the settings to the calling thread; returns one note per setting tried.
pub fn apply(cfg: &RealtimeConfig) -> Vec<String> {
    let mut notes = Vec::new();
    // Timer slack 1 ns: sleeps end within microseconds instead of the default 50 µs.
    // SAFETY: prctl with PR_SET_TIMERSLACK takes an integer argument and touches no memory.
    let r = unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    if r != 0 {
        note(
            &mut notes,
            false,
            format!("timer slack: refused ({})", std::io::Error::last_os_error()),
        );
    }
    if cfg.cpu >= 0 {
        let cpu = cfg.cpu as usize;
        // SAFETY: cpu_set_t is plain data; CPU_SET writes within it (cpu checked < CPU_SETSIZE).
        let r = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if cpu < libc::CPU_SETSIZE as usize {
                libc::CPU_SET(cpu, &mut set);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
            } else {
                -1
            }
        };
        if r == 0 {
            note(
                &mut notes,
                true,
                format!("physics thread pinned to CPU {cpu}"),
            );
        } else {
            note(
                &mut notes,
                false,
                format!(
                    "pinning to CPU {cpu} refused: {}",
                    std::io::Error::last_os_error()
                ),
            );
        }
    }
    if cfg.fifo_priority > 0 {
        let param = libc::sched_param {
            sched_priority: cfg.fifo_priority,
        };
        // SAFETY: pthread_self() is the calling thread; param outlives the call.
        let r =
            unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
        if r == 0 {
            note(
                &mut notes,
                true,
                format!("SCHED_FIFO priority {} set", cfg.fifo_priority),
            );
        } else {
            note(
                &mut notes,
                false,
                format!(
                    "SCHED_FIFO priority {} refused: {} (needs root or CAP_SYS_NICE)",
                    cfg.fifo_priority,
                    std::io::Error::from_raw_os_error(r)
                ),
            );
        }
    }
    if cfg.mlockall {
        // MCL_FUTURE under a small RLIMIT_MEMLOCK makes later allocations fail, so it
        // is only requested when the limit is unlimited.
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes into the struct we own.
        let unlimited = unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut lim) } == 0
            && lim.rlim_cur == libc::RLIM_INFINITY;
        let flags = if unlimited {
            libc::MCL_CURRENT | libc::MCL_FUTURE
        } else {
            libc::MCL_CURRENT
        };
        // SAFETY: mlockall takes flags only.
        let r = unsafe { libc::mlockall(flags) };
        if r == 0 {
            note(
                &mut notes,
                true,
                if unlimited {
                    "mlockall(MCL_CURRENT|MCL_FUTURE) done".to_string()
                } else {
                    "mlockall(MCL_CURRENT) done; MCL_FUTURE skipped: RLIMIT_MEMLOCK is limited"
                        .to_string()
                },
            );
        } else {
            note(
                &mut notes,
                false,
                format!(
                    "mlockall refused: {} (needs CAP_IPC_LOCK or a larger RLIMIT_MEMLOCK)",
                    std::io::Error::last_os_error()
                ),
            );
        }
    }
    notes
}

fn note(notes: &mut Vec<String>, ok: bool, msg: String) {
    if ok {
        tracing::info!(target: "rtphys::realtime", "{msg}");
    } else {
        tracing::warn!(target: "rtphys::realtime", "{msg}");
    }
    notes.push(msg);
}
