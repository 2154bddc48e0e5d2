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
SYS_SOCKET = 41
SYS_CREAT = 85
SYS_MKNODAT = 259
SYS_MKDIRAT = 258
SYS_FCHMODAT = 268
SYS_OPENAT2 = 437
SYS_FCHMODAT2 = 452
AT_FDCWD = -100

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


def raw(nr, *args):
    """A system call through syscall(2), every argument a full register."""
    libc.syscall.restype = ctypes.c_long
    r = libc.syscall(ctypes.c_long(nr), *args)
    return 0 if r >= 0 else ctypes.get_errno()


def sendto_host(sock, twin, path_dgram, name):
    """Address one datagram at the host socket, by sendto and by connect.

    A seqpacket pair ignores the address and delivers to its twin: that is
    reported as `to-twin`, not as an escape."""
    try:
        sock.sendto(f"{name}-sendto\n".encode(), path_dgram)
        twin.setblocking(False)
        try:
            to_twin = twin.recv(100) == f"{name}-sendto\n".encode()
        except BlockingIOError:
            to_twin = False
        print(f"{name}-sendto to-twin" if to_twin else f"{name}-sendto ok", flush=True)
    except OSError as e:
        report(f"{name}-sendto", e.errno or 1)
    try:
        sock.connect(path_dgram)
        sock.send(f"{name}-connect\n".encode())
        report(f"{name}-connect", 0)
    except OSError as e:
        report(f"{name}-connect", e.errno or 1)


def sockets(path_dgram):
    """Sockets other than socket(AF_UNIX): socketpair types, other families."""
    for name, kind in (("pair-dgram", socket.SOCK_DGRAM),
                       ("pair-dgram-cloexec", socket.SOCK_DGRAM | socket.SOCK_CLOEXEC),
                       ("pair-dgram-nonblock", socket.SOCK_DGRAM | socket.SOCK_NONBLOCK),
                       ("pair-stream", socket.SOCK_STREAM),
                       ("pair-seqpacket", socket.SOCK_SEQPACKET | socket.SOCK_CLOEXEC)):
        try:
            a, b = socket.socketpair(socket.AF_UNIX, kind)
        except OSError as e:
            report(name, e.errno or 1)
            continue
        a.send(b"x")
        report(name, 0 if b.recv(1) == b"x" else 1)
        sendto_host(a, b, path_dgram, name)
    families = {"vsock": 40, "packet": 17, "alg": 38, "bluetooth": 31, "can": 29, "tipc": 30,
                "key": 15, "rds": 21, "xdp": 44, "qipcrtr": 42, "mctp": 45, "smc": 43, "ax25": 3,
                "appletalk": 5, "x25": 9, "unspec": 0, "unknown-200": 200}
    for name, family in families.items():
        for kind, label in ((socket.SOCK_STREAM, ""), (socket.SOCK_DGRAM, "-dgram"),
                            (socket.SOCK_SEQPACKET | socket.SOCK_CLOEXEC, "-seqpacket-cloexec")):
            report(f"family-{name}{label}", raw(SYS_SOCKET, ctypes.c_long(family),
                                                ctypes.c_long(kind), ctypes.c_long(0)))
    # AF_VSOCK with high bits in the register (the kernel reads an int).
    report("family-vsock-high", raw(SYS_SOCKET, ctypes.c_ulong((1 << 32) | 40),
                                    ctypes.c_long(socket.SOCK_STREAM), ctypes.c_long(0)))
    for name, proto in (("route", 0), ("sock-diag", 4), ("xfrm", 6), ("audit", 9),
                        ("netfilter", 12), ("kobject-uevent", 15), ("generic", 16)):
        for kind, label in ((socket.SOCK_RAW, ""), (socket.SOCK_DGRAM | socket.SOCK_CLOEXEC,
                                                     "-dgram-cloexec")):
            report(f"netlink-{name}{label}", raw(SYS_SOCKET, ctypes.c_long(16),
                                                 ctypes.c_long(kind), ctypes.c_long(proto)))
    for name, family in (("inet", socket.AF_INET), ("inet6", socket.AF_INET6)):
        report(f"family-{name}", raw(SYS_SOCKET, ctypes.c_long(family),
                                     ctypes.c_long(socket.SOCK_STREAM), ctypes.c_long(0)))


class OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def setuid(directory):
    """Leave a setuid or setgid file (or directory) in `directory`, every way."""
    os.chdir(directory)
    with open("plain", "w") as f:
        f.write("#!/bin/sh\nid\n")
    os.chmod("plain", 0o755)

    def attempt(name, fn):
        try:
            fn()
            report(name, 0)
        except OSError as e:
            report(name, e.errno or 1)

    attempt("chmod-suid", lambda: os.chmod("plain", 0o4755))
    attempt("chmod-sgid", lambda: os.chmod("plain", 0o2755))
    fd = os.open("plain", os.O_RDONLY)
    attempt("fchmod-suid", lambda: os.fchmod(fd, 0o4755))
    os.close(fd)
    report("fchmodat-suid", raw(SYS_FCHMODAT, ctypes.c_long(AT_FDCWD), b"plain",
                                ctypes.c_long(0o6755)))
    report("fchmodat2-suid", raw(SYS_FCHMODAT2, ctypes.c_long(AT_FDCWD), b"plain",
                                 ctypes.c_long(0o4755), ctypes.c_long(0)))
    attempt("open-creat-suid", lambda: os.close(os.open("open-suid", os.O_CREAT | os.O_WRONLY,
                                                        0o4755)))
    attempt("open-creat-sgid", lambda: os.close(os.open("open-sgid", os.O_CREAT | os.O_WRONLY,
                                                        0o2755)))
    report("creat-suid", raw(SYS_CREAT, b"creat-suid", ctypes.c_long(0o4755)))
    attempt("tmpfile-suid", lambda: tmpfile_link(0o4755))
    attempt("mknod-suid", lambda: os.mknod("mknod-suid", 0o4755 | 0o100000))
    report("mknodat-sgid", raw(SYS_MKNODAT, ctypes.c_long(AT_FDCWD), b"mknodat-sgid",
                               ctypes.c_long(0o2755 | 0o100000), ctypes.c_long(0)))
    attempt("mkdir-sgid", lambda: os.mkdir("mkdir-sgid", 0o2755))
    report("mkdirat-suid", raw(SYS_MKDIRAT, ctypes.c_long(AT_FDCWD), b"mkdirat-suid",
                               ctypes.c_long(0o6755)))
    how = OpenHow(os.O_CREAT | os.O_WRONLY, 0o4755, 0)
    report("openat2-suid", raw(SYS_OPENAT2, ctypes.c_long(AT_FDCWD), b"openat2-suid",
                               ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how))))


def tmpfile_link(mode):
    """An unnamed file made with the bits, then given a name."""
    fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, mode)
    here = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    try:  # a dir fd makes os.link call linkat(AT_SYMLINK_FOLLOW): the magic link is followed
        os.link(f"/proc/self/fd/{fd}", "tmpfile-suid", dst_dir_fd=here)
    finally:
        os.close(fd)
        os.close(here)


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
    elif cmd == "sockets":
        sockets(sys.argv[2])
    elif cmd == "setuid":
        setuid(sys.argv[2])
    elif cmd == "serve":
        serve(*sys.argv[2:6])
    else:
        sys.exit("unknown subcommand " + cmd)
