// The .cwsp frontend: ANTLR parse with plain-words syntax errors, then a
// semantic pass that lowers each policy block to a PolicySpec. This is one of
// the two translation units that include ANTLR headers (with dsl_lower.cc).
#include "compiler/dsl_frontend.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "PolicyLexer.h"
#include "PolicyParser.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "antlr4-runtime.h"
#include "compiler/dsl_lower.h"

namespace cwsc::compiler {
namespace {

using antlr4::Token;
using grammar::PolicyLexer;
using grammar::PolicyParser;

// Shorten keeps token text readable inside a message.
std::string Shorten(const std::string& s) {
  if (CodePoints(s) <= 40) return s;
  std::string out;
  int n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && ++n > 37) break;
    out += c;
  }
  return out + "...";
}

// Visible escapes control bytes so a message cannot carry terminal escapes.
std::string Visible(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      absl::StrAppend(&out, "\\x", absl::Hex(c, absl::kZeroPad2));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// TokenDisplay names a token as a message shows it.
std::string TokenDisplay(Token* t) {
  if (t == nullptr || t->getType() == Token::EOF) return "end of file";
  if (t->getType() == PolicyLexer::STRING) return Visible(Shorten(t->getText()));
  return absl::StrCat("'", Visible(Shorten(t->getText())), "'");
}

bool IsTypographicQuote(const std::string& utf8) {
  return utf8 == "\u201C" || utf8 == "\u201D" || utf8 == "\u2018" || utf8 == "\u2019";
}

// CharDisplay names one unexpected character: itself when printable, its
// code point too when it is not ASCII, and a hint for typographic quotes.
std::string CharDisplay(const std::string& utf8) {
  uint32_t cp = static_cast<unsigned char>(utf8[0]);
  if (cp >= 0x80) {
    int extra = cp >= 0xF0 ? 3 : cp >= 0xE0 ? 2 : 1;
    cp &= 0x3F >> extra;
    for (int i = 1; i <= extra && i < static_cast<int>(utf8.size()); ++i) {
      cp = (cp << 6) | (static_cast<unsigned char>(utf8[i]) & 0x3F);
    }
  }
  char code_buf[16];
  std::snprintf(code_buf, sizeof code_buf, "U+%04X", static_cast<unsigned>(cp));
  std::string code = code_buf;
  if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xA0)) return code;
  if (cp < 0x80) return absl::StrCat("'", utf8, "'");
  std::string out = absl::StrCat("'", utf8, "' (", code, ")");
  return out;
}

// TypeDisplay names an expected token type.
std::string TypeDisplay(size_t type, const antlr4::dfa::Vocabulary& vocab) {
  if (type == Token::EOF) return "end of file";
  if (type == PolicyLexer::STRING) return "a string";
  if (type == PolicyLexer::IDENT) return "a name";
  if (type == PolicyLexer::NUMBER) return "a number";
  std::string literal = vocab.getLiteralName(type);
  return literal.empty() ? vocab.getSymbolicName(type) : literal;
}

std::string JoinAlternatives(const std::vector<std::string>& items) {
  if (items.size() <= 1) return items.empty() ? "" : items[0];
  std::vector<std::string> head(items.begin(), items.end() - 1);
  return absl::StrCat(absl::StrJoin(head, ", "), " or ", items.back());
}

size_t RuleOf(antlr4::RuleContext* ctx) {
  return ctx == nullptr ? static_cast<size_t>(-1) : ctx->getRuleIndex();
}

