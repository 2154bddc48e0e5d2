#include "compiler/dsl_text.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"

namespace cwsc::compiler {
namespace {

constexpr const char* kVariables[] = {"WORKSPACE", "HOME", "CWD", "TMPDIR"};

bool IsVarStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsVarChar(char c) { return IsVarStart(c) || (c >= '0' && c <= '9'); }

// Utf8Length is the length of the valid UTF-8 sequence at text[i], or 0.
size_t Utf8Length(const std::string& text, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values above U+10FFFF are invalid.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF)) {
    return 0;
  }
  return n;
}

// LineAround returns the line containing byte `pos`, cut to valid text.
std::string LineAround(const std::string& text, size_t pos) {
  size_t nl = pos == 0 ? std::string::npos : text.rfind('\n', pos - 1);
  size_t start = nl == std::string::npos ? 0 : nl + 1;
  // Only the valid prefix is shown; the caret then points just past it.
  return text.substr(start, pos - start);
}

}  // namespace

int CodePoints(const std::string& s) {
  int n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::optional<ir::Diagnostic> PrecheckDslText(const std::string& text, const std::string& file) {
  if (text.size() > kMaxDslBytes) {
    return ir::Diagnostic{
        ir::Diagnostic::Severity::kError,
        file,
        0,
        0,
        absl::StrCat("file is too large (", text.size(), " bytes); a policy file may have at most ",
                     kMaxDslBytes, " bytes"),
        ""};
  }
  int line = 1;
  int col = 1;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    std::string problem;
    size_t n = 1;
    if (c == 0) {
      problem = "NUL byte in the file; a policy is text (is this a binary file?)";
    } else {
      n = Utf8Length(text, i);
      if (n == 0) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02X", c);
        problem = absl::StrCat("invalid UTF-8 (byte ", hex, "); a policy must be UTF-8 text");
      }
    }
    if (!problem.empty()) {
      return ir::Diagnostic{
          ir::Diagnostic::Severity::kError, file, line, col, problem, LineAround(text, i)};
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += n;
  }
  return std::nullopt;
}

DslString UnescapeDslString(const std::string& token_text) {
  DslString out;
  // token_text is `"..."`; the lexer guarantees the quotes.
  size_t end = token_text.size() >= 2 ? token_text.size() - 1 : token_text.size();
  int cp = 1;  // code points from the opening quote
  for (size_t i = 1; i < end; ++i) {
    char c = token_text[i];
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++cp;
    if (c != '\\') {
      out.value += c;
      continue;
    }
    char e = i + 1 < end ? token_text[i + 1] : '\0';
    switch (e) {
      case '"':
        out.value += '"';
        break;
      case '\\':
        out.value += '\\';
        break;
      case '$':
        out.escaped_dollars.push_back(out.value.size());
        out.value += '$';
        break;
      case 'n':
        out.value += '\n';
        break;
      case 't':
        out.value += '\t';
        break;
      default:
        if (out.error.empty()) {
          bool printable =
              static_cast<unsigned char>(e) >= 0x20 && static_cast<unsigned char>(e) < 0x7f;
          out.error = absl::StrCat(
              printable ? absl::StrCat("unknown escape '\\", std::string(1, e), "'")
                        : std::string("a backslash before a character that cannot be escaped"),
              " in a string; the escapes are \\\" \\\\ \\$ \\n and \\t");
          out.error_offset = cp - 1;
        }
        if (e == '\0') return out;
        break;
    }
    ++i;
    ++cp;
  }
  if (out.error.empty() && out.value.size() > kMaxDslStringBytes) {
    out.error = absl::StrCat("string is too long (", out.value.size(), " bytes; at most ",
                             kMaxDslStringBytes, ")");
  }
  return out;
}

std::string CheckDslPath(const std::string& path) {
  DslString s;
  s.value = path;
  return CheckDslPathValue(s);
}

std::string CheckDslPathValue(const DslString& s) {
  const std::string& p = s.value;
  if (p.empty()) return "empty path";
  if (p.size() > kMaxDslStringBytes) {
    return absl::StrCat("path is too long (", p.size(), " bytes; at most ", kMaxDslStringBytes,
                        ")");
  }
  auto escaped = [&](size_t pos) {
    return std::find(s.escaped_dollars.begin(), s.escaped_dollars.end(), pos) !=
           s.escaped_dollars.end();
  };
  size_t rest = 0;  // where the part after a leading variable starts
  if (p[0] == '~') {
    if (p.size() > 1 && p[1] != '/') {
      return absl::StrCat("'~' must stand alone or start '~/' (", QuoteForMessage(p),
                          "); other users' homes cannot be named");
    }
    rest = 1;
  } else if (p[0] == '$' && !escaped(0)) {
    bool braces = p.size() > 1 && p[1] == '{';
    size_t b = braces ? 2 : 1;
    size_t e = b;
    while (e < p.size() && IsVarChar(p[e])) ++e;
    std::string name = p.substr(b, e - b);
    if (braces) {
      if (e >= p.size() || p[e] != '}') {
        return absl::StrCat("unclosed '${' in ", QuoteForMessage(p));
      }
      ++e;
    }
    if (name.empty()) {
      return absl::StrCat("'$' must be followed by a variable name in ", QuoteForMessage(p),
                          " (write \\$ for a literal '$')");
    }
    bool known = false;
    for (const char* v : kVariables) known = known || name == v;
    if (!known) {
      return absl::StrCat("unknown variable '$", name,
                          "'; the variables are $WORKSPACE, $HOME, $CWD and $TMPDIR");
    }
    rest = e;
  } else if (p[0] != '/') {
    return absl::StrCat("relative path ", QuoteForMessage(p),
                        ": a path must be absolute or start with ~, $WORKSPACE, $HOME, $CWD or "
                        "$TMPDIR");
  }
  if (rest < p.size() && p[rest] != '/') {
    return absl::StrCat("a variable must be followed by '/' or end the path: ", QuoteForMessage(p));
  }
  for (size_t i = rest; i < p.size(); ++i) {
    if (p[i] == '$' && !escaped(i) && i + 1 < p.size() &&
        (IsVarStart(p[i + 1]) || p[i + 1] == '{')) {
      return absl::StrCat("a variable may only start a path: ", QuoteForMessage(p),
                          " (write \\$ for a literal '$')");
    }
  }
  return "";
}

std::string CheckProtectName(const std::string& name) {
  if (name.empty()) return "empty name";
  if (name.size() > 255) return "name is too long (at most 255 bytes)";
  if (name == "." || name == "..") {
    return absl::StrCat("'", name, "' cannot be protected; name a directory such as \".git\"");
  }
  if (name.find('/') != std::string::npos) {
    return absl::StrCat("a protected name is one path component such as \".git\", not a path: ",
                        QuoteForMessage(name));
  }
  return "";
}

std::string QuoteForMessage(const std::string& s) {
  std::string out = "\"";
  int shown = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++shown > 60) {
      out += "...";
      break;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

}  // namespace cwsc::compiler
