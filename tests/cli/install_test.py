#!/usr/bin/env python3
"""`meson install` installs what docs/building.md ("Install") says.

usage: install_test.py MESON BUILD_ROOT PREFIX BINDIR MANDIR DATADIR

Runs `meson install --no-rebuild --destdir D` into a temporary D, then checks
the tree: the cwsc binary is stripped (no .symtab section) and runs
--version; the man pages are cwsc.1 and one cwsc-COMMAND.1 for each command
`--help` lists, nothing else; the bash, zsh and fish completions are where
those shells look for them; the documentation is in share/doc/cwsc.
Exit status 0 when all hold; every mismatch is printed.
"""

import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def main():
    meson, build, prefix, bindir, mandir, datadir = sys.argv[1:7]
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
            check(".symtab" not in sections, "the installed cwsc is not stripped (.symtab)")
            check(".debug_info" not in sections, "the installed cwsc keeps .debug_info")
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
    for f in failures:
        print("FAIL:", f)
    print(f"install tree checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
