#!/usr/bin/env python3
"""cwsc_spawn.py: run a command confined by a policy through libcwsc's
cwsc_spawn with ctypes, as an engine would (docs/embedding.md, "Running a
plan"): compile against the live host, offer the command this program's
environment explicitly (the plan's allow-list filters it: API keys stay
out), forward Ctrl-C and the other signals `cwsc run` forwards, and exit as
`cwsc run` exits. The same program as examples/embed/c/cwsc_spawn.c.

usage: cwsc_spawn.py POLICY MODE [--timeout SECONDS] -- PROGRAM ARGS...

The library is found as CWSC_LIBRARY (a path), else as libcwsc.so.0 on the
loader's path. Only the standard library is used.
"""

import ctypes
import os
import signal
import sys

OK = 0


def load(path):
    """The functions of cwsc.h this program calls, with their types."""
    lib = ctypes.CDLL(path)
    vp, cp, sz, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int
    out = ctypes.POINTER(ctypes.c_void_p)
    sigs = {
        "cwsc_facts_live": (vp, []),
        "cwsc_facts_free": (None, [vp]),
        "cwsc_compile_file": (i, [cp, i, cp, vp, vp, out, out]),
        "cwsc_plan_free": (None, [vp]),
        "cwsc_diagnostics_render": (cp, [vp]),
        "cwsc_diagnostics_free": (None, [vp]),
        "cwsc_spawn_options_new": (vp, []),
        "cwsc_spawn_options_set_program": (i, [vp, ctypes.POINTER(cp), sz]),
        "cwsc_spawn_options_set_env": (i, [vp, ctypes.POINTER(cp), sz]),
        "cwsc_spawn_options_set_stdio": (i, [vp, i, i, i]),
        "cwsc_spawn_options_set_timeout": (i, [vp, ctypes.c_double, ctypes.c_double]),
        "cwsc_spawn_options_free": (None, [vp]),
        "cwsc_spawn": (i, [vp, vp, vp, out, out]),
        "cwsc_child_wait_timeout": (i, [vp, i, ctypes.POINTER(i)]),
        "cwsc_child_signal": (i, [vp, i]),
        "cwsc_child_exit_code": (i, [vp]),
        "cwsc_child_timed_out": (i, [vp]),
        "cwsc_child_free": (None, [vp]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


def strings(items):
    """A C array of the strings (bytes as given, str as the file system encodes it)."""
    encoded = [s if isinstance(s, bytes) else os.fsencode(s) for s in items]
    return (ctypes.c_char_p * max(len(encoded), 1))(*encoded), len(encoded)


def main(argv):
    if len(argv) < 3 or "--" not in argv:
        sys.stderr.write("usage: cwsc_spawn.py POLICY MODE [--timeout SECONDS] -- PROGRAM ARGS...\n")
        return 2
    policy, mode = argv[1], argv[2]
    timeout = 0.0
    rest = argv[3:argv.index("--")]
    if rest[:1] == ["--timeout"] and len(rest) > 1:
        timeout = float(rest[1])
    program = argv[argv.index("--") + 1:]
    if not program:
        sys.stderr.write("cwsc_spawn.py: no program after --\n")
        return 2
    lib = load(os.environ.get("CWSC_LIBRARY", "libcwsc.so.0"))

    diags = ctypes.c_void_p()
    facts = lib.cwsc_facts_live()
    plan = ctypes.c_void_p()
    if lib.cwsc_compile_file(os.fsencode(policy), 0, mode.encode(), facts, None,
                             ctypes.byref(plan), ctypes.byref(diags)) != OK:
        sys.stderr.write(lib.cwsc_diagnostics_render(diags).decode(errors="replace"))
        return 2
    lib.cwsc_diagnostics_free(diags)

    options = lib.cwsc_spawn_options_new()
    prog, n = strings(program)
    lib.cwsc_spawn_options_set_program(options, prog, n)
    env, m = strings(b"%s=%s" % (k, v) for k, v in os.environb.items())
    lib.cwsc_spawn_options_set_env(options, env, m)
    lib.cwsc_spawn_options_set_stdio(options, 0, 1, 2)
    if timeout > 0:
        lib.cwsc_spawn_options_set_timeout(options, timeout, 2.0)
    child = ctypes.c_void_p()
    if lib.cwsc_spawn(plan, facts, options, ctypes.byref(child), ctypes.byref(diags)) != OK:
        sys.stderr.write(lib.cwsc_diagnostics_render(diags).decode(errors="replace"))
        return 125  # nothing ran; the diagnostic says why
    sys.stderr.write(lib.cwsc_diagnostics_render(diags).decode(errors="replace"))
    lib.cwsc_diagnostics_free(diags)

    # Signals reach this program's handlers between waits: forward them.
    pending = []
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, lambda s, _frame: pending.append(s))
    done = ctypes.c_int(0)
    while not done.value:
        while pending:
            lib.cwsc_child_signal(child, pending.pop(0))
        lib.cwsc_child_wait_timeout(child, 100, ctypes.byref(done))
    code = lib.cwsc_child_exit_code(child)
    if lib.cwsc_child_timed_out(child):
        sys.stderr.write("cwsc_spawn.py: timed out after %g s\n" % timeout)
    lib.cwsc_child_free(child)
    lib.cwsc_spawn_options_free(options)
    lib.cwsc_plan_free(plan)
    lib.cwsc_facts_free(facts)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
