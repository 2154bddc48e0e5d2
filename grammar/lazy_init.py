#!/usr/bin/python3
"""Make an ANTLR 4.7.2 generated recognizer initialize its tables on first use.

The generated code defines a static `Initializer` object whose constructor
deserializes the ATN when the program starts, and fills its name tables
(rule, literal, symbolic, channel and mode names, the vocabulary) in static
constructors, so every `cwsc` process paid for them, including `cwsc run`,
which never parses a .cwsp file. This rewrites the generated .cpp: the
static Initializer goes, the name tables are defined empty and filled at the
top of the Initializer, the vocabulary is built by getVocabulary() on its
first call, and the recognizer's constructor runs the initializer once (a
function-local static, so it is thread-safe) before anything reads a table
or the ATN; the tables are only read through a recognizer.

usage: lazy_init.py CLASS INPUT.cpp OUTPUT.cpp
"""
import re
import sys


def main():
    cls, src, dst = sys.argv[1:4]
    text = open(src, encoding="utf-8").read()
    static_def = f"{cls}::Initializer {cls}::_init;"
    if text.count(static_def) != 1:
        sys.exit(f"lazy_init.py: expected one '{static_def}' in {src}")
    text = text.replace(static_def, "// (initialized on first use by the constructor)")
    ctor = re.compile(re.escape(cls) + r"::" + re.escape(cls) + r"\((\w+) \*input\) : (\w+)\(input\) \{")
    if len(ctor.findall(text)) != 1:
        sys.exit(f"lazy_init.py: expected one {cls} constructor in {src}")
    text = ctor.sub(lambda m: m.group(0) + "\n  static Initializer lazy_init;\n  (void)lazy_init;", text, count=1)
    # Name tables: `std::vector<std::string> CLS::_x = { ... };` and the
    # vocabulary built from two of them.
    fills = []
    table = re.compile(r"std::vector<std::string> " + re.escape(cls) + r"::(_\w+) = \{(.*?)\};", re.S)

    def empty(m):
        fills.append(f"  {m.group(1)} = {{{m.group(2)}}};")
        return f"std::vector<std::string> {cls}::{m.group(1)};"

    text = table.sub(empty, text)
    if len(fills) < 3:
        sys.exit(f"lazy_init.py: expected the name tables of {cls} in {src}")
    # The vocabulary (a class whose const members forbid assigning it later)
    # is no longer a static object: getVocabulary() builds it on first call,
    # and the Initializer uses a local one for the token names.
    edits = [(f"dfa::Vocabulary {cls}::_vocabulary(_literalNames, _symbolicNames);",
              "// (the vocabulary is built by getVocabulary() on first call)"),
             ("  return _vocabulary;",
              "  static dfa::Vocabulary vocabulary(_literalNames, _symbolicNames);\n"
              "  return vocabulary;"),
             ("_vocabulary.getLiteralName(i)", "vocabulary.getLiteralName(i)"),
             ("_vocabulary.getSymbolicName(i)", "vocabulary.getSymbolicName(i)")]
    for old, new in edits:
        if text.count(old) != 1:
            sys.exit(f"lazy_init.py: expected one '{old}' in {src}")
        text = text.replace(old, new)
    if "_vocabulary" in text:
        sys.exit(f"lazy_init.py: an unexpected use of _vocabulary is left in {src}")
    fills.append("  dfa::Vocabulary vocabulary(_literalNames, _symbolicNames);")
    init = f"{cls}::Initializer::Initializer() {{"
    if text.count(init) != 1:
        sys.exit(f"lazy_init.py: expected one '{init}' in {src}")
    text = text.replace(init, init + "\n" + "\n".join(fills))
    open(dst, "w", encoding="utf-8").write(text)


if __name__ == "__main__":
    main()
