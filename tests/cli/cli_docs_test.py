#!/usr/bin/env python3
"""The man pages and shell completions match `cwsc --help` (docs/cli.md).

usage: cli_docs_test.py CWSC MANDIR BASH ZSH FISH SRCDIR

Everything is read from the generated files themselves:
1. the commands of `cwsc --help` are those of cwsc(1), of each completion,
   and each has its page cwsc-COMMAND(1), and no other page exists;
2. per command, the flags of `cwsc COMMAND --help` are exactly the flags of
   its man page, of the bash, zsh and fish completions; the values a flag
   takes (listed under it in --help) are what bash completes for it;
3. each page renders with groff without a warning (-ww);
4. bash's completion function, run, completes a few command lines; zsh (on a
   pty, through compinit) and fish (complete -C) complete the same ones;
5. ENVIRONMENT: the variables cwsc(1) lists (with their other spellings) are
   exactly those the sources of cli/, runtime/, compiler/ and lib/ read
   (SRCDIR, source_env_reads below), every command it names exists, and each
   cwsc-COMMAND(1) lists exactly the variables cwsc(1) says affect COMMAND;
6. EXAMPLES: every page has examples, and each is `cwsc COMMAND` (the page's
   own command on cwsc-COMMAND(1)) with only flags of COMMAND's --help, and
   only values --help lists for a flag that lists them.
Exit status 0 when all hold; every mismatch is printed.
"""

import os
import re
import shlex
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


def man_section(page, name):
    """The lines of section NAME of a page, or None when it has none."""
    text = open(page).read() if os.path.exists(page) else ""
    if f"\n.SH {name}\n" not in text:
        return None
    return text.split(f"\n.SH {name}\n", 1)[1].split("\n.SH ", 1)[0].splitlines()


def man_tagged(lines):
    """[(label, [body lines])] of the .TP paragraphs of a section."""
    out = []
    for i, line in enumerate(lines or []):
        if line == ".TP" and i + 1 < len(lines):
            body = []
            for b in lines[i + 2:]:
                if b.startswith(".TP") or b.startswith(".SH"):
                    break
                body.append(b)
            out.append((lines[i + 1], body))
    return out


def man_env(page):
    """{name: (other spellings, commands)} from a page's ENVIRONMENT."""
    out = {}
    for label, body in man_tagged(man_section(page, "ENVIRONMENT")):
        names = [unroff(n) for n in re.findall(r"\\fB(.*?)\\fR", label)]
        commands = []
        for b in body:
            m = re.match(r"^Read by: (.*)\.$", b)
            if m:
                commands = [unroff(c) for c in re.findall(r"\\fB(.*?)\\fR", m.group(1))]
        if names:
            out[names[0]] = (names[1:], commands)
    return out


def man_examples(page):
    """The command lines of a page's EXAMPLES, or None when it has none."""
    lines = man_section(page, "EXAMPLES")
    if lines is None:
        return None
    return [unroff(re.sub(r"\\f[BRI]", "", label)) for label, _ in man_tagged(lines)]


def help_takes_value(cwsc, cmd):
    """{spelling: whether it takes a value} from `cwsc CMD --help`."""
    out = run([cwsc, cmd, "--help"]).stdout
    section = out.split("\noptions:\n", 1)[1].split("\n\n", 1)[0]
    takes = {}
    for line in section.splitlines():
        if re.match(r"^  -", line):
            label = line[2:26].strip() if len(line) > 26 and line[25] == " " else line[2:].strip()
            words = label.split(", ")
            for w in words:
                takes[w.split(" ")[0]] = " " in words[-1]
    return takes


def example_errors(line, commands, flags_of):
    """What is wrong with example `line` (empty when nothing): it must be
    `cwsc COMMAND ...` with only COMMAND's flags and their listed values.
    flags_of(cmd) is ({flag: choices}, {flag: takes a value})."""
    words = shlex.split(line)
    if len(words) < 2 or words[0] != "cwsc" or words[1] not in commands:
        return [f"{line!r}: not `cwsc COMMAND`"]
    choices, takes = flags_of(words[1])
    errors, i = [], 2
    while i < len(words):
        w = words[i]
        i += 1
        if w == "--":
            break
        if not w.startswith("-") or w == "-":
            continue
        name, eq, value = w.partition("=")
        if name not in takes:
            errors.append(f"{line!r}: {words[1]} has no flag {name}")
            continue
        if takes[name] and not eq:
            if i >= len(words):
                errors.append(f"{line!r}: {name} without its value")
                break
            value = words[i]
            i += 1
        if takes[name] and choices.get(name):
            for v in value.split(","):
                if v not in choices[name]:
                    errors.append(f"{line!r}: {name} {v} is not one of {choices[name]}")
    return errors


# A call that reads an environment variable, with the name as a literal
# argument: getenv("X"), facts.Env("X"), Origin::Env("X") (an origin names
# the variable a value was read from), and the readers built on them
# (cli/cli_options.cc EnvVar, compiler/layers.cc EnvValue, ...), and the
# overrides of the config-key table, EnvOverride("X", "Y") (compiler/
# config_key_table.h, read by compiler/layers.cc). A name held in a constant
# (ir/constants.h) is not seen: each is also read by a literal.
ENV_READER = re.compile(
    r"\b(?:getenv|Env|EnvVar|EnvValue|NonBlankEnv|EnvIsSet|HomeVariable|EnvOverride)"
    r"\(([^()]*)\)")
