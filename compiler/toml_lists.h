// TakeOutStringLists: the config reader's fast path for long lists of plain
// strings (docs/decisions.md, "Long string lists skip toml++'s DOM").
//
// toml++ decodes a document code point by code point, about 200 instructions
// a character: a list of 10,000 paths costs more to parse than to resolve.
// Before toml++ sees a config, this scanner finds each key whose value is a
// list of at least `min_items` plain strings, reads the strings itself, and
// hands toml++ the same document with those lists' insides taken out (their
// newlines kept), so every other node keeps its line and column. The reader
// then takes a list's entries from here when it meets the empty list toml++
// made at the same position.
//
// Plain means: a key's whole value, `[` "..." or '...' items separated by
// commas, spaces, tabs and newlines, an optional trailing comma, `]`, then
// only spaces, tabs, a comment or the end of the line. The strings hold
// printable ASCII only, and a basic string no backslash. Anything else in a
// list (a comment, an escape, other bytes, another type, a nested list)
// leaves it to toml++; anything the scanner does not follow exactly (a
// multi-line string, a lone CR, a byte order mark, a key without '=') leaves
// the whole document to toml++. A document toml++ rejects after the scanner
// is parsed again whole, so every error is toml++'s on the original text.
#ifndef CWSC_COMPILER_TOML_LISTS_H_
#define CWSC_COMPILER_TOML_LISTS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cwsc::compiler {

// The smallest list the reader takes out: short lists are cheap for toml++.
inline constexpr size_t kFastListMin = 16;

struct FastList {
  struct Item {
    std::string value;
    int line = 0;    // of the opening quote; toml++'s positions: 1-based,
    int column = 0;  // columns counted in code points
  };
  int line = 0;  // of the list's '['
  int column = 0;
  std::vector<Item> items;
};

struct TakenOut {
  std::string text;             // the document without the lists' insides
  std::vector<FastList> lists;  // in document order; empty: parse the original
};

TakenOut TakeOutStringLists(std::string_view text, size_t min_items = kFastListMin);

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_TOML_LISTS_H_
