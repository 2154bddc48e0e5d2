#!/usr/bin/python3
"""Make an ANTLR 4.7.2 generated recognizer initialize its ATN on first use.

The generated code defines a static `Initializer` object whose constructor
deserializes the ATN when the program starts, so every `cwsc` process paid
for it, including `cwsc run`, which never parses a .cwsp file. This rewrites
the generated .cpp: the static definition goes, and the recognizer's
constructor runs the same initializer once (a function-local static, so it is
thread-safe) before anything reads the ATN.

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
    open(dst, "w", encoding="utf-8").write(text)


if __name__ == "__main__":
    main()
