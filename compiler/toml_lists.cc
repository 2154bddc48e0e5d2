#include "compiler/toml_lists.h"

#include <utility>

namespace cwsc::compiler {
namespace {

// Scanner walks a TOML document just far enough to know, at each byte,
// whether it is in a string, a comment, a key or a value, and where (line,
// column). It gives up (Scan returns false) on anything it does not follow.
class Scanner {
 public:
  Scanner(std::string_view t, size_t min_items) : t_(t), min_items_(min_items) {}

  bool Scan() {
    if (t_.substr(0, 3) == "\xEF\xBB\xBF") return false;  // toml++ skips it uncounted
    while (true) {
      SkipBlanks();
      if (AtEnd()) return Finish();
      char c = t_[i_];
      if (IsNewline()) {
        if (!Newline()) return false;
      } else if (c == '#') {
        SkipComment();
      } else if (c == '[') {
        if (!SkipHeader()) return false;
      } else {
        if (!SkipKey()) return false;
        SkipBlanks();
        if (!AtEnd() && t_[i_] == '[' && TryList()) continue;
        if (!SkipValue()) return false;
      }
    }
  }

  TakenOut Take() { return std::move(out_); }

 private:
  struct Mark {
    size_t i, line_start, col_at, col;
    int line;
  };
  Mark Save() const { return {i_, line_start_, col_at_, col_, line_}; }
  void Restore(const Mark& m) {
    i_ = m.i;
    line_start_ = m.line_start;
    col_at_ = m.col_at;
    col_ = m.col;
    line_ = m.line;
  }

  bool AtEnd() const { return i_ >= t_.size(); }
  bool IsNewline() const {
    return t_[i_] == '\n' || (t_[i_] == '\r' && i_ + 1 < t_.size() && t_[i_ + 1] == '\n');
  }
  // Newline steps over "\n" or "\r\n"; a lone CR is not followed.
  bool Newline() {
    if (t_[i_] == '\r') {
      if (i_ + 1 >= t_.size() || t_[i_ + 1] != '\n') return false;
      ++i_;
    } else if (t_[i_] != '\n') {
      return false;
    }
    ++i_;
    ++line_;
    line_start_ = col_at_ = i_;
    col_ = 1;
    return true;
  }
  // Triple: the quote at i_ opens a multi-line string.
  bool Triple() const { return i_ + 2 < t_.size() && t_[i_ + 1] == t_[i_] && t_[i_ + 2] == t_[i_]; }
  void SkipBlanks() {
    while (!AtEnd() && (t_[i_] == ' ' || t_[i_] == '\t')) ++i_;
  }
  // SkipComment stops before the end of the line.
  void SkipComment() {
    while (!AtEnd() && t_[i_] != '\n' && t_[i_] != '\r') ++i_;
  }
  // Column of byte `at` on the current line: code points since its start.
  int Column(size_t at) {
    for (; col_at_ < at; ++col_at_) {
      if ((static_cast<unsigned char>(t_[col_at_]) & 0xC0) != 0x80) ++col_;
    }
    return static_cast<int>(col_);
  }

  // SkipString steps over a one-line basic or literal string; a multi-line
  // one ("""...""" or '''...''') is not followed.
  bool SkipString() {
    char q = t_[i_];
    if (Triple()) return false;
    for (++i_; !AtEnd(); ++i_) {
      char c = t_[i_];
      if (c == '\n' || c == '\r') return false;
      if (c == q) {
        ++i_;
        return true;
      }
      if (q == '"' && c == '\\') {
        if (i_ + 1 >= t_.size() || t_[i_ + 1] == '\n' || t_[i_ + 1] == '\r') return false;
        ++i_;
      }
    }
    return false;
  }

  // SkipHeader steps over a [table] or [[array]] header line.
  bool SkipHeader() {
    while (!AtEnd() && !IsNewline() && t_[i_] != '\r') {
      char c = t_[i_];
      if (c == '"' || c == '\'') {
        if (!SkipString()) return false;
      } else if (c == '#') {
        SkipComment();
      } else {
        ++i_;
      }
    }
    return AtEnd() || IsNewline();
  }

