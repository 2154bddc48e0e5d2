#include "cli/cli_help.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cwsc::cli {
namespace {

constexpr size_t kHelpColumn = 26;    // where a flag's help starts
constexpr size_t kChoiceColumn = 14;  // the width of a value's name

// Paragraphs splits a description at its blank lines.
std::vector<absl::string_view> Paragraphs(absl::string_view text) {
  std::vector<absl::string_view> out;
  for (absl::string_view p : absl::StrSplit(text, "\n\n", absl::SkipEmpty())) out.push_back(p);
  return out;
}

}  // namespace

std::string Wrap(absl::string_view text, size_t first, size_t rest, size_t width) {
  std::string out(first, ' ');
  size_t col = first;
  bool line_empty = true;
  for (absl::string_view word : absl::StrSplit(text, absl::ByAnyChar(" \n"), absl::SkipEmpty())) {
    if (!line_empty && col + 1 + word.size() > width) {
      out += '\n';
      out.append(rest, ' ');
      col = rest;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++col;
    }
    out.append(word.data(), word.size());
    col += word.size();
    line_empty = false;
  }
  out += '\n';
  return out;
}

std::string FlagLabel(const Flag& f) {
  std::string label(f.name);
  if (!f.alias.empty()) absl::StrAppend(&label, ", ", f.alias);
  if (f.TakesValue()) absl::StrAppend(&label, " ", f.value_name);
  return label;
}

std::vector<std::string> SynopsisLines(const Command& c) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(c.synopsis, '\n')) {
    out.push_back(absl::StrCat("cwsc ", c.name, line.empty() ? "" : " ", line));
  }
  return out;
}

std::string MainHelp() {
  std::string out =
      "usage: cwsc <command> [options] [arguments]\n"
      "       cwsc --version\n\n";
  absl::StrAppend(&out, Wrap(ProgramDescription(), 0, 0), "\ncommands:\n");
  for (const Command& c : Commands()) {
    std::string name(c.name);
    if (name.size() < 9) name.append(9 - name.size(), ' ');
    absl::StrAppend(&out, "  ", name, " ", c.summary, "\n");
  }
  absl::StrAppend(&out,
                  "\nRun 'cwsc help <command>' or 'cwsc <command> --help' for a command's "
                  "options.\n",
                  // What an installed user has, not the source tree (docs/cli.md).
                  "Manuals: man cwsc-<command>. Documents and examples: share/doc/cwsc/ under\n"
                  "the install prefix (/usr/local/share/doc/cwsc by default).\n");
  return out;
}

std::string CommandHelp(const Command& c) {
  std::string out;
  std::vector<std::string> synopsis = SynopsisLines(c);
  for (size_t i = 0; i < synopsis.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "usage: " : "       ", synopsis[i], "\n");
  }
  for (absl::string_view p : Paragraphs(c.description)) absl::StrAppend(&out, "\n", Wrap(p, 0, 0));
  absl::StrAppend(&out, "\noptions:\n");
  std::vector<const Flag*> flags;
  for (const Flag& f : c.flags) flags.push_back(&f);
  flags.push_back(&HelpFlag());
  // Label (or value name) then help: on the same line when the label fits
  // before the help's column, else the help starts on the next line.
  auto item = [&](const std::string& label, absl::string_view help, size_t column) {
    std::string text = Wrap(help, column, column);
    if (label.size() + 1 < column) {
      absl::StrAppend(&out, label, text.substr(label.size()));
    } else {
      absl::StrAppend(&out, label, "\n", text);
    }
  };
  for (const Flag* f : flags) {
    item(absl::StrCat("  ", FlagLabel(*f)), f->help, kHelpColumn);
    for (const Choice& ch : f->choices) {
      item(absl::StrCat(std::string(kHelpColumn + 2, ' '), ch.name), ch.help,
           kHelpColumn + 2 + kChoiceColumn);
    }
  }
  absl::StrAppend(&out, "\n", Wrap(absl::StrCat("exit status: ", c.exit_status), 0, 2));
  return out;
}

}  // namespace cwsc::cli
