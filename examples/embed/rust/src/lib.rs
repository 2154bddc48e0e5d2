//! cwsc: a safe Rust API over libcwsc's C ABI (cwsc.h), `std` only.
//!
//! Compile a policy into a plan, ask it questions, and run commands
//! confined by it through `cwsc_spawn`, which does what `cwsc run` does
//! (docs/embedding.md, "Running a plan").
//!
//! ```no_run
//! use std::time::Duration;
//! let facts = cwsc::Facts::live();
//! let policy = cwsc::Policy::load_file("policy.toml", &cwsc::Options::new())?;
//! let plan = policy.compile("ask", &facts, &cwsc::Options::new())?;
//! let mut child = plan
//!     .command(["make", "test"])
//!     .envs(std::env::vars())          // filtered by the plan's allow-list
//!     .stdio(0, 1, 2)
//!     .timeout(Duration::from_secs(600))
//!     .spawn(&facts)?;
//! let status = child.wait()?;
//! # Ok::<(), cwsc::Error>(())
//! ```
//!
//! Errors are `Result<_, Error>` carrying the status and the library's
//! diagnostics. Every handle is freed on drop; dropping a running `Child`
//! ends the command and its process group.
use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_int};
use std::ptr;
use std::time::Duration;

mod sys {
    use std::os::raw::{c_char, c_int};

    #[repr(C)]
    pub struct Opaque {
        _private: [u8; 0],
    }

