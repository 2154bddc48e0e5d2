#include "ir/display.h"

#include <cstdint>
#include <cstdio>

namespace cwsc::ir {
namespace {

// One decoded unit of the input: a code point, or a byte that starts no
// valid UTF-8 sequence (cp < 0).
struct Unit {
  int32_t cp;
  size_t size;
};

// Decode reads one unit at `s[i]`, rejecting overlong forms, surrogates and
// code points past U+10FFFF as invalid bytes (RFC 3629).
Unit Decode(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  if (b < 0x80) return {b, 1};
  size_t n = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 ? 2 : 0;
  if (n == 0 || b > 0xF4 || i + n > s.size()) return {-1, 1};
  int32_t cp = b & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {-1, 1};
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
  if (overlong || surrogate || cp > 0x10FFFF) return {-1, 1};
  return {cp, n};
}

// NeedsEscape: a code point a terminal acts on or that reorders or breaks
// the line around it: C0, DEL, C1, U+2028/U+2029 and the bidi controls.
bool NeedsEscape(int32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
         cp == 0x200F || cp == 0x061C;
}

void AppendEscape(const char* format, unsigned value, std::string* out) {
  char buf[16];
  std::snprintf(buf, sizeof buf, format, value);
  *out += buf;
}

// AppendUnit adds one unit as Displayable shows it.
void AppendUnit(std::string_view s, size_t i, Unit u, std::string* out) {
  if (u.cp < 0) {
    AppendEscape("\\x%02x", static_cast<unsigned char>(s[i]), out);
  } else if (u.cp < 0x20 || u.cp == 0x7F) {
    AppendEscape("\\x%02x", static_cast<unsigned>(u.cp), out);
  } else if (NeedsEscape(u.cp)) {
    AppendEscape("\\u%04x", static_cast<unsigned>(u.cp), out);
  } else {
    out->append(s.substr(i, u.size));
  }
}

}  // namespace

std::string Displayable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    Unit u = Decode(s, i);
    AppendUnit(s, i, u, &out);
    i += u.size;
  }
  return out;
}

std::string TerminalSafeJson(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size();) {
    Unit u = Decode(json, i);
    if (u.cp >= 0x7F && NeedsEscape(u.cp)) {
      AppendEscape("\\u%04x", static_cast<unsigned>(u.cp), &out);
    } else {
      out.append(json.substr(i, u.size));
    }
    i += u.size;
  }
  return out;
}

size_t DisplayablePrefixWidth(std::string_view s, size_t units) {
  std::string shown;
  size_t i = 0;
  for (size_t n = 0; n < units && i < s.size(); ++n) {
    Unit u = Decode(s, i);
    AppendUnit(s, i, u, &shown);
    i += u.size;
  }
  size_t width = 0;
  for (unsigned char c : shown) width += (c & 0xC0) != 0x80;
  return width;
}

}  // namespace cwsc::ir
