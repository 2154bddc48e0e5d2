// Links libcwsc where `pkg-config --libs cwsc` says it is (PKG_CONFIG_PATH and
// PKG_CONFIG_SYSROOT_DIR are honoured by pkg-config itself).
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_SYSROOT_DIR");
    let out = Command::new("pkg-config")
        .args(["--libs", "cwsc"])
        .output()
        .expect("cannot run pkg-config");
    if !out.status.success() {
        panic!(
            "pkg-config --libs cwsc failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={}", lib);
        }
    }
}