    extern "C" {
        pub fn cwsc_facts_live() -> *mut Opaque;
        pub fn cwsc_facts_load_file(path: *const c_char, out: *mut *mut Opaque, d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_facts_free(f: *mut Opaque);
        pub fn cwsc_options_new() -> *mut Opaque;
        pub fn cwsc_options_set_program(o: *mut Opaque, argv: *const *const c_char, argc: usize) -> c_int;
        pub fn cwsc_options_set_cwd(o: *mut Opaque, cwd: *const c_char) -> c_int;
        pub fn cwsc_options_set_linux_backend(o: *mut Opaque, name: *const c_char) -> c_int;
        pub fn cwsc_options_free(o: *mut Opaque);
        pub fn cwsc_policy_load_file(path: *const c_char, format: c_int, o: *const Opaque, out: *mut *mut Opaque,
                                     d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_policy_free(p: *mut Opaque);
        pub fn cwsc_compile(policy: *const Opaque, mode: *const c_char, facts: *mut Opaque, o: *const Opaque,
                            out: *mut *mut Opaque, d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_plan_kind(plan: *const Opaque) -> *const c_char;
        pub fn cwsc_plan_free(p: *mut Opaque);
        pub fn cwsc_plan_argv(plan: *const Opaque, target: c_int, out: *mut *mut Opaque, d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_argv_count(a: *const Opaque) -> usize;
        pub fn cwsc_argv_at(a: *const Opaque, i: usize) -> *const c_char;
        pub fn cwsc_argv_free(a: *mut Opaque);
        pub fn cwsc_diagnostics_count(d: *const Opaque) -> usize;
        pub fn cwsc_diagnostic_severity(d: *const Opaque, i: usize) -> c_int;
        pub fn cwsc_diagnostic_code(d: *const Opaque, i: usize) -> *const c_char;
        pub fn cwsc_diagnostic_message(d: *const Opaque, i: usize) -> *const c_char;
        pub fn cwsc_diagnostic_file(d: *const Opaque, i: usize) -> *const c_char;
        pub fn cwsc_diagnostic_line(d: *const Opaque, i: usize) -> c_int;
        pub fn cwsc_diagnostic_col(d: *const Opaque, i: usize) -> c_int;
        pub fn cwsc_diagnostics_render(d: *const Opaque) -> *const c_char;
        pub fn cwsc_diagnostics_free(d: *mut Opaque);
        pub fn cwsc_spawn_options_new() -> *mut Opaque;
        pub fn cwsc_spawn_options_set_program(o: *mut Opaque, argv: *const *const c_char, argc: usize) -> c_int;
        pub fn cwsc_spawn_options_set_env(o: *mut Opaque, env: *const *const c_char, count: usize) -> c_int;
        pub fn cwsc_spawn_options_set_stdio(o: *mut Opaque, i: c_int, out: c_int, err: c_int) -> c_int;
        pub fn cwsc_spawn_options_set_timeout(o: *mut Opaque, seconds: f64, grace: f64) -> c_int;
        pub fn cwsc_spawn_options_set_require_sandbox(o: *mut Opaque, require: c_int) -> c_int;
        pub fn cwsc_spawn_options_free(o: *mut Opaque);
        pub fn cwsc_spawn(plan: *const Opaque, facts: *mut Opaque, o: *const Opaque, out: *mut *mut Opaque,
                          d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_child_pid(c: *const Opaque) -> c_int;
        pub fn cwsc_child_pidfd(c: *const Opaque) -> c_int;
        pub fn cwsc_child_wait_timeout(c: *mut Opaque, ms: c_int, done: *mut c_int) -> c_int;
        pub fn cwsc_child_signal(c: *mut Opaque, sig: c_int) -> c_int;
        pub fn cwsc_child_kill(c: *mut Opaque) -> c_int;
        pub fn cwsc_child_exit_code(c: *const Opaque) -> c_int;
        pub fn cwsc_child_term_signal(c: *const Opaque) -> c_int;
        pub fn cwsc_child_timed_out(c: *const Opaque) -> c_int;
        pub fn cwsc_child_sandbox_denied(c: *const Opaque) -> c_int;
        pub fn cwsc_child_denial_message(c: *const Opaque) -> *const c_char;
        pub fn cwsc_child_free(c: *mut Opaque);
        pub fn cwsc_string_free(s: *mut c_char);
        pub fn cwsc_plan_check(plan: *const Opaque, access: *const c_char, path: *const c_char,
                               out: *mut *mut Opaque, d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_verdict_allowed(v: *const Opaque) -> c_int;
        pub fn cwsc_verdict_rule(v: *const Opaque) -> *const c_char;
        pub fn cwsc_verdict_detail(v: *const Opaque) -> *const c_char;
        pub fn cwsc_verdict_where(v: *const Opaque) -> *const c_char;
        pub fn cwsc_verdict_origin(v: *const Opaque) -> *const c_char;
        pub fn cwsc_verdict_path(v: *const Opaque) -> *const c_char;
        pub fn cwsc_verdict_free(v: *mut Opaque);
        pub fn cwsc_plan_why(plan: *const Opaque, path: *const c_char, accesses: *const c_char, format: c_int,
                             out: *mut *mut c_char, len: *mut usize, d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_plan_explain(plan: *const Opaque, facts: *mut Opaque, target: c_int, format: c_int,
                                 out: *mut *mut c_char, len: *mut usize, d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_plan_diff(a: *const Opaque, name_a: *const c_char, b: *const Opaque, name_b: *const c_char,
                              format: c_int, out: *mut *mut c_char, len: *mut usize, d: *mut *mut Opaque) -> c_int;
        pub fn cwsc_check_file(path: *const c_char, format: c_int, modes: *const c_char, facts: *mut Opaque,
                               o: *const Opaque, report: c_int, out: *mut *mut c_char, len: *mut usize,
                               failed: *mut c_int, d: *mut *mut Opaque) -> c_int;
    }
}

const CWSC_OK: c_int = 0;
const CWSC_E_USAGE: c_int = 1;

/// A handle freed by its own free function on drop.
struct Handle {
    ptr: *mut sys::Opaque,
    free: unsafe extern "C" fn(*mut sys::Opaque),
}
impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { (self.free)(self.ptr) }
    }
}
// Every libcwsc object may be used from another thread; the ones shared
// between threads (facts, a plan, a child) are safe to share (cwsc.h,
// "Conventions": a facts handle takes turns inside; a child's wait, signal
// and kill may run on different threads).
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn cstring(s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error::usage(format!("an argument holds a NUL byte: {:?}", s)))
}

fn cstrings<I, S>(items: I) -> Result<Vec<CString>, Error>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    items.into_iter().map(|s| cstring(s.as_ref())).collect()
}

/// The severity of a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

/// One diagnostic of a call, copied out.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable identifier: "input", "refused", "no-sandbox", "cannot-run", ...
    pub code: String,
    pub message: String,
    pub file: String,
    pub line: i32,
    pub col: i32,
}

/// A failed call: the cwsc_status and the diagnostics that say why.
#[derive(Clone, Debug)]
pub struct Error {
    /// cwsc_status: 1 usage, 2 input, 3 refused, 4 not applicable, 5 internal.
    pub status: i32,
    pub diagnostics: Vec<Diagnostic>,
    /// The diagnostics as the `cwsc` program prints them.
    pub rendered: String,
}

impl Error {
    fn usage(message: String) -> Error {
        let rendered = format!("error: {}\n", message);
        Error {
            status: CWSC_E_USAGE,
            diagnostics: vec![Diagnostic {
                severity: Severity::Error,
                code: "usage".into(),
                message,
                file: String::new(),
                line: 0,
                col: 0,
            }],
            rendered,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rendered.trim_end())
    }
}
impl std::error::Error for Error {}

/// Takes a call's diagnostics list: Ok(warnings) on CWSC_OK, else the Error.
fn collect(status: c_int, d: *mut sys::Opaque) -> Result<Vec<Diagnostic>, Error> {
    let n = unsafe { sys::cwsc_diagnostics_count(d) };
    let list: Vec<Diagnostic> = (0..n)
        .map(|i| unsafe {
            Diagnostic {
                severity: match sys::cwsc_diagnostic_severity(d, i) {
                    0 => Severity::Error,
                    1 => Severity::Warning,
                    _ => Severity::Note,
                },
                code: text(sys::cwsc_diagnostic_code(d, i)),
                message: text(sys::cwsc_diagnostic_message(d, i)),
                file: text(sys::cwsc_diagnostic_file(d, i)),
                line: sys::cwsc_diagnostic_line(d, i),
                col: sys::cwsc_diagnostic_col(d, i),
            }
        })
        .collect();
    let rendered = text(unsafe { sys::cwsc_diagnostics_render(d) });
    unsafe { sys::cwsc_diagnostics_free(d) };
    if status == CWSC_OK {
        Ok(list)
    } else {
        Err(Error { status, diagnostics: list, rendered })
    }
}

/// How a report is given: the text `cwsc` prints for people (every value
/// escaped for a terminal), or the JSON `result` of its `--json` report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportFormat {
    Text = 0,
    Json = 1,
}

/// Takes a text result of libcwsc (`*out`, `len` bytes) and frees it.
fn take_text(status: c_int, out: *mut c_char, len: usize, d: *mut sys::Opaque) -> Result<String, Error> {
    let taken = if out.is_null() {
        Vec::new()
    } else {
        unsafe { std::slice::from_raw_parts(out as *const u8, len) }.to_vec()
    };
    unsafe { sys::cwsc_string_free(out) };
    collect(status, d)?;
    // The reports are UTF-8: every value in them was escaped as it was added.
    String::from_utf8(taken).map_err(|_| Error::usage("the report is not UTF-8".into()))
}

fn opt_cstring(s: Option<&str>) -> Result<Option<CString>, Error> {
    s.map(cstring).transpose()
}

fn opt_ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(ptr::null(), |c| c.as_ptr())
}

/// `cwsc check FILE` (`cwsc_check_file`): the file validated and its
/// expectations decided in each mode of `modes` (None: every mode; else a
/// comma list as `--mode` takes), against `facts`. The report's bytes equal
/// what `cwsc check` prints, or its `--json` result; `failed` is true when
/// an expectation failed (the program's exit code 1).
pub fn check_file(path: &str, modes: Option<&str>, facts: &Facts, options: &Options, format: ReportFormat)
                  -> Result<(String, bool), Error> {
    let modes = opt_cstring(modes)?;
    let (mut out, mut len, mut failed, mut d) = (ptr::null_mut(), 0usize, 0 as c_int, ptr::null_mut());
    let s = unsafe {
        sys::cwsc_check_file(cstring(path)?.as_ptr(), 0, opt_ptr(&modes), facts.h.ptr, options.h.ptr,
                             format as c_int, &mut out, &mut len, &mut failed, &mut d)
    };
    Ok((take_text(s, out, len, d)?, failed != 0))
}

/// A decision of `Plan::check`: whether the access is allowed, the rule that
/// decides it and the plan element behind the rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub allowed: bool,
    /// The deciding rule as emitted ("--ro-bind / /", "(allow file-read* ...)").
    pub rule: String,
    /// What the rule leaves at the path ("read-only", "writable", "hidden", ...).
    pub detail: String,
    /// Where the rule is in the artifact ("layer 4, argv 17"; "" when none).
    pub place: String,
    /// The config line, mode or default that emitted the rule ("" when unknown).
    pub origin: String,
    /// The path asked about, expanded.
    pub path: String,
}

