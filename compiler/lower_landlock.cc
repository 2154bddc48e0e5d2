#include "compiler/lower_landlock.h"

#include <map>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/lower_seccomp.h"

namespace cwsc::compiler {
namespace {

using ir::LandlockRule;
using ir::Origin;

// Reading: list, open for reading, run. Writing adds every right the
// ruleset handles except making device nodes.
constexpr uint64_t kRead =
    ir::kLandlockFsExecute | ir::kLandlockFsReadFile | ir::kLandlockFsReadDir;
constexpr uint64_t kDeviceFile = ir::kLandlockFsReadFile | ir::kLandlockFsWriteFile |
                                 ir::kLandlockFsTruncate | ir::kLandlockFsIoctlDev;

// The device nodes a command may use: bwrap's private /dev holds the same.
constexpr const char* kDevices[] = {"/dev/null",    "/dev/zero", "/dev/full", "/dev/random",
                                    "/dev/urandom", "/dev/tty",  "/dev/ptmx"};

std::string Parent(const std::string& p) {
  size_t slash = p.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
}

std::string Base(const std::string& p) { return p.substr(p.rfind('/') + 1); }

bool Under(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir ||
         (absl::StartsWith(path, dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

// Exclusions maps each directory on the way to an excluded path to the
// names of its entries that lead there.
class Exclusions {
 public:
  void Add(const std::string& path, const std::string& label) {
    if (path.empty() || path[0] != '/' || path == "/") return;
    std::string p = path;
    labels_[path] = label;
    while (p != "/") {
      std::string up = Parent(p);
      dirs_[up].insert(Base(p));
      p = up;
    }
  }
  const std::map<std::string, std::set<std::string>>& dirs() const { return dirs_; }
  bool Has(const std::string& dir) const { return dirs_.count(dir) != 0; }
  // Below: the excluded paths under `dir` ("~/.ssh" labels), for messages.
  std::vector<std::string> Below(const std::string& dir) const {
    std::vector<std::string> out;
    for (const auto& [p, label] : labels_) {
      if (p != dir && Under(p, dir)) out.push_back(p);
    }
    return out;
  }

 private:
  std::map<std::string, std::set<std::string>> dirs_;
  std::map<std::string, std::string> labels_;
};

}  // namespace

uint64_t LandlockHandledFs(int abi) {
  if (abi < 1) return 0;
  uint64_t h = (ir::kLandlockFsMakeSym << 1) - 1;  // ABI 1: bits 0-12
  if (abi >= 2) h |= ir::kLandlockFsRefer;
  if (abi >= 3) h |= ir::kLandlockFsTruncate;
  if (abi >= 5) h |= ir::kLandlockFsIoctlDev;
  return h;
}

bool LandlockNamespaceFailure(const std::string& m) {
  return absl::StrContains(m, "namespace") || absl::StrContains(m, "uid map") ||
         absl::StrContains(m, "gid map") || absl::StrContains(m, "unshare");
}

void LowerLandlock(HostFacts& facts, const PolicySpec& spec, int abi, ir::LaunchPlan* plan) {
  const Origin base = Origin::Default("landlock backend");
  ir::Landlock ll;
  ll.abi = abi;
  ll.handled_fs = LandlockHandledFs(abi);
  const bool network = plan->policy.network_access;
  if (abi >= 4 && !network) ll.handled_net = ir::kLandlockNetBindTcp | ir::kLandlockNetConnectTcp;
  if (abi >= 6) {
    ll.scoped = ir::kLandlockScopeSignal;
    if (!network) ll.scoped |= ir::kLandlockScopeAbstractUnixSocket;
  }
  const uint64_t read = kRead & ll.handled_fs;
  const uint64_t write = ll.handled_fs & ~(ir::kLandlockFsMakeChar | ir::kLandlockFsMakeBlock);
  auto skip = [&](std::string what, std::string path, std::string reason,
                  const Origin& origin = Origin::Default("landlock backend")) {
    plan->skipped.push_back(ir::Skipped{std::move(what), std::move(path), std::move(reason), origin,
                                        ir::SkipKind::kLandlock});
  };

  // What reading leaves out: the deny list (lexical and canonical forms,
  // whether it exists or not: the runtime leaves the name out either way)
  // and /dev, whose disks a grant on / would make readable.
  Exclusions ex;
  ex.Add("/dev", "host devices");
  std::map<std::string, Origin> denied_origin;
  for (const ir::DeniedPath& d : plan->denied_read) {
    ex.Add(d.path.str(), d.rule);
    const PathInfo& info = facts.Path(d.path.str());
    if (!info.canonical.empty() && info.canonical != d.path.str()) ex.Add(info.canonical, d.rule);
  }
  std::vector<std::string> roots;
  for (const ir::Root& r : plan->roots) {
    if (r.writable_bind && !r.canonical.empty()) roots.push_back(r.canonical.str());
  }
  auto under_root = [&](const std::string& dir) {
    for (const std::string& r : roots) {
      if (Under(dir, r)) return true;
    }
    return false;
  };

  for (const auto& [dir, names] : ex.dirs()) {
    bool w = under_root(dir);
    std::vector<std::string> list(names.begin(), names.end());
    ll.rules.push_back(LandlockRule{
        dir, w ? write : read, list,
        absl::StrCat(w ? "write" : "read", " every entry of ", dir, " but ",
                     absl::StrJoin(list, ", "),
                     ": a grant on the directory itself would reach the excluded path below it"),
        w ? base : Origin::Default("landlock read view")});
    std::vector<std::string> below = ex.Below(dir);
    skip("directory listing", dir,
         absl::StrCat(
             "listing ", dir, w ? ", and creating or removing entries directly in it," : "",
             " is refused, and an entry created in it after the command starts is not ",
             w ? "usable" : "readable", " by the command: Landlock only grants, and a grant on ",
             dir, " itself would reach ", absl::StrJoin(below, ", ")));
  }
  // Devices: /dev can be listed; the usual character devices are usable.
  ll.rules.push_back(LandlockRule{
      "/dev", ir::kLandlockFsReadDir, {}, "list /dev", Origin::Default("landlock device view")});
  for (const char* d : kDevices) {
    ll.rules.push_back(LandlockRule{d,
                                    kDeviceFile & ll.handled_fs,
                                    {},
                                    "usable device",
                                    Origin::Default("landlock device view")});
  }
  ll.rules.push_back(LandlockRule{"/dev/pts",
                                  (kDeviceFile | ir::kLandlockFsReadDir) & ll.handled_fs,
                                  {},
                                  "pseudo-terminals",
                                  Origin::Default("landlock device view")});
  // Writable roots: a root with no excluded path below it gets one rule.
  for (const ir::Root& r : plan->roots) {
    if (!r.writable_bind || r.canonical.empty()) continue;
    const std::string root = r.canonical.str();
    if (!ex.Has(root)) {
      ll.rules.push_back(
          LandlockRule{root,
                       write,
                       {},
                       absl::StrCat("writable root (", ir::RootSourceName(r.source), ")"),
                       r.origin});
    }
    for (const ir::Protected& p : r.protected_paths) {
      skip("protected path", p.path.str(),
           absl::StrCat("writable: a Landlock grant on ", root,
                        " reaches every path below it, and keeping ", Base(p.path.str()),
                        " read-only would refuse creating any entry directly in ", root,
                        " (bubblewrap plans remount it read-only)"));
    }
  }

  // What needs namespaces or mounts.
  skip("private /tmp", "/tmp",
       "without a mount namespace the command sees the host's /tmp: writable when it is a "
       "writable root, read-only otherwise, and shared with the host either way");
  skip("PID namespace", "",
       absl::StrCat("the command shares the host's process table and sees every process in /proc",
                    abi >= 6 ? "; signals to processes outside the sandbox are refused (Landlock "
                               "scope, ABI 6)"
                             : "; it may signal any process its uid may (Landlock ABI < 6 has no "
                               "signal scope)"));
  skip("kernel interface masks", "/proc",
       "/proc and /sys are the host's and readable (no masks without a mount namespace); writes "
       "there are refused (not a writable root) and the command has no capabilities");
  skip("private /dev", "/dev",
       "only /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom, /dev/tty, /dev/ptmx and "
       "/dev/pts are usable; /dev/shm and every other device are refused");
  if (spec.bwrap_ro_roots && !spec.bwrap_ro_roots->value.empty()) {
    skip("bwrap_ro_roots", "",
         "read-only binds need a mount namespace; beneath a writable root they stay writable",
         spec.bwrap_ro_roots->origin);
  }
  if (spec.bwrap_dev_roots && !spec.bwrap_dev_roots->value.empty()) {
    skip("bwrap_dev_roots", "", "device binds need a mount namespace; the devices are refused",
         spec.bwrap_dev_roots->origin);
  }
  if (!network && abi < 4) {
    skip("TCP bind and connect", "",
         "Landlock ABI < 4 cannot refuse them; seccomp refuses AF_INET and AF_INET6 sockets");
  }
  if (!network && abi < 6) {
    skip("abstract unix sockets", "",
         "Landlock ABI < 6 cannot scope them; seccomp refuses AF_UNIX sockets (socketpair "
         "still works)");
  }
  plan->launch = ir::LandlockLaunch{std::move(ll), LowerLandlockSyscallFilter(plan->policy)};
}

}  // namespace cwsc::compiler
