#!/usr/bin/env python3
"""A strict OpenSandbox-compatible test server (python3 standard library only).

It listens on 127.0.0.1 (port 0 = a free port, printed as the first line of
stdout) and implements three contracts, rejecting any request that violates
them (missing or wrong credentials, wrong types, unknown fields):

  * Codewhale's shim:  POST /v1/sandbox/run  {"cmd": str, "env": {str: str}}
                       -> {"stdout": str, "stderr": str, "exit_code": int}
                       auth: "Authorization: Bearer <key>" when a key is set.
  * execd:             POST /command (RunCommandRequest) -> event stream,
                       DELETE /command?id=..., GET /ping;
                       auth: X-EXECD-ACCESS-TOKEN.
  * lifecycle:         POST /v1/sandboxes, GET/DELETE /v1/sandboxes/{id},
                       GET /v1/sandboxes/{id}/endpoints/{port};
                       auth: OPEN-SANDBOX-API-KEY. The returned endpoint serves
                       execd under /sandboxes/{id}/port/{port}/... and wants the
                       per-sandbox header it returned.

Commands really run here, in a new session: with /bin/sh -c for the shim,
as execd runs them for execd (see Handler.execd).

Test control (no auth; loopback only): POST /_control {"fault": MODE,
"delay": seconds, "pending_polls": n} sets the fault for later requests;
GET /_state returns what the server saw (requests, sandboxes, interrupts).

Fault modes: none, slow, http400, http401, http500, malformed_json,
missing_field, wrong_type, truncated, big, big_event, drop, hang,
never_running, sandbox_failed, start_error, ignore_timeout,
linger_after_complete, no_egress_sidecar, interrupt_refused,
endpoint_wrong_token, hostile_body (HTTP 500 whose body holds ESC, a
newline, U+009B and a byte that is not UTF-8).

Keys come from the environment (never argv): CWSC_TEST_KEY (shim and
lifecycle key, empty = no auth expected), CWSC_TEST_EXECD_TOKEN.
The server exits when its stdin closes or after --max-seconds.
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

KEY = os.environ.get("CWSC_TEST_KEY", "")
EXECD_TOKEN = os.environ.get("CWSC_TEST_EXECD_TOKEN", "")

LOCK = threading.Lock()
STATE = {
    "fault": "none",
    "delay": 0.0,
    "pending_polls": 2,
    "requests": [],       # {"method", "path", "body"} (no credentials)
    "sandboxes": {},      # id -> {"state", "polls", "token", "deleted", "request"}
    "interrupts": [],     # command ids interrupted
    "commands": {},       # id -> Popen
    "unknown_fields": [], # fields of RunCommandRequest execd would ignore
}

# "\r\n", "\r" or "\n" ends a line of output (as execd reads its files).
LINE_END = re.compile(rb"\r\n|\r|\n")

# Go's names of the Linux signals (syscall.Signal.String).
GO_SIGNAL_NAMES = {
    1: "hangup", 2: "interrupt", 3: "quit", 4: "illegal instruction",
    5: "trace/breakpoint trap", 6: "aborted", 7: "bus error", 8: "floating point exception",
    9: "killed", 10: "user defined signal 1", 11: "segmentation fault",
    12: "user defined signal 2", 13: "broken pipe", 14: "alarm clock", 15: "terminated",
}


class Truncated(Exception):
    pass
MAX_HANG = 120.0


class Reject(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def fault():
    with LOCK:
        return STATE["fault"]


def check_string_map(value, field):
    if not isinstance(value, dict):
        raise Reject(400, f"{field} must be an object")
    for k, v in value.items():
        if not isinstance(v, str):
            raise Reject(400, f"{field}.{k} must be a string")


def check_fields(obj, allowed, required, where):
    if not isinstance(obj, dict):
        raise Reject(400, f"{where} must be a JSON object")
    for k in obj:
        if k not in allowed:
            raise Reject(400, f"{where}: unknown field {k!r}")
    for k in required:
        if k not in obj:
            raise Reject(400, f"{where}: missing required field {k!r}")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def validate_shim(body):
    check_fields(body, {"cmd", "env"}, {"cmd", "env"}, "request")
    if not isinstance(body["cmd"], str):
        raise Reject(400, "cmd must be a string")
    check_string_map(body["env"], "env")


def validate_run_command(body):
    """None when execd would run the request, else its validation message.
    Unknown fields are accepted (and recorded: cwsc should send none)."""
    if not isinstance(body, dict):
        return "error parsing request, MAYBE invalid body format. json: cannot unmarshal " \
               "into Go value of type RunCommandRequest"
    known = {"command", "cwd", "background", "timeout", "uid", "gid", "envs"}
    with LOCK:
        STATE["unknown_fields"].extend(k for k in body if k not in known)
    parse = "error parsing request, MAYBE invalid body format. json: cannot unmarshal "
    if "command" in body and not isinstance(body["command"], str):
        return parse + "into Go struct field RunCommandRequest.command of type string"
    if "cwd" in body and not isinstance(body["cwd"], str):
        return parse + "into Go struct field RunCommandRequest.cwd of type string"
    if "background" in body and not isinstance(body["background"], bool):
        return parse + "into Go struct field RunCommandRequest.background of type bool"
    for f in ("timeout", "uid", "gid"):
        if f in body and not is_int(body[f]):
            return parse + f"into Go struct field RunCommandRequest.{f} of type int64"
    if "envs" in body and (not isinstance(body["envs"], dict) or
                           not all(isinstance(v, str) for v in body["envs"].values())):
        return parse + "into Go struct field RunCommandRequest.envs of type string"
    if not body.get("command"):
        return ("invalid request, validation error Key: 'RunCommandRequest.Command' "
                "Error:Field validation for 'Command' failed on the 'required' tag")
    if body.get("timeout", 0) < 0:
        return ("invalid request, validation error Key: 'RunCommandRequest.TimeoutMs' "
                "Error:Field validation for 'TimeoutMs' failed on the 'gte' tag")
    if "gid" in body and "uid" not in body:
        return "invalid request, validation error uid is required when gid is provided"
    cwd = body.get("cwd")
    if cwd and "$" in cwd:  # execd expands it with its own environment, not envs
        missing = [v for v in re.findall(r"\$\{?(\w+)", cwd) if v not in os.environ]
        if missing:
            return (f"invalid request, validation error cannot resolve working directory "
                    f"\"{cwd}\": path references undefined environment variables: "
                    f"{', '.join(missing)}")
        cwd = os.path.expandvars(cwd)
        body["cwd"] = cwd
    if cwd and not os.path.isdir(cwd):
        return (f"invalid request, validation error working directory does not exist: {cwd}: "
                f"stat {cwd}: no such file or directory")
    return None


def validate_create(body):
    allowed = {"image", "snapshotId", "platform", "timeout", "resourceLimits", "env",
               "metadata", "entrypoint", "networkPolicy", "credentialProxy",
               "secureAccess", "volumes", "extensions"}
    check_fields(body, allowed, {"image", "resourceLimits", "entrypoint"},
                 "CreateSandboxRequest")
    check_fields(body["image"], {"uri", "auth"}, {"uri"}, "image")
    if not isinstance(body["image"]["uri"], str) or not body["image"]["uri"]:
        raise Reject(400, "image.uri must be a non-empty string")
    check_string_map(body["resourceLimits"], "resourceLimits")
    ep = body["entrypoint"]
    if not isinstance(ep, list) or not ep or not all(isinstance(x, str) for x in ep):
        raise Reject(400, "entrypoint must be a non-empty array of strings")
    if "timeout" in body and body["timeout"] is not None:
        if not is_int(body["timeout"]) or body["timeout"] < 60:
            raise Reject(400, "timeout must be an integer >= 60 or null")
    for f in ("env", "metadata"):
        if f in body:
            check_string_map(body[f], f)
    if "networkPolicy" in body:
        np = body["networkPolicy"]
        check_fields(np, {"defaultAction", "egress"}, set(), "networkPolicy")
        if "defaultAction" in np and np["defaultAction"] not in ("allow", "deny"):
            raise Reject(400, "networkPolicy.defaultAction must be allow or deny")
        for rule in np.get("egress", []):
            check_fields(rule, {"action", "target"}, {"action", "target"}, "egress rule")
            if rule["action"] not in ("allow", "deny") or not isinstance(rule["target"], str):
                raise Reject(400, "egress rule: bad action or target")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server_version = "cwsc-test-opensandbox/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    # --- helpers -----------------------------------------------------------
    def send_json(self, code, obj, extra_headers=None, compact=False):
        data = json.dumps(obj, separators=(",", ":") if compact else None).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-Request-ID", str(uuid.uuid4()))
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def send_error_json(self, code, message):
        self.send_json(code, {"code": str(code), "message": message})

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n > 0 else b""
        return raw

    def json_body(self):
        ctype = self.headers.get("Content-Type", "")
        if not ctype.startswith("application/json"):
            raise Reject(415, "Content-Type must be application/json")
        raw = self.read_body()
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise Reject(400, f"body is not JSON: {e}")
        with LOCK:
            STATE["requests"].append({"method": self.command, "path": self.path, "body": body})
        return body

    def record(self):
        with LOCK:
            STATE["requests"].append({"method": self.command, "path": self.path, "body": None})

    def apply_common_faults(self):
        """Faults that act before any contract logic. Returns True if handled."""
        f = fault()
        if f == "slow":
            with LOCK:
                delay = STATE["delay"]
            time.sleep(delay)
            return False
        if f == "hang":
            time.sleep(MAX_HANG)
            return True
        if f == "drop":
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return True
        if f == "hostile_body":
            data = b'{"code": "500", "message": "-\x1b[31m\n\xc2\x9b\xff"}'
            self.send_response(500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return True
        if f in ("http400", "http401", "http500"):
            code = int(f[4:])
            if getattr(self, "execd_route", False):  # in execd's shapes
                if code == 401:
                    self.send_json(401, {"error": "injected HTTP 401"}, compact=True)
                else:
                    self.execd_error(code, "RUNTIME_ERROR" if code == 500 else
                                     "INVALID_REQUEST_BODY", f"injected HTTP {code}")
                return True
            self.send_error_json(code, f"injected HTTP {code}")
            return True
        return False

    # --- dispatch ----------------------------------------------------------
    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def dispatch(self):
        path = urlsplit(self.path).path
        try:
            if path == "/_control" and self.command == "POST":
                return self.control()
            if path == "/_state" and self.command == "GET":
                with LOCK:
                    snap = {k: STATE[k] for k in ("fault", "requests", "sandboxes", "interrupts",
                                                  "unknown_fields")}
                    return self.send_json(200, snap)
            if path == "/v1/sandbox/run":
                return self.shim()
            if path.startswith("/v1/sandboxes"):
                return self.lifecycle(path)
            prefix, token = "", EXECD_TOKEN
            if path.startswith("/sandboxes/"):
                parts = path.split("/")  # ['', 'sandboxes', id, 'port', port, ...]
                if len(parts) < 6 or parts[3] != "port":
                    raise Reject(404, "no such endpoint")
                with LOCK:
                    sb = STATE["sandboxes"].get(parts[2])
                if sb is None or sb["deleted"] or sb["state"] != "Running":
                    raise Reject(404, "sandbox not running")
                prefix = "/".join(parts[:5])
                token = sb["token"]
                path = path[len(prefix):]
            if path in ("/command", "/ping"):
                return self.execd(path, token)
            raise Reject(404, f"no route for {self.command} {path}")
        except Reject as r:
            self.send_error_json(r.code, r.message)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def control(self):
        raw = self.read_body()
        body = json.loads(raw or b"{}")
        with LOCK:
            STATE["fault"] = body.get("fault", "none")
            STATE["delay"] = float(body.get("delay", 0))
            STATE["pending_polls"] = int(body.get("pending_polls", 2))
            if body.get("reset"):
                STATE["unknown_fields"].clear()
                STATE["requests"].clear()
                STATE["interrupts"].clear()
                STATE["sandboxes"].clear()
        self.send_json(200, {"ok": True})

    # --- Codewhale shim -------------------------------------------------------
    def shim(self):
        if self.command != "POST":
            raise Reject(405, "method not allowed")
        auth = self.headers.get("Authorization")
        if KEY:
            if auth != f"Bearer {KEY}":
                raise Reject(401, "missing or wrong Authorization")
        elif auth is not None:
            raise Reject(401, "unexpected Authorization header")
        body = self.json_body()
        validate_shim(body)
        if self.apply_common_faults():
            return
        f = fault()
        if f == "big":
            return self.send_big_json()
        env = dict(os.environ)
        env.update(body["env"])
        p = subprocess.run(["/bin/sh", "-c", body["cmd"]], env=env, capture_output=True,
                           timeout=60, start_new_session=True)
        code = p.returncode if p.returncode >= 0 else 128 - p.returncode
        out = {"stdout": p.stdout.decode("utf-8", "replace"),
               "stderr": p.stderr.decode("utf-8", "replace"),
               "exit_code": code, "extra": "ignored"}
        if f == "malformed_json":
            data = b'{"stdout": "x", "stderr": '
        elif f == "missing_field":
            del out["exit_code"]
            data = json.dumps(out).encode()
        elif f == "wrong_type":
            out["exit_code"] = str(code)
            data = json.dumps(out).encode()
        else:
            data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        length = len(data) + (1000 if f == "truncated" else 0)
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(data if f != "truncated" else data[: len(data) // 2])

    def send_big_json(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        chunk = b"x" * (1 << 20)
        self.wfile.write(b'{"stdout": "')
        for _ in range(100):
            self.wfile.write(chunk)
        self.wfile.write(b'", "stderr": "", "exit_code": 0}')

    # --- execd -----------------------------------------------------------------
    # As the real execd (tests/opensandbox/transcripts/ has its responses):
    # errors are {"error": ...} for 401 and {"code", "message"} otherwise;
    # unknown fields and any Content-Type are accepted; the command runs under
    # `bash -c` (`sh -c` without bash) with its output in two files that are
    # polled every 100 ms; each line is one event without its terminator
    # ("\n", "\r\n" or "\r"), a blank line is "\n", a last line without a
    # terminator comes at exit; a non-zero exit is an error event and no
    # execution_complete; death by a signal is evalue "-1"; the connection
    # closes about 1 s after the last event.
    def execd_error(self, code, err_code, message):
        self.send_json(code, {"code": err_code, "message": message}, compact=True)

    def execd(self, path, token):
        if self.headers.get("X-EXECD-ACCESS-TOKEN") != token:
            return self.send_json(401, {"error": "Unauthorized: invalid or missing header "
                                                 "X-EXECD-ACCESS-TOKEN"}, compact=True)
        if path == "/ping":
            self.send_response(200)
            self.end_headers()
            return
        if self.command == "DELETE":
            q = parse_qs(urlsplit(self.path).query)
            ids = q.get("id", [])
            if not ids or not ids[0]:
                return self.execd_error(400, "MISSING_QUERY", "missing query parameter 'id'")
            self.record()
            with LOCK:
                proc = STATE["commands"].get(ids[0])
                STATE["interrupts"].append(ids[0])
            if proc is None or fault() == "interrupt_refused":
                return self.execd_error(500, "RUNTIME_ERROR",
                                        "error interruptting code context. no such session")
            # SIGTERM, then SIGKILL if the command is still there after 3 s.
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

            def kill_later():
                for _ in range(30):
                    if proc.poll() is not None:
                        return
                    time.sleep(0.1)
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

            threading.Thread(target=kill_later, daemon=True).start()
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.command != "POST":
            raise Reject(405, "method not allowed")
        self.execd_route = True
        raw = self.read_body()
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            return self.execd_error(400, "INVALID_REQUEST_BODY",
                                    f"error parsing request, MAYBE invalid body format. {e}")
        with LOCK:
            STATE["requests"].append({"method": self.command, "path": self.path, "body": body})
        why = validate_run_command(body)
        if why:
            return self.execd_error(400, "INVALID_REQUEST_BODY", why)
        if body.get("background"):
            return self.execd_error(400, "INVALID_REQUEST_BODY",
                                    "background commands are not supported by this test server")
        if self.apply_common_faults():
            return
        self.stream_command(body)

    def event(self, obj):
        data = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        for c, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
            data = data.replace(c, esc)  # as Go's encoding/json
        self.wfile.write(data.encode() + b"\n\n")
        self.wfile.flush()

    def stream_command(self, body):
        f = fault()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        cid = uuid.uuid4().hex
        now = lambda: int(time.time() * 1000)
        if f == "malformed_json":
            self.wfile.write(b'{"type": "init", "text": \n\n')
            return
        if f == "missing_field":
            self.event({"text": cid, "timestamp": now()})
            return
        if f == "wrong_type":
            self.event({"type": 7, "text": cid})
            return
        self.event({"type": "init", "text": cid, "timestamp": now()})
        self.event({"type": "ping", "text": "pong", "timestamp": now()})
        if f == "big":
            line = "z" * 65535
            for _ in range(1600):  # 100 MiB of output: 1600 lines of 64 KiB
                self.event({"type": "stdout", "text": line, "timestamp": 0})
            self.event({"type": "execution_complete", "execution_time": 1, "timestamp": now()})
            return
        if f == "big_event":  # one line of 100 MiB without a terminator: one event
            self.wfile.write(b'{"type":"stdout","text":"')
            chunk = b"y" * (1 << 20)
            for _ in range(100):
                self.wfile.write(chunk)
            self.wfile.write(b'","timestamp":1}\n\n')
            self.event({"type": "execution_complete", "execution_time": 1, "timestamp": now()})
            return
        if f == "start_error":  # execd could not start the command: Go's error text
            self.event({"type": "error", "timestamp": now(),
                        "error": {"ename": "CommandExecError",
                                  "evalue": "fork/exec /usr/lib/x86_64-linux-gnu/bash: "
                                            "no such file or directory", "traceback": []}})
            return self.linger()
        env = dict(os.environ)
        env.update(body.get("envs", {}))
        shell = "/bin/bash" if os.path.exists("/bin/bash") else "/bin/sh"
        outdir = tempfile.mkdtemp(prefix="execd-")
        paths = {k: os.path.join(outdir, f"{cid}.{k}") for k in ("stdout", "stderr")}
        files = {k: open(p, "wb") for k, p in paths.items()}
        try:
            proc = subprocess.Popen([os.path.basename(shell), "-c", body["command"]],
                                    executable=shell, env=env,
                                    cwd=body.get("cwd") or None, stdin=subprocess.DEVNULL,
                                    stdout=files["stdout"], stderr=files["stderr"],
                                    start_new_session=True)
        except OSError as e:
            self.event({"type": "error", "timestamp": now(),
                        "error": {"ename": "CommandExecError", "evalue": str(e), "traceback": []}})
            return self.linger()
        finally:
            for fh in files.values():
                fh.close()
        with LOCK:
            STATE["commands"][cid] = proc
        start = time.time()
        timeout = body.get("timeout") or 0
        deadline = start + timeout / 1000.0 if timeout > 0 and f != "ignore_timeout" else None
        readers = {k: open(p, "rb") for k, p in paths.items()}
        pending = {"stdout": b"", "stderr": b""}
        sent = 0

        def poll(final):
            nonlocal sent
            for kind in ("stderr", "stdout"):
                data = pending[kind] + readers[kind].read()
                hold = b""
                if data.endswith(b"\r") and not final:
                    hold, data = b"\r", data[:-1]  # maybe the start of "\r\n"
                lines = LINE_END.split(data)
                rest = lines.pop()  # after the last terminator
                if final and rest:
                    lines.append(rest)  # the last line without a terminator
                    rest = b""
                pending[kind] = rest + hold
                for line in lines:
                    text = line.decode("utf-8", "replace") if line else "\n"
                    self.event({"type": kind, "text": text, "timestamp": now()})
                    sent += 1
                    if f == "truncated":
                        raise Truncated()

        try:
            while proc.poll() is None:
                time.sleep(0.1)
                if deadline is not None and time.time() >= deadline:
                    os.killpg(proc.pid, signal.SIGKILL)
                    deadline = None
                poll(False)
            code = proc.wait()
            poll(True)
        except Truncated:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return
        except (BrokenPipeError, ConnectionResetError):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return
        finally:
            with LOCK:
                STATE["commands"].pop(cid, None)
            for fh in readers.values():
                fh.close()
            for p in paths.values():
                os.unlink(p)
            os.rmdir(outdir)
        if code != 0:
            if code < 0:
                evalue, trace = "-1", "signal: " + GO_SIGNAL_NAMES.get(-code, f"signal {-code}")
            else:
                evalue, trace = str(code), f"exit status {code}"
            self.event({"type": "error", "timestamp": now(),
                        "error": {"ename": "CommandExecError", "evalue": evalue,
                                  "traceback": [trace]}})
            return self.linger()
        self.event({"type": "execution_complete",
                    "execution_time": int((time.time() - start) * 1000), "timestamp": now()})
        if f == "linger_after_complete":  # keep the stream open with pings
            for _ in range(int(MAX_HANG)):
                time.sleep(1)
                self.event({"type": "ping", "text": "pong", "timestamp": now()})
        self.linger()

    def linger(self):
        """execd closes the stream about 1 s after its last event."""
        try:
            time.sleep(1.0)
        except (BrokenPipeError, ConnectionResetError):
            pass

    # --- lifecycle ---------------------------------------------------------------
    def lifecycle(self, path):
        if self.headers.get("OPEN-SANDBOX-API-KEY") != KEY or not KEY:
            raise Reject(401, "missing or wrong OPEN-SANDBOX-API-KEY")
        parts = path.split("/")[1:]  # ['v1', 'sandboxes', id?, 'endpoints'?, port?]
        if len(parts) == 2:
            if self.command != "POST":
                raise Reject(405, "method not allowed")
            body = self.json_body()
            validate_create(body)
            if self.apply_common_faults():
                return
            f = fault()
            if f == "no_egress_sidecar" and "networkPolicy" in body:
                # A server started without an egress sidecar image refuses
                # any networkPolicy (this message is the test server's own).
                return self.send_json(400, {"code": "INVALID_REQUEST",
                                            "message": "networkPolicy needs the egress sidecar, "
                                                       "which is not configured"})
            if f == "malformed_json":
                self.send_response(202)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{not json")
                return
            sid = "sbx-" + uuid.uuid4().hex[:12]
            with LOCK:
                STATE["sandboxes"][sid] = {"state": "Pending", "polls": 0,
                                           "token": "tok-" + uuid.uuid4().hex,
                                           "deleted": False, "request": body}
            out = {"id": sid, "status": {"state": "Pending", "reason": "provisioning"},
                   "createdAt": "2026-01-01T00:00:00Z", "entrypoint": body["entrypoint"]}
            if f == "missing_field":
                del out["id"]
            return self.send_json(202, out)
        sid = parts[2]
        with LOCK:
            sb = STATE["sandboxes"].get(sid)
        if sb is None or sb["deleted"]:
            raise Reject(404, f"sandbox {sid} not found")
        if len(parts) == 3 and self.command == "GET":
            self.record()
            if self.apply_common_faults():
                return
            f = fault()
            with LOCK:
                sb["polls"] += 1
                if f == "sandbox_failed":
                    sb["state"] = "Failed"
                elif f != "never_running" and sb["polls"] > STATE["pending_polls"]:
                    sb["state"] = "Running"
                state = sb["state"]
            status = {"state": state}
            if state == "Failed":
                status.update(reason="image_pull_error", message="image not found")
            return self.send_json(200, {"id": sid, "status": status,
                                        "createdAt": "2026-01-01T00:00:00Z",
                                        "entrypoint": sb["request"]["entrypoint"],
                                        "image": sb["request"]["image"]})
        if len(parts) == 3 and self.command == "DELETE":
            self.record()
            with LOCK:
                sb["deleted"] = True
                sb["state"] = "Terminated"
            self.send_response(204)
            self.end_headers()
            return
        if len(parts) == 5 and parts[3] == "endpoints" and self.command == "GET":
            self.record()
            if not parts[4].isdigit() or not 1 <= int(parts[4]) <= 65535:
                raise Reject(400, "port must be an integer in 1..65535")
            if sb["state"] != "Running":
                raise Reject(409, "sandbox is not running")
            host, port = self.server.server_address[:2]
            token = "not-" + sb["token"] if fault() == "endpoint_wrong_token" else sb["token"]
            return self.send_json(200, {
                "endpoint": f"{host}:{port}/sandboxes/{sid}/port/{parts[4]}",
                "headers": {"X-EXECD-ACCESS-TOKEN": token}})
        raise Reject(404, f"no route for {self.command} {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=900)
    ap.add_argument("--tls-dir", help="serve HTTPS with a fresh self-signed certificate made here")
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.tls_dir:
        import ssl
        cert = os.path.join(args.tls_dir, "cert.pem")
        key = os.path.join(args.tls_dir, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                        "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", cert],
                       check=True, capture_output=True)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(1):
                pass
        except OSError:
            pass
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    threading.Timer(args.max_seconds, lambda: os._exit(0)).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
