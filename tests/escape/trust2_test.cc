// More attacks on what a command could have written (docs/runtime.md,
// "Threat model"), beyond tests/escape/trust_test.cc: concurrent runs from
// one workspace, plants across workspaces and working directories, renames,
// hard links and symlinks at depth, huge and deep directories, odd file
// types at protected names, socket families through raw system calls,
// setuid and device files, descriptors and /proc, and the bytes of planted
// names in cwsc's own diagnostics. Each runs through `cwsc run` with real
// bubblewrap, as root and as the unprivileged user cwsc-escape, and checks
// afterwards that nothing outside changed and nothing secret was read. Race
// attacks loop for a bounded time and must never succeed.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tests/escape/escape_fixture.h"

namespace cwsc::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// How long each race runs.
constexpr int kRaceSeconds = 6;

// Found lists the paths under `dir` (and `dir`) whose lstat `pred` accepts.
template <typename Pred>
std::vector<std::string> Found(const std::string& dir, Pred pred) {
  std::vector<std::string> out;
  auto check = [&](const std::string& p) {
    struct stat st;
    if (lstat(p.c_str(), &st) == 0 && pred(st, p)) out.push_back(p);
  };
  check(dir);
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) check(e.path());
  return out;
}

// Raw system calls with every spelling a filter could miss: high halves set
// in 32-bit arguments, type flags OR'ed in, x32 numbers. One line each:
// `NAME ok` (it worked) or `NAME errno=E`.
constexpr char kRawSockets[] = R"py(
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
HIGH = 1 << 32
def sys_(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    if r < 0:
        return -ctypes.get_errno()
    return r
def report(name, r):
    if r >= 0:
        print(name, "ok", flush=True)
        os.close(r)
    else:
        print(name, "errno=%d" % -r, flush=True)
SOCKET, SOCKETPAIR = 41, 53
for name, fam, typ, proto in [
        ("vsock", 40, 1, 0), ("vsock-high", 40 | HIGH, 1, 0), ("packet", 17, 3, 0),
        ("packet-high", 17 | HIGH, 3, 0), ("alg", 38, 5, 0), ("tipc", 30, 2, 0),
        ("bluetooth", 31, 3, 0), ("can", 29, 3, 1), ("xdp", 44, 3, 0), ("key", 15, 3, 2),
        ("rds", 21, 5, 0), ("llc", 26, 2, 0), ("unix", 1, 1, 0), ("unix-high", 1 | HIGH, 2, 0),
        ("family-63", 63, 1, 0), ("family-neg", -1 & 0xffffffff, 1, 0),
        ("inet-raw", 2, 3, 1), ("inet6-raw", 10, 3, 58), ("inet-packet", 2, 10, 3),
        ("netlink-audit", 16, 3, 9), ("netlink-audit-high", 16, 3, 9 | HIGH),
        ("netlink-audit-famhigh", 16 | HIGH, 3, 9), ("netlink-uevent", 16, 2, 15),
        ("netlink-sockdiag", 16, 3, 4), ("netlink-netfilter", 16, 3, 12),
        ("netlink-generic", 16, 3, 16), ("netlink-xfrm", 16, 3, 6)]:
    report("socket-" + name, sys_(SOCKET, fam, typ, proto))
for name, fam, typ in [
        ("dgram", 1, 2), ("dgram-high", 1, 2 | HIGH), ("dgram-flags", 1, 2 | 0o2000000 | 0o4000),
        ("dgram-famhigh", 1 | HIGH, 2), ("raw", 1, 3), ("rdm", 1, 4), ("type-18", 1, 18),
        ("inet", 2, 1), ("netlink", 16, 3), ("vsock", 40, 1)]:
    sv = (ctypes.c_int * 2)()
    r = libc.syscall(ctypes.c_long(SOCKETPAIR), ctypes.c_long(fam), ctypes.c_long(typ),
                     ctypes.c_long(0), sv)
    if r == 0:
        print("socketpair-" + name, "ok", flush=True)
    else:
        print("socketpair-" + name, "errno=%d" % ctypes.get_errno(), flush=True)
for name, typ in [("stream", 1), ("seqpacket", 5)]:
    sv = (ctypes.c_int * 2)()
    r = libc.syscall(ctypes.c_long(SOCKETPAIR), ctypes.c_long(1), ctypes.c_long(typ),
                     ctypes.c_long(0), sv)
    print("allowed-pair-" + name, "works" if r == 0 else "errno=%d" % ctypes.get_errno())
# Every family number the kernel could know, with every common type: only
# AF_INET, AF_INET6 and AF_NETLINK (routing) may give a socket.
opened = 0
for fam in range(0, 70):
    for typ in (1, 2, 3, 5, 1 | 0o2000000):
        r = sys_(SOCKET, fam, typ, 0)
        if r >= 0:
            os.close(r)
            if fam not in (2, 10, 16):
                print("every-family-%d-type-%d ok" % (fam, typ), flush=True)
            opened += 1
print("every-family-opened", opened, flush=True)
# x32 numbers on x86_64: the process must die, not get a socket.
pid = os.fork()
if pid == 0:
    r = sys_(0x40000000 | SOCKET, 40, 1, 0)
    print("socket-x32", "ok" if r >= 0 else "errno=%d" % -r, flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("x32-status", status, flush=True)
)py";

// Every other way to leave a setuid or setgid file: a tar archive with
// modes, python's tarfile, chmod through /proc/self/fd, raw chmod with the
// high half set, fchmodat on a symlink's target, a file capability, an x32
// chmod. `NAME ok` means the call returned success.
constexpr char kSetuidRoutes[] = R"py(
import ctypes, os, subprocess, sys, tarfile
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
d, archive = sys.argv[1], sys.argv[2]
os.chdir(d)
def run(name, fn):
    try:
        r = fn()
        print(name, "ok" if r in (None, 0) else "errno=%d" % ctypes.get_errno(), flush=True)
    except OSError as e:
        print(name, "errno=%d" % e.errno, flush=True)
with open("plain", "w") as f:
    f.write("#!/bin/sh\nid\n")
os.chmod("plain", 0o755)
subprocess.run(["tar", "-xpf", archive, "-C", d, "--same-owner"], stderr=subprocess.DEVNULL)
subprocess.run(["tar", "-xpf", archive, "-C", d, "--transform", "s/^/p-/"],
               stderr=subprocess.DEVNULL)
try:
    tarfile.open(archive).extractall(os.path.join(d, "tf"), filter="fully_trusted")
except TypeError:
    tarfile.open(archive).extractall(os.path.join(d, "tf"))
except OSError as e:
    print("tarfile errno=%d" % e.errno)
fd = os.open("plain", os.O_RDONLY)
run("chmod-proc-fd", lambda: os.chmod("/proc/self/fd/%d" % fd, 0o4755))
run("chmod-proc-fd-sgid", lambda: os.chmod("/proc/self/fd/%d" % fd, 0o2755))
run("chmod-high", lambda: libc.syscall(ctypes.c_long(90), b"plain",
                                       ctypes.c_long((1 << 32) | 0o4755)))
run("fchmod-high", lambda: libc.syscall(ctypes.c_long(91), ctypes.c_long(fd),
                                        ctypes.c_long((0xffff << 16) | 0o6755)))
os.symlink("plain", "link")
run("chmod-via-symlink", lambda: os.chmod("link", 0o4755))
run("fchmodat-nofollow", lambda: libc.syscall(ctypes.c_long(268), ctypes.c_long(-100), b"link",
                                              ctypes.c_long(0o4755), ctypes.c_long(0x100)))
run("setcap", lambda: os.setxattr("plain", "security.capability",
                                  bytes.fromhex("0100000200200000000000000000000000000000")))
run("chown-keeps", lambda: os.chown("plain", os.getuid(), os.getgid()))
pid = os.fork()
if pid == 0:
    r = libc.syscall(ctypes.c_long(0x40000000 | 90), b"plain", ctypes.c_long(0o4755))
    print("chmod-x32", "ok" if r == 0 else "errno=%d" % ctypes.get_errno(), flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("x32-status", status, flush=True)
)py";

// Device nodes: character and block devices, the whiteout (0:0), through
// mknod and mknodat, with the high half of the mode set.
constexpr char kDevices[] = R"py(
import ctypes, os, stat, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
os.chdir(sys.argv[1])
for name, mode, dev in [("mem", stat.S_IFCHR | 0o666, os.makedev(1, 1)),
                        ("kmsg", stat.S_IFCHR | 0o666, os.makedev(1, 11)),
                        ("sda", stat.S_IFBLK | 0o666, os.makedev(8, 0)),
                        ("loop0", stat.S_IFBLK | 0o666, os.makedev(7, 0)),
                        ("tty0", stat.S_IFCHR | 0o666, os.makedev(4, 0))]:
    try:
        os.mknod(name, mode, dev)
        print("mknod-" + name, "ok")
    except OSError as e:
        print("mknod-" + name, "errno=%d" % e.errno)
    r = libc.syscall(ctypes.c_long(259), ctypes.c_long(-100), (name + "-at").encode(),
                     ctypes.c_long((1 << 32) | mode), ctypes.c_long(dev))
    print("mknodat-" + name, "ok" if r == 0 else "errno=%d" % ctypes.get_errno())
)py";

