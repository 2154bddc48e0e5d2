#!/usr/bin/env python3
"""cwsc_argv.py: compile a policy through libcwsc with ctypes and print the
bubblewrap argv the way `cwsc compile --target bwrap --format nul` does.

usage: cwsc_argv.py POLICY MODE [--facts FILE] [-- PROGRAM ARGS...]

The library is found as CWSC_LIBRARY (a path), else as libcwsc.so.0 on the
loader's path. Only the standard library is used.
"""

import ctypes
import os
import sys

OK = 0


class Cwsc:
    """The few functions of cwsc.h this example calls, with their types."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
        out = ctypes.POINTER(ctypes.c_void_p)
        sigs = {
            "cwsc_version": (cp, []),
            "cwsc_facts_live": (vp, []),
            "cwsc_facts_load_file": (ctypes.c_int, [cp, out, out]),
            "cwsc_facts_free": (None, [vp]),
            "cwsc_options_new": (vp, []),
            "cwsc_options_set_program": (ctypes.c_int, [vp, ctypes.POINTER(cp), sz]),
            "cwsc_options_free": (None, [vp]),
            "cwsc_policy_load_file": (ctypes.c_int, [cp, ctypes.c_int, vp, out, out]),
            "cwsc_policy_free": (None, [vp]),
            "cwsc_compile": (ctypes.c_int, [vp, cp, vp, vp, out, out]),
            "cwsc_plan_free": (None, [vp]),
            "cwsc_plan_argv": (ctypes.c_int, [vp, ctypes.c_int, out, out]),
            "cwsc_argv_count": (sz, [vp]),
            "cwsc_argv_at": (cp, [vp, sz]),
            "cwsc_argv_free": (None, [vp]),
            "cwsc_diagnostics_render": (cp, [vp]),
            "cwsc_diagnostics_free": (None, [vp]),
        }
        for name, (restype, argtypes) in sigs.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name[len("cwsc_"):], fn)


class CwscError(Exception):
    def __init__(self, status, text):
        super().__init__(text)
        self.status = status


def bwrap_argv(lib, policy_path, mode, facts_path, program):
    """The argv tokens (bytes), or CwscError with the rendered diagnostics."""
    diags = ctypes.c_void_p()
    handles = []  # (free function, handle), freed in reverse order

    def check(status):
        if status != OK:
            text = lib.diagnostics_render(diags).decode()
            lib.diagnostics_free(diags)
            raise CwscError(status, text)
        lib.diagnostics_free(diags)

    try:
        facts = ctypes.c_void_p()
        if facts_path:
            check(lib.facts_load_file(facts_path.encode(), ctypes.byref(facts), ctypes.byref(diags)))
        else:
            facts = ctypes.c_void_p(lib.facts_live())
        handles.append((lib.facts_free, facts))
        options = ctypes.c_void_p(lib.options_new())
        handles.append((lib.options_free, options))
        args = (ctypes.c_char_p * len(program))(*[a.encode() for a in program])
        lib.options_set_program(options, args, len(program))
        policy = ctypes.c_void_p()
        check(lib.policy_load_file(policy_path.encode(), 0, options, ctypes.byref(policy),
                                   ctypes.byref(diags)))
        handles.append((lib.policy_free, policy))
        plan = ctypes.c_void_p()
        check(lib.compile(policy, mode.encode(), facts, options, ctypes.byref(plan),
                          ctypes.byref(diags)))
        handles.append((lib.plan_free, plan))
        argv = ctypes.c_void_p()
        check(lib.plan_argv(plan, 1, ctypes.byref(argv), ctypes.byref(diags)))  # CWSC_TARGET_BWRAP
        handles.append((lib.argv_free, argv))
        return [lib.argv_at(argv, i) for i in range(lib.argv_count(argv))]
    finally:
        for free, handle in reversed(handles):
            free(handle)


def main(argv):
    if len(argv) < 3:
        print("usage: cwsc_argv.py POLICY MODE [--facts FILE] [-- PROGRAM ARGS...]",
              file=sys.stderr)
        return 1
    policy_path, mode, rest = argv[1], argv[2], argv[3:]
    facts_path, program = None, []
    i = 0
    while i < len(rest):
        if rest[i] == "--facts" and i + 1 < len(rest):
            facts_path = rest[i + 1]
            i += 2
        elif rest[i] == "--":
            program = rest[i + 1:]
            break
        else:
            i += 1
    lib = Cwsc(os.environ.get("CWSC_LIBRARY", "libcwsc.so.0"))
    try:
        tokens = bwrap_argv(lib, policy_path, mode, facts_path, program)
    except CwscError as e:
        sys.stderr.write(str(e))
        return e.status
    sys.stdout.buffer.write(b"".join(t + b"\0" for t in tokens))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
