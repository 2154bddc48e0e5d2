// The command table (cli/command_table.h) is well formed, and the parser
// (cli/cli_parse.h) reads a command line by it.
#include "cli/cli_parse.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/cli_help.h"
#include "cli/command_table.h"
#include "gendoc/docs.h"
#include "gendoc/man_text.h"

namespace cwsc::cli {
namespace {

std::string S(absl::string_view v) { return std::string(v.data(), v.size()); }

// Every entry is what the help, man and completion generators assume.
TEST(CommandTable, IsWellFormed) {
  std::set<std::string> names;
  for (const Command& c : Commands()) {
    SCOPED_TRACE(S(c.name));
    EXPECT_TRUE(names.insert(S(c.name)).second) << "a command is listed twice";
    EXPECT_FALSE(c.summary.empty());
    EXPECT_NE(c.summary.back(), '.') << "a summary is a phrase";
    EXPECT_FALSE(c.synopsis.empty());
    EXPECT_FALSE(c.exit_status.empty());
    std::string description = S(c.description);
    for (size_t at = description.find('\n'); at != std::string::npos;
         at = description.find('\n', at + 2)) {
      EXPECT_EQ(description.compare(at, 2, "\n\n"), 0) << "a lone newline inside a paragraph";
    }
    std::set<std::string> spellings = {"-h", "--help"};
    for (const Flag& f : c.flags) {
      SCOPED_TRACE(S(f.name));
      EXPECT_EQ(f.name[0], '-');
      EXPECT_TRUE(spellings.insert(S(f.name)).second) << "a flag is spelled twice";
      if (!f.alias.empty()) {
        EXPECT_TRUE(spellings.insert(S(f.alias)).second);
      }
      EXPECT_EQ(f.value_name.empty(), f.kind == ValueKind::kNone);
      EXPECT_EQ(!f.choices.empty(), f.kind == ValueKind::kChoice);
      EXPECT_FALSE(f.help.empty());
      EXPECT_NE(f.help.back(), '.');
    }
    for (size_t i = 0; i < c.positionals.size(); ++i) {
      EXPECT_TRUE(!c.positionals[i].variadic || i + 1 == c.positionals.size());
    }
  }
  EXPECT_NE(FindCommand("compile"), nullptr);
  EXPECT_EQ(FindCommand("compil"), nullptr);
}

ParsedArgs ParseOk(absl::string_view command, const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> p = Parse(*FindCommand(command), args);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : ParsedArgs{};
}

std::string ParseError(absl::string_view command, const std::vector<std::string>& args) {
  absl::StatusOr<ParsedArgs> p = Parse(*FindCommand(command), args);
  return p.ok() ? "(parsed)" : S(p.status().message());
}

TEST(Parse, ValuesInEitherFormAndInOrder) {
  ParsedArgs p = ParseOk("check", {"--mode=plan", "f.cwsp", "--mode", "ask", "--lint"});
  EXPECT_EQ(p.positionals, std::vector<std::string>{"f.cwsp"});
  EXPECT_EQ(p.All("--mode"), (std::vector<std::string>{"plan", "ask"}));
  EXPECT_EQ(p.Last("--mode"), "ask");
  EXPECT_TRUE(p.Has("--lint"));
  EXPECT_FALSE(p.Has("--live"));
  EXPECT_EQ(p.Last("--expect"), std::nullopt);
  // An alias is recorded by the table's name; a value may start with '-'.
  p = ParseOk("facts", {"--output", "-", "--cwd", "-x", "--for", "c.toml"});
  EXPECT_EQ(p.Last("-o"), "-");
  EXPECT_EQ(p.Last("--cwd"), "-x");
  // An empty value after '=' is a value.
  EXPECT_EQ(ParseOk("compile", {"--policy="}).Last("--policy"), "");
}

TEST(Parse, DashIsAnArgumentAndDashDashEndsTheOptions) {
  ParsedArgs p = ParseOk("compile", {"-", "--mode", "plan", "--", "sh", "--mode", "-c"});
  EXPECT_EQ(p.positionals, std::vector<std::string>{"-"});
  EXPECT_TRUE(p.saw_dashdash);
  EXPECT_EQ(p.program, (std::vector<std::string>{"sh", "--mode", "-c"}));
  p = ParseOk("compile", {"x.toml", "--"});
  EXPECT_TRUE(p.saw_dashdash);
  EXPECT_TRUE(p.program.empty());
  // --help anywhere asks for help, but the other words are still checked.
  EXPECT_TRUE(ParseOk("fmt", {"x.cwsp", "--help"}).help);
  EXPECT_EQ(ParseError("fmt", {"--help", "--bogus"}), "unknown option '--bogus' for 'fmt'");
  EXPECT_TRUE(ParseOk("why", {"-h"}).help);
}

TEST(Parse, Errors) {
  EXPECT_EQ(ParseError("compile", {"--mdoe", "ask"}),
            "unknown option '--mdoe' for 'compile' (did you mean '--mode'?)");
  EXPECT_EQ(ParseError("compile", {"--mode"}), "option '--mode' needs a value");
  EXPECT_EQ(ParseError("check", {"--lint=yes"}), "option '--lint' takes no value");
  EXPECT_EQ(ParseError("why", {"/a", "b.toml", "c.toml"}), "unexpected argument 'c.toml'");
  EXPECT_EQ(ParseError("run", {"a", "b"}), "unexpected argument 'b' (put the program after --)");
  EXPECT_EQ(ParseError("diff", {"a", "b", "--", "c"}),
            "'diff' takes no program (nothing after --)");
  // fmt takes any number of files.
  EXPECT_EQ(ParseOk("fmt", {"a", "b", "c", "-"}).positionals.size(), 4u);
}

TEST(DidYouMean, NearMissesOnly) {
  const std::vector<absl::string_view> flags = {"--mode", "--facts", "--facts-b", "--cwd", "-o"};
  EXPECT_EQ(DidYouMean("--mdoe", flags), "--mode");   // a transposition is one edit
  EXPECT_EQ(DidYouMean("--fact", flags), "--facts");  // a missing letter
  EXPECT_EQ(DidYouMean("--facts-c", flags), "--facts-b");
  EXPECT_EQ(DidYouMean("--cdw", flags), "--cwd");
  EXPECT_EQ(DidYouMean("--zzzzzz", flags), "");    // nothing near
  EXPECT_EQ(DidYouMean("-x", flags), "");          // too short to guess: "-o" is 1 edit of 2
  EXPECT_EQ(DidYouMean("--moderate", flags), "");  // 4 edits
  EXPECT_EQ(DidYouMean("x", {}), "");
}

TEST(Help, WrapsAtTheColumn) {
  EXPECT_EQ(Wrap("aaa bbb ccc", 2, 4, 9), "  aaa bbb\n    ccc\n");  // 9 columns fit
  EXPECT_EQ(Wrap("aaa bbb ccc", 2, 4, 8), "  aaa\n    bbb\n    ccc\n");
  EXPECT_EQ(Wrap("one two", 0, 0), "one two\n");
  for (const Command& c : Commands()) {
    std::string help = CommandHelp(c);
    size_t start = 0;
    for (size_t end = help.find('\n'); end != std::string::npos;
         start = end + 1, end = help.find('\n', start)) {
      std::string line = help.substr(start, end - start);
      // A long word (a path, a command in backquotes) may stick out alone.
      if (line.size() > 79) {
        EXPECT_EQ(line.find(' ', line.find_first_not_of(' ')), line.npos) << line;
      }
    }
  }
}

// Help names documents an installed user has (share/doc/cwsc/NAME.md under
// the prefix, or a man page), never a path of the source tree.
TEST(Help, NamesNoSourceTreePath) {
  std::string all = MainHelp();
  for (const Command& c : Commands()) all += CommandHelp(c);
  size_t at = all.find("docs/");
  EXPECT_EQ(at, std::string::npos) << all.substr(at == std::string::npos ? 0 : at, 60);
  EXPECT_NE(all.find("share/doc/cwsc/facts.md"), std::string::npos);
  EXPECT_NE(MainHelp().find("Documents and examples: share/doc/cwsc/ under\nthe install prefix "
                            "(/usr/local/share/doc/cwsc by default).\n"),
            std::string::npos);
}

// The ENVIRONMENT list and the EXAMPLES are what the man page generator
// assumes: known commands, sentences without their period, `cwsc NAME ...`.
// (tests/cli/cli_docs_test.py checks the list against the sources and the
// examples' flags against --help.)
// A flag's `needs` names flags; in every command that has the flag, at
// least one of them is there too (else the parser's check could never be
// met), and the parser refuses the flag alone with the table's words.
TEST(CommandTable, NeedsNameFlagsTheCommandHas) {
  int needing = 0;
  for (const Command& c : Commands()) {
    for (const Flag& f : c.flags) {
      if (f.needs.empty()) continue;
      SCOPED_TRACE(S(c.name) + " " + S(f.name));
      ++needing;
      bool any = false;
      for (absl::string_view n : f.needs) any = any || FindFlag(c, n) != nullptr;
      EXPECT_TRUE(any);
      std::vector<std::string> args = {std::string(f.name)};
      if (f.TakesValue()) args.push_back("v");
      absl::StatusOr<ParsedArgs> p = Parse(c, args);
      ASSERT_FALSE(p.ok());
      EXPECT_TRUE(absl::StartsWith(p.status().message(), S(f.name))) << p.status();
      EXPECT_TRUE(absl::StrContains(p.status().message(), " needs ")) << p.status();
      for (absl::string_view n : f.needs) {
        const Flag* need = FindFlag(c, n);
        if (need == nullptr) continue;
        std::vector<std::string> with = args;
        with.push_back(std::string(n));
        if (need->TakesValue()) with.push_back("v");
        EXPECT_TRUE(Parse(c, with).ok()) << Parse(c, with).status();
      }
    }
  }
  EXPECT_GE(needing, 15);
}

TEST(CommandTable, EnvironmentAndExamplesAreWellFormed) {
  std::set<std::string> names;
  for (const gendoc::EnvironmentVariable& v : gendoc::EnvironmentVariables()) {
    SCOPED_TRACE(S(v.name));
    EXPECT_TRUE(names.insert(S(v.name)).second) << "a variable is listed twice";
    EXPECT_FALSE(v.meaning.empty());
    EXPECT_NE(v.meaning.back(), '.');
    std::vector<absl::string_view> commands = absl::StrSplit(v.commands, ' ');
    EXPECT_FALSE(commands.empty());
    for (absl::string_view c : commands) EXPECT_NE(FindCommand(c), nullptr) << c;
  }
  EXPECT_TRUE(gendoc::ExamplesOf("nope").empty());
  for (const Command& c : Commands()) {
    SCOPED_TRACE(S(c.name));
    EXPECT_FALSE(gendoc::ExamplesOf(c.name).empty());
    for (const gendoc::Example& e : gendoc::ExamplesOf(c.name)) {
      EXPECT_TRUE(absl::StartsWith(e.command_line, absl::StrCat("cwsc ", c.name)))
          << e.command_line;
      EXPECT_FALSE(e.what.empty());
      EXPECT_NE(e.what.back(), '.');
    }
  }
}

TEST(ManPage, EnvironmentAndExamples) {
  using gendoc::MainManPage;
  using gendoc::ManPage;
  std::string compile = ManPage(*FindCommand("compile"), "0.1.0");
  EXPECT_NE(compile.find(".SH EXIT STATUS\n0 ok, 2 bad input or usage, 3 plan refused, 4 target "
                         "not applicable to the plan.\n.SH ENVIRONMENT\n.TP\n\\fBHOME\\fR\nThe "
                         "home directory: ~ and $HOME in policies and expectations, where CONFIG "
                         "is found when none is given, and the credential stores the built\\-in "
                         "deny list hides (exec refuses a plan compiled for another home).\n"),
            std::string::npos)
      << compile;
  EXPECT_NE(compile.find(".TP\n\\fBCODEWHALE_SANDBOX_MODE\\fR, \\fBDEEPSEEK_SANDBOX_MODE\\fR\n"),
            std::string::npos);
  EXPECT_EQ(compile.find("CWSC_PROBE_CACHE"), std::string::npos) << "compile does not probe-cache";
  EXPECT_NE(compile.find(".SH EXAMPLES\n.TP\n\\fBcwsc compile config.toml \\-\\-mode ask "
                         "\\-\\- sh \\-c 'make test'\\fR\nThe bubblewrap argv for ask mode, "
                         "ending with the program.\n.TP\n"),
            std::string::npos);
  EXPECT_NE(compile.find("\n.SH SEE ALSO\n.BR cwsc (1)\n"), std::string::npos);
  EXPECT_NE(ManPage(*FindCommand("fmt"), "0.1.0")
                .find(".SH ENVIRONMENT\n\\fBcwsc fmt\\fR reads no environment variable.\n.SH "
                      "EXAMPLES\n"),
            std::string::npos);

  std::string main_page = MainManPage("0.1.0");
  EXPECT_NE(main_page.find(".SH ENVIRONMENT\nThe variables cwsc reads, and the commands each "
                           "affects.\n.TP\n\\fBHOME\\fR\n"),
            std::string::npos)
      << main_page;
  EXPECT_NE(main_page.find(".TP\n\\fBCWSC_PROBE_CACHE\\fR\n0 turns off the cache of the "
                           "bubblewrap probe's passing verdict between runs.\n.br\nRead by: "
                           "\\fBrun\\fR, \\fBexec\\fR.\n"),
            std::string::npos);
  EXPECT_NE(main_page.find(".SH EXAMPLES\n.TP\n\\fBcwsc compile config.toml"), std::string::npos);
  EXPECT_NE(main_page.find(".TP\n\\fBcwsc help compile\\fR\nEvery option of cwsc compile.\n"
                           ".SH SEE ALSO\n"),
            std::string::npos);
}

}  // namespace
}  // namespace cwsc::cli