// Descriptors and /proc: every descriptor of every process the command can
// see, opened as a directory and walked up with "..", looking for the
// host's view of SECRET (a path) and trying to create MARKER (a path).
constexpr char kProcWalk[] = R"py(
import os, sys
secret, marker = sys.argv[1], sys.argv[2]
found = []
def probe(name, fd):
    for _ in range(40):
        try:
            with open(os.open(secret.lstrip("/"), os.O_RDONLY, dir_fd=fd), "rb") as f:
                data = f.read()
            if b"SECRET" in data:
                found.append(name)
        except OSError:
            pass
        try:
            os.close(os.open(marker.lstrip("/"), os.O_CREAT | os.O_WRONLY, 0o644, dir_fd=fd))
            found.append(name + " (wrote)")
        except OSError:
            pass
        try:
            up = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        except OSError:
            return
        os.close(fd)
        fd = up
    os.close(fd)
links = []
for pid in os.listdir("/proc"):
    if not pid.isdigit() and pid not in ("self", "thread-self"):
        continue
    for sub in ("root", "cwd"):
        links.append("/proc/%s/%s" % (pid, sub))
    try:
        for n in os.listdir("/proc/%s/fd" % pid):
            links.append("/proc/%s/fd/%s" % (pid, n))
    except OSError:
        pass
    try:
        for t in os.listdir("/proc/%s/task" % pid):
            links.append("/proc/%s/task/%s/root" % (pid, t))
    except OSError:
        pass
