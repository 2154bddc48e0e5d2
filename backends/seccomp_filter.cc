#include "backends/seccomp_filter.h"

#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/display.h"

namespace cwsc::backends {
namespace {

struct CtxRelease {
  void operator()(void* ctx) const { seccomp_release(ctx); }
};
using Ctx = std::unique_ptr<void, CtxRelease>;

absl::StatusOr<Ctx> Build(const ir::SyscallFilter& filter) {
  Ctx ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return absl::InternalError("seccomp_init failed");
  // Only the native architecture is added: calls through any other ABI
  // (and x32 numbers on x86_64) take the bad-architecture action.
  int rc = seccomp_attr_set(ctx.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (rc != 0) return absl::InternalError(absl::StrCat("seccomp_attr_set: ", strerror(-rc)));
  for (const ir::SyscallRule& r : filter.rules) {
    int nr = seccomp_syscall_resolve_name(r.syscall.c_str());
    if (nr == __NR_SCMP_ERROR) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown system call '", r.syscall, "' in the syscall filter"));
    }
    std::vector<scmp_arg_cmp> cmps;
    for (const ir::ArgTest& a : r.args) {
      cmps.push_back(SCMP_CMP(static_cast<unsigned>(a.index), SCMP_CMP_MASKED_EQ, a.mask, a.value));
    }
    rc = seccomp_rule_add_exact_array(ctx.get(),
                                      SCMP_ACT_ERRNO(static_cast<uint16_t>(r.errno_value)), nr,
                                      static_cast<unsigned>(cmps.size()), cmps.data());
    if (rc != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("libseccomp refused the rule for ", r.syscall, ": ", strerror(-rc)));
    }
  }
  return ctx;
}

// Export runs one libseccomp exporter into an anonymous file and reads it
// back (libseccomp 2.5 has no in-memory export).
absl::StatusOr<std::string> Export(void* ctx, int (*exporter)(const scmp_filter_ctx, int)) {
  int fd = memfd_create("cwsc-seccomp", MFD_CLOEXEC);
  if (fd < 0) return absl::InternalError(absl::StrCat("memfd_create: ", strerror(errno)));
  std::string out;
  int rc = exporter(ctx, fd);
  if (rc == 0 && lseek(fd, 0, SEEK_SET) == 0) {
    char buf[4096];
    for (;;) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  if (rc != 0) return absl::InternalError(absl::StrCat("libseccomp export: ", strerror(-rc)));
  return out;
}

// OneLine keeps a text on its comment line, shown as every value cwsc
// prints is (ir/display.h): C0, DEL, C1 and bidi controls and bytes that are
// not UTF-8 escaped.
std::string OneLine(const std::string& text) { return ir::Displayable(text); }

}  // namespace

absl::StatusOr<std::string> EmitSeccompBpf(const ir::SyscallFilter& filter) {
  // The program depends only on each rule's call, tests and errno: an
  // engine launching many commands under one policy builds it once
  // (libseccomp takes tens of microseconds). A few recent programs are kept.
  std::string key;
  for (const ir::SyscallRule& r : filter.rules) {
    absl::StrAppend(&key, r.syscall, ":", r.errno_value);
    for (const ir::ArgTest& t : r.args) {
      absl::StrAppend(&key, ",", t.index, "&", t.mask, "=", t.value);
    }
    key += ';';
  }
  static std::mutex mu;
  static std::deque<std::pair<std::string, std::string>> recent;  // newest first
  constexpr size_t kKept = 8;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [k, program] : recent) {
      if (k == key) return program;
    }
  }
  absl::StatusOr<Ctx> ctx = Build(filter);
  if (!ctx.ok()) return ctx.status();
  absl::StatusOr<std::string> program = Export(ctx->get(), &seccomp_export_bpf);
  if (!program.ok()) return program;
  std::lock_guard<std::mutex> lock(mu);
  recent.emplace_front(std::move(key), *program);
  if (recent.size() > kKept) recent.pop_back();
  return program;
}

absl::StatusOr<std::string> EmitSeccompListing(const ir::SyscallFilter& filter) {
  absl::StatusOr<Ctx> ctx = Build(filter);
  if (!ctx.ok()) return ctx.status();
  absl::StatusOr<std::string> pfc = Export(ctx->get(), &seccomp_export_pfc);
  if (!pfc.ok()) return pfc.status();
  std::string out =
      "# cwsc syscall filter: every call allowed unless a rule refuses it; calls through\n"
      "# another architecture's convention (i386, x32) kill the process.\n";
  for (size_t i = 0; i < filter.rules.size(); ++i) {
    const ir::SyscallRule& r = filter.rules[i];
    std::string args;
    for (const ir::ArgTest& a : r.args) {
      absl::StrAppendFormat(&args, " (arg%d & 0x%x) == 0x%x", a.index, a.mask, a.value);
    }
    absl::StrAppendFormat(&out, "# rule %d: %s%s -> errno %d: %s [%s]\n", i + 1, r.syscall, args,
                          r.errno_value, OneLine(r.why), OneLine(r.origin.Describe()));
  }
  return out + *pfc;
}

}  // namespace cwsc::backends
