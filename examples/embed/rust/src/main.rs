//! cwsc-argv: compile a policy through libcwsc and print the bubblewrap argv
//! the way `cwsc compile --target bwrap --format nul` does.
//!
//!     cwsc-argv POLICY MODE [--facts FILE] [-- PROGRAM ARGS...]
//!
//! The C ABI of cwsc.h is declared here by hand (`extern "C"`), with RAII
//! wrappers that free each handle; only `std` is used.
use std::ffi::{CStr, CString};
use std::io::Write;
use std::os::raw::{c_char, c_int};
use std::process::ExitCode;
use std::ptr;

#[repr(C)]
pub struct Opaque {
    _private: [u8; 0],
}
type Diagnostics = Opaque;

const CWSC_OK: c_int = 0;
const CWSC_FORMAT_AUTO: c_int = 0;
const CWSC_TARGET_BWRAP: c_int = 1;

extern "C" {
    fn cwsc_facts_live() -> *mut Opaque;
    fn cwsc_facts_load_file(path: *const c_char, out: *mut *mut Opaque, d: *mut *mut Diagnostics) -> c_int;
    fn cwsc_facts_free(f: *mut Opaque);
    fn cwsc_options_new() -> *mut Opaque;
    fn cwsc_options_set_program(o: *mut Opaque, argv: *const *const c_char, argc: usize) -> c_int;
    fn cwsc_options_free(o: *mut Opaque);
    fn cwsc_policy_load_file(path: *const c_char, format: c_int, o: *const Opaque, out: *mut *mut Opaque,
                             d: *mut *mut Diagnostics) -> c_int;
    fn cwsc_policy_free(p: *mut Opaque);
    fn cwsc_compile(policy: *const Opaque, mode: *const c_char, facts: *mut Opaque, o: *const Opaque,
                    out: *mut *mut Opaque, d: *mut *mut Diagnostics) -> c_int;
    fn cwsc_plan_free(p: *mut Opaque);
    fn cwsc_plan_argv(plan: *const Opaque, target: c_int, out: *mut *mut Opaque, d: *mut *mut Diagnostics) -> c_int;
    fn cwsc_argv_count(a: *const Opaque) -> usize;
    fn cwsc_argv_at(a: *const Opaque, i: usize) -> *const c_char;
    fn cwsc_argv_free(a: *mut Opaque);
    fn cwsc_diagnostics_render(d: *const Diagnostics) -> *const c_char;
    fn cwsc_diagnostics_free(d: *mut Diagnostics);
}

/// A handle freed by its own free function on drop.
struct Handle {
    ptr: *mut Opaque,
    free: unsafe extern "C" fn(*mut Opaque),
}
impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { (self.free)(self.ptr) }
    }
}

/// Error is a failed call: its status and the rendered diagnostics.
struct Error {
    status: c_int,
    text: String,
}

/// Takes the diagnostics of a call: Ok on CWSC_OK, else the rendered errors.
fn check(status: c_int, diags: *mut Diagnostics) -> Result<(), Error> {
    let text = unsafe { CStr::from_ptr(cwsc_diagnostics_render(diags)) }.to_string_lossy().into_owned();
    unsafe { cwsc_diagnostics_free(diags) };
    if status == CWSC_OK { Ok(()) } else { Err(Error { status, text }) }
}

fn cstring(s: &str) -> CString {
    CString::new(s).expect("an argument holds a NUL byte")
}

fn bwrap_argv(policy_path: &str, mode: &str, facts_path: Option<&str>, program: &[String]) -> Result<Vec<Vec<u8>>, Error> {
    let mut d: *mut Diagnostics = ptr::null_mut();
    let facts = match facts_path {
        Some(p) => {
            let mut f = ptr::null_mut();
            let s = unsafe { cwsc_facts_load_file(cstring(p).as_ptr(), &mut f, &mut d) };
            check(s, d)?;
            Handle { ptr: f, free: cwsc_facts_free }
        }
        None => Handle { ptr: unsafe { cwsc_facts_live() }, free: cwsc_facts_free },
    };
    let options = Handle { ptr: unsafe { cwsc_options_new() }, free: cwsc_options_free };
    let args: Vec<CString> = program.iter().map(|a| cstring(a)).collect();
    let ptrs: Vec<*const c_char> = args.iter().map(|a| a.as_ptr()).collect();
    unsafe { cwsc_options_set_program(options.ptr, ptrs.as_ptr(), ptrs.len()) };

    let mut p = ptr::null_mut();
    let s = unsafe { cwsc_policy_load_file(cstring(policy_path).as_ptr(), CWSC_FORMAT_AUTO, options.ptr, &mut p, &mut d) };
    check(s, d)?;
    let policy = Handle { ptr: p, free: cwsc_policy_free };

    let mut pl = ptr::null_mut();
    let s = unsafe { cwsc_compile(policy.ptr, cstring(mode).as_ptr(), facts.ptr, options.ptr, &mut pl, &mut d) };
    check(s, d)?;
    let plan = Handle { ptr: pl, free: cwsc_plan_free };

    let mut a = ptr::null_mut();
    let s = unsafe { cwsc_plan_argv(plan.ptr, CWSC_TARGET_BWRAP, &mut a, &mut d) };
    check(s, d)?;
    let argv = Handle { ptr: a, free: cwsc_argv_free };
    let n = unsafe { cwsc_argv_count(argv.ptr) };
    Ok((0..n).map(|i| unsafe { CStr::from_ptr(cwsc_argv_at(argv.ptr, i)) }.to_bytes().to_vec()).collect())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: cwsc-argv POLICY MODE [--facts FILE] [-- PROGRAM ARGS...]");
        return ExitCode::from(1);
    }
    let (mut facts, mut program) = (None, Vec::new());
    let mut i = 3;
    while i < args.len() {
        if args[i] == "--facts" && i + 1 < args.len() {
            facts = Some(args[i + 1].as_str());
            i += 2;
        } else if args[i] == "--" {
            program = args[i + 1..].to_vec();
            break;
        } else {
            i += 1;
        }
    }
    match bwrap_argv(&args[1], &args[2], facts, &program) {
        Ok(tokens) => {
            let mut out = std::io::stdout().lock();
            for t in tokens {
                if out.write_all(&t).and_then(|_| out.write_all(b"\0")).is_err() {
                    return ExitCode::from(1);
                }
            }
            if out.flush().is_err() { ExitCode::from(1) } else { ExitCode::SUCCESS }
        }
        Err(e) => {
            eprint!("{}", e.text);
            ExitCode::from(e.status as u8)
        }
    }
}