seen = 0
for l in links:
    try:
        fd = os.open(l, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        try:
            fd = os.open(l, os.O_PATH)
            os.close(fd)
            fd = os.open(l + "/..", os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
    seen += 1
    probe(l, fd)
for fdname in os.listdir("/proc/self/fd"):
    n = int(fdname)
    if n > 2:
        try:
            print("open-fd", n, os.readlink("/proc/self/fd/%d" % n))
        except OSError:
            pass
print("probed", seen)
for f in found:
    print("ESCAPED", f)
)py";

class Trust2Test : public EscapeTest {
 protected:
  // HugeDir is a directory of 100,001 files, made once for the suite (the
  // machine's disk makes 100k entries in about ten seconds) and open to
  // both identities; removed when the suite ends.
  static std::string HugeDir() {
    if (huge_ == nullptr) {
      huge_ = new TempDir("/var/tmp");
      chmod(huge_->path().c_str(), 0755);
      std::string big = *huge_ / "big";
      mkdir(big.c_str(), 0777);
      chmod(big.c_str(), 0777);
      RunResult made = ::cwsc::testing::Run(
          {"/usr/bin/python3", "-c",
           "import os, sys\nos.chdir(sys.argv[1])\n"
           "for i in range(100001): os.close(os.open('f%d' % i, os.O_CREAT | os.O_WRONLY, "
           "0o644))\n",
           big});
      EXPECT_EQ(made.exit_code, 0) << made.err;
    }
    return *huge_ / "big";
  }
  static void TearDownTestSuite() {
    delete huge_;
    huge_ = nullptr;
  }
  static inline TempDir* huge_ = nullptr;

  // ArgvWith is CwscArgv with another config file.
  std::vector<std::string> ArgvWith(const std::string& cfg, const std::vector<std::string>& program,
                                    const std::string& cwd) const {
    std::vector<std::string> argv = CwscArgv(program, {}, "ask", cwd);
    argv[2] = cfg;
    return argv;
  }

  // Race runs `attacker` (a sandboxed command line) in the background while
  // `victim` (another) is launched again and again until the deadline.
  // Returns the number of launches; `swaps` gets the attacker's output.
  int Race(const std::string& attacker, const std::string& victim, const std::string& deadline,
           std::string* swaps) {
    RunResult r = Outer(attacker + " > " + ShQuote(*base_ / "swaps") + " & " +
                        "n=0; while [ $(date +%s) -lt " + deadline + " ]; do " + victim +
                        " >/dev/null 2>&1; n=$((n+1)); done; wait; echo $n");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    *swaps = ReadFileOr(*base_ / "swaps");
    return std::atoi(r.out.c_str());
  }

  void ExpectSecretAndOutsideUntouched(const std::vector<std::string>& before) {
    EXPECT_EQ(Listing(outside), before);
    EXPECT_EQ(ReadFileOr(outside + "/target"), "ORIGINAL\n");
    EXPECT_EQ(ReadFileOr(home + "/.ssh/id_ed25519"), "SECRET-KEY\n");
  }
};

// 1. Time of check to time of use, at depth: twenty and more launches with
// the working directory three levels below a directory that a second
// sandboxed command in the same workspace keeps swapping for a symlink to a
// directory outside with the same shape. No launch may write outside.
TEST_P(Trust2Test, ConcurrentSwapOfAnAncestorOfTheWorkingDirectory) {
  std::filesystem::create_directories(ws + "/a/b/c");
  std::filesystem::create_directories(outside + "/b/c");
  WriteFile(bin + "/swap.py", kSwapper);
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  std::string deadline = std::to_string(time(nullptr) + kRaceSeconds);
  std::string attacker = ShJoin(CwscArgv(
      {"/usr/bin/python3", bin + "/swap.py", ws + "/a", outside, deadline}, {}, "ask", ws));
  std::string victim =
      ShJoin(CwscArgv({"/bin/sh", "-c", "echo pwned > marker; echo pwned > ../../marker"}, {},
                      "ask", ws + "/a/b/c"));
  std::string swaps;
  int launches = Race(attacker, victim, deadline, &swaps);
  EXPECT_GE(launches, 10) << "too few launches to race";
  EXPECT_GE(std::atoi(swaps.c_str()), 20) << "the attacker could not swap: " << swaps;
  EXPECT_FALSE(Exists(outside + "/b/c/marker")) << "bound outside after " << launches;
  EXPECT_FALSE(Exists(outside + "/marker"));
  ExpectSecretAndOutsideUntouched(before);
}

// 2. Time of check to time of use on a configured writable root: the victim's
// policy lists ws/shared in sandbox_writable_roots and runs in ws/v; the
// attacker, with a policy of its own whose workspace is ws, swaps ws/shared
// for a symlink to the outside while the victim launches.
TEST_P(Trust2Test, ConcurrentSwapOfAConfiguredWritableRoot) {
  mkdir((ws + "/shared").c_str(), 0755);
  mkdir((ws + "/v").c_str(), 0755);
  WriteFile(bin + "/swap.py", kSwapper);
  WriteFile(config, "sandbox_writable_roots = [\"" + ws + "/shared\"]\n");
  std::string plain = *base_ / "plain.toml";
  WriteFile(plain, "");
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  std::string deadline = std::to_string(time(nullptr) + kRaceSeconds);
  std::string attacker = ShJoin(ArgvWith(
      plain, {"/usr/bin/python3", bin + "/swap.py", ws + "/shared", outside, deadline}, ws));
  std::string victim = ShJoin(
      CwscArgv({"/bin/sh", "-c", "echo pwned > " + ws + "/shared/marker"}, {}, "ask", ws + "/v"));
  std::string swaps;
  int launches = Race(attacker, victim, deadline, &swaps);
  EXPECT_GE(launches, 10) << "too few launches to race";
  EXPECT_GE(std::atoi(swaps.c_str()), 20) << "the attacker could not swap: " << swaps;
  EXPECT_FALSE(Exists(outside + "/marker")) << "bound outside after " << launches;
  ExpectSecretAndOutsideUntouched(before);
  // Without the race the root is bound and written: the victim did run.
  RunResult r = Sh("echo ok > " + ws + "/shared/marker", {}, "ask", ws + "/v");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOr(ws + "/shared/marker"), "ok\n");
}

// 3. Hard links: to a file outside (across the bind mounts: EXDEV), and to a
// project config at depth in a second workspace, made by a run whose root
// is that workspace's parent. The second workspace's next run is refused,
// and its config is unchanged.
TEST_P(Trust2Test, HardLinksToTheOutsideOrToAnotherWorkspacesConfigAreHeld) {
  std::string w2 = *base_ / "w2";
  std::filesystem::create_directories(w2 + "/proj/.codewhale/a/b/c/d/e/f/g");
  WriteFile(w2 + "/proj/.codewhale/a/b/c/d/e/f/g/config.toml", "# project\n");
  mkdir((ws + "/a").c_str(), 0755);
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  RunResult r = Sh("ln " + ShQuote(outside + "/target") + " t && echo LINKED; " + "ln " +
                       ShQuote(home + "/.ssh/id_ed25519") + " k && echo LINKED-KEY; " +
                       "echo pwned > t; cat k; exit 0",
                   {}, "ask", ws + "/a");
  EXPECT_THAT(r.out, Not(HasSubstr("LINKED")));
  EXPECT_THAT(r.out, Not(HasSubstr("SECRET")));
  // The rest is the protected directories' walk.
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
  // The run whose root is w2 links the deep config out of proj.
  std::string cfg2 = *base_ / "w2.toml";
  WriteFile(cfg2, "sandbox_writable_roots = [\"" + w2 + "\"]\n");
  ChownAll();
  std::vector<std::string> plant = Prefix(BaseEnv());
  std::vector<std::string> c = ArgvWith(
      cfg2,
      {"/bin/sh", "-c", "ln " + w2 + "/proj/.codewhale/a/b/c/d/e/f/g/config.toml " + w2 + "/stash"},
      ws + "/a");
  plant.insert(plant.end(), c.begin(), c.end());
  RunResult p = ::cwsc::testing::Run(plant);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  r = Sh("echo 'sandbox_mode = \"danger-full-access\"' > " + w2 + "/stash; echo RAN", {}, "ask",
         w2 + "/proj");
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("RAN")));
  EXPECT_THAT(r.err, HasSubstr("has more than one hard link"));
  EXPECT_EQ(ReadFileOr(w2 + "/proj/.codewhale/a/b/c/d/e/f/g/config.toml"), "# project\n");
  ExpectSecretAndOutsideUntouched(before);
}