  // SkipKey steps over a (dotted, quoted) key and its '='.
  bool SkipKey() {
    while (!AtEnd()) {
      char c = t_[i_];
      if (c == '=') {
        ++i_;
        return true;
      }
      if (c == '"' || c == '\'') {
        if (!SkipString()) return false;
      } else if (c == '\n' || c == '\r' || c == '#' || c == '[' || c == '{') {
        return false;
      } else {
        ++i_;
      }
    }
    return false;
  }

  // SkipValue steps over any value up to the end of its line: lists and
  // inline tables may span lines and hold comments.
  bool SkipValue() {
    int depth = 0;
    while (!AtEnd()) {
      char c = t_[i_];
      if (c == '"' || c == '\'') {
        if (!SkipString()) return false;
      } else if (c == '#') {
        SkipComment();
      } else if (c == '\n' || c == '\r') {
        if (depth == 0) return IsNewline();
        if (!Newline()) return false;
      } else if (c == '[' || c == '{') {
        ++depth;
        ++i_;
      } else if (c == ']' || c == '}') {
        if (--depth < 0) return false;
        ++i_;
      } else {
        ++i_;
      }
    }
    return depth == 0;
  }

  // SkipSpace steps over blanks and newlines inside a list, keeping the
  // newlines for the text toml++ reads.
  bool SkipSpace(std::string& newlines) {
    while (!AtEnd()) {
      char c = t_[i_];
      if (c == ' ' || c == '\t') {
        ++i_;
      } else if (c == '\n' || c == '\r') {
        size_t at = i_;
        if (!Newline()) return false;
        newlines.append(t_.substr(at, i_ - at));
      } else {
        return true;
      }
    }
    return true;
  }

  // TryList reads a plain list at `[` (see the header); on anything else it
  // puts the scanner back and returns false.
  bool TryList() {
    Mark start = Save();
    FastList list;
    list.line = line_;
    list.column = Column(i_);
    size_t open = i_++;
    std::string newlines;
    auto fail = [&] {
      Restore(start);
      return false;
    };
    while (true) {
      if (!SkipSpace(newlines) || AtEnd()) return fail();
      char q = t_[i_];
      if (q == ']') break;
      if (q != '"' && q != '\'') return fail();
      if (Triple()) return fail();
      FastList::Item item;
      item.line = line_;
      item.column = Column(i_);
      size_t from = ++i_;
      for (;; ++i_) {
        if (AtEnd()) return fail();
        unsigned char c = static_cast<unsigned char>(t_[i_]);
        if (c == static_cast<unsigned char>(q)) break;
        if (c < 0x20 || c > 0x7E || (q == '"' && c == '\\')) return fail();
      }
      item.value.assign(t_.substr(from, i_ - from));
      ++i_;
      list.items.push_back(std::move(item));
      if (!SkipSpace(newlines) || AtEnd()) return fail();
      if (t_[i_] == ',') {
        ++i_;
        continue;
      }
      if (t_[i_] != ']') return fail();
      break;
    }
    size_t close = i_++;
    SkipBlanks();
    if (!AtEnd() && !IsNewline() && t_[i_] != '#') return fail();
    if (list.items.size() < min_items_) return true;  // read, and left to toml++
    out_.text.append(t_.substr(copied_, open + 1 - copied_));
    out_.text.append(newlines);
    copied_ = close;  // the ']' and what follows are copied later
    out_.lists.push_back(std::move(list));
    return true;
  }

  bool Finish() {
    if (out_.lists.empty()) {
      out_.text.clear();
      return true;
    }
    out_.text.append(t_.substr(copied_));
    return true;
  }

  std::string_view t_;
  size_t min_items_;
  size_t i_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  size_t col_at_ = 0;  // Column's cursor: col_ is the column of byte col_at_
  size_t col_ = 1;
  size_t copied_ = 0;  // bytes of t_ already in out_.text
  TakenOut out_;
};

}  // namespace

TakenOut TakeOutStringLists(std::string_view text, size_t min_items) {
  Scanner s(text, min_items);
  if (!s.Scan()) return {};
  return s.Take();
}

}  // namespace cwsc::compiler
