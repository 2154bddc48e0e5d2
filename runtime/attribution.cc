#include "runtime/attribution.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/display.h"

namespace cwsc::runtime {
namespace {

constexpr size_t kLineCap = 4096;
constexpr std::string_view kReadOnlyFs = "Read-only file system";

std::string_view TrimLeft(std::string_view s) {
  size_t i = 0;
  while (i < s.size() &&
         (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f')) {
    ++i;
  }
  return s.substr(i);
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

void StderrScanner::EndLine(std::string_view line, StderrSummary* s) const {
  if (s->first_line.empty() && !TrimLeft(line).empty()) s->first_line = TrimRight(line);
  if (s->first_bwrap_line.empty() && TrimLeft(line).substr(0, 6) == "bwrap:") {
    s->first_bwrap_line = TrimRight(TrimLeft(line));
  }
}

void StderrScanner::Feed(std::string_view chunk) {
  if (chunk.empty()) return;
  summary_.any_output = true;
  // Substring match across chunk boundaries: search tail_ + chunk prefix.
  if (!summary_.read_only_fs) {
    std::string joined = tail_;
    joined.append(chunk.substr(0, std::min(chunk.size(), kReadOnlyFs.size())));
    if (joined.find(kReadOnlyFs) != std::string::npos ||
        chunk.find(kReadOnlyFs) != std::string_view::npos) {
      summary_.read_only_fs = true;
    }
  }
  size_t keep = std::min(chunk.size(), kReadOnlyFs.size() - 1);
  tail_.append(chunk.substr(chunk.size() - keep));
  if (tail_.size() > kReadOnlyFs.size() - 1)
    tail_.erase(0, tail_.size() - (kReadOnlyFs.size() - 1));

  while (!chunk.empty()) {
    size_t nl = chunk.find('\n');
    std::string_view piece = chunk.substr(0, nl);
    if (line_.size() < kLineCap) line_.append(piece.substr(0, kLineCap - line_.size()));
    line_len_ += piece.size();
    if (nl == std::string_view::npos) break;
    EndLine(line_, &summary_);
    line_.clear();
    line_len_ = 0;
    chunk.remove_prefix(nl + 1);
  }
}

StderrSummary StderrScanner::Summary() const {
  StderrSummary s = summary_;
  if (line_len_ > 0) EndLine(line_, &s);
  return s;
}

Denial AttributeDenial(std::string_view sandbox_kind, int exit_code, const StderrSummary& err) {
  Denial d;
  bool bwrap = sandbox_kind == "linux-bwrap" || sandbox_kind == "launcher+bwrap";
  if (!bwrap || exit_code == 0) return d;
  // bwrap's own exec of the program failed: report it as a shell would.
  constexpr absl::string_view kExec = "bwrap: execvp ";
  absl::string_view line = err.first_bwrap_line;
  size_t sep = line.rfind(": ");
  if (exit_code == 1 && absl::StartsWith(line, kExec) && sep != absl::string_view::npos &&
      sep > kExec.size()) {
    absl::string_view program = line.substr(kExec.size(), sep - kExec.size());
    absl::string_view why = line.substr(sep + 2);
    if (why == "No such file or directory" || why == "Not a directory") {
      d.exec_exit = 127;
    } else if (why == "Permission denied" || why == "Exec format error" ||
               why == "Is a directory") {
      d.exec_exit = 126;
    }
    if (d.exec_exit != 0) {
      d.exec_message = absl::StrCat("cannot run '", ir::Displayable(std::string(program)),
                                    "': ", ir::Displayable(std::string(why)));
      return d;
    }
  }
  if (!err.first_bwrap_line.empty()) {
    d.denied = true;
    // bwrap's line may quote what the command named: shown escaped (ir/display.h).
    d.message = "Bubblewrap could not create the sandbox: " + ir::Displayable(err.first_bwrap_line);
  } else if (err.read_only_fs) {
    d.denied = true;
    d.message = "Bubblewrap blocked access outside the writable workspace view.";
  }
  return d;
}

}  // namespace cwsc::runtime