// 4. A chain of 22 symlinks planted by an earlier run (whose root is ws),
// reached through a directory swapped for a link twelve levels down the
// next run's working directory, ending outside. A second chain is longer
// than the kernel follows (40). Neither makes the outside writable.
TEST_P(Trust2Test, SymlinkChainsAtDepthInTheWorkingDirectorysAncestry) {
  std::string deep = ws;
  for (int i = 0; i < 24; ++i) deep += "/d" + std::to_string(i);
  std::filesystem::create_directories(deep);
  std::filesystem::create_directories(outside + "/deep/d13/d14");
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  std::string d12 = ws;
  for (int i = 0; i < 13; ++i) d12 += "/d" + std::to_string(i);
  std::string script =
      "i=0; while [ $i -lt 21 ]; do ln -s l$((i+1)) l$i; i=$((i+1)); done; ln -s " +
      ShQuote(outside + "/deep") + " l21; " +
      "i=0; while [ $i -lt 45 ]; do ln -s m$((i+1)) m$i; i=$((i+1)); done; ln -s " +
      ShQuote(outside + "/deep") + " m45; mv " + ShQuote(d12) + " " + ShQuote(d12 + ".real") +
      " && ln -s " + ShQuote(ws + "/l0") + " " + ShQuote(d12) + " && echo PLANTED";
  RunResult plant = Sh(script, {}, "ask", ws);
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  std::string cwd = d12 + "/d13/d14";
  RunResult r = Sh("echo pwned > marker 2>/dev/null; exit 0", {}, "ask", cwd);
  EXPECT_FALSE(Exists(outside + "/deep/d13/d14/marker")) << r.err;
  WriteFile(config, "sandbox_writable_roots = [\"" + cwd + "\", \"" + ws + "/m0/d13\"]\n");
  ChownAll();
  std::filesystem::create_directories(ws + "/v");
  ChownAll();
  r = Sh("echo pwned > " + cwd + "/marker2 2>/dev/null; echo pwned > " + ws +
             "/m0/d13/marker3 2>/dev/null; exit 0",
         {}, "ask", ws + "/v");
  EXPECT_FALSE(Exists(outside + "/deep/d13/d14/marker2")) << r.err;
  EXPECT_FALSE(Exists(outside + "/deep/d13/marker3")) << r.err;
  ExpectSecretAndOutsideUntouched(before);
}

// 4b. A trusted symlink (root's, in a directory the attacking user cannot
// write) that points into the workspace, where an earlier run planted a
// link to the outside: the working directory and a configured root reached
// through both are not bound writable.
TEST_P(Trust2Test, APlantedLinkBehindATrustedLinkIsNotBound) {
  std::filesystem::create_directories(outside + "/b/c");
  ChownAll();
  std::string opt = *base_ / "opt";  // root's, 0755, after ChownAll
  mkdir(opt.c_str(), 0755);
  ASSERT_EQ(symlink((ws + "/x").c_str(), (opt + "/tl").c_str()), 0);
  std::vector<std::string> before = Listing(outside);
  RunResult plant = Sh("ln -s " + ShQuote(outside) + " x && echo PLANTED", {}, "ask", ws);
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  RunResult r = Sh("echo RAN; echo pwned > marker; echo pwned > ../../marker; exit 0", {}, "ask",
                   opt + "/tl/b/c");
  EXPECT_THAT(r.out, HasSubstr("RAN")) << r.err;
  EXPECT_FALSE(Exists(outside + "/b/c/marker")) << r.err;
  EXPECT_FALSE(Exists(outside + "/marker")) << r.err;
  // (No ChownAll past this point: /opt stays root's.)
  WriteFile(config, "sandbox_writable_roots = [\"" + opt + "/tl/b\"]\n");
  r = Sh("echo pwned > " + ShQuote(opt + "/tl/b/marker2") + "; exit 0", {}, "ask", ws);
  EXPECT_FALSE(Exists(outside + "/b/marker2")) << r.err;
  ExpectSecretAndOutsideUntouched(before);
}

// 4c. An earlier run plants a link to the outside in a directory of its
// own and takes the directory's write bits off (chmod needs no
// capability): the next run, whose working directory is reached through
// the link, binds nothing there.
TEST_P(Trust2Test, ALinkInADirectoryMadeReadOnlyByItsOwnerIsNotTrusted) {
  std::filesystem::create_directories(outside + "/b");
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  RunResult plant =
      Sh("mkdir d && ln -s " + ShQuote(outside) + " d/next && chmod 555 d && " + "echo PLANTED", {},
         "ask", ws);
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  RunResult r =
      Sh("echo RAN; echo pwned > marker; echo pwned > b/marker; exit 0", {}, "ask", ws + "/d/next");
  EXPECT_THAT(r.out, HasSubstr("RAN")) << r.err;
  EXPECT_FALSE(Exists(outside + "/marker")) << r.err;
  EXPECT_FALSE(Exists(outside + "/b/marker")) << r.err;
  chmod((ws + "/d").c_str(), 0755);  // so that the fixture can remove it
  ExpectSecretAndOutsideUntouched(before);
}

// 4c'. A link in a directory that only a POSIX ACL entry lets the
// sandboxed user write: by its owner and bits (another owner, group and
// other without write) nobody but its owner could have planted it, but the
// ACL let an earlier run do it. With an ACL the group bits are its mask,
// and a mask that allows writing is all cwsc needs to distrust the link: the
// next run, whose working directory is reached through it, binds nothing
// there.
TEST_P(Trust2Test, ALinkInADirectoryAnAclEntryLetsTheUserWriteIsNotTrusted) {
  std::filesystem::create_directories(outside + "/b");
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  const std::string shared = base_->path() + "/shared";
  ASSERT_EQ(mkdir(shared.c_str(), 0755), 0);
  ASSERT_EQ(chown(shared.c_str(), 65534, 65534), 0);  // nobody's, not the run user's
  RunResult acl =
      cwsc::testing::Run({"/usr/bin/setfacl", "-m", "u:" + std::to_string(uid_) + ":rwx", shared});
  ASSERT_EQ(acl.exit_code, 0) << acl.err;
  // What an earlier run could do through the ACL entry.
  ASSERT_EQ(symlink(outside.c_str(), (shared + "/next").c_str()), 0);
  ASSERT_EQ(lchown((shared + "/next").c_str(), uid_, gid_), 0);
  RunResult r = Sh("echo RAN; echo pwned > marker; echo pwned > b/marker; exit 0", {}, "ask",
                   shared + "/next");
  EXPECT_THAT(r.out, HasSubstr("RAN")) << r.err;
  EXPECT_FALSE(Exists(outside + "/marker")) << r.err;
  EXPECT_FALSE(Exists(outside + "/b/marker")) << r.err;
  ExpectSecretAndOutsideUntouched(before);
}