/// Host facts: live (memoized answers of the running host) or recorded.
pub struct Facts {
    h: Handle,
}

impl Facts {
    pub fn live() -> Facts {
        Facts { h: Handle { ptr: unsafe { sys::cwsc_facts_live() }, free: sys::cwsc_facts_free } }
    }
    /// Recorded facts (`cwsc facts`): for compiles only, never for a run.
    pub fn load_file(path: &str) -> Result<Facts, Error> {
        let mut f = ptr::null_mut();
        let mut d = ptr::null_mut();
        let s = unsafe { sys::cwsc_facts_load_file(cstring(path)?.as_ptr(), &mut f, &mut d) };
        collect(s, d)?;
        Ok(Facts { h: Handle { ptr: f, free: sys::cwsc_facts_free } })
    }
}

/// Compile options (`cwsc compile`'s flags).
pub struct Options {
    h: Handle,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    pub fn new() -> Options {
        Options { h: Handle { ptr: unsafe { sys::cwsc_options_new() }, free: sys::cwsc_options_free } }
    }
    /// `-- PROGRAM ARGS...`: the command the plan wraps.
    pub fn program<I, S>(self, argv: I) -> Result<Options, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let args = cstrings(argv)?;
        let ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
        unsafe { sys::cwsc_options_set_program(self.h.ptr, ptrs.as_ptr(), ptrs.len()) };
        Ok(self)
    }
    /// `--cwd DIR`.
    pub fn cwd(self, dir: &str) -> Result<Options, Error> {
        unsafe { sys::cwsc_options_set_cwd(self.h.ptr, cstring(dir)?.as_ptr()) };
        Ok(self)
    }
    /// `--linux-backend NAME` ("auto", "bwrap", "landlock").
    pub fn linux_backend(self, name: &str) -> Result<Options, Error> {
        unsafe { sys::cwsc_options_set_linux_backend(self.h.ptr, cstring(name)?.as_ptr()) };
        Ok(self)
    }
}

