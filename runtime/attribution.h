// Denial attribution (docs/behavior.md B-45, B-81): decides, conservatively, whether
// a failed sandboxed command was blocked by the sandbox, from its exit status
// and its stderr. Unsandboxed runs are never denials; exit 0 is never one.
//
//   StderrScanner scan;            // fed with every stderr chunk, O(1) memory
//   scan.Feed("touch: cannot touch '/x': Read-only file system\n");
//   Denial d = AttributeDenial("linux-bwrap", 1, scan.Summary());
//   // d.denied == true
//   // d.message == "Bubblewrap blocked access outside the writable workspace view."
#ifndef CWSC_RUNTIME_ATTRIBUTION_H_
#define CWSC_RUNTIME_ATTRIBUTION_H_

#include <string>
#include <string_view>

namespace cwsc::runtime {

// StderrSummary is what attribution needs to know about a stderr stream.
struct StderrSummary {
  bool any_output = false;
  std::string first_line;        // first line, without its newline (capped)
  std::string first_bwrap_line;  // first line whose trimmed form starts with "bwrap:"
  bool read_only_fs = false;     // "Read-only file system" appeared anywhere
};

// StderrScanner builds a StderrSummary from a stream fed in arbitrary chunks.
class StderrScanner {
 public:
  void Feed(std::string_view chunk);
  // Summary includes a final line that has no trailing newline.
  StderrSummary Summary() const;

 private:
  void EndLine(std::string_view line, StderrSummary* s) const;
  StderrSummary summary_;
  std::string line_;      // current partial line (capped)
  size_t line_len_ = 0;   // full length of the current line
  std::string tail_;      // last bytes seen, for matches across chunks
};

struct Denial {
  bool denied = false;
  std::string message;  // empty unless denied
  // The wrapper started but could not exec the program (bwrap: "execvp P:
  // No such file or directory" / "Permission denied"): not a sandbox denial.
  // 127 (not found) or 126 (not executable), like a shell; 0 otherwise.
  int exec_exit = 0;
  std::string exec_message;  // "cannot run 'P': No such file or directory"
};

// AttributeDenial applies the rules for `sandbox_kind` ("linux-bwrap",
// "launcher+bwrap", "macos-seatbelt", "none", ...). Kinds without a detector
// (none, opensandbox) never report a denial.
Denial AttributeDenial(std::string_view sandbox_kind, int exit_code, const StderrSummary& err);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_ATTRIBUTION_H_