// 4d. A link in a protected directory whose target only looks inside:
// `y -> .` and `config.toml -> y/../evil.toml` lead, for the kernel, to
// the workspace's evil.toml, which the command writes. The run is refused.
TEST_P(Trust2Test, ALinkThatClimbsOutAfterAnotherLinkIsRefused) {
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
  mkdir((ws + "/sub").c_str(), 0755);
  ChownAll();
  RunResult plant =
      Sh("mkdir -p sub/.codewhale && cd sub/.codewhale && ln -s . y && ln -s y/../evil.toml "
         "config.toml && echo PLANTED");
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  RunResult r = Sh("echo evil > evil.toml; echo RAN", {}, "ask", ws + "/sub");
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("RAN")));
  EXPECT_EQ(r.err, ws +
                       "/sub/.codewhale/config.toml: warning: ignoring the project config: it is "
                       "a symlink\n"
                       "cwsc: refused: the protected directory " +
                       ws + "/sub/.codewhale holds the symlink " + ws +
                       "/sub/.codewhale/config.toml -> y/../evil.toml, which leads out of it, "
                       "where the sandbox may write; remove the link\n");
  EXPECT_FALSE(Exists(ws + "/sub/evil.toml"));
}

// 4e. A denied file with a second name: a run that could write the home
// while ~/.netrc was missing made it and a hard link beside it; the user
// then wrote a password into ~/.netrc. The mask hides ~/.netrc, not the
// other name, so the next run is refused until the link is gone.
TEST_P(Trust2Test, ADeniedFileWithASecondHardLinkIsRefused) {
  WriteFile(home + "/.netrc", "machine example.org password TOPSECRET\n");
  ASSERT_EQ(link((home + "/.netrc").c_str(), (home + "/notes.txt").c_str()), 0);
  ChownAll();
  RunResult r = Sh("cat " + ShQuote(home + "/notes.txt") + "; echo RAN", {}, "ask", home);
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("TOPSECRET")));
  EXPECT_THAT(r.out, Not(HasSubstr("RAN")));
  EXPECT_EQ(r.err,
            "cwsc: refused: the denied file " + home +
                "/.netrc (~/.netrc) has 2 hard "
                "links; the sandbox could read it under another name; remove the extra links "
                "(find / -xdev -samefile " +
                home + "/.netrc)\n");
  // Once the second name is gone the run goes ahead, and ~/.netrc stays hidden.
  ASSERT_EQ(unlink((home + "/notes.txt").c_str()), 0);
  r = Sh("cat " + ShQuote(home + "/.netrc") + " 2>/dev/null; echo RAN", {}, "ask", home);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("RAN"));
  EXPECT_THAT(r.out, Not(HasSubstr("TOPSECRET")));
}

// 5. Renames of the workspace itself: a run cannot move its own working
// directory (a mount point) or its parent (read-only); a run one level up
// renames it and leaves a symlink to the outside under the old name, and
// the next run there, or a policy naming it as a root, is not bound there.
TEST_P(Trust2Test, RenamingTheWorkspaceBetweenRuns) {
  mkdir((ws + "/a").c_str(), 0755);
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  RunResult r =
      Sh("mv \"$PWD\" ../a2 2>/dev/null && echo MOVED; cd .. && mv a a3 2>/dev/null && "
         "echo MOVED2; exit 0",
         {}, "ask", ws + "/a");
  EXPECT_THAT(r.out, Not(HasSubstr("MOVED"))) << r.err;
  EXPECT_TRUE(Exists(ws + "/a"));
  RunResult plant = Sh("mv a a.old && ln -s " + ShQuote(outside) + " a && echo PLANTED");
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  r = Sh("echo pwned > marker 2>/dev/null; echo pwned > target 2>/dev/null; exit 0", {}, "ask",
         ws + "/a");
  EXPECT_FALSE(Exists(outside + "/marker")) << r.err;
  // Back as a directory that is renamed away while another policy lists it.
  plant = Sh("rm a && mv a.old a && echo BACK");
  ASSERT_THAT(plant.out, HasSubstr("BACK")) << plant.err;
  WriteFile(config, "sandbox_writable_roots = [\"" + ws + "/a\"]\n");
  mkdir((ws + "/b").c_str(), 0755);
  ChownAll();
  r = Sh("mv " + ShQuote(ws + "/a") + " " + ShQuote(ws + "/b/a") +
             " 2>/dev/null && echo MOVED3; exit 0",
         {}, "ask", ws + "/b");
  EXPECT_THAT(r.out, Not(HasSubstr("MOVED3")));
  ExpectSecretAndOutsideUntouched(before);
}

// 6. Socket families through raw system calls with the network off: the
// high half of the family, type and protocol registers set, flags OR'ed
// into socketpair's type, every family off the allow-list, every netlink
// protocol but routing, raw and packet sockets, every family number below
// 70 with five types, x32 numbers. None gives a socket; stream and
// seqpacket pairs still work.
TEST_P(Trust2Test, SocketFamiliesThroughRawSystemCallsWithTheNetworkOff) {
  WriteFile(bin + "/raw_sockets.py", kRawSockets);
  WriteFile(config, "sandbox_network_access = false\n");
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  RunResult r = Sh("/usr/bin/python3 " + ShQuote(bin + "/raw_sockets.py"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("allowed-pair-stream works"));
  EXPECT_THAT(r.out, HasSubstr("allowed-pair-seqpacket works"));
  EXPECT_THAT(r.out, HasSubstr("socket-netlink-audit errno=93"));
  EXPECT_THAT(r.out, HasSubstr("socket-vsock-high errno=97"));
  EXPECT_THAT(r.out, Not(HasSubstr("socket-x32")));  // killed before it printed
  EXPECT_THAT(r.out, Not(HasSubstr("x32-status 0\n")));
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
    EXPECT_FALSE(absl::EndsWith(line, " ok")) << line;
    ++lines;
  }
  EXPECT_GE(lines, 38) << r.out;
  ExpectSecretAndOutsideUntouched(before);
}

