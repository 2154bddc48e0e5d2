#!/usr/bin/env python3
"""The JSON Schemas of docs/ against what cwsc writes and reads.

  schema_test.py SOURCE_ROOT CWSC_BIN

docs/plan.schema.json (the plan, docs/plan.md) must accept every golden plan
and every plan compiled from every example under every permission mode, and
reject broken plans exactly when `cwsc exec` (ir::PlanFromJson) rejects them:
a missing field, a wrong enum value, a field of another kind, an unknown field
anywhere. docs/cli.schema.json (the --json report, docs/cli.md) must accept
every report golden and reject a broken report. Needs Debian's
python3-jsonschema (draft 2020-12).
"""

import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

import jsonschema

ROOT, CWSC = sys.argv[1], sys.argv[2]
MODES = ["plan", "ask", "auto-review", "full-access"]
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def load_schema(name):
    with open(os.path.join(ROOT, "docs", name)) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


PLAN = load_schema("plan.schema.json")
REPORT = load_schema("cli.schema.json")


def errors(validator, doc):
    return ["%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:200])
            for e in validator.iter_errors(doc)]


def cwsc(args, cwd=ROOT):
    return subprocess.run([CWSC] + args, cwd=cwd, capture_output=True, text=True)


checked_plans = set()  # the canonical text of each plan validated so far


def check_plan(where, plan):
    # Most example x facts x mode compiles repeat an earlier plan exactly
    # (484 compiles, about 130 distinct plans); the schema sees each once.
    text = json.dumps(plan, sort_keys=True)
    if text in checked_plans:
        return
    checked_plans.add(text)
    errs = errors(PLAN, plan)
    if errs:
        fail("%s: the plan schema rejects a plan cwsc wrote: %s" % (where, errs[:3]))


# 1. Every golden plan.
golden_plans = sorted(glob.glob(os.path.join(ROOT, "tests/golden/**/plan.json"), recursive=True))
if len(golden_plans) < 10:
    fail("expected the golden plans under tests/golden, found %d" % len(golden_plans))
for path in golden_plans:
    with open(path) as f:
        check_plan(os.path.relpath(path, ROOT), json.load(f))

# 2. Every example (each policy of a .cwsp file) under every mode, against
# every recorded facts file: every plan kind the examples reach.
MANAGED = "examples/managed-launcher.toml"
examples = sorted(glob.glob(os.path.join(ROOT, "examples/*.cwsp")) +
                  glob.glob(os.path.join(ROOT, "examples/*.toml")))
facts_files = sorted(glob.glob(os.path.join(ROOT, "examples/facts/*.yaml")))
compiled, kinds = 0, set()
work = tempfile.TemporaryDirectory()


def managed_host():
    """linux-workspace.yaml with MANAGED installed as the managed config (docs/launcher.md)."""
    with open(os.path.join(ROOT, "examples/facts/linux-workspace.yaml")) as f:
        facts = f.read()
    with open(os.path.join(ROOT, MANAGED)) as f:
        content = f.read()
    root_owned = '{type: %s, canonical: %s, mode: "%s", uid: 0, gid: 0}'
    facts = facts.replace("bwrap_probe:", "".join(
        "  %s: %s\n" % (p, root_owned % (t, p, m)) for p, t, m in [
            ("/etc", "directory", "0755"), ("/etc/codewhale", "directory", "0755"),
            ("/etc/codewhale/managed_config.toml", "file", "0644"),
            ("/usr/bin/sudo", "file", "4755")]) +
        "files:\n  /etc/codewhale/managed_config.toml: %s\nbwrap_probe:" % json.dumps(content))
    facts += 'launcher_probe: {ran: true, ok: true, uid: 998, gids: [998], message: ""}\n'
    path = os.path.join(work.name, "managed.yaml")
    with open(path, "w") as f:
        f.write(facts)
    with open(os.path.join(work.name, "empty.toml"), "w") as f:
        pass
    return os.path.join(work.name, "empty.toml"), [path]


