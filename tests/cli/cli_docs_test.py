#!/usr/bin/env python3
"""The man pages and shell completions match `cwsc --help` (docs/cli.md).

usage: cli_docs_test.py CWSC MANDIR BASH ZSH FISH

Everything is read from the generated files themselves:
1. the commands of `cwsc --help` are those of cwsc(1), of each completion,
   and each has its page cwsc-COMMAND(1), and no other page exists;
2. per command, the flags of `cwsc COMMAND --help` are exactly the flags of
   its man page, of the bash, zsh and fish completions; the values a flag
   takes (listed under it in --help) are what bash completes for it;
3. each page renders with groff without a warning (-ww);
4. bash's completion function, run, completes a few command lines; zsh (on a
   pty, through compinit) and fish (complete -C) complete the same ones.
Exit status 0 when all hold; every mismatch is printed.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def help_commands(cwsc):
    out = run([cwsc, "--help"]).stdout
    lines = out.split("commands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    return [l.split()[0] for l in lines]


def help_flags(cwsc, cmd):
    """{spelling: [choices]} from `cwsc CMD --help`."""
    out = run([cwsc, cmd, "--help"]).stdout
    section = out.split("\noptions:\n", 1)[1].split("\n\n", 1)[0]
    flags, last = {}, None
    for line in section.splitlines():
        if re.match(r"^  -", line):
            label = line[2:26].strip() if len(line) > 26 and line[25] == " " else line[2:].strip()
            names = [w.split(" ")[0] for w in label.split(", ")]
            last = names
            for n in names:
                flags[n] = []
        elif re.match(r"^ {28}\S", line) and last:
            for n in last:
                flags[n].append(line[28:].split()[0])
    return flags


def unroff(s):
    return s.replace("\\-", "-").replace("\\e", "\\")


def man_flags(page):
    if not os.path.exists(page):
        return set()
    text = open(page).read()
    section = text.split(".SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0]
    flags, depth, lines = set(), 0, section.splitlines()
    for i, line in enumerate(lines):
        if line == ".RS":
            depth += 1
        elif line == ".RE":
            depth -= 1
        elif line == ".TP" and depth == 0:
            for m in re.finditer(r"\\fB(.*?)\\fR", lines[i + 1]):
                flags.add(unroff(m.group(1)))
    return flags


def man_commands(page):
    text = open(page).read()
    section = text.split(".SH COMMANDS\n", 1)[1].split("\n.SH ", 1)[0]
    return [unroff(m.group(1)).split("-", 1)[1]
            for m in re.finditer(r"^\.BR (\S+) \(1\)$", section, re.M)]


def bash_cases(text):
    """{command: (opts, {flag: choices})} from the bash script's case."""
    out = {}
    for m in re.finditer(r"^    (\w+)\)\n      case \$prev in\n(.*?)      esac\n"
                         r"      opts='([^']*)'", text, re.M | re.S):
        choices = {}
        for v in re.finditer(r"^        (\S+)\) COMPREPLY=\(\$\(compgen -W '([^']*)'",
                             m.group(2), re.M):
            for name in v.group(1).split("|"):
                choices[name] = v.group(2).split()
        out[m.group(1)] = (set(m.group(3).split()), choices)
    return out


def zsh_cases(text):
    out = {}
    for m in re.finditer(r"^        (\w+)\)\n          _arguments -s \\\n(.*?)&& return",
                         text, re.M | re.S):
        flags = set()
        for spec in m.group(2).splitlines():
            spec = spec.strip()
            g = re.match(r"^(?:'\*'|'\([^)]*\)')?\{([^}]*)\}'", spec)
            if g:
                flags.update(n.rstrip("=") for n in g.group(1).split(","))
                continue
            g = re.match(r"^(?:'\*')?'(-[^\[]+)\[", spec)
            if g:
                flags.add(g.group(1).rstrip("="))
        out[m.group(1)] = flags
    return out