// 7. Setuid and setgid by every other route: tar -p (as root also with
// --same-owner), python's tarfile, chmod through /proc/self/fd, raw chmod
// and fchmod with the high half of the mode set, fchmodat through a symlink
// and with AT_SYMLINK_NOFOLLOW, a file capability, an x32 chmod; with the
// network on and off. Nothing in the workspace has either bit afterwards,
// nor a file capability.
TEST_P(Trust2Test, SetuidAndSetgidByArchivesProcAndRawCalls) {
  WriteFile(bin + "/setuid.py", kSetuidRoutes);
  // The archive: a setuid, a setgid, a setgid directory, built outside.
  std::string archive = bin + "/suid.tar";
  RunResult made = ::cwsc::testing::Run(
      {"/usr/bin/python3", "-c",
       "import io, sys, tarfile\n"
       "t = tarfile.open(sys.argv[1], 'w')\n"
       "for name, mode, kind in [('suid', 0o4755, tarfile.REGTYPE), ('sgid', 0o2755, "
       "tarfile.REGTYPE), ('sgdir', 0o2775, tarfile.DIRTYPE), ('sgdir/inner', 0o6755, "
       "tarfile.REGTYPE)]:\n"
       "    i = tarfile.TarInfo(name); i.mode = mode; i.type = kind; i.uid = 0; i.gid = 0\n"
       "    data = b'#!/bin/sh\\nid\\n' if kind == tarfile.REGTYPE else b''\n"
       "    i.size = len(data); t.addfile(i, io.BytesIO(data))\n"
       "t.close()\n",
       archive});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  for (const char* net : {"", "sandbox_network_access = false\n"}) {
    WriteFile(config, net);
    std::string dir = ws + (*net != '\0' ? "/off" : "/on");
    mkdir(dir.c_str(), 0755);
    ChownAll();
    RunResult r = Sh(ShJoin({"/usr/bin/python3", bin + "/setuid.py", dir, archive}));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("chmod-proc-fd errno=1"));
    EXPECT_THAT(r.out, HasSubstr("chmod-high errno=1"));
    EXPECT_THAT(r.out, HasSubstr("setcap errno=1"));
    EXPECT_THAT(r.out, Not(HasSubstr("chmod-x32")));
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      if (absl::StartsWith(line, "chown-keeps") || absl::StartsWith(line, "x32-status")) continue;
      EXPECT_FALSE(absl::EndsWith(line, " ok")) << "'" << net << "': " << line;
    }
    EXPECT_TRUE(Exists(dir + "/plain"));
  }
  EXPECT_THAT(Found(ws, [](const struct stat& st,
                           const std::string&) { return (st.st_mode & (S_ISUID | S_ISGID)) != 0; }),
              IsEmpty());
  EXPECT_THAT(Found(ws,
                    [](const struct stat& st, const std::string& p) {
                      return S_ISREG(st.st_mode) &&
                             lgetxattr(p.c_str(), "security.capability", nullptr, 0) >= 0;
                    }),
              IsEmpty());
  ExpectSecretAndOutsideUntouched(before);
}

// 8. Device nodes: a character or block device left in the workspace
// (/dev/mem, a disk) would be opened later by whoever runs there. mknod and
// mknodat, with the high half of the mode set, make none; a whiteout
// (0:0, which the kernel lets anyone make) is no device.
TEST_P(Trust2Test, NoDeviceNodeCanBeLeftBehind) {
  WriteFile(bin + "/devices.py", kDevices);
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  for (const char* net : {"", "sandbox_network_access = false\n"}) {
    WriteFile(config, net);
    ChownAll();
    RunResult r = Sh(ShJoin({"/usr/bin/python3", bin + "/devices.py", ws}));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      EXPECT_FALSE(absl::EndsWith(line, " ok")) << line;
    }
    EXPECT_THAT(r.out, HasSubstr("mknod-mem errno=1"));
  }
  EXPECT_THAT(Found(ws,
                    [](const struct stat& st, const std::string&) {
                      return (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && st.st_rdev != 0;
                    }),
              IsEmpty());
  ExpectSecretAndOutsideUntouched(before);
}

// 9. cwsc's own diagnostics print names the command wrote: a protected
// directory prepared by an earlier run holds a hard-linked file named with
// terminal escapes and a newline that forges a second line, and a symlink
// whose target does the same. The refusal names them escaped, on one line.
TEST_P(Trust2Test, PlantedNamesReachTheTerminalOnlyEscaped) {
  // The names reach cwsc's output through the protected directories' walk.
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
  mkdir((ws + "/sub").c_str(), 0755);
  ChownAll();
  std::string evil =
      "\x1b]0;PWNED\x07\x1b[2J\ncwsc: ok: ran\r\x9b"
      "1m";
  RunResult plant =
      Sh("mkdir -p sub/.codewhale/x && n=$(printf "
         "'sub/.codewhale/x/\\033]0;PWNED\\007\\033[2J\\ncwsc: "
         "ok: ran\\r\\233'1m) && echo a > \"$n\" && ln \"$n\" sub/outer && echo PLANTED");
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  ASSERT_TRUE(Exists(ws + "/sub/.codewhale/x/" + evil));
  auto check = [](const RunResult& r) {
    EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
    EXPECT_THAT(r.out, Not(HasSubstr("RAN")));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    for (char c : r.err.substr(0, r.err.size() - 1)) {
      unsigned char u = static_cast<unsigned char>(c);
      EXPECT_FALSE(u < 0x20 || u == 0x7f) << "control byte " << int(u) << " in " << r.err;
    }
    EXPECT_THAT(r.err, Not(HasSubstr("\x9b")));
    EXPECT_THAT(r.err, HasSubstr("\\x1b]0;PWNED\\x07"));
  };
  RunResult r = Sh("echo RAN", {}, "ask", ws + "/sub");
  check(r);
  // --json keeps them escaped too (a JSON string), and stderr the same
  // (the cwsc program's own channel: not through cwsc_spawn).
  if (!ThroughSpawn()) {
    std::vector<std::string> argv = Prefix(BaseEnv());
    std::vector<std::string> c =
        CwscArgv({"/bin/sh", "-c", "echo RAN"}, {"--json"}, "ask", ws + "/sub");
    argv.insert(argv.end(), c.begin(), c.end());
    RunResult j = ::cwsc::testing::Run(argv);
    EXPECT_THAT(j.out, Not(HasSubstr("\x1b")));
    EXPECT_THAT(j.out, Not(HasSubstr("\x07")));
  }
  plant =
      Sh("rm sub/outer && rm -r sub/.codewhale/x && ln -s \"../../$(printf "
         "'\\033]0;PWNED\\007\\ncwsc: ok')\" sub/.codewhale/cfg && echo PLANTED");
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  r = Sh("echo RAN", {}, "ask", ws + "/sub");
  check(r);
}