# `for (const char* var : {"A", "B"})` whose body reads var.
ENV_LOOP = re.compile(r"for \(const char\* (\w+) :\s*\{([^}]*)\}\)(?=(.{0,240}))", re.S)
LITERAL = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"')


def env_reads_in(text):
    text = re.sub(r"(^|\s)//[^\n]*", r"\1", text)  # comments
    names = set()
    for m in ENV_READER.finditer(text):
        names.update(LITERAL.findall(m.group(1)))
    for m in ENV_LOOP.finditer(text):
        if re.search(r"\b(?:getenv|Env|EnvIsSet|NonBlankEnv)\((?:facts, )?(?:std::string\()?"
                     + m.group(1) + r"\b", m.group(3)):
            names.update(LITERAL.findall(m.group(2)))
    return names


def source_env_reads(srcdir):
    """{variable: first file reading it} over cli/, runtime/, compiler/, lib/
    (tests excluded)."""
    found = {}
    for top in ("cli", "runtime", "compiler", "lib"):
        for root, dirs, files in os.walk(os.path.join(srcdir, top)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith((".cc", ".h")) or "_test" in f:
                    continue
                path = os.path.join(root, f)
                with open(path, encoding="utf-8") as fh:
                    for n in sorted(env_reads_in(fh.read())):
                        found.setdefault(n, os.path.relpath(path, srcdir))
    return found


def check_environment(srcdir, mandir, commands):
    # The scanner itself: it must see each form of read, or the comparison
    # below could pass on nothing.
    sample = ('x = std::getenv("A"); y = facts_.Env("B").value_or(""); // getenv("C")\n'
              'EnvValue(facts, "D", "E"); for (const char* var : {"F", "G"}) {\n'
              '  auto v = facts.Env(var);\n}\nfor (const char* p : {"H"}) Add(p);\n'
              '{"k", "kK", T, EnvOverride("I", "J", true), "", "", "", &S::k},\n')
    got = env_reads_in(sample)
    check(got == {"A", "B", "D", "E", "F", "G", "I", "J"},
          f"env scanner reads {sorted(got)} in its sample")
    reads = source_env_reads(srcdir)
    check(len(reads) >= 15, f"the sources read only {sorted(reads)}")
    table = man_env(os.path.join(mandir, "cwsc.1"))
    check(len(table) >= 10, f"cwsc.1 ENVIRONMENT lists {sorted(table)}")
    listed = set(table)
    for also, _ in table.values():
        listed.update(also)
    for name in sorted(set(reads) - listed):
        check(False, f"{reads[name]} reads ${name}, which cwsc.1 ENVIRONMENT does not list")
    for name in sorted(listed - set(reads)):
        check(False, f"cwsc.1 ENVIRONMENT lists ${name}, which no source reads")
    for name, (_, cmds) in table.items():
        check(cmds and set(cmds) <= set(commands), f"${name} is read by {cmds}, not commands")
    for cmd in commands:
        want = {n for n, (_, cmds) in table.items() if cmd in cmds}
        page = os.path.join(mandir, f"cwsc-{cmd}.1")
        check(man_section(page, "ENVIRONMENT") is not None, f"cwsc-{cmd}.1 has no ENVIRONMENT")
        got = set(man_env(page))
        check(got == want, f"cwsc-{cmd}.1 ENVIRONMENT: {sorted(got)}, cwsc.1 says {sorted(want)}")


def check_examples(cwsc, mandir, commands):
    flags = {c: (help_flags(cwsc, c), help_takes_value(cwsc, c)) for c in commands}
    bogus = example_errors("cwsc compile x.toml --mdoe ask", commands, flags.get)
    check(len(bogus) == 1 and "--mdoe" in bogus[0], f"a bad example gives {bogus}")
    bogus = example_errors("cwsc compile x.toml --target nope -- sh --mdoe", commands, flags.get)
    check(len(bogus) == 1 and "nope" in bogus[0], f"a bad value gives {bogus}")
    main = man_examples(os.path.join(mandir, "cwsc.1"))
    check(main, f"cwsc.1 has no EXAMPLES: {main}")
    for line in main or []:
        for e in example_errors(line, commands, flags.get):
            check(False, f"cwsc.1 EXAMPLES: {e}")
    for cmd in commands:
        examples = man_examples(os.path.join(mandir, f"cwsc-{cmd}.1"))
        check(examples, f"cwsc-{cmd}.1 has no EXAMPLES")
        for line in examples or []:
            check(shlex.split(line)[1:2] == [cmd], f"cwsc-{cmd}.1 EXAMPLES: {line!r}")
            for e in example_errors(line, commands, flags.get):
                check(False, f"cwsc-{cmd}.1 EXAMPLES: {e}")


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
    cwsc, mandir, bash, zsh, fish, srcdir = sys.argv[1:7]
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
    check_environment(srcdir, mandir, commands)
    check_examples(cwsc, mandir, commands)
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
