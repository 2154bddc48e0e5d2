// The ANTLR runtime's XPath lexer, left out of the cwsc program.
//
// Linking antlr4::Parser (the .cwsp parser's base) pulls the runtime's tree
// pattern and XPath support, and with it XPathLexer.o, whose static
// constructor deserializes the XPath grammar's ATN at every start of every
// cwsc process: some 290,000 instructions, the largest single cost of
// `cwsc run` before main() (docs/performance.md). cwsc never matches tree
// patterns or XPath expressions. Defining XPathLexer's constructor,
// destructor and virtual functions here, in an object linked into the
// program itself, resolves the references before the runtime's archive is
// searched, so XPathLexer.o and its static constructor are not linked.
// Every function aborts with a message: reaching one is a bug in cwsc.
// tests/cli/startup_test.py checks that the program holds no XPathLexer
// initializer.
#include <cstdio>
#include <cstdlib>

#include "tree/xpath/XPathLexer.h"

namespace {

[[noreturn]] void Unlinked() {
  std::fputs("cwsc: internal error: the ANTLR XPath lexer is not linked into cwsc\n", stderr);
  std::abort();
}

}  // namespace

XPathLexer::XPathLexer(antlr4::CharStream* input) : antlr4::Lexer(input) { Unlinked(); }
XPathLexer::~XPathLexer() = default;
std::string XPathLexer::getGrammarFileName() const { Unlinked(); }
const std::vector<std::string>& XPathLexer::getRuleNames() const { Unlinked(); }
const std::vector<std::string>& XPathLexer::getChannelNames() const { Unlinked(); }
const std::vector<std::string>& XPathLexer::getModeNames() const { Unlinked(); }
const std::vector<std::string>& XPathLexer::getTokenNames() const { Unlinked(); }
antlr4::dfa::Vocabulary& XPathLexer::getVocabulary() const { Unlinked(); }
const std::vector<uint16_t> XPathLexer::getSerializedATN() const { Unlinked(); }
const antlr4::atn::ATN& XPathLexer::getATN() const { Unlinked(); }
void XPathLexer::action(antlr4::RuleContext*, size_t, size_t) { Unlinked(); }
