#include "compiler/dsl_format.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/dsl_frontend.h"
#include "compiler/dsl_text.h"
#include "ir/diagnostics.h"

namespace cwsc::compiler {
namespace {

using Kind = DslToken::Kind;

constexpr int kIndent = 2;        // per block level
constexpr int kContinuation = 4;  // a statement continued after a line comment

bool IsComment(Kind k) { return k == Kind::kLineComment || k == Kind::kBlockComment; }

int Newlines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

std::string RStrip(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// Printer lays out the significant tokens line by line. A line is "closed"
// lazily, so a comment that followed a token on the same source line can
// still be appended to it.
class Printer {
 public:
  void Token(const DslToken& t, int gap) {
    if (IsComment(t.kind)) {
      Comment(t, gap);
    } else {
      Code(t, gap);
    }
    prev_end_line_ = t.line + Newlines(t.text);
    prev_kind_ = t.kind;
  }

  std::string Finish() {
    Close();
    while (!lines_.empty() && lines_.back().empty() && trailing_of_.back().empty()) {
      lines_.pop_back();
      trailing_of_.pop_back();
    }
    // Consecutive lines with trailing comments align them one column past
    // the longest code among them (as gofmt does).
    std::vector<size_t> column(lines_.size(), 0);
    for (size_t i = 0; i < lines_.size();) {
      size_t j = i;
      size_t widest = 0;
      while (j < lines_.size() && !trailing_of_[j].empty()) {
        widest = std::max(widest, static_cast<size_t>(CodePoints(lines_[j])));
        ++j;
      }
      for (size_t k = i; k < j; ++k) column[k] = widest + 2;
      i = j == i ? i + 1 : j;
    }
    std::string out;
    for (size_t i = 0; i < lines_.size(); ++i) {
      std::string line = RStrip(lines_[i]);
      if (!trailing_of_[i].empty()) {
        size_t width = static_cast<size_t>(CodePoints(line));
        size_t pad = column[i] > width ? column[i] - width : 2;
        line += std::string(pad, ' ') + trailing_of_[i];
      }
      out += RStrip(line) + "\n";
    }
    return out;
  }

 private:
  void Comment(const DslToken& t, int gap) {
    std::string text = t.kind == Kind::kLineComment ? RStrip(t.text) : t.text;
    bool same_line = prev_end_line_ == t.line && !cur_.empty();
    if (same_line && !force_close_) {
      if (pending_close_ || t.kind == Kind::kLineComment || !trailing_.empty()) {
        // A trailing comment stays beside the code it explains; Finish()
        // aligns the trailing comments of consecutive lines.
        trailing_ += trailing_.empty() ? text : " " + text;
        if (t.kind == Kind::kLineComment) force_close_ = true;
      } else {
        cur_ += " " + text;  // a block comment inside a statement
      }
      return;
    }
    Close();
    BlankLineIfWanted(gap);
    cur_ = std::string(Indent(), ' ') + text;
    force_close_ = true;
  }

  void Code(const DslToken& t, int gap) {
    if (t.kind == Kind::kSemi && prev_kind_ == Kind::kRBrace) return;  // optional `;` after a block
    if (t.kind == Kind::kRBrace) {
      Close();
      --depth_;
      in_stmt_ = false;
      if (!lines_.empty() && lines_.back().empty() && trailing_of_.back().empty()) {
        lines_.pop_back();
        trailing_of_.pop_back();
      }
    } else if (pending_close_ || force_close_) {
      Close();
    }
    if (cur_.empty()) {
      if (t.kind != Kind::kRBrace) BlankLineIfWanted(gap);
      cur_ = std::string(Indent(), ' ');
      cur_ += t.text;
    } else {
      bool tight = t.kind == Kind::kSemi || t.kind == Kind::kComma || t.kind == Kind::kRBrack ||
                   last_code_ == Kind::kLBrack;
      if (!tight) cur_ += ' ';
      cur_ += t.text;
    }
    last_code_ = t.kind;
    switch (t.kind) {
      case Kind::kLBrace:
        ++depth_;
        in_stmt_ = false;
        pending_close_ = true;
        just_opened_ = true;
        break;
      case Kind::kRBrace:
        pending_close_ = true;
        just_opened_ = false;
        if (depth_ == 0) after_policy_ = true;
        break;
      case Kind::kSemi:
        in_stmt_ = false;
        pending_close_ = true;
        break;
      default:
        in_stmt_ = true;
        break;
    }
  }

  int Indent() const { return depth_ * kIndent + (in_stmt_ ? kContinuation : 0); }

  // BlankLineIfWanted keeps one blank line where the source had one or more,
  // and always separates top-level policies; never right after a `{`.
  void BlankLineIfWanted(int gap) {
    bool want = (gap >= 2 || (after_policy_ && depth_ == 0)) && !just_opened_;
    after_policy_ = false;
    just_opened_ = false;
    if (want && !lines_.empty() && !(lines_.back().empty() && trailing_of_.back().empty())) {
      lines_.emplace_back();
      trailing_of_.emplace_back();
    }
  }

  void Close() {
    if (!cur_.empty() || !trailing_.empty()) {
      lines_.push_back(cur_);
      trailing_of_.push_back(trailing_);
    }
    cur_.clear();
    trailing_.clear();
    pending_close_ = false;
    force_close_ = false;
  }

  std::vector<std::string> lines_;        // code of each finished line
  std::vector<std::string> trailing_of_;  // its trailing comment, or ""
  std::string cur_;
  std::string trailing_;
  int depth_ = 0;
  bool in_stmt_ = false;
  bool pending_close_ = false;  // the line ended at `;`, `{` or `}`: close unless a comment follows
  bool force_close_ = false;    // a line comment ended the line: nothing may follow on it
  bool after_policy_ = false;
  bool just_opened_ = false;
  int prev_end_line_ = 0;
  Kind prev_kind_ = Kind::kSpace;
  Kind last_code_ = Kind::kSpace;
};

}  // namespace

absl::StatusOr<std::string> FormatDsl(const std::string& text, const std::string& file) {
  if (absl::Status s = CheckDslSyntax(text, file); !s.ok()) return s;
  absl::StatusOr<std::vector<DslToken>> tokens = LexDsl(text, file);
  if (!tokens.ok()) return tokens.status();
  for (const DslToken& t : *tokens) {
    // The parser reports these; never print a file it would not read the same.
    if (t.kind == Kind::kBad) {
      return ir::ErrorAt(file, t.line, t.col, "cannot format an unreadable token");
    }
  }
  Printer printer;
  int prev_end = 0;
  for (const DslToken& t : *tokens) {
    if (t.kind == Kind::kSpace) continue;
    int gap = prev_end == 0 ? 0 : t.line - prev_end;
    printer.Token(t, gap);
    prev_end = t.line + Newlines(t.text);
  }
  return printer.Finish();
}

int FirstDifferingLine(const std::string& a, const std::string& b) {
  int line = 1;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] != b[i]) return line;
    if (a[i] == '\n') ++line;
  }
  return line;
}

}  // namespace cwsc::compiler