// ExpectedDisplay describes what the parser wanted, in the words of the rule
// it was in ("a path string", "a mode (...)") rather than as token names.
std::string ExpectedDisplay(const antlr4::misc::IntervalSet& expected,
                            antlr4::ParserRuleContext* ctx, const antlr4::dfa::Vocabulary& vocab) {
  size_t rule = RuleOf(ctx);
  if (rule == PolicyParser::RuleWord && ctx != nullptr) {
    switch (RuleOf(dynamic_cast<antlr4::RuleContext*>(ctx->parent))) {
      case PolicyParser::RuleModeName:
        return "a mode (read-only, workspace-write, danger-full-access or external-sandbox)";
      case PolicyParser::RuleBackendName:
        return "a backend (none or opensandbox)";
      case PolicyParser::RuleWrapperName:
        return "a wrapper name (bwrap)";
      case PolicyParser::RulePolicy:
        return "a policy name";
      default:
        return "a name";
    }
  }
  if (expected.contains(static_cast<size_t>(PolicyLexer::STRING)) && expected.size() == 1) {
    switch (rule) {
      case PolicyParser::RulePath:
      case PolicyParser::RulePathList:
        return "a path string";
      case PolicyParser::RuleProtectName:
      case PolicyParser::RuleNameList:
        return "a name string such as \".git\"";
      case PolicyParser::RuleUrl:
        return "a URL string";
      case PolicyParser::RuleKeyRef:
        return "a string naming the variable or file";
      default:
        return "a string";
    }
  }
  if (expected.contains(static_cast<size_t>(PolicyLexer::MODE))) {
    std::string out = absl::StrCat("a statement (", kDslStatementList, ")");
    if (expected.contains(static_cast<size_t>(PolicyLexer::RBRACE))) out += " or '}'";
    return out;
  }
  if (rule == PolicyParser::RuleApiKey) {
    return "'env' or 'file' followed by a string";
  }
  std::vector<std::string> names;
  for (size_t type : expected.toList()) names.push_back(TypeDisplay(type, vocab));
  return JoinAlternatives(names);
}

// PlainErrorStrategy replaces ANTLR's messages ("mismatched input ... expecting
// ...") with plain ones and records them in the sink; it stops the parse
// after a fatal error or once the sink is full.
class PlainErrorStrategy : public antlr4::DefaultErrorStrategy {
 public:
  explicit PlainErrorStrategy(DslSink* sink) : sink_(sink) {}

 protected:
  void reportNoViableAlternative(antlr4::Parser* p,
                                 const antlr4::NoViableAltException& e) override {
    Report(p, e.getOffendingToken(), e.getExpectedTokens(),
           dynamic_cast<antlr4::ParserRuleContext*>(e.getCtx()));
  }
  void reportInputMismatch(antlr4::Parser* p, const antlr4::InputMismatchException& e) override {
    Report(p, e.getOffendingToken(), e.getExpectedTokens(),
           dynamic_cast<antlr4::ParserRuleContext*>(e.getCtx()));
  }
  void reportFailedPredicate(antlr4::Parser* p,
                             const antlr4::FailedPredicateException& e) override {
    Report(p, e.getOffendingToken(), e.getExpectedTokens(), p->getContext());
  }
  void reportUnwantedToken(antlr4::Parser* p) override {
    if (inErrorRecoveryMode(p)) return;
    beginErrorCondition(p);
    Report(p, p->getCurrentToken(), getExpectedTokens(p), p->getContext());
  }
  // Deleting a token to go on was more often wrong than right here (in
  // `policy { mode ...` it took `mode` for the name and reported a second,
  // confusing error), so recovery only inserts a token or skips to a
  // statement boundary.
  Token* singleTokenDeletion(antlr4::Parser*) override { return nullptr; }

  void reportMissingToken(antlr4::Parser* p) override {
    if (inErrorRecoveryMode(p)) return;
    beginErrorCondition(p);
    Report(p, p->getCurrentToken(), getExpectedTokens(p), p->getContext());
  }