/// A parsed policy (a Codewhale config.toml or a .cwsp policy), reusable.
pub struct Policy {
    h: Handle,
}

impl Policy {
    pub fn load_file(path: &str, options: &Options) -> Result<Policy, Error> {
        let mut p = ptr::null_mut();
        let mut d = ptr::null_mut();
        let s = unsafe { sys::cwsc_policy_load_file(cstring(path)?.as_ptr(), 0, options.h.ptr, &mut p, &mut d) };
        collect(s, d)?;
        Ok(Policy { h: Handle { ptr: p, free: sys::cwsc_policy_free } })
    }

    /// Compiles for permission `mode` ("plan", "ask", "auto-review", "full-access").
    pub fn compile(&self, mode: &str, facts: &Facts, options: &Options) -> Result<Plan, Error> {
        let mut p = ptr::null_mut();
        let mut d = ptr::null_mut();
        let s = unsafe {
            sys::cwsc_compile(self.h.ptr, cstring(mode)?.as_ptr(), facts.h.ptr, options.h.ptr, &mut p, &mut d)
        };
        let warnings = collect(s, d)?;
        Ok(Plan { h: Handle { ptr: p, free: sys::cwsc_plan_free }, warnings })
    }
}

/// Which argv `Plan::argv` emits.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    Auto = 0,
    Bwrap = 1,
    Seatbelt = 2,
}

