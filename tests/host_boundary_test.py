#!/usr/bin/env python3
"""The layers and the host boundary, checked on what the build produced
against docs/architecture.md.

usage: host_boundary_test.py [--expect LAYER:SYMBOL] SOURCE_ROOT NAME=LIBRARY.a ...

Each NAME is a layer (ir, facts, compiler, backends, verify, host, runtime,
driver), each LIBRARY its static library. The layers, their folders and the
layers each may link are read from the table of docs/architecture.md
("Layers"), the one place they are written. Checks:

1. The pure layers (ir, facts, compiler, backends, verify) leave no call to
   a process-, socket- or code-loading function undefined: `nm -u` on their
   archives names none of FORBIDDEN. A raw syscall(2) counts too, since it
   can make any of them.
2. The same scan on the host library does find some of them, so check 1
   looks at the right thing (an archive that starts processes is seen).
3. A layer uses only the layers below it: no undefined symbol of a layer is
   defined (strongly) in a layer it may not link, and no source file of a
   layer includes a header of a folder it may not use.
4. The document is the build: every folder the document names exists, and
   the layers each layer's `meson.build` links (its static library's
   dependencies, followed through theirs) are the ones its row lists.
5. The compiler's stages stay acyclic and small: the modules of compiler/
   (a top-level NAME.h/NAME.cc pair; compiler/facts and compiler/driver are
   layers of their own) include each other without a cycle (a cycle is
   printed as its path), and no .cc or .h file under compiler/ has more than
   MAX_LINES lines.
6. Code reads the plan's launch, not its kind: outside ir/ and tests/, the
   sources name a plan kind (`PlanKind::k...`) in at most MAX_KIND_NAMES
   places (each printed); everywhere else they ask for the launch's
   alternative (ir/plan.h).
7. The front door cli/ only parses and renders: its files add up to at
   most CLI_MAX_LINES lines. The ceiling only comes down (docs/architecture.md,
   "cli"); a report both front doors give is rendered in compiler/driver/.

Exit status 0 when every check passes; otherwise each violation is printed.
With --expect LAYER:SYMBOL (the check's own test, with a library that calls
SYMBOL in LAYER's place) the status is 0 only when that call is reported
and the include cycle search of check 5 gives the known answers on two
small graphs.
"""

import os
import re
import subprocess
import sys

FORBIDDEN = {
    "fork", "vfork", "_Fork", "clone", "clone3",
    "execve", "execveat", "fexecve", "execv", "execvp", "execvpe",
    "execl", "execlp", "execle",
    "posix_spawn", "posix_spawnp", "popen", "system",
    "socket", "socketpair", "connect",
    "dlopen", "syscall",
}

PURE = ["ir", "facts", "compiler", "backends", "verify"]

DOC = "docs/architecture.md"
ROW = re.compile(r"^\|\s*`([a-z/]+)/`\s*\|\s*`cwsc_([a-z]+)`\s*\|([^|]*)\|", re.M)
FOLDER_NAMED = re.compile(r"`([a-z_]+(?:/[a-z_]+)*)/`")


def read_layers(root):
    """(FOLDERS, ALLOWED) from the document's table: layer -> folder, and
    layer -> the layers it links (its row's "Links", "—" for none)."""
    with open(os.path.join(root, DOC), encoding="utf-8") as f:
        text = f.read()
    folders, allowed = {}, {}
    for folder, layer, links in ROW.findall(text):
        folders[layer] = folder
        names = [n.strip() for n in links.split(",")]
        allowed[layer] = {n for n in names if n and n != "—"}
    return text, folders, allowed


def meson_links(root, folders):
    """layer -> the layers its meson.build names (cwsc_X_dep), followed
    through theirs."""
    direct = {}
    for layer, folder in folders.items():
        with open(os.path.join(root, folder, "meson.build"), encoding="utf-8") as f:
            text = f.read()
        # Its library's and its declared dependency's: every cwsc_X_dep the
        # file names (a folder's meson.build declares that layer alone).
        deps = set(re.findall(r"cwsc_([a-z]+)_dep", text)) - {layer}
        direct[layer] = {d for d in deps if d in folders}
    closed = {}
    for layer in folders:
        seen, todo = set(), list(direct[layer])
        while todo:
            d = todo.pop()
            if d not in seen:
                seen.add(d)
                todo.extend(direct[d])
        closed[layer] = seen
    return closed


INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


MAX_LINES = 500
# Check 6: places outside ir/ that may name a plan kind (where the two bwrap
# flavours differ).
MAX_KIND_NAMES = 4
# Check 7's ceiling: cli/'s lines when the reports of audit and explain
# --stage and the names of targets, formats and stages moved to
# compiler/driver/, and the man pages' examples and environment list to
# gendoc/, and flag dependencies to the command table (2026-12-08): under
# the 2,500 issue 27 asked for.
CLI_MAX_LINES = 2495


def compiler_modules(root):
    """module -> the modules it includes, for the top-level files of
    compiler/ (a module is NAME.h and NAME.cc together)."""
    base = os.path.join(root, "compiler")
    graph = {}
    for name in sorted(os.listdir(base)):
        if not name.endswith((".cc", ".h")):
            continue
        module = name.rsplit(".", 1)[0]
        with open(os.path.join(base, name), encoding="utf-8") as f:
            text = f.read()
        edges = graph.setdefault(module, set())
        for header in INCLUDE.findall(text):
            m = re.fullmatch(r"compiler/([A-Za-z0-9_]+)\.h", header)
            if m and m.group(1) != module:
                edges.add(m.group(1))
    return graph


def include_cycles(graph):
    """Each cycle a depth-first search meets, as its path (the first module
    repeated at the end), in a stable order."""
    cycles, state, stack = [], {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for other in sorted(graph.get(module, ())):
            if state.get(other) == "open":
                cycles.append(stack[stack.index(other):] + [other])
            elif other not in state:
                visit(other)
        stack.pop()
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return cycles


def long_files(root):
    """(path, lines) of each .cc/.h file under compiler/ over MAX_LINES."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "compiler")):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".cc", ".h")):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    lines = sum(1 for _ in f)
                if lines > MAX_LINES:
                    out.append((os.path.relpath(path, root), lines))
    return out


KIND_NAME = re.compile(r"\bPlanKind::k[A-Za-z]+")
KIND_FOLDERS = ["compiler", "backends", "runtime", "lib", "cli", "fuzz", "bench", "examples"]


def kind_names(root):
    """(path:line, text) of each place outside ir/ and tests/ that names a
    plan kind's enumerator."""
    out = []
    for folder in KIND_FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        if KIND_NAME.search(line):
                            out.append((f"{os.path.relpath(path, root)}:{number}", line.strip()))
    return out


def cli_lines(root):
    """The lines of every file under cli/."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "cli")):
        dirnames.sort()
        for name in sorted(filenames):
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                total += sum(1 for _ in f)
    return total


def nm_lines(archive, *flags):
    out = subprocess.run(["nm", *flags, archive], check=True, capture_output=True,
                         text=True).stdout
    return [line.split() for line in out.splitlines() if line and not line.endswith(":")]


def undefined(archive):
    return {f[-1] for f in nm_lines(archive, "-u") if f}


def strongly_defined(archive):
    # `nm --defined-only`: address, type, name; T/D/B/R are strong definitions
    # (weak W/V ones are inline functions and templates every user emits).
    return {f[2] for f in nm_lines(archive, "--defined-only") if len(f) == 3 and f[1] in "TDBR"}


FOLDERS, ALLOWED = {}, {}


def layer_of_header(path):
    best = None
    for layer, folder in FOLDERS.items():
        if path.startswith(folder + "/") and (best is None or len(folder) > len(FOLDERS[best])):
            best = layer
    if best is None and path.startswith("cli/"):
        return "cli"
    return best


def sources_of(root, layer):
    base = os.path.join(root, FOLDERS[layer])
    nested = [os.path.join(root, f) for l, f in FOLDERS.items()
              if l != layer and f.startswith(FOLDERS[layer] + "/")]
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in nested]
        for name in filenames:
            if name.endswith((".cc", ".h")):
                yield os.path.join(dirpath, name)


def main(argv):
    expect = None
    if len(argv) > 2 and argv[1] == "--expect":
        expect = argv[2].split(":", 1)
        argv = argv[:1] + argv[3:]
    if len(argv) < 3:
        print(__doc__)
        return 2
    root = argv[1]
    libs = dict(a.split("=", 1) for a in argv[2:])
    problems = []
    text, folders, allowed = read_layers(root)
    FOLDERS.update(folders)
    ALLOWED.update(allowed)
    for layer in libs:
        if layer not in FOLDERS:
            problems.append(f"{DOC} has no row for the layer {layer}")
    if problems:
        for p in problems:
            print(p)
        return 1

    for folder in sorted(set(FOLDER_NAMED.findall(text))):
        if not os.path.isdir(os.path.join(root, folder)):
            problems.append(f"{DOC} names the folder {folder}/, which does not exist")
    for layer, links in sorted(meson_links(root, FOLDERS).items()):
        if links != ALLOWED[layer]:
            problems.append(f"{FOLDERS[layer]}/meson.build links {layer} with "
                            f"{', '.join(sorted(links)) or 'nothing'}; {DOC} says "
                            f"{', '.join(sorted(ALLOWED[layer])) or 'nothing'}")

    for layer in PURE:
        bad = sorted(undefined(libs[layer]) & FORBIDDEN)
        for sym in bad:
            problems.append(f"{layer} ({libs[layer]}) calls {sym}: the pure layers start no "
                            "process and open no socket")
    host_calls = sorted(undefined(libs["host"]) & FORBIDDEN)
    if not host_calls:
        problems.append(f"the scan finds no process call in the host library {libs['host']}: "
                        "it does not see what it should")
    else:
        print(f"host library calls, as expected: {' '.join(host_calls)}")

    defined = {layer: strongly_defined(lib) for layer, lib in libs.items()}
    for layer, lib in libs.items():
        needs = undefined(lib)
        for other, syms in defined.items():
            if other == layer or other in ALLOWED[layer]:
                continue
            for sym in sorted(needs & syms)[:5]:
                problems.append(f"{layer} uses {sym}, defined in {other}, a layer it may not link")

    for layer in libs:
        for path in sources_of(root, layer):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for header in INCLUDE.findall(text):
                owner = layer_of_header(header)
                if owner is None or owner == layer or owner in ALLOWED[layer]:
                    continue
                problems.append(f"{os.path.relpath(path, root)} ({layer}) includes {header} "
                                f"({owner}), a layer it may not use")

    graph = compiler_modules(root)
    for cycle in include_cycles(graph):
        problems.append("include cycle in compiler/: " +
                        " -> ".join(f"compiler/{m}" for m in cycle))
    for path, lines in long_files(root):
        problems.append(f"{path} has {lines} lines; a file of compiler/ has at most {MAX_LINES}")
    print(f"compiler/: {len(graph)} modules")
    named = kind_names(root)
    for place, line in named:
        print(f"names a plan kind: {place}: {line}")
    if len(named) > MAX_KIND_NAMES:
        problems.append(f"{len(named)} places outside ir/ name a plan kind; at most "
                        f"{MAX_KIND_NAMES} may (ask for the launch's alternative: ir/plan.h)")

    lines = cli_lines(root)
    print(f"cli/: {lines} lines (at most {CLI_MAX_LINES})")
    if lines > CLI_MAX_LINES:
        problems.append(f"cli/ has {lines} lines; at most {CLI_MAX_LINES} (render a report both "
                        "front doors give in compiler/driver/report.h)")

    for p in problems:
        print(p)
    print(f"host boundary: {len(problems)} problem(s) in {len(libs)} libraries")
    if expect:
        wanted = f"{expect[0]} ({libs[expect[0]]}) calls {expect[1]}:"
        found = any(p.startswith(wanted) for p in problems)
        print(f"expected violation {'reported' if found else 'NOT reported'}: {wanted}")
        # Check 5's search on graphs with a known answer: a cycle of three
        # modules is reported as its path, a diamond is no cycle.
        cycle = include_cycles({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()})
        diamond = include_cycles({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()})
        searched = cycle == [["a", "b", "c", "a"]] and diamond == []
        print(f"include cycle search {'finds' if searched else 'does NOT find'} a -> b -> c -> a")
        # Check 6's pattern: an enumerator is a kind named, its spelling is not.
        kinds = (bool(KIND_NAME.search("if (p.kind() == ir::PlanKind::kLinuxBwrap) {")) and
                 not KIND_NAME.search("ir::PlanKindName(plan.kind())"))
        print(f"plan kind pattern {'tells' if kinds else 'does NOT tell'} a name from a spelling")
        return 0 if found and searched and kinds else 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
