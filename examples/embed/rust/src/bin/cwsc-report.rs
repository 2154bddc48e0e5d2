//! cwsc-report: the reports of `cwsc why`, `explain`, `diff` and `check`,
//! made through libcwsc, and a single decision of `Plan::check`.
//!
//!     cwsc-report why PATH POLICY MODE FACTS [--json]
//!     cwsc-report explain POLICY MODE FACTS [--json]
//!     cwsc-report diff A B MODE FACTS [--json]
//!     cwsc-report check FILE FACTS [--json]
//!     cwsc-report verdict ACCESS PATH POLICY MODE FACTS
//!
//! FACTS is a facts file (`cwsc facts`), or `-` for the live host. The
//! report is printed as the program prints it: its bytes are compared
//! with `cwsc`'s by tests/lib/embed_test.sh.
use std::io::Write;
use std::process::ExitCode;

use cwsc::{Facts, Options, Plan, Policy, ReportFormat, Target};

fn facts(path: &str) -> Result<Facts, cwsc::Error> {
    if path == "-" {
        Ok(Facts::live())
    } else {
        Facts::load_file(path)
    }
}

fn plan(policy: &str, mode: &str, facts: &Facts) -> Result<Plan, cwsc::Error> {
    let options = Options::new();
    Policy::load_file(policy, &options)?.compile(mode, facts, &options)
}

fn report(args: &[String], format: ReportFormat) -> Result<(String, u8), cwsc::Error> {
    let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    match a.as_slice() {
        ["why", path, policy, mode, f] => {
            let f = facts(f)?;
            Ok((plan(policy, mode, &f)?.why(path, None, format)?, 0))
        }
        ["explain", policy, mode, f] => {
            let f = facts(f)?;
            Ok((plan(policy, mode, &f)?.explain(Some(&f), Target::Auto, format)?, 0))
        }
        ["diff", a, b, mode, f] => {
            let f = facts(f)?;
            let (pa, pb) = (plan(a, mode, &f)?, plan(b, mode, &f)?);
            Ok((pa.diff(a, &pb, b, format)?, 0))
        }
        ["check", file, f] => {
            let (text, failed) = cwsc::check_file(file, None, &facts(f)?, &Options::new(), format)?;
            Ok((text, if failed { 1 } else { 0 }))
        }
        ["verdict", access, path, policy, mode, f] => {
            let f = facts(f)?;
            let v = plan(policy, mode, &f)?.check(access, if *path == "-" { None } else { Some(path) })?;
            Ok((format!("{} {}: {} by {} ({}) from {}\n", v.path,
                        if v.allowed { "allowed" } else { "denied" }, v.detail, v.rule, v.place, v.origin), 0))
        }
        _ => Err(cwsc::Error {
            status: 1,
            diagnostics: Vec::new(),
            rendered: "usage: cwsc-report why|explain|diff|check|verdict ... (see the source)\n".into(),
        }),
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let format = if args.last().map(|s| s == "--json").unwrap_or(false) {
        args.pop();
        ReportFormat::Json
    } else {
        ReportFormat::Text
    };
    match report(&args, format) {
        Ok((text, code)) => {
            let mut out = std::io::stdout().lock();
            if out.write_all(text.as_bytes()).and_then(|_| out.flush()).is_err() {
                return ExitCode::from(2);
            }
            ExitCode::from(code)
        }
        Err(e) => {
            eprint!("{}", e.rendered);
            ExitCode::from(2)
        }
    }
}