for example in examples:
    rel = os.path.relpath(example, ROOT)
    example_facts = facts_files
    if rel == MANAGED:  # a managed config: compiled as one, under an empty user config
        rel, example_facts = managed_host()
    policies = [None]
    if example.endswith(".cwsp"):
        with open(example) as f:
            names = [line.split()[1] for line in f if line.startswith("policy ")]
        policies = names if len(names) > 1 else [None]
    for policy in policies:
        for facts in example_facts:
            for mode in MODES:
                args = ["compile", rel, "--target", "plan", "--mode", mode, "--facts",
                        os.path.relpath(facts, ROOT), "--unlisted-as-missing"]
                if policy:
                    args += ["--policy", policy]
                r = cwsc(args)
                if r.returncode != 0:
                    fail("%s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
                    continue
                plan = json.loads(r.stdout)
                kinds.add(plan["kind"])
                compiled += 1
                check_plan(" ".join(args), plan)
for kind in ["linux-bwrap", "launcher+bwrap", "macos-seatbelt", "opensandbox", "none"]:
    if kind not in kinds:
        fail("no example compiles to a %s plan" % kind)
print("plans: %d golden, %d compiled from %d examples (kinds: %s), %d distinct" %
      (len(golden_plans), compiled, len(examples), ", ".join(sorted(kinds)),
       len(checked_plans)))

# 3. Broken plans: the schema and `cwsc exec` both reject each one.
with open(os.path.join(ROOT, "tests/golden/bwrap/ws_default/plan.json")) as f:
    base = json.load(f)
with open(os.path.join(ROOT, "tests/golden/bwrap/refused_backend/plan.json")) as f:
    refused = json.load(f)


def broken_cases():
    p = copy.deepcopy(base)
    del p["cwd"]
    yield "a missing common field", p
    p = copy.deepcopy(base)
    del p["launch"]["mounts"][0]["origin"]
    yield "a mount without its origin", p
    p = copy.deepcopy(base)
    p["kind"] = "docker"
    yield "an unknown kind", p
    p = copy.deepcopy(base)
    p["launch"]["mounts"][0]["op"] = "bind"
    yield "an unknown mount op", p
    p = copy.deepcopy(base)
    p["policy"]["origin"]["kind"] = "guess"
    yield "an unknown origin kind", p
    p = copy.deepcopy(base)
    p["launch"]["seatbelt"] = None
    yield "a Seatbelt field on a linux-bwrap plan", p
    p = copy.deepcopy(base)
    p["launch"]["refusal"] = {"reason": "no", "origin": {"kind": "default", "detail": "x"}}
    yield "a refusal on a linux-bwrap plan", p
    p = copy.deepcopy(refused)
    p["launch"]["mounts"] = base["launch"]["mounts"]
    yield "mounts on a refused plan", p
    p = copy.deepcopy(refused)
    del p["launch"]["refusal"]
    yield "a refused plan without its refusal", p
    p = copy.deepcopy(base)
    p["schema_version"] = 6
    yield "another schema_version", p
    p = copy.deepcopy(base)
    p["consulted"]["user"] = {"uid": 1000, "gid": 1000, "groups": [1000], "name": "dev",
                              "home": "/home/dev"}
    p["consulted"]["uid"] = 1000
    yield "a record of the user id alone and of the whole user", p
    p = copy.deepcopy(base)
    p["launch"]["mounts"][0]["role"] = "guard"
    yield "an unknown mount role", p
    p = copy.deepcopy(base)
    del p["launch"]["mounts"][0]["role"]
    yield "a mount without its role", p
    p = copy.deepcopy(base)
    p["launch"]["mounts"].append({"op": "writable-bind", "role": "protected", "source": "/w",
                                  "dest": "/w", "why": "w",
                                  "origin": {"kind": "default", "detail": "x"}})
    yield "a writable bind labelled protected", p
    p = copy.deepcopy(base)
    p["launch"]["mounts"][0]["dest"] = "relative/path"
    yield "a relative mount destination", p
    p = copy.deepcopy(base)
    p["policy"]["network_access"] = "yes"
    yield "a string for a boolean", p
    p = copy.deepcopy(base)
    p["mode_origin"]["line"] = 3
    yield "a position without its file", p
    p = copy.deepcopy(base)
    p["permission_mode"] = "yolo"
    yield "an unknown permission mode", p
    p = copy.deepcopy(base)
    p["launch"]["mounts"][0]["source"] = ""
    yield "a bind without its source", p
    # An unknown field in every object of the plan.
    def objects(node, pointer):
        if isinstance(node, dict):
            yield pointer, node
            for k, v in node.items():
                yield from objects(v, pointer + "/" + k)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from objects(v, pointer + "/" + str(i))
    for pointer, _ in list(objects(base, "")):
        p = copy.deepcopy(base)
        node = p
        for part in [x for x in pointer.split("/") if x]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node["future_restriction"] = True
        yield "an unknown field at '%s'" % (pointer or "/"), p


with tempfile.TemporaryDirectory() as tmp:
    cases = 0
    for what, plan in broken_cases():
        cases += 1
        if PLAN.is_valid(plan):  # stops at the first error
            fail("the plan schema accepts %s" % what)
        path = os.path.join(tmp, "broken.json")
        with open(path, "w") as f:
            json.dump(plan, f)
        r = cwsc(["exec", path, "--", "/bin/true"], cwd=tmp)
        if r.returncode != 2 or "broken.json" not in r.stderr:
            fail("cwsc exec does not reject %s (exit %d: %s)" % (what, r.returncode, r.stderr))
    print("broken plans: %d, each rejected by the schema and by cwsc exec" % cases)

# 4. Every report golden, and the plan inside a `compile --target plan --json`.
reports = sorted(glob.glob(os.path.join(ROOT, "tests/golden/json/*.json")) +
                 [os.path.join(ROOT, "tests/golden/check/workspace_macos_ask.json")])
commands = set()
for path in reports:
    with open(path) as f:
        report = json.load(f)
    commands.add(report["cwsc"]["command"])
    errs = errors(REPORT, report)
    if errs:
        fail("%s: the report schema rejects it: %s" % (os.path.relpath(path, ROOT), errs[:3]))
    result = report.get("result") or {}
    if report["cwsc"]["command"] == "compile" and "plan" in result:
        check_plan(os.path.relpath(path, ROOT) + " result.plan", result["plan"])
for command in ["compile", "explain", "check", "why", "diff", "audit", "fmt", "facts", "doctor",
                "run", "exec"]:
    if command not in commands:
        fail("no report golden for %s" % command)
print("reports: %d goldens (%s)" % (len(reports), ", ".join(sorted(commands))))

# Reports of the live host (no golden can hold them) and of errors.
live = [["doctor", "--json"], ["facts", "--json"], ["doctor", "missing.toml", "--json"],
        ["compile", "missing.toml", "--json"], ["check", "--json"],
        ["compile", "examples/workspace.cwsp", "--json", "--format", "nul"],
        ["explain", "examples/workspace.cwsp", "--json", "--target", "seatbelt"],
        ["compile", "examples/workspace.cwsp", "--facts", "examples/facts/linux-workspace.yaml",
         "--target", "seccomp", "--json"],
        ["explain", "examples/remote.cwsp", "--facts", "examples/facts/linux-workspace.yaml",
         "--json"],
        # explain --stage: a spec's settings, and a stage that is JSON.
        ["explain", "examples/workspace.toml", "--facts", "examples/facts/linux-workspace.yaml",
         "--stage", "layered", "--json"],
        ["explain", "examples/workspace.toml", "--facts", "examples/facts/linux-workspace.yaml",
         "--stage", "policy", "--json"],
        ["audit", "--sbpl", "tests/golden/seatbelt/example-workspace.sb", "-D",
         "WRITABLE_ROOT_0=/w", "--json"],
        # An absent deny target: the verdict "absent" (docs/verification.md).
        ["check", "examples/failing.cwsp", "--facts", "examples/facts/linux-workspace.yaml",
         "--mode", "ask", "--unlisted-as-missing", "--json"]]
for args in live:
    r = cwsc(args)
    try:
        report = json.loads(r.stdout)
    except ValueError:
        fail("%s: no JSON report on stdout: %r" % (" ".join(args), r.stdout[:200]))
        continue
    if report.get("exit_code") != r.returncode:
        fail("%s: exit_code %s, exit status %d" % (" ".join(args), report.get("exit_code"),
                                                   r.returncode))
    errs = errors(REPORT, report)
    if errs:
        fail("%s: the report schema rejects it: %s" % (" ".join(args), errs[:3]))
    if "examples/failing.cwsp" in args and not any(
            res["actual"] == "absent" for res in report["result"]["results"]):
        fail("%s: no absent verdict to validate" % " ".join(args))
print("reports: %d more from this host and from errors" % len(live))

with open(os.path.join(ROOT, "tests/golden/json/diff.json")) as f:
    good = json.load(f)
broken_reports = []
r = copy.deepcopy(good)
del r["diagnostics"]
broken_reports.append(("a report without diagnostics", r))
r = copy.deepcopy(good)
r["cwsc"]["version"] = 2
broken_reports.append(("another report version", r))
r = copy.deepcopy(good)
r["result"] = None
broken_reports.append(("ok without a result", r))
r = copy.deepcopy(good)
r["diagnostics"] = [{"severity": "fatal", "code": None, "message": "x", "file": None,
                     "line": None, "col": None}]
broken_reports.append(("an unknown severity", r))
r = copy.deepcopy(good)
r["result"]["changes"][0]["change"] = "sideways"
broken_reports.append(("a diff change neither widened nor narrowed", r))
for what, report in broken_reports:
    if not errors(REPORT, report):
        fail("the report schema accepts %s" % what)

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
