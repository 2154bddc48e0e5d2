#include "compiler/facts/config_secrets.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"

namespace cwsc::compiler {
namespace {

bool BareKeyChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

size_t LineEnd(const std::string& t, size_t pos) {
  size_t e = t.find('\n', pos);
  return e == std::string::npos ? t.size() : e;
}

int LineOf(const std::string& t, size_t pos) {
  return 1 + static_cast<int>(std::count(t.begin(), t.begin() + static_cast<long>(pos), '\n'));
}

struct Found {
  SecretSpan span;
  std::string replacement;  // without the kept newlines
};

// ValueAt measures the value that starts at `v`.
Found ValueAt(const std::string& t, size_t v) {
  Found f;
  f.span.begin = v;
  auto multi = [&](const char* delim) {
    size_t close = t.find(delim, v + 3);
    if (close == std::string::npos) {
      f.span.end = t.size();
      f.replacement = std::string(delim) + "<redacted>";
    } else {
      f.span.end = close + 3;
      f.replacement = "\"<redacted>\"";
    }
  };
  if (t.compare(v, 3, "\"\"\"") == 0) {
    multi("\"\"\"");
  } else if (t.compare(v, 3, "'''") == 0) {
    multi("'''");
  } else if (v < t.size() && (t[v] == '"' || t[v] == '\'')) {
    char q = t[v];
    size_t eol = LineEnd(t, v);
    size_t i = v + 1;
    bool closed = false;
    while (i < eol) {
      if (q == '"' && t[i] == '\\') {
        i += 2;
        continue;
      }
      if (t[i] == q) {
        closed = true;
        break;
      }
      ++i;
    }
    f.span.end = closed ? i + 1 : eol;
    f.replacement = closed ? "\"<redacted>\"" : std::string(1, q) + "<redacted>";
  } else {
    size_t eol = LineEnd(t, v);
    if (eol > v && t[eol - 1] == '\r') --eol;
    f.span.end = std::max(eol, v);
    f.replacement = "<redacted>";
  }
  return f;
}

std::vector<Found> FindAll(const std::string& t) {
  std::vector<Found> out;
  size_t i = 0;
  while (i < t.size()) {
    if (!BareKeyChar(t[i]) || (i > 0 && BareKeyChar(t[i - 1]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < t.size() && BareKeyChar(t[j])) ++j;
    std::string word = t.substr(i, j - i);
    size_t k = j;
    if (IsSecretKeyName(word)) {
      if (k < t.size() && (t[k] == '"' || t[k] == '\'') && i > 0 && t[i - 1] == t[k]) ++k;
      while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
      if (k < t.size() && t[k] == '=') {
        ++k;
        while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
        Found f = ValueAt(t, k);
        f.span.first_line = LineOf(t, f.span.begin);
        f.span.last_line = f.span.first_line +
                           static_cast<int>(std::count(t.begin() + static_cast<long>(f.span.begin),
                                                       t.begin() + static_cast<long>(f.span.end), '\n'));
        out.push_back(f);
        i = std::max(f.span.end, j);
        continue;
      }
    }
    i = j;
  }
  return out;
}

}  // namespace

bool IsSecretKeyName(const std::string& key) {
  std::string k;
  for (char c : key) {
    if (c != '_' && c != '-') k += absl::ascii_tolower(static_cast<unsigned char>(c));
  }
  return k == "sandboxapikey";
}

std::vector<SecretSpan> SecretSpans(const std::string& text) {
  std::vector<SecretSpan> out;
  for (const Found& f : FindAll(text)) out.push_back(f.span);
  return out;
}

std::string RedactSecrets(const std::string& text) {
  std::vector<Found> found = FindAll(text);
  if (found.empty()) return text;
  std::string out;
  size_t pos = 0;
  for (const Found& f : found) {
    out.append(text, pos, f.span.begin - pos);
    out += f.replacement;
    long newlines = std::count(text.begin() + static_cast<long>(f.span.begin),
                               text.begin() + static_cast<long>(f.span.end), '\n');
    out.append(static_cast<size_t>(newlines), '\n');
    pos = f.span.end;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

std::string MaskSecrets(const std::string& text) {
  std::string out = text;
  for (const SecretSpan& s : SecretSpans(text)) {
    for (size_t i = s.begin; i < s.end; ++i) {
      if (out[i] != '\n' && out[i] != '\r' && out[i] != '"' && out[i] != '\'') out[i] = '*';
    }
  }
  return out;
}

bool InSecretValue(const std::string& text, int line, int col) {
  // Byte offset of line:col (col may point just past the end of the line).
  size_t pos = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) return false;
    pos = nl + 1;
  }
  pos += static_cast<size_t>(std::max(col, 1) - 1);
  for (const SecretSpan& s : SecretSpans(text)) {
    if (pos >= s.begin && pos <= s.end) return true;
  }
  return false;
}

std::string ScrubSecrets(const std::string& text, std::string message) {
  for (const SecretSpan& s : SecretSpans(text)) {
    std::string raw = text.substr(s.begin, s.end - s.begin);
    std::vector<std::string> pieces = {raw};
    for (absl::string_view part : absl::StrSplit(raw, absl::ByAnyChar("\n\"'"))) {
      pieces.emplace_back(absl::StripAsciiWhitespace(part));
    }
    std::sort(pieces.begin(), pieces.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    for (const std::string& p : pieces) {
      if (p.size() < 3) continue;
      message = absl::StrReplaceAll(message, {{p, "<redacted>"}});
    }
  }
  return message;
}

}  // namespace cwsc::compiler