 private:
  void Report(antlr4::Parser* p, Token* found, const antlr4::misc::IntervalSet& expected,
              antlr4::ParserRuleContext* ctx) {
    if (found == nullptr) found = p->getCurrentToken();
    Token* prev = PreviousToken(p, found);
    int line = static_cast<int>(found->getLine());
    int col = static_cast<int>(found->getCharPositionInLine()) + 1;
    std::string message;
    bool fatal = false;
    switch (found->getType()) {
      case PolicyLexer::UNTERMINATED_STRING:
        message = "unterminated string: a string must end with '\"' on the same line";
        break;
      case PolicyLexer::UNTERMINATED_COMMENT:
        message = "unterminated comment: '/*' has no closing '*/'";
        fatal = true;
        break;
      case PolicyLexer::ERROR_CHAR:
        message = absl::StrCat("unexpected character ", CharDisplay(found->getText()));
        if (IsTypographicQuote(found->getText())) {
          message += ": strings use straight double quotes \"...\"";
        } else if (!expected.isEmpty()) {
          absl::StrAppend(&message, "; expected ",
                          ExpectedDisplay(expected, ctx, p->getVocabulary()));
        }
        break;
      default: {
        std::string what = ExpectedDisplay(expected, ctx, p->getVocabulary());
        if (found->getType() == Token::EOF &&
            expected.contains(static_cast<size_t>(PolicyLexer::RBRACE))) {
          what = "'}'";  // at the end of the file, only closing the block helps
        }
        bool unknown_statement = expected.contains(static_cast<size_t>(PolicyLexer::MODE)) &&
                                 found->getType() == PolicyLexer::IDENT;
        if (unknown_statement) {
          message = absl::StrCat("unknown statement ", TokenDisplay(found), "; expected ", what);
        } else {
          message = absl::StrCat("expected ", what);
          if (prev != nullptr) absl::StrAppend(&message, " after ", TokenDisplay(prev));
          absl::StrAppend(&message, ", found ", TokenDisplay(found));
        }
        // A missing ';' is reported where it belongs: right after the
        // previous token, not at the start of the next line.
        bool missing_at_end = expected.contains(static_cast<size_t>(PolicyLexer::SEMI)) ||
                              found->getType() == Token::EOF;
        if (missing_at_end && prev != nullptr && prev->getLine() < found->getLine()) {
          line = static_cast<int>(prev->getLine());
          col = static_cast<int>(prev->getCharPositionInLine()) + CodePoints(prev->getText()) + 1;
        }
      }
    }
    // One syntax error per line: what follows on the same line is usually a
    // consequence of the first (recovery resumes in the middle of it).
    if (line != last_error_line_) {
      sink_->Error(line, col, message);
      last_error_line_ = line;
    }
    if (fatal || sink_->Full()) throw antlr4::ParseCancellationException();
  }

  static Token* PreviousToken(antlr4::Parser* p, Token* t) {
    antlr4::TokenStream* ts = p->getTokenStream();
    size_t i = t->getTokenIndex();
    if (i == static_cast<size_t>(-1)) return nullptr;
    while (i > 0) {
      --i;
      Token* c = ts->get(i);
      if (c->getChannel() == Token::DEFAULT_CHANNEL) return c;
    }
    return nullptr;
  }

  DslSink* sink_;
  int last_error_line_ = 0;
};

DslToken::Kind KindOf(size_t type) {
  switch (type) {
    case PolicyLexer::STRING:
      return DslToken::Kind::kString;
    case PolicyLexer::IDENT:
    case PolicyLexer::NUMBER:
      return DslToken::Kind::kWord;
    case PolicyLexer::LBRACE:
      return DslToken::Kind::kLBrace;
    case PolicyLexer::RBRACE:
      return DslToken::Kind::kRBrace;
    case PolicyLexer::LBRACK:
      return DslToken::Kind::kLBrack;
    case PolicyLexer::RBRACK:
      return DslToken::Kind::kRBrack;
    case PolicyLexer::SEMI:
      return DslToken::Kind::kSemi;
    case PolicyLexer::COMMA:
      return DslToken::Kind::kComma;
    case PolicyLexer::LINE_COMMENT:
      return DslToken::Kind::kLineComment;
    case PolicyLexer::BLOCK_COMMENT:
      return DslToken::Kind::kBlockComment;
    case PolicyLexer::WS:
      return DslToken::Kind::kSpace;
    case PolicyLexer::UNTERMINATED_STRING:
    case PolicyLexer::UNTERMINATED_COMMENT:
    case PolicyLexer::ERROR_CHAR:
      return DslToken::Kind::kBad;
    default:
      return type >= PolicyLexer::POLICY && type <= PolicyLexer::IN ? DslToken::Kind::kKeyword
                                                                    : DslToken::Kind::kBad;
  }
}

