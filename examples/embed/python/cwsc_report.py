#!/usr/bin/env python3
"""cwsc_report.py: the reports of `cwsc why`, `explain`, `diff` and `check`
made through libcwsc with ctypes, and one decision of cwsc_plan_check.

usage: cwsc_report.py why PATH POLICY MODE FACTS [--json]
       cwsc_report.py explain POLICY MODE FACTS [--json]
       cwsc_report.py diff A B MODE FACTS [--json]
       cwsc_report.py check FILE FACTS [--json]
       cwsc_report.py verdict ACCESS PATH POLICY MODE FACTS

FACTS is a facts file (`cwsc facts`), or `-` for the live host. The report
is printed as the program prints it (tests/lib/embed_test.sh compares the
bytes). The library is found as CWSC_LIBRARY, else as libcwsc.so.0.
"""

import ctypes
import os
import sys

OK = 0
TEXT, JSON = 0, 1  # cwsc_report_format


class Cwsc:
    """The functions of cwsc.h this example calls, with their types."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        vp, cp, sz, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int
        out = ctypes.POINTER(ctypes.c_void_p)
        sp, szp, ip = ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(sz), ctypes.POINTER(i)
        sigs = {
            "cwsc_facts_live": (vp, []),
            "cwsc_facts_load_file": (i, [cp, out, out]),
            "cwsc_facts_free": (None, [vp]),
            "cwsc_options_new": (vp, []),
            "cwsc_options_free": (None, [vp]),
            "cwsc_policy_load_file": (i, [cp, i, vp, out, out]),
            "cwsc_policy_free": (None, [vp]),
            "cwsc_compile": (i, [vp, cp, vp, vp, out, out]),
            "cwsc_plan_free": (None, [vp]),
            "cwsc_plan_why": (i, [vp, cp, cp, i, sp, szp, out]),
            "cwsc_plan_explain": (i, [vp, vp, i, i, sp, szp, out]),
            "cwsc_plan_diff": (i, [vp, cp, vp, cp, i, sp, szp, out]),
            "cwsc_check_file": (i, [cp, i, cp, vp, vp, i, sp, szp, ip, out]),
            "cwsc_plan_check": (i, [vp, cp, cp, out, out]),
            "cwsc_verdict_allowed": (i, [vp]),
            "cwsc_verdict_rule": (cp, [vp]),
            "cwsc_verdict_detail": (cp, [vp]),
            "cwsc_verdict_where": (cp, [vp]),
            "cwsc_verdict_origin": (cp, [vp]),
            "cwsc_verdict_path": (cp, [vp]),
            "cwsc_verdict_free": (None, [vp]),
            "cwsc_string_free": (None, [vp]),
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


class Session:
    """Calls with their diagnostics checked; every handle freed at the end."""

    def __init__(self, lib):
        self.lib, self.handles = lib, []

    def check(self, status, diags):
        text = self.lib.diagnostics_render(diags).decode()
        self.lib.diagnostics_free(diags)
        if status != OK:
            raise CwscError(status, text)

    def keep(self, free, handle):
        self.handles.append((free, handle))
        return handle

    def close(self):
        for free, handle in reversed(self.handles):
            free(handle)

    def facts(self, path):
        if path == "-":
            return self.keep(self.lib.facts_free, ctypes.c_void_p(self.lib.facts_live()))
        f, d = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.lib.facts_load_file(path.encode(), ctypes.byref(f), ctypes.byref(d)), d)
        return self.keep(self.lib.facts_free, f)

    def plan(self, policy_path, mode, facts):
        options = self.keep(self.lib.options_free, ctypes.c_void_p(self.lib.options_new()))
        policy, plan, d = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.lib.policy_load_file(policy_path.encode(), 0, options,
                                             ctypes.byref(policy), ctypes.byref(d)), d)
        self.keep(self.lib.policy_free, policy)
        self.check(self.lib.compile(policy, mode.encode(), facts, options, ctypes.byref(plan),
                                    ctypes.byref(d)), d)
        return self.keep(self.lib.plan_free, plan)

    def text(self, call, *args):
        """Calls a function returning text (char** out, size_t* len)."""
        out, n, d = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_void_p()
        status = call(*args, ctypes.byref(out), ctypes.byref(n), ctypes.byref(d))
        data = ctypes.string_at(out, n.value) if out.value else b""
        self.lib.string_free(out)
        self.check(status, d)
        return data


def report(s, args, fmt):
    lib = s.lib
    if len(args) == 5 and args[0] == "why":
        path, policy, mode, facts = args[1:]
        return s.text(lib.plan_why, s.plan(policy, mode, s.facts(facts)), path.encode(), None,
                      fmt), 0
    if len(args) == 4 and args[0] == "explain":
        policy, mode, facts = args[1:]
        f = s.facts(facts)
        return s.text(lib.plan_explain, s.plan(policy, mode, f), f, 0, fmt), 0
    if len(args) == 5 and args[0] == "diff":
        a, b, mode, facts = args[1:]
        f = s.facts(facts)
        return s.text(lib.plan_diff, s.plan(a, mode, f), a.encode(), s.plan(b, mode, f),
                      b.encode(), fmt), 0
    if len(args) == 3 and args[0] == "check":
        failed = ctypes.c_int()
        options = s.keep(lib.options_free, ctypes.c_void_p(lib.options_new()))
        facts = s.facts(args[2])
        out, n, d = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_void_p()
        status = lib.check_file(args[1].encode(), 0, None, facts, options, fmt, ctypes.byref(out),
                                ctypes.byref(n), ctypes.byref(failed), ctypes.byref(d))
        data = ctypes.string_at(out, n.value) if out.value else b""
        lib.string_free(out)
        s.check(status, d)
        return data, 1 if failed.value else 0
    if len(args) == 6 and args[0] == "verdict":
        access, path, policy, mode, facts = args[1:]
        v, d = ctypes.c_void_p(), ctypes.c_void_p()
        s.check(lib.plan_check(s.plan(policy, mode, s.facts(facts)), access.encode(),
                               None if path == "-" else path.encode(), ctypes.byref(v),
                               ctypes.byref(d)), d)
        s.keep(lib.verdict_free, v)
        line = "%s %s: %s by %s (%s) from %s\n" % (
            lib.verdict_path(v).decode(), "allowed" if lib.verdict_allowed(v) else "denied",
            lib.verdict_detail(v).decode(), lib.verdict_rule(v).decode(),
            lib.verdict_where(v).decode(), lib.verdict_origin(v).decode())
        return line.encode(), 0
    raise CwscError(1, "usage: cwsc_report.py why|explain|diff|check|verdict ... (see above)\n")


def main(argv):
    args = argv[1:]
    fmt = TEXT
    if args and args[-1] == "--json":
        args, fmt = args[:-1], JSON
    s = Session(Cwsc(os.environ.get("CWSC_LIBRARY", "libcwsc.so.0")))
    try:
        data, code = report(s, args, fmt)
    except CwscError as e:
        sys.stderr.write(str(e))
        return 2
    finally:
        s.close()
    sys.stdout.buffer.write(data)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
