#!/usr/bin/python3
"""Hostile probes that tests/escape/escape_test.cc runs inside the sandbox.

Each subcommand tries one way out and prints one line per attempt:
`NAME ok` when the attempt worked (an escape), `NAME errno=E` when the
kernel refused it. The test decides what counts as held.
"""
import ctypes
import os
import socket
import sys

TIOCSTI = 0x5412
TIOCLINUX = 0x541C
SYS_IOCTL = 16  # x86_64

libc = ctypes.CDLL(None, use_errno=True)


def raw_ioctl(fd, request, arg):
    libc.syscall.restype = ctypes.c_long
    r = libc.syscall(ctypes.c_long(SYS_IOCTL), ctypes.c_long(fd), ctypes.c_ulong(request), arg)
    return 0 if r == 0 else ctypes.get_errno()


def report(name, err):
    print(f"{name} ok" if err == 0 else f"{name} errno={err}", flush=True)


def tiocsti():
    """Push a character into the terminal's input queue, every spelling."""
    ch = ctypes.c_char(b"#")
    targets = [("stdin", 0)]
    try:
        targets.append(("devtty", os.open("/dev/tty", os.O_RDWR)))
    except OSError as e:
        print(f"devtty-open errno={e.errno}", flush=True)
    for name, fd in targets:
        report(f"{name}-tiocsti", raw_ioctl(fd, TIOCSTI, ctypes.byref(ch)))
        report(f"{name}-tiocsti-high", raw_ioctl(fd, (0x123 << 32) | TIOCSTI, ctypes.byref(ch)))
        sel = ctypes.c_char(b"\x02")  # TIOCL_SETSEL: copy, the first step of a paste
        report(f"{name}-tioclinux", raw_ioctl(fd, TIOCLINUX, ctypes.byref(sel)))


def unix(path_stream, path_dgram):
    """Reach host AF_UNIX sockets: stream connect, datagram sendto."""
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path_stream)
        s.sendall(b"stream-escape\n")
        s.close()
        report("unix-stream", 0)
    except OSError as e:
        report("unix-stream", e.errno or 1)
    try:
        d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        d.sendto(b"dgram-escape\n", path_dgram)
        report("unix-dgram", 0)
    except OSError as e:
        report("unix-dgram", e.errno or 1)
    try:
        a, b = socket.socketpair()
        a.sendall(b"x")
        report("socketpair", 0 if b.recv(1) == b"x" else 1)
    except OSError as e:
        report("socketpair", e.errno or 1)


def serve(path_stream, path_dgram, marker, ready):
    """Outside the sandbox: accept on both sockets, append what arrives to marker."""
    import select
    for p in (path_stream, path_dgram):
        if os.path.exists(p):
            os.unlink(p)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path_stream)
    s.listen(4)
    d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    d.bind(path_dgram)
    os.chmod(path_stream, 0o777)
    os.chmod(path_dgram, 0o777)
    with open(ready, "w") as f:
        f.write("ready\n")
    for _ in range(200):  # bounded: about 60 s at most
        r, _, _ = select.select([s, d], [], [], 0.3)
        for sock in r:
            if sock is s:
                c, _ = s.accept()
                c.settimeout(1)
                try:
                    data = c.recv(100)
                except OSError:
                    data = b"connected\n"
                c.close()
            else:
                data = d.recv(100)
            with open(marker, "ab") as f:
                f.write(data or b"connected\n")
        if os.path.exists(ready + ".stop"):
            return


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "tiocsti":
        tiocsti()
    elif cmd == "unix":
        unix(sys.argv[2], sys.argv[3])
    elif cmd == "serve":
        serve(*sys.argv[2:6])
    else:
        sys.exit("unknown subcommand " + cmd)