// Parse runs the parser over `text`; with `lower` set it also runs the
// semantic pass into `out`.
absl::Status Parse(const std::string& text, const std::string& file, Layer layer, bool lower,
                   DslFile* out) {
  if (std::optional<ir::Diagnostic> bad = PrecheckDslText(text, file)) {
    return absl::InvalidArgumentError(bad->Render());
  }
  DslSink sink(text, file);
  try {
    antlr4::ANTLRInputStream input(text);
    PolicyLexer lexer(&input);
    lexer.removeErrorListeners();
    antlr4::CommonTokenStream tokens(&lexer);
    PolicyParser parser(&tokens);
    parser.removeErrorListeners();
    parser.setErrorHandler(std::make_shared<PlainErrorStrategy>(&sink));
    PolicyParser::FileContext* tree = nullptr;
    bool complete = true;
    try {
      tree = parser.file();
    } catch (const antlr4::ParseCancellationException&) {
      complete = false;
    }
    if (lower && complete && tree != nullptr) LowerDslTree(tree, file, layer, &sink, out);
  } catch (const std::exception& e) {
    // The runtime should not throw past the error strategy; if it does, the
    // user still gets a located message rather than a crash.
    sink.Error(0, 0, absl::StrCat("internal parser error: ", e.what()));
  }
  return sink.ToStatus();
}

}  // namespace

absl::StatusOr<DslFile> ReadDslFile(const std::string& text, const std::string& file, Layer layer) {
  DslFile out;
  if (absl::Status s = Parse(text, file, layer, /*lower=*/true, &out); !s.ok()) return s;
  return out;
}

absl::Status CheckDslSyntax(const std::string& text, const std::string& file) {
  DslFile unused;
  return Parse(text, file, Layer::kUser, /*lower=*/false, &unused);
}

absl::StatusOr<DslResult> ReadDslPolicy(const std::string& text, const std::string& file,
                                        const std::string& policy_name, Layer layer) {
  absl::StatusOr<DslFile> parsed = ReadDslFile(text, file, layer);
  if (!parsed.ok()) return parsed.status();
  DslResult result;
  for (const DslPolicy& p : parsed->policies) result.all_policies.push_back(p.name);
  auto fail = [&](const std::string& message) { return ir::ErrorAt(file, 0, 0, message); };
  if (parsed->policies.empty()) {
    return fail("the file defines no policy; write `policy NAME { ... }`");
  }
  const DslPolicy* chosen = nullptr;
  if (policy_name.empty()) {
    if (parsed->policies.size() > 1) {
      return fail(absl::StrCat("the file defines several policies (",
                               absl::StrJoin(result.all_policies, ", "),
                               "); choose one with --policy NAME"));
    }
    chosen = &parsed->policies[0];
  } else {
    for (const DslPolicy& p : parsed->policies) {
      if (p.name == policy_name) chosen = &p;
    }
    if (chosen == nullptr) {
      return fail(absl::StrCat("no policy named '", policy_name,
                               "'; the file defines: ", absl::StrJoin(result.all_policies, ", ")));
    }
  }
  result.policy_name = chosen->name;
  result.spec = chosen->spec;
  return result;
}

absl::StatusOr<std::vector<DslToken>> LexDsl(const std::string& text, const std::string& file) {
  if (std::optional<ir::Diagnostic> bad = PrecheckDslText(text, file)) {
    return absl::InvalidArgumentError(bad->Render());
  }
  std::vector<DslToken> out;
  try {
    antlr4::ANTLRInputStream input(text);
    PolicyLexer lexer(&input);
    lexer.removeErrorListeners();
    for (std::unique_ptr<Token> t = lexer.nextToken(); t->getType() != Token::EOF;
         t = lexer.nextToken()) {
      out.push_back(DslToken{KindOf(t->getType()), t->getText(), static_cast<int>(t->getLine()),
                             static_cast<int>(t->getCharPositionInLine()) + 1});
    }
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(file, ": internal lexer error: ", e.what()));
  }
  return out;
}

}  // namespace cwsc::compiler
