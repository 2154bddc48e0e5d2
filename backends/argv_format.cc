#include "backends/argv_format.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace cwsc::backends {

std::optional<ArgvFormat> ParseArgvFormat(absl::string_view name) {
  if (name == "lines") return ArgvFormat::kLines;
  if (name == "shell") return ArgvFormat::kShell;
  if (name == "json") return ArgvFormat::kJson;
  if (name == "nul") return ArgvFormat::kNul;
  return std::nullopt;
}

std::string ShellQuote(absl::string_view token) {
  bool safe = !token.empty();
  for (char c : token) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == ',' ||
              c == '@' || c == '%' || c == '=';
    if (!ok) {
      safe = false;
      break;
    }
  }
  // '=' in the first token would read as an assignment; quote it there too.
  if (safe && token.find('=') == absl::string_view::npos) return std::string(token);
  std::string out = "'";
  for (char c : token) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

bool IsValidUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t n;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      n = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += n;
  }
  return true;
}

absl::StatusOr<std::string> FormatArgv(const std::vector<std::string>& argv, ArgvFormat format) {
  std::string out;
  switch (format) {
    case ArgvFormat::kLines:
      for (const std::string& a : argv) {
        if (a.find('\n') != std::string::npos) {
          return absl::InvalidArgumentError(
              "an argv token contains a newline; --format lines cannot show it unambiguously "
              "(use --format shell, json or nul)");
        }
        absl::StrAppend(&out, a, "\n");
      }
      return out;
    case ArgvFormat::kShell:
      for (size_t i = 0; i < argv.size(); ++i) {
        if (i > 0) out += ' ';
        out += ShellQuote(argv[i]);
      }
      out += '\n';
      return out;
    case ArgvFormat::kJson: {
      for (const std::string& a : argv) {
        if (!IsValidUtf8(a)) {
          return absl::InvalidArgumentError(
              "an argv token is not valid UTF-8; JSON cannot carry it (use --format nul or shell)");
        }
      }
      return nlohmann::json(argv).dump() + "\n";
    }
    case ArgvFormat::kNul:
      for (const std::string& a : argv) {
        out += a;
        out += '\0';
      }
      return out;
  }
  return out;
}

}  // namespace cwsc::backends