def zsh_commands(text):
    block = text.split("commands=(\n", 1)[1].split("      )\n", 1)[0]
    return [l.strip().strip("'").split(":")[0] for l in block.splitlines()]


def fish_cases(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r"^complete -c cwsc -n '__fish_seen_subcommand_from (\w+)'(.*)$", line)
        if not m:
            continue
        flags = out.setdefault(m.group(1), set())
        for s in re.findall(r" -s (\S+)", m.group(2)):
            flags.add("-" + s)
        for l in re.findall(r" -l (\S+)", m.group(2)):
            flags.add("--" + l)
    return out


def fish_commands(text):
    return re.findall(r"^complete -c cwsc -n __fish_use_subcommand -a (\S+) ", text, re.M)


def bash_complete(script, words):
    """COMPREPLY of _cwsc for the command line `words` (the last is completed)."""
    prog = ("source \"$1\"; shift; complete -p cwsc; COMP_WORDS=(\"$@\"); "
            "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _cwsc; printf '%s\\n' \"${COMPREPLY[@]}\"")
    r = run(["bash", "-c", prog, "bash", script] + words)
    lines = r.stdout.splitlines()
    check(lines and lines[0] == "complete -o filenames -F _cwsc cwsc",
          f"bash: complete -p cwsc printed {lines[:1]}")
    return sorted(l for l in lines[1:] if l)


