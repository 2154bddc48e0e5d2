// Displayable is the one way cwsc shows a value it did not write itself (a
// config value, a path found on the host, a file name from a walk, a line
// bwrap printed) to a person: on a terminal, in a diagnostic, in the
// message of a --json report. A value a sandboxed command could have
// written must not forge an output line or reach the terminal as an escape
// sequence, so every byte that is not printable text becomes a visible
// escape and the result is one line of valid UTF-8:
//
//   Displayable("a\x1b[31mb")          == "a\\x1b[31mb"    (C0, DEL: \xNN)
//   Displayable("a\xc2\x9b" "31m")     == "a\\u009b31m"    (C1, bidi, U+2028/9: \uNNNN)
//   Displayable("\xff\xc0\xaf")        == "\\xff\\xc0\\xaf" (not UTF-8: \xNN a byte)
//   Displayable("caf\xc3\xa9")         == "café"          (printable UTF-8 as is)
//
// A backslash is kept as is: the escapes are for reading, not for decoding
// (docs/decisions.md, "Displayed values").
#ifndef CWSC_IR_DISPLAY_H_
#define CWSC_IR_DISPLAY_H_

#include <concepts>
#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace cwsc::ir {

// Displayable escapes `s` for display; it is idempotent (its output is printable).
std::string Displayable(std::string_view s);

// DisplayablePrefixWidth is the number of code points Displayable gives the
// first `units` units of `s`, a unit being a code point or a byte that is not
// UTF-8 (so a caret under an escaped line points at the same place).
size_t DisplayablePrefixWidth(std::string_view s, size_t units);

// TerminalSafeJson rewrites JSON text as nlohmann writes it (valid UTF-8, a
// control character below U+0020 already escaped) so that no byte of it acts
// on a terminal: DEL, the C1 controls (U+0080-U+009F, so U+009B, a CSI),
// U+2028/U+2029 and the bidi controls, which JSON may carry raw, become
// `\uNNNN` escapes. Outside its strings JSON text is ASCII, so only string
// contents change, and they decode to the same value:
//
//   TerminalSafeJson("[\"a\xc2\x9b\"]") == "[\"a\\u009b\"]"
std::string TerminalSafeJson(std::string_view json);

// TextValue: what ir::Text takes as a value, anything that reads as a
// string (a std::string, a string_view of either kind, a const char*, an
// ir::SharedString) but is not a char array, which is a literal.
template <typename V>
concept TextValue =
    !std::is_array_v<V> && (std::convertible_to<const V&, std::string_view> ||
                            requires(const V& v) { std::string_view(v.data(), v.size()); });
// TextNumber: an integer, shown in decimal.
template <typename N>
concept TextNumber = std::integral<N> && !std::same_as<N, char> && !std::same_as<N, bool>;
// NotText: a bool, a char or a floating-point value has no one way to be
// shown; it is turned into text where it is added, on purpose.
template <typename T>
concept NotText = std::same_as<T, bool> || std::same_as<T, char> || std::floating_point<T>;

// Text is a report for a person, built a piece at a time: cwsc's own words,
// which can only be string literals, and values, each escaped by Displayable
// as it is added. It has no way to take outside bytes unescaped, so a value
// (a path, a config value, a rule, a server's message) cannot end a line,
// start a forged one or carry a terminal escape, whatever it holds, and a new
// report line cannot forget to escape one (docs/decisions.md, "What cwsc
// prints is escaped"):
//
//   ir::Text t;
//   t << "path " << path << ": " << n << " rules\n";  // path escaped, n as a number
//
// A literal is checked at compile time: `t << buffer` with a char array that
// is not a constant does not compile; give it as a value
// (`std::string_view(buffer)`). A `const char*` is a value.
class Text {
 public:
  // Literal is cwsc's own text: a string literal (or a constexpr array),
  // kept as it is, line breaks included.
  struct Literal {
    template <size_t N>
    consteval Literal(const char (&s)[N])  // NOLINT(google-explicit-constructor)
        : text(s, N - 1) {
      // Reading s makes a char array that is not a constant fail to compile.
      if (s[N - 1] != '\0') throw "not a string literal";
    }
    std::string_view text;
  };

  Text() = default;
  Text(Literal l) : text_(l.text) {}  // NOLINT(google-explicit-constructor)

  Text& operator<<(Literal l) {
    text_.append(l.text);
    return *this;
  }
  // A value, escaped as it is added.
  template <TextValue V>
  Text& operator<<(const V& value) {
    if constexpr (std::convertible_to<const V&, std::string_view>) {
      text_ += Displayable(std::string_view(value));
    } else {
      text_ += Displayable(std::string_view(value.data(), value.size()));
    }
    return *this;
  }
  template <TextNumber N>
  Text& operator<<(N n) {
    text_ += std::to_string(n);
    return *this;
  }
  template <NotText T>
  Text& operator<<(T) = delete;
  // Text already built is already shown.
  Text& operator<<(const Text& t) {
    text_ += t.text_;
    return *this;
  }

  // AddJson adds JSON text as nlohmann writes it, terminal-safe
  // (TerminalSafeJson): its line breaks and indentation are kept.
  Text& AddJson(std::string_view json) {
    text_ += TerminalSafeJson(json);
    return *this;
  }

  // Spaces adds `n` blanks (column alignment).
  Text& Spaces(size_t n) {
    text_.append(n, ' ');
    return *this;
  }

  const std::string& str() const { return text_; }
  size_t size() const { return text_.size(); }
  bool empty() const { return text_.empty(); }
  bool operator==(const Text&) const = default;

 private:
  std::string text_;
};

}  // namespace cwsc::ir

#endif  // CWSC_IR_DISPLAY_H_