/// A compiled launch plan.
pub struct Plan {
    h: Handle,
    warnings: Vec<Diagnostic>,
}

impl Plan {
    /// "linux-bwrap", "linux-landlock", "launcher+bwrap", "none", "refused", ...
    pub fn kind(&self) -> String {
        text(unsafe { sys::cwsc_plan_kind(self.h.ptr) })
    }
    /// The compile's warnings and notes.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
    /// The argv `cwsc compile --target ... --format nul` prints, as bytes.
    pub fn argv(&self, target: Target) -> Result<Vec<Vec<u8>>, Error> {
        let mut a = ptr::null_mut();
        let mut d = ptr::null_mut();
        let s = unsafe { sys::cwsc_plan_argv(self.h.ptr, target as c_int, &mut a, &mut d) };
        collect(s, d)?;
        let argv = Handle { ptr: a, free: sys::cwsc_argv_free };
        let n = unsafe { sys::cwsc_argv_count(argv.ptr) };
        Ok((0..n).map(|i| unsafe { CStr::from_ptr(sys::cwsc_argv_at(argv.ptr, i)) }.to_bytes().to_vec()).collect())
    }
    /// Whether the confined command may `access` ("read", "write", "exec",
    /// "create", "network") `path` (None for the network), decided on the
    /// plan's artifact as `cwsc check` decides it (`cwsc_plan_check`).
    pub fn check(&self, access: &str, path: Option<&str>) -> Result<Verdict, Error> {
        let path = opt_cstring(path)?;
        let (mut v, mut d) = (ptr::null_mut(), ptr::null_mut());
        let s = unsafe { sys::cwsc_plan_check(self.h.ptr, cstring(access)?.as_ptr(), opt_ptr(&path), &mut v, &mut d) };
        collect(s, d)?;
        let v = Handle { ptr: v, free: sys::cwsc_verdict_free };
        unsafe {
            Ok(Verdict {
                allowed: sys::cwsc_verdict_allowed(v.ptr) != 0,
                rule: text(sys::cwsc_verdict_rule(v.ptr)),
                detail: text(sys::cwsc_verdict_detail(v.ptr)),
                place: text(sys::cwsc_verdict_where(v.ptr)),
                origin: text(sys::cwsc_verdict_origin(v.ptr)),
                path: text(sys::cwsc_verdict_path(v.ptr)),
            })
        }
    }
    /// `cwsc why PATH` for this plan: the decision for each of `accesses`
    /// (None: "read,write") and the rules behind it, as `cwsc why` prints it.
    pub fn why(&self, path: &str, accesses: Option<&str>, format: ReportFormat) -> Result<String, Error> {
        let accesses = opt_cstring(accesses)?;
        let (mut out, mut len, mut d) = (ptr::null_mut(), 0usize, ptr::null_mut());
        let s = unsafe {
            sys::cwsc_plan_why(self.h.ptr, cstring(path)?.as_ptr(), opt_ptr(&accesses), format as c_int,
                               &mut out, &mut len, &mut d)
        };
        take_text(s, out, len, d)
    }
    /// `cwsc explain` for this plan: every token with the plan element that
    /// emitted it, what the plan skipped, its warnings and, given the facts
    /// it was compiled against, its lints.
    pub fn explain(&self, facts: Option<&Facts>, target: Target, format: ReportFormat) -> Result<String, Error> {
        let f = facts.map_or(ptr::null_mut(), |f| f.h.ptr);
        let (mut out, mut len, mut d) = (ptr::null_mut(), 0usize, ptr::null_mut());
        let s = unsafe {
            sys::cwsc_plan_explain(self.h.ptr, f, target as c_int, format as c_int, &mut out, &mut len, &mut d)
        };
        take_text(s, out, len, d)
    }
    /// `cwsc diff A B` from this plan (A) to `other` (B): what B allows that
    /// A denied first (what an escalation to B would grant), then the rest.
    pub fn diff(&self, name_a: &str, other: &Plan, name_b: &str, format: ReportFormat) -> Result<String, Error> {
        let (mut out, mut len, mut d) = (ptr::null_mut(), 0usize, ptr::null_mut());
        let s = unsafe {
            sys::cwsc_plan_diff(self.h.ptr, cstring(name_a)?.as_ptr(), other.h.ptr, cstring(name_b)?.as_ptr(),
                                format as c_int, &mut out, &mut len, &mut d)
        };
        take_text(s, out, len, d)
    }
    /// A command to run under this plan (like `std::process::Command`).
    pub fn command<I, S>(&self, argv: I) -> Command<'_>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Command {
            plan: self,
            program: argv.into_iter().map(|s| s.as_ref().to_string()).collect(),
            env: Vec::new(),
            stdio: (-1, -1, -1),
            timeout: None,
            kill_grace: Duration::from_secs(2),
            require_sandbox: false,
        }
    }
}