// 10. A directory of 100,001 entries in the working directory's ancestry
// and as a configured root: runs start in bounded time and bind what they
// should; nothing stays behind.
TEST_P(Trust2Test, AHugeDirectoryInTheWorkingDirectorysAncestry) {
  std::string big = HugeDir();
  std::string mine = big + (as_other_user_ ? "/user" : "/root");
  std::filesystem::create_directories(mine + "/q");
  lchown(mine.c_str(), uid_, gid_);
  lchown((mine + "/q").c_str(), uid_, gid_);
  mkdir((ws + "/v").c_str(), 0755);
  WriteFile(config, "sandbox_writable_roots = [\"" + big + "\"]\n");
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  std::string marker = big + "/marker-" + std::to_string(uid_);
  auto start = std::chrono::steady_clock::now();
  RunResult r = Sh("echo ok > marker && ls ../.. | wc -l", {}, "ask", mine + "/q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(std::atoi(r.out.c_str()), 100001) << r.out;
  EXPECT_EQ(ReadFileOr(mine + "/q/marker"), "ok\n");
  r = Sh("echo ok > " + marker, {}, "ask", ws + "/v");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFileOr(marker), "ok\n");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10) << "two runs took " << seconds << " s";
  EXPECT_FALSE(Exists(mine + "/q/.codewhale"));
  EXPECT_FALSE(Exists(big + "/.codewhale"));
  EXPECT_FALSE(Exists(big + "/.deepseek"));
  unlink(marker.c_str());
  std::filesystem::remove_all(mine);
  ExpectSecretAndOutsideUntouched(before);
}

// 11. A protected directory nested 2,100 levels deep (past PATH_MAX from its
// top) with a hard-linked file at the bottom, prepared by an earlier run:
// the walk finds the link or refuses the tree, and cwsc does not crash (a
// walk that recursed overflowed its stack here: exit 139). Deeper costs
// more to remove than to check (a few ms a directory on this disk).
TEST_P(Trust2Test, AProtectedDirectoryNestedPastPathMaxFailsClosed) {
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
  mkdir((ws + "/sub").c_str(), 0755);
  ChownAll();
  RunResult plant =
      Sh("/usr/bin/python3 -c 'import os\n"
         "top = os.open(\"sub\", os.O_RDONLY)\nos.chdir(\"sub\")\nos.mkdir(\".codewhale\")\n"
         "os.chdir(\".codewhale\")\n"
         "for i in range(2100):\n    os.mkdir(\"d\")\n    os.chdir(\"d\")\n"
         "open(\"config.toml\", \"w\").write(\"x\")\nos.link(\"config.toml\", \"outer\", "
         "dst_dir_fd=top)\nprint(\"PLANTED\")'");
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  RunResult r = Sh("echo RAN", {}, "ask", ws + "/sub");
  EXPECT_EQ(r.exit_code, 125) << r.out << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("RAN")));
  EXPECT_THAT(r.err, HasSubstr("cwsc: refused: "));
  // The tree is too deep for std::filesystem to remove by path (and rm -rf
  // takes seconds): down and back up, one relative rmdir per level.
  RunResult rm =
      ::cwsc::testing::Run({"/usr/bin/python3", "-c",
                            "import os, sys\nos.chdir(sys.argv[1])\nn = 0\n"
                            "while os.path.isdir('d'):\n    os.chdir('d')\n    n += 1\n"
                            "os.unlink('config.toml')\n"
                            "for i in range(n):\n    os.chdir('..')\n    os.rmdir('d')\n",
                            ws + "/sub/.codewhale"});
  EXPECT_EQ(rm.exit_code, 0) << rm.err;
}

// 12. A protected name that is not a directory: an earlier run whose root
// was the parent left sub/.codewhale as a FIFO, a regular file, a socket,
// or a symlink to a directory inside sub, there or not yet. A run in sub
// must not be able to put a project config there.
TEST_P(Trust2Test, AProtectedNamePreparedAsAnotherFileTypeCannotBeFilled) {
  CWSC_NOT_PROMISED_BY_LANDLOCK(
      "protected names are not held (docs/runtime.md, \"The Landlock backend\")");
  const std::vector<std::string> kinds = {"/fifo", "/file", "/sock", "/link", "/dangling"};
  for (const std::string& s : kinds) mkdir((ws + s).c_str(), 0755);
  ChownAll();
  RunResult plant =
      Sh("mkfifo fifo/.codewhale && echo x > file/.codewhale && mkdir link/inner && "
         "ln -s inner link/.codewhale && ln -s inner dangling/.codewhale && echo PLANTED; "
         "/usr/bin/python3 -c 'import socket; "
         "socket.socket(socket.AF_UNIX).bind(\"sock/.codewhale\")'");
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  std::string fill =
      "t=$(readlink .codewhale); [ -n \"$t\" ] && mkdir -p \"$t\" 2>/dev/null && "
      "echo 'sandbox_mode = \"danger-full-access\"' > \"$t/config.toml\" 2>/dev/null; "
      "rm -f .codewhale 2>/dev/null; mkdir -p .codewhale 2>/dev/null; "
      "echo 'sandbox_mode = \"danger-full-access\"' > .codewhale/config.toml 2>/dev/null; "
      "echo RAN";
  for (const std::string& s : kinds) {
    struct stat st;
    bool planted = lstat((ws + s + "/.codewhale").c_str(), &st) == 0;
    RunResult r = Sh(fill, {}, "ask", ws + s);
    if (planted) {
      EXPECT_EQ(r.exit_code, 125) << s << r.out << r.err;
      EXPECT_THAT(r.err,
                  HasSubstr("cwsc: refused: the protected name " + ws + s + "/.codewhale is a"))
          << s;
    }
    EXPECT_FALSE(Exists(ws + s + "/.codewhale/config.toml"))
        << s << ": " << r.exit_code << " " << r.out << r.err;
    EXPECT_FALSE(Exists(ws + s + "/inner/config.toml")) << s;
    if (r.exit_code != 125) {
      EXPECT_THAT(r.out, HasSubstr("RAN")) << s << r.err;
    }
  }
}

