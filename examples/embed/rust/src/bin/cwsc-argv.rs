//! cwsc-argv: compile a policy through libcwsc and print the bubblewrap argv
//! the way `cwsc compile --target bwrap --format nul` does.
//!
//!     cwsc-argv POLICY MODE [--facts FILE] [-- PROGRAM ARGS...]
use std::io::Write;
use std::process::ExitCode;

fn bwrap_argv(policy_path: &str, mode: &str, facts_path: Option<&str>, program: &[String])
              -> Result<Vec<Vec<u8>>, cwsc::Error> {
    let facts = match facts_path {
        Some(p) => cwsc::Facts::load_file(p)?,
        None => cwsc::Facts::live(),
    };
    let options = cwsc::Options::new().program(program)?;
    let policy = cwsc::Policy::load_file(policy_path, &options)?;
    let plan = policy.compile(mode, &facts, &options)?;
    plan.argv(cwsc::Target::Bwrap)
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
            eprint!("{}", e.rendered);
            ExitCode::from(e.status as u8)
        }
    }
}