/// How to start a plan's command (`cwsc_spawn_options`).
pub struct Command<'a> {
    plan: &'a Plan,
    program: Vec<String>,
    env: Vec<String>,
    stdio: (i32, i32, i32),
    timeout: Option<Duration>,
    kill_grace: Duration,
    require_sandbox: bool,
}

impl<'a> Command<'a> {
    /// Offers one variable to the command; the plan's allow-list decides.
    pub fn env(mut self, name: &str, value: &str) -> Self {
        self.env.push(format!("{}={}", name, value));
        self
    }
    /// Offers variables (e.g. `std::env::vars()`); the plan's allow-list decides.
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        for (k, v) in vars {
            self.env.push(format!("{}={}", k.as_ref(), v.as_ref()));
        }
        self
    }
    /// stdin, stdout, stderr: descriptors of this process (duplicated into
    /// the child), or -1 for /dev/null (the default).
    pub fn stdio(mut self, stdin: i32, stdout: i32, stderr: i32) -> Self {
        self.stdio = (stdin, stdout, stderr);
        self
    }
    /// TERM to the command's group after `limit`, KILL `kill_grace` later.
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }
    pub fn kill_grace(mut self, grace: Duration) -> Self {
        self.kill_grace = grace;
        self
    }
    /// Refuse a plan that would run the command unconfined.
    pub fn require_sandbox(mut self, on: bool) -> Self {
        self.require_sandbox = on;
        self
    }

    /// Checks and starts the command. `facts` must be live facts.
    pub fn spawn(&self, facts: &Facts) -> Result<Child, Error> {
        let o = Handle { ptr: unsafe { sys::cwsc_spawn_options_new() }, free: sys::cwsc_spawn_options_free };
        let program = cstrings(&self.program)?;
        let pp: Vec<*const c_char> = program.iter().map(|a| a.as_ptr()).collect();
        let env = cstrings(&self.env)?;
        let ep: Vec<*const c_char> = env.iter().map(|a| a.as_ptr()).collect();
        unsafe {
            sys::cwsc_spawn_options_set_program(o.ptr, pp.as_ptr(), pp.len());
            sys::cwsc_spawn_options_set_env(o.ptr, ep.as_ptr(), ep.len());
            if sys::cwsc_spawn_options_set_stdio(o.ptr, self.stdio.0, self.stdio.1, self.stdio.2) != CWSC_OK {
                return Err(Error::usage(format!("bad descriptors {:?}", self.stdio)));
            }
            if let Some(t) = self.timeout {
                sys::cwsc_spawn_options_set_timeout(o.ptr, t.as_secs_f64(), self.kill_grace.as_secs_f64());
            }
            sys::cwsc_spawn_options_set_require_sandbox(o.ptr, self.require_sandbox as c_int);
        }
        let mut c = ptr::null_mut();
        let mut d = ptr::null_mut();
        let s = unsafe { sys::cwsc_spawn(self.plan.h.ptr, facts.h.ptr, o.ptr, &mut c, &mut d) };
        let warnings = collect(s, d)?;
        Ok(Child { h: Handle { ptr: c, free: sys::cwsc_child_free }, warnings })
    }
}

