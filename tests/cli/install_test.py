#!/usr/bin/env python3
"""`meson install` installs what docs/building.md ("Install") says.

usage: install_test.py MESON SOURCE_ROOT BUILD_ROOT PREFIX BINDIR MANDIR DATADIR

The project's default is a stripped install (`strip=true`, read from
meson.build by `meson introspect`). Runs `meson install --no-rebuild --destdir
D` into a temporary D, then checks the tree: the cwsc binary is stripped (no
.symtab section) when the build directory's strip option is on — the default;
a build directory set up before it, or with -Dstrip=false, keeps the symbols,
and that is checked instead — and runs --version; the man pages are cwsc.1 and one cwsc-COMMAND.1 for each command
`--help` lists, nothing else; the bash, zsh and fish completions are where
those shells look for them; the documentation is in share/doc/cwsc, with
the examples (every policy and facts file of examples/, byte for byte) in
share/doc/cwsc/examples; the installed cwsc.pc gives a C user only cwsc's
own include directory and library (no dependency's flags such as Abseil's
-DNOMINMAX), and a static link its dependencies' libraries.
Exit status 0 when all hold; every mismatch is printed.
"""

import filecmp
import json
import os
import shlex
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def check_examples(source, installed):
    """Every policy and facts file of examples/ is installed as it is."""
    wanted = []
    for top, _dirs, files in os.walk(os.path.join(source, "examples")):
        for f in files:
            wanted.append(os.path.relpath(os.path.join(top, f), os.path.join(source, "examples")))
    check(any(w.startswith("facts/macos-") for w in wanted), "examples/facts/macos-* not found")
    for rel in ("workspace.toml", "workspace.cwsp", "facts/macos-workspace.yaml"):
        check(rel in wanted, f"examples/{rel} is not in the source tree")
    for rel in sorted(wanted):
        got = os.path.join(installed, rel)
        check(os.path.isfile(got) and filecmp.cmp(os.path.join(source, "examples", rel), got,
                                                  shallow=False),
              f"share/doc/cwsc/examples/{rel} missing or different")


def check_pkgconfig(destdir, root, prefix):
    """cwsc.pc: `--cflags` is cwsc's include directory alone, `--libs` -lcwsc."""
    pcs = [os.path.join(top, "cwsc.pc") for top, _d, files in os.walk(root) if "cwsc.pc" in files]
    check(len(pcs) == 1, f"cwsc.pc installed {len(pcs)} times: {pcs}")
    if len(pcs) != 1:
        return
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]), PKG_CONFIG_SYSROOT_DIR=destdir)

    def pkg(*args):
        r = subprocess.run(["pkg-config", *args, "cwsc"], capture_output=True, text=True,
                           env=env, check=False)
        check(r.returncode == 0, f"pkg-config {' '.join(args)} cwsc: {r.stderr}")
        return shlex.split(r.stdout)

    include = destdir + os.path.join(prefix, "include", "cwsc")
    check(pkg("--cflags") == [f"-I{include}"], f"pkg-config --cflags cwsc: {pkg('--cflags')}, "
          f"want [-I{include}]")
    check(os.path.isfile(os.path.join(include, "cwsc.h")), f"{include}/cwsc.h missing")
    libs = pkg("--libs")
    check([a for a in libs if not a.startswith("-L")] == ["-lcwsc"],
          f"pkg-config --libs cwsc: {libs}, want -L... -lcwsc")
    static = pkg("--static", "--libs-only-l")
    for lib in ("-lcwsc", "-lyaml-cpp", "-lseccomp", "-lantlr4-runtime", "-labsl_strings"):
        check(lib in static, f"pkg-config --static --libs-only-l cwsc lacks {lib}: {static}")


def main():
    meson, source, build, prefix, bindir, mandir, datadir = sys.argv[1:8]

    def strip_option(where):
        r = subprocess.run([meson, "introspect", "--buildoptions", where], capture_output=True,
                           text=True, check=False)
        for o in json.loads(r.stdout or "[]"):
            if o["name"] == "strip":
                return o["value"]
        return None

    check(strip_option(os.path.join(source, "meson.build")) is True,
          "the project's default strip option is not true")
    strip = strip_option(build)
    check(strip in (True, False), f"the build directory's strip option: {strip!r}")
    if strip is False:
        print("note: this build directory has strip=false (-Dstrip=true for a stripped install)")
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([meson, "install", "-C", build, "--no-rebuild", "--destdir", d,
                            "--quiet"], capture_output=True, text=True, check=False)
        check(r.returncode == 0, f"meson install: exit {r.returncode}: {r.stderr}")
        root = d + os.path.join(prefix, "")

        def at(*parts):
            return os.path.join(root, *parts)

        cwsc = at(bindir, "cwsc")
        check(os.access(cwsc, os.X_OK), f"{cwsc} is not installed executable")
        if os.path.exists(cwsc):
            sections = subprocess.run(["readelf", "-S", "-W", cwsc], capture_output=True,
                                      text=True, check=False).stdout
            check(".text" in sections, "readelf -S shows no .text: not read")
            if strip:
                check(".symtab" not in sections, "the installed cwsc is not stripped (.symtab)")
                check(".debug_info" not in sections, "the installed cwsc keeps .debug_info")
            else:
                check(".symtab" in sections, "strip=false, yet the installed cwsc has no .symtab")
            v = subprocess.run([cwsc, "--version"], capture_output=True, text=True, check=False)
            check(v.returncode == 0 and v.stdout.startswith("cwsc "),
                  f"installed cwsc --version: {v.returncode} {v.stdout!r}")
            out = subprocess.run([cwsc, "--help"], capture_output=True, text=True,
                                 check=False).stdout
            commands = [l.split()[0] for l in
                        out.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()]
            pages = sorted(os.listdir(at(mandir, "man1"))) if os.path.isdir(
                at(mandir, "man1")) else []
            want = sorted(["cwsc.1"] + [f"cwsc-{c}.1" for c in commands])
            check(pages == want, f"man1 holds {pages}, want {want}")
        for path, marker in ((at(datadir, "bash-completion", "completions", "cwsc"), "_cwsc"),
                             (at(datadir, "zsh", "site-functions", "_cwsc"), "#compdef cwsc"),
                             (at(datadir, "fish", "vendor_completions.d", "cwsc.fish"),
                              "complete -c cwsc")):
            check(os.path.isfile(path) and marker in open(path).read(),
                  f"{path}: missing or without {marker!r}")
        for doc in ("README.md", "cli.md", "building.md"):
            check(os.path.isfile(at(datadir, "doc", "cwsc", doc)), f"share/doc/cwsc/{doc} missing")
        check_examples(source, at(datadir, "doc", "cwsc", "examples"))
        check_pkgconfig(d, root, prefix)
    for f in failures:
        print("FAIL:", f)
    print(f"install tree checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
