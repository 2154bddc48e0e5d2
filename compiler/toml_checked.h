// toml_checked.h: toml++ with its internal checks turned into exceptions.
//
// toml++ 3.3 guards its parser's invariants with TOML_ASSERT / TOML_ASSERT_ASSUME.
// Some malformed documents break them (`r=["",}` reaches parse_value() on a
// '}'): with assertions on (debugoptimized) that is an abort, and with NDEBUG
// the check becomes __builtin_assume, i.e. undefined behaviour. Every cwsc
// file that uses toml++ includes it through this header, which makes a failed
// check throw TomlCheckFailed, carrying the position of the code point the
// parser was looking at when there is one. The checks stay on in every build
// type (NDEBUG is lifted around the include).
//
// How the position is found: the parser keeps its current code point in a
// member named `cp`. TOML_ASSERT names `cp`; inside the parser that is the
// member, elsewhere it is the placeholder below (no position).
#ifndef CWSC_COMPILER_TOML_CHECKED_H_
#define CWSC_COMPILER_TOML_CHECKED_H_

#include <cstddef>
#include <type_traits>

#ifdef TOML_ASSERT
#error "include compiler/toml_checked.h instead of <toml++/toml.h>"
#endif

namespace cwsc::compiler {

// TomlCheckFailed is thrown when toml++ meets a document its parser does not
// expect; line/column are 0 when the check had no parser position at hand.
struct TomlCheckFailed {
  const char* check;
  std::size_t line;
  std::size_t column;
};

namespace toml_checked {

struct NoPosition {};

template <typename Where>
[[noreturn]] void Fail(const char* check, const Where& where) {
  // `where` is the parser's `const utf8_codepoint*` (null at end of input) or
  // something else named cp (the placeholder, or a local of a helper).
  if constexpr (std::is_pointer_v<Where>) {
    if constexpr (requires { where->position.line; }) {
      if (where != nullptr) {
        throw TomlCheckFailed{check, static_cast<std::size_t>(where->position.line),
                              static_cast<std::size_t>(where->position.column)};
      }
    }
  }
  throw TomlCheckFailed{check, 0, 0};
}

}  // namespace toml_checked
}  // namespace cwsc::compiler

// The placeholder `cp` for toml++ code outside its parser (internal linkage).
namespace {
[[maybe_unused]] constexpr cwsc::compiler::toml_checked::NoPosition cp{};
}  // namespace

#define TOML_ASSERT(expr) \
  ((expr) ? static_cast<void>(0) : ::cwsc::compiler::toml_checked::Fail(#expr, cp))

#ifdef NDEBUG
#define CWSC_TOML_CHECKED_NDEBUG
#undef NDEBUG
#endif
#include <toml++/toml.h>
#ifdef CWSC_TOML_CHECKED_NDEBUG
#define NDEBUG
#undef CWSC_TOML_CHECKED_NDEBUG
#endif

#endif  // CWSC_COMPILER_TOML_CHECKED_H_
