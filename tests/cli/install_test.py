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
those shells look for them; the documentation is in share/doc/cwsc.
Exit status 0 when all hold; every mismatch is printed.
"""

import json
import os
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


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
    for f in failures:
        print("FAIL:", f)
    print(f"install tree checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