# ZSH_CAPTURE completes a command line in an interactive zsh on a pty
# (zsh/zpty) with compadd replaced by a printer of its candidates.
ZSH_CAPTURE = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1=''; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z 'compadd () { local -a __h; builtin compadd -O __h "$@"; print -r -l -- "<hit>"${^__h}; }'
zpty -w z "print '<ready>'"
zpty -r z line '*<ready>*'
zpty -r z line '*<ready>*'
zpty -w -n z "$2"$'\t'
sleep 1
zpty -w z $'\C-c'
zpty -w z "print '<done>'"
zpty -r z out '*<done>*'
zpty -r z out2 '*<done>*'
print -r -- "$out$out2"
zpty -d z
"""


def zsh_complete(zsh_file, line):
    with tempfile.TemporaryDirectory() as d:
        shutil.copy(zsh_file, os.path.join(d, "_cwsc"))
        script = os.path.join(d, "capture.zsh")
        with open(script, "w") as f:
            f.write(ZSH_CAPTURE)
        r = subprocess.run(["zsh", "-f", script, d, line], capture_output=True, text=True,
                           timeout=30, check=False)
    hits = re.findall(r"<hit>([^\r\n]*)", r.stdout)
    return sorted(set(hits))


def fish_complete(fish_file, line):
    r = run(["fish", "--no-config", "-c", f"source {fish_file}; complete -C '{line}'"])
    return sorted(l.split("\t")[0] for l in r.stdout.splitlines() if l)


def main():
    cwsc, mandir, bash, zsh, fish = sys.argv[1:6]
    commands = help_commands(cwsc)
    check(len(commands) >= 10, f"--help lists {commands}")
    bash_text, zsh_text, fish_text = (open(p).read() for p in (bash, zsh, fish))
    check(man_commands(os.path.join(mandir, "cwsc.1")) == commands,
          f"cwsc.1 lists {man_commands(os.path.join(mandir, 'cwsc.1'))}, --help {commands}")
    pages = sorted(f for f in os.listdir(mandir) if f.endswith(".1"))
    check(pages == sorted(["cwsc.1"] + [f"cwsc-{c}.1" for c in commands]),
          f"man pages {pages} for commands {commands}")
    bc, zc, fc = bash_cases(bash_text), zsh_cases(zsh_text), fish_cases(fish_text)
    check(sorted(bc) == sorted(commands), f"bash cases {sorted(bc)}")
    check(sorted(zc) == sorted(commands), f"zsh cases {sorted(zc)}")
    check(sorted(fc) == sorted(commands), f"fish cases {sorted(fc)}")
    check(zsh_commands(zsh_text) == commands, f"zsh commands {zsh_commands(zsh_text)}")
    check(fish_commands(fish_text) == commands, f"fish commands {fish_commands(fish_text)}")
    for cmd in commands:
        hf = help_flags(cwsc, cmd)
        want = set(hf)
        check("--help" in want and len(want) >= 2, f"{cmd}: --help lists {sorted(want)}")
        got = man_flags(os.path.join(mandir, f"cwsc-{cmd}.1"))
        check(got == want, f"{cmd}: man page flags {sorted(got ^ want)} differ from --help")
        check(bc.get(cmd, (set(),))[0] == want,
              f"{cmd}: bash flags {sorted(bc.get(cmd, (set(),))[0] ^ want)} differ")
        check(zc.get(cmd) == want, f"{cmd}: zsh flags {sorted((zc.get(cmd) or set()) ^ want)}")
        check(fc.get(cmd) == want, f"{cmd}: fish flags {sorted((fc.get(cmd) or set()) ^ want)}")
        for flag, choices in hf.items():
            if choices:
                got_c = bc.get(cmd, (set(), {}))[1].get(flag)
                check(got_c == choices, f"{cmd} {flag}: bash completes {got_c}, help {choices}")
    if shutil.which("groff"):
        for page in pages:
            r = run(["groff", "-man", "-Tutf8", "-ww", "-z", os.path.join(mandir, page)])
            check(r.returncode == 0 and r.stderr == "", f"groff {page}: {r.stderr.strip()}")
    else:
        print("groff not installed: pages not rendered")
    cases = [
        (["cwsc", "comp"], ["compile"]),
        (["cwsc", "compile", "x.toml", "--mo"], ["--mode"]),
        (["cwsc", "compile", "x.toml", "--mode", ""], ["ask", "auto-review", "full-access", "plan"]),
        (["cwsc", "compile", "x.toml", "--target", "sec"], ["seccomp", "seccomp-bpf"]),
        (["cwsc", "check", "x.cwsp", "--l"], ["--lint", "--live"]),
        (["cwsc", "help", "ex"], ["exec", "explain"]),
        (["cwsc", "--v"], ["--version"]),
        (["cwsc", "run", "x.toml", "--mode", "=", "a"], ["ask", "auto-review"]),
        (["cwsc", "compile", "--escalate", "="],
         ["danger-full-access", "full-access", "workspace-write"]),
    ]
    for words, want in cases:
        got = bash_complete(bash, words)
        check(got == want, f"bash completes {words} to {got}, want {want}")
    # The same questions to zsh and fish, when they are installed.
    shell_cases = [
        ("cwsc comp", ["compile"]),
        ("cwsc compile x --mo", ["--mode"]),
        ("cwsc compile x --mode ", ["ask", "auto-review", "full-access", "plan"]),
        ("cwsc compile --target sec", ["seccomp", "seccomp-bpf"]),
        ("cwsc check x --l", ["--lint", "--live"]),
        ("cwsc help ex", ["exec", "explain"]),
    ]
    if shutil.which("zsh"):
        r = run(["zsh", "-n", zsh])
        check(r.returncode == 0, f"zsh -n {zsh}: {r.stderr.strip()}")
        for line, want in shell_cases:
            got = zsh_complete(zsh, line)
            check(got == want, f"zsh completes {line!r} to {got}, want {want}")
    else:
        print("zsh not installed: zsh completion not run")
    if shutil.which("fish"):
        r = run(["fish", "--no-execute", fish])
        check(r.returncode == 0, f"fish -n {fish}: {r.stderr.strip()}")
        for line, want in shell_cases:
            got = fish_complete(fish, line)
            check(got == want, f"fish completes {line!r} to {got}, want {want}")
    else:
        print("fish not installed: fish completion not run")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(commands)} commands checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