// 13. Descriptors and /proc: no descriptor of any process the command can
// see (bwrap's bind descriptors, the seccomp program's), nor /proc/PID/root
// or cwd, leads to the host's tree: walking up from each with "..", the
// command finds neither the secret (masked inside) nor a way to create a
// file outside.
TEST_P(Trust2Test, NoDescriptorOrProcLinkLeadsToTheHostsTree) {
  WriteFile(bin + "/procwalk.py", kProcWalk);
  WriteFile(config, "sandbox_denied_read_paths = [\"" + home + "/.ssh\"]\n");
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  for (const char* net : {"", "sandbox_network_access = false\n"}) {
    WriteFile(config, std::string(net) + "sandbox_denied_read_paths = [\"" + home + "/.ssh\"]\n");
    ChownAll();
    RunResult r = Sh(ShJoin({"/usr/bin/python3", bin + "/procwalk.py", home + "/.ssh/id_ed25519",
                             outside + "/marker"}));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("probed "));
    EXPECT_THAT(r.out, Not(HasSubstr("ESCAPED"))) << r.out;
    EXPECT_THAT(r.out, Not(HasSubstr("SECRET")));
    EXPECT_FALSE(Exists(outside + "/marker"));
  }
  ExpectSecretAndOutsideUntouched(before);
}

// 14. FIFOs where cwsc reads or checks a file: a project config, a `.git`
// file, a worktree's `commondir`, `gitdir` and `HEAD`, a denied path in the
// workspace, all left by an earlier run whose root was the parent. Opening
// one for reading would wait for a writer forever; every run ends, in
// bounded time, refused or run, and nothing outside changes.
TEST_P(Trust2Test, FifosWhereCwscReadsDoNotHangIt) {
  for (const char* d : {"/cfg", "/dotgit", "/wt", "/deny"}) mkdir((ws + d).c_str(), 0755);
  ChownAll();
  std::vector<std::string> before = Listing(outside);
  RunResult plant =
      Sh("mkdir cfg/.codewhale && mkfifo cfg/.codewhale/config.toml && mkfifo dotgit/.git && "
         "mkdir -p repo/.git/worktrees/wt && printf 'gitdir: " +
         ws +
         "/repo/.git/worktrees/wt\n' > wt/.git && for f in commondir gitdir HEAD; do mkfifo "
         "repo/.git/worktrees/wt/$f; done && mkfifo deny/secret && echo PLANTED");
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  std::string deny_cfg = *base_ / "deny.toml";
  WriteFile(deny_cfg, "sandbox_denied_read_paths = [\"" + ws + "/deny/secret\"]\n");
  ChownAll();
  auto start = std::chrono::steady_clock::now();
  for (const char* d : {"/cfg", "/dotgit", "/wt", "/deny"}) {
    std::vector<std::string> argv =
        ArgvWith(std::string(d) == "/deny" ? deny_cfg : config,
                 {"/bin/sh", "-c", "echo RAN; echo pwned > " + outside + "/marker"}, ws + d);
    RunResult r = Outer("timeout -s KILL 15 " + ShJoin(argv));
    EXPECT_NE(r.exit_code, 137) << d << ": cwsc hung";
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 125 || r.exit_code == 2)
        << d << ": " << r.exit_code << " " << r.out << r.err;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 15);
  EXPECT_FALSE(Exists(outside + "/marker"));
  ExpectSecretAndOutsideUntouched(before);
}

// 15. cwsc's own state where the sandbox may write: the bwrap probe cache
// lives in $XDG_RUNTIME_DIR/cwsc, else /tmp/cwsc-UID, and /tmp is often a
// writable root. (Here XDG_RUNTIME_DIR is a directory in the workspace, so
// that the test leaves the shared /tmp/cwsc-UID of other runs alone.) The
// command replaces the cache file and the mount gate's time hint beside it
// with FIFOs, then the cache with forged text: the next run neither hangs
// nor trusts it, and still runs sandboxed.
TEST_P(Trust2Test, AFifoOrForgeryAtTheProbeCacheDoesNotHangOrFoolTheNextRun) {
  if (landlock()) GTEST_SKIP() << "a Landlock run reads no bwrap probe cache";
  std::string run = ws + "/xdg";
  mkdir(run.c_str(), 0700);
  ChownAll();
  std::vector<std::string> xdg = {"XDG_RUNTIME_DIR=" + run};
  RunResult first = Sh("echo RAN", xdg);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_TRUE(Exists(run + "/cwsc/bwrap-probe"));
  ASSERT_TRUE(Exists(run + "/cwsc/gate-time"));  // the mount gate's hint, read the same way
  RunResult plant = Sh("rm " + run + "/cwsc/bwrap-probe " + run + "/cwsc/gate-time && mkfifo " +
                           run + "/cwsc/bwrap-probe " + run + "/cwsc/gate-time && echo PLANTED",
                       xdg);
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  std::vector<std::string> argv =
      CwscArgv({"/bin/sh", "-c",
                "echo RAN; cat " + ShQuote(home + "/.ssh/id_ed25519") + " 2>/dev/null; exit 0"});
  RunResult r = Outer("timeout -s KILL 15 " + ShJoin(argv), xdg);
  EXPECT_NE(r.exit_code, 137) << "cwsc waited on the FIFO";
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("RAN"));
  EXPECT_THAT(r.out, Not(HasSubstr("SECRET")));
  // The forgery, written the same way from outside (an unfixed cwsc would
  // still be waiting on the FIFO above).
  plant =
      Outer("rm " + run + "/cwsc/bwrap-probe && printf 'cwsc-bwrap-probe 1\\nforged\\n0\\n' > " +
            run + "/cwsc/bwrap-probe && echo PLANTED");
  ASSERT_THAT(plant.out, HasSubstr("PLANTED")) << plant.err;
  r = Outer("timeout -s KILL 15 " + ShJoin(argv), xdg);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("SECRET")));
  EXPECT_EQ(ReadFileOr(home + "/.ssh/id_ed25519"), "SECRET-KEY\n");
}

INSTANTIATE_TEST_SUITE_P(AsRootAndAsUser, Trust2Test, ::testing::ValuesIn(AllVariants()),
                         VariantName);

}  // namespace
}  // namespace cwsc::testing
