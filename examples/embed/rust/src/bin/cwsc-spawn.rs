//! cwsc-spawn: run a command confined by a policy through the crate's safe
//! API, as an agent engine would: compile against the live host, offer the
//! command this program's environment (the plan's allow-list filters it),
//! forward Ctrl-C and the other signals `cwsc run` forwards, and exit as
//! `cwsc run` exits. The same program as examples/embed/c/cwsc_spawn.c.
//!
//!     cwsc-spawn POLICY MODE [--timeout SECONDS] -- PROGRAM ARGS...
use std::os::raw::{c_int, c_ulong};
use std::process::ExitCode;
use std::time::Duration;

// The few libc calls the forwarding needs (std links libc; no crate needed).
#[repr(C)]
struct SigSet([c_ulong; 16]);
#[repr(C)]
struct PollFd {
    fd: c_int,
    events: i16,
    revents: i16,
}
extern "C" {
    fn sigemptyset(set: *mut SigSet) -> c_int;
    fn sigaddset(set: *mut SigSet, sig: c_int) -> c_int;
    fn sigprocmask(how: c_int, set: *const SigSet, old: *mut SigSet) -> c_int;
    fn signalfd(fd: c_int, mask: *const SigSet, flags: c_int) -> c_int;
    fn poll(fds: *mut PollFd, n: c_ulong, timeout: c_int) -> c_int;
    fn read(fd: c_int, buf: *mut u8, n: usize) -> isize;
    fn signal(sig: c_int, handler: usize) -> usize;
}
const SIG_BLOCK: c_int = 0;
const SFD_CLOEXEC: c_int = 0o2000000;
const POLLIN: i16 = 1;

fn run() -> Result<u8, String> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        return Err("usage: cwsc-spawn POLICY MODE [--timeout SECONDS] -- PROGRAM ARGS...".into());
    }
    let (mut timeout, mut program) = (None, Vec::new());
    let mut i = 3;
    while i < args.len() {
        if args[i] == "--timeout" && i + 1 < args.len() {
            timeout = Some(Duration::from_secs_f64(args[i + 1].parse().map_err(|_| "bad --timeout")?));
            i += 2;
        } else if args[i] == "--" {
            program = args[i + 1..].to_vec();
            break;
        } else {
            i += 1;
        }
    }
    if program.is_empty() {
        return Err("no program after --".into());
    }
    let sfd = unsafe {
        let mut set = SigSet([0; 16]);
        sigemptyset(&mut set);
        for sig in [2, 15, 1, 3] {
            sigaddset(&mut set, sig); // SIGINT, SIGTERM, SIGHUP, SIGQUIT
            signal(sig, 0); // SIG_DFL: a shell's background job starts with SIGINT ignored
        }
        sigprocmask(SIG_BLOCK, &set, std::ptr::null_mut());
        signalfd(-1, &set, SFD_CLOEXEC)
    };

    let facts = cwsc::Facts::live();
    let options = cwsc::Options::new();
    let compiled = cwsc::Policy::load_file(&args[1], &options).and_then(|p| p.compile(&args[2], &facts, &options));
    let plan = match compiled {
        Ok(plan) => plan,
        Err(e) => {
            eprint!("{}", e.rendered);
            return Ok(2);
        }
    };
    let mut command = plan.command(&program).envs(std::env::vars()).stdio(0, 1, 2);
    if let Some(t) = timeout {
        command = command.timeout(t);
    }
    let child = match command.spawn(&facts) {
        Ok(child) => child,
        Err(e) => {
            eprint!("{}", e.rendered); // why nothing ran
            return Ok(125);
        }
    };
    for w in child.warnings() {
        eprintln!("warning: {}", w.message);
    }
    let status = loop {
        let mut fds = [PollFd { fd: sfd, events: POLLIN, revents: 0 }, PollFd { fd: child.pidfd(), events: POLLIN, revents: 0 }];
        let wait_ms = if fds[1].fd >= 0 { -1 } else { 100 };
        unsafe { poll(fds.as_mut_ptr(), 2, wait_ms) }; // a signal to forward, or the child ended
        if fds[0].revents & POLLIN != 0 {
            let mut info = [0u8; 128]; // struct signalfd_siginfo; ssi_signo first
            if unsafe { read(sfd, info.as_mut_ptr(), info.len()) } == 128 {
                let sig = u32::from_ne_bytes([info[0], info[1], info[2], info[3]]);
                let _ = child.signal(sig as i32);
            }
        }
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
    };
    if status.timed_out {
        eprintln!("cwsc-spawn: timed out after {:?}", timeout.unwrap_or_default());
    } else if status.sandbox_denied {
        eprintln!("cwsc-spawn: sandbox denied: {}", status.denial_message);
    }
    Ok(status.code as u8)
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("cwsc-spawn: {}", e);
            ExitCode::from(2)
        }
    }
}