/// How a command ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitStatus {
    /// As `cwsc run` exits: the command's status (128+N for signal N), 124
    /// after the timeout, 125 refused at the mount gate, 126/127 when the
    /// program could not start inside the sandbox.
    pub code: i32,
    /// N when the command died of signal N.
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub sandbox_denied: bool,
    pub denial_message: String,
}

impl ExitStatus {
    pub fn success(&self) -> bool {
        self.code == 0
    }
}

/// A running command. Dropping it ends the command and its process group.
/// Its methods take `&self`: one thread may wait while another signals.
pub struct Child {
    h: Handle,
    warnings: Vec<Diagnostic>,
}

impl Child {
    pub fn id(&self) -> i32 {
        unsafe { sys::cwsc_child_pid(self.h.ptr) }
    }
    /// A pidfd, readable once the command has exited (-1 without pidfd_open).
    pub fn pidfd(&self) -> i32 {
        unsafe { sys::cwsc_child_pidfd(self.h.ptr) }
    }
    /// The run's warnings (an unconfined run, the Landlock fallback).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
    pub fn wait(&self) -> Result<ExitStatus, Error> {
        loop {
            if let Some(s) = self.wait_timeout(Duration::from_secs(3600))? {
                return Ok(s);
            }
        }
    }
    /// The status if the command has ended, without waiting.
    pub fn try_wait(&self) -> Result<Option<ExitStatus>, Error> {
        self.wait_timeout(Duration::ZERO)
    }
    pub fn wait_timeout(&self, limit: Duration) -> Result<Option<ExitStatus>, Error> {
        let ms = limit.as_millis().min(i32::MAX as u128) as c_int;
        let mut done: c_int = 0;
        let s = unsafe { sys::cwsc_child_wait_timeout(self.h.ptr, ms, &mut done) };
        if s != CWSC_OK {
            return Err(Error::usage(format!("cwsc_child_wait_timeout failed with status {}", s)));
        }
        if done == 0 {
            return Ok(None);
        }
        let c = self.h.ptr;
        unsafe {
            let signal = sys::cwsc_child_term_signal(c);
            Ok(Some(ExitStatus {
                code: sys::cwsc_child_exit_code(c),
                signal: if signal != 0 { Some(signal) } else { None },
                timed_out: sys::cwsc_child_timed_out(c) != 0,
                sandbox_denied: sys::cwsc_child_sandbox_denied(c) != 0,
                denial_message: text(sys::cwsc_child_denial_message(c)),
            }))
        }
    }
    /// Sends `sig` to the command's process group, sparing bwrap (Ctrl-C: 2).
    pub fn signal(&self, sig: i32) -> Result<(), Error> {
        match unsafe { sys::cwsc_child_signal(self.h.ptr, sig) } {
            CWSC_OK => Ok(()),
            _ => Err(Error::usage(format!("signal {} cannot be sent", sig))),
        }
    }
    /// SIGKILL to the whole process group.
    pub fn kill(&self) {
        unsafe { sys::cwsc_child_kill(self.h.ptr) };
    }
}
