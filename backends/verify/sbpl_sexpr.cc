#include "backends/verify/sbpl_sexpr.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/diagnostics.h"

namespace cwsc::backends::sbpl_internal {
namespace {

// No profile cwsc emits nests deeper than 4; the bound keeps recursion shallow.
constexpr int kMaxDepth = 32;

class Reader {
 public:
  Reader(absl::string_view text, absl::string_view name) : text_(text), name_(name) {}

  absl::StatusOr<std::vector<Node>> ReadAll() {
    std::vector<Node> forms;
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) break;
      if (text_[pos_] != '(') return Error("expected '(' at top level");
      absl::StatusOr<Node> n = ReadNode(0);
      if (!n.ok()) return n.status();
      forms.push_back(*std::move(n));
    }
    return forms;
  }

  absl::Status ErrorAt(int line, int col, absl::string_view msg) const {
    return SexprError(name_, line, col, msg);
  }

 private:
  absl::Status Error(absl::string_view msg) const { return ErrorAt(line_, col_, msg); }

  void Advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') Advance();
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        Advance();
      } else {
        break;
      }
    }
  }

  static bool IsSymbolChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '*' || c == '_' || c == '.';
  }

  absl::StatusOr<Node> ReadNode(int depth) {
    if (depth > kMaxDepth) return Error(absl::StrCat("lists nested deeper than ", kMaxDepth));
    Node n;
    n.line = line_;
    n.col = col_;
    n.begin = pos_;
    char c = text_[pos_];
    if (c == '(') {
      n.kind = Node::Kind::kList;
      Advance();
      while (true) {
        SkipSpace();
        if (pos_ >= text_.size()) return ErrorAt(n.line, n.col, "unbalanced '(': no matching ')'");
        if (text_[pos_] == ')') {
          Advance();
          break;
        }
        absl::StatusOr<Node> child = ReadNode(depth + 1);
        if (!child.ok()) return child.status();
        n.items.push_back(*std::move(child));
      }
    } else if (c == ')') {
      return Error("unexpected ')'");
    } else if (c == '"') {
      n.kind = Node::Kind::kString;
      Advance();
      absl::Status s = ReadStringBody(&n.text, /*raw=*/false);
      if (!s.ok()) return s;
    } else if (c == '#') {
      Advance();
      if (pos_ >= text_.size() || text_[pos_] != '"') {
        return ErrorAt(n.line, n.col, "only #\"...\" regex literals are supported");
      }
      n.kind = Node::Kind::kRegex;
      Advance();
      absl::Status s = ReadStringBody(&n.text, /*raw=*/true);
      if (!s.ok()) return s;
    } else if (IsSymbolChar(c)) {
      bool digits = true;
      while (pos_ < text_.size() && IsSymbolChar(text_[pos_])) {
        if (text_[pos_] < '0' || text_[pos_] > '9') digits = false;
        n.text.push_back(text_[pos_]);
        Advance();
      }
      n.kind = digits ? Node::Kind::kNumber : Node::Kind::kSymbol;
      if (pos_ < text_.size() && !IsDelimiter(text_[pos_])) {
        return Error(absl::StrCat("unexpected character '", EscapeChar(text_[pos_]), "'"));
      }
    } else {
      return Error(absl::StrCat("unexpected character '", EscapeChar(c), "'"));
    }
    n.end = pos_;
    return n;
  }

  static bool IsDelimiter(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(' || c == ')' || c == ';';
  }

  static std::string EscapeChar(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      return std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    }
    return std::string(1, c);
  }

  // Strings: \\ \" \n \t escapes; raw (regex) strings keep backslashes except
  // before a quote. A string must close on the same input.
  absl::Status ReadStringBody(std::string* out, bool raw) {
    while (true) {
      if (pos_ >= text_.size()) return Error("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        Advance();
        return absl::OkStatus();
      }
      if (c == '\\') {
        const int esc_line = line_;
        const int esc_col = col_;
        Advance();
        if (pos_ >= text_.size()) return Error("unterminated string");
        char e = text_[pos_];
        if (raw) {
          if (e != '"') out->push_back('\\');
          out->push_back(e);
        } else if (e == '\\' || e == '"') {
          out->push_back(e);
        } else if (e == 'n') {
          out->push_back('\n');
        } else if (e == 't') {
          out->push_back('\t');
        } else {
          return ErrorAt(esc_line, esc_col,
                         absl::StrCat("unsupported string escape '\\", EscapeChar(e), "'"));
        }
        Advance();
        continue;
      }
      out->push_back(c);
      Advance();
    }
  }

  absl::string_view text_;
  std::string name_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace

absl::Status SexprError(absl::string_view name, int line, int col, absl::string_view msg) {
  return ir::ErrorAt(std::string(name), line, col, std::string(msg));
}

absl::StatusOr<std::vector<Node>> ReadSexprs(absl::string_view text, absl::string_view name) {
  return Reader(text, name).ReadAll();
}

}  // namespace cwsc::backends::sbpl_internal
