#include "gendoc/docs.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "cli/cli_help.h"
#include "gendoc/man_text.h"

namespace cwsc::gendoc {
namespace {

using cli::Choice;
using cli::Command;
using cli::Commands;
using cli::Flag;
using cli::HelpFlag;
using cli::Positional;
using cli::ProgramDescription;
using cli::ValueKind;

constexpr char kGenerated[] =
    "generated from cli/command_table.cc and gendoc/man_text.cc by cwsc-gendoc; do not edit";

// ---- man(7) ---------------------------------------------------------------

// Roff escapes text for a man page line: backslashes and hyphens, and a
// leading control character.
std::string Roff(absl::string_view text) {
  std::string out;
  if (!text.empty() && (text[0] == '.' || text[0] == '\'')) out = "\\&";
  for (char ch : text) {
    if (ch == '\\')
      out += "\\e";
    else if (ch == '-')
      out += "\\-";
    else
      out += ch;
  }
  return out;
}

// Sentence is a help text as a sentence of the page: capitalised, with a period.
std::string Sentence(absl::string_view help) {
  std::string s = Roff(help);
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  if (!s.empty() && s.back() != '.') s += '.';
  return s;
}

std::string ManFlagLabel(const Flag& f) {
  std::string out = absl::StrCat("\\fB", Roff(f.name), "\\fR");
  if (!f.alias.empty()) absl::StrAppend(&out, ", \\fB", Roff(f.alias), "\\fR");
  if (f.TakesValue()) absl::StrAppend(&out, " \\fI", Roff(f.value_name), "\\fR");
  return out;
}

// Words are the entries of a space-separated list of the table.
std::vector<absl::string_view> Words(absl::string_view list) {
  return absl::StrSplit(list, ' ', absl::SkipEmpty());
}

bool Affects(const EnvironmentVariable& v, absl::string_view command) {
  for (absl::string_view w : Words(v.commands)) {
    if (w == command) return true;
  }
  return false;
}

// ManEnvironment is the ENVIRONMENT section: every variable with the
// commands it affects (cwsc(1), `c` null), or those affecting `c`.
std::string ManEnvironment(const Command* c) {
  std::string out = ".SH ENVIRONMENT\n";
  if (c == nullptr)
    absl::StrAppend(&out, "The variables cwsc reads, and the commands each affects.\n");
  bool any = false;
  for (const EnvironmentVariable& v : EnvironmentVariables()) {
    if (c != nullptr && !Affects(v, c->name)) continue;
    any = true;
    absl::StrAppend(&out, ".TP\n\\fB", Roff(v.name), "\\fR");
    for (absl::string_view also : Words(v.also))
      absl::StrAppend(&out, ", \\fB", Roff(also), "\\fR");
    absl::StrAppend(&out, "\n", Sentence(v.meaning), "\n");
    if (c != nullptr) continue;
    std::vector<std::string> commands;
    for (absl::string_view w : Words(v.commands))
      commands.push_back(absl::StrCat("\\fB", Roff(w), "\\fR"));
    absl::StrAppend(&out, ".br\nRead by: ", absl::StrJoin(commands, ", "), ".\n");
  }
  if (!any)
    absl::StrAppend(&out, "\\fBcwsc ", Roff(c->name), "\\fR reads no environment variable.\n");
  return out;
}

std::string ManExample(const Example& e) {
  return absl::StrCat(".TP\n\\fB", Roff(e.command_line), "\\fR\n", Sentence(e.what), "\n");
}

std::string Header(absl::string_view title, absl::string_view version) {
  return absl::StrCat(".\\\" ", kGenerated, "\n.TH \"", title, "\" \"1\" \"\" \"cwsc ", version,
                      "\" \"User Commands\"\n");
}

// ---- shells ---------------------------------------------------------------

// Spellings are a flag's names: "-o", "--output".
std::vector<std::string> Spellings(const Flag& f) {
  std::vector<std::string> out = {std::string(f.name)};
  if (!f.alias.empty()) out.emplace_back(f.alias);
  return out;
}

std::vector<const Flag*> FlagsWithHelp(const Command& c) {
  std::vector<const Flag*> out;
  for (const Flag& f : c.flags) out.push_back(&f);
  out.push_back(&HelpFlag());
  return out;
}

std::string ChoiceWords(const Flag& f) {
  std::vector<std::string> words;
  for (const Choice& ch : f.choices) words.emplace_back(ch.name);
  return absl::StrJoin(words, " ");
}

std::string CommandWords() {
  std::vector<std::string> words;
  for (const Command& c : Commands()) words.emplace_back(c.name);
  return absl::StrJoin(words, " ");
}

// Describe makes a help text safe inside a single-quoted shell word and a
// zsh `[...]` description.
std::string Describe(absl::string_view help) {
  std::string s = absl::StrReplaceAll(
      help, {{"'", ""}, {"`", ""}, {"[", "("}, {"]", ")"}, {":", ","}, {"\\", ""}});
  return s;
}

}  // namespace

std::string ManPageName(const Command& c) { return absl::StrCat("cwsc-", c.name, ".1"); }

std::string ManPage(const Command& c, absl::string_view version) {
  std::string title = absl::AsciiStrToUpper(absl::StrCat("cwsc-", c.name));
  std::string out = Header(title, version);
  absl::StrAppend(&out, ".SH NAME\ncwsc\\-", Roff(c.name), " \\- ", Roff(c.summary), "\n");
  absl::StrAppend(&out, ".SH SYNOPSIS\n");
  bool first = true;
  for (absl::string_view line : absl::StrSplit(c.synopsis, '\n')) {
    if (!first) absl::StrAppend(&out, ".br\n");
    first = false;
    absl::StrAppend(&out, ".B cwsc ", Roff(c.name), "\n", Roff(line), "\n");
  }
  absl::StrAppend(&out, ".SH DESCRIPTION\n");
  for (absl::string_view p : absl::StrSplit(c.description, "\n\n", absl::SkipEmpty())) {
    absl::StrAppend(&out, ".PP\n", Roff(p), "\n");
  }
  absl::StrAppend(&out, ".SH OPTIONS\n");
  for (const Flag* f : FlagsWithHelp(c)) {
    absl::StrAppend(&out, ".TP\n", ManFlagLabel(*f), "\n", Sentence(f->help), "\n");
    if (f->choices.empty()) continue;
    absl::StrAppend(&out, ".RS\n");
    for (const Choice& ch : f->choices) {
      absl::StrAppend(&out, ".TP 14\n.B ", Roff(ch.name), "\n", Sentence(ch.help), "\n");
    }
    absl::StrAppend(&out, ".RE\n");
  }
  absl::StrAppend(&out, ".SH EXIT STATUS\n", Roff(c.exit_status), "\n");
  absl::StrAppend(&out, ManEnvironment(&c));
  absl::StrAppend(&out, ".SH EXAMPLES\n");
  for (const Example& e : ExamplesOf(c.name)) absl::StrAppend(&out, ManExample(e));
  absl::StrAppend(&out, ".SH SEE ALSO\n.BR cwsc (1)\n");
  return out;
}

std::string MainManPage(absl::string_view version) {
  std::string out = Header("CWSC", version);
  absl::StrAppend(&out, ".SH NAME\ncwsc \\- compile sandbox policies into launch plans\n");
  absl::StrAppend(&out, ".SH SYNOPSIS\n.B cwsc\n\\fICOMMAND\\fR [options] [arguments]\n.br\n",
                  ".B cwsc\n\\fB\\-\\-version\\fR\n");
  absl::StrAppend(&out, ".SH DESCRIPTION\n", Roff(ProgramDescription()), "\n");
  absl::StrAppend(&out,
                  ".PP\nEach command has its own page, and its help: \\fBcwsc help\\fR "
                  "\\fICOMMAND\\fR or \\fBcwsc\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR.\n");
  absl::StrAppend(&out, ".SH COMMANDS\n");
  for (const Command& c : Commands()) {
    absl::StrAppend(&out, ".TP\n.BR cwsc\\-", Roff(c.name), " (1)\n", Sentence(c.summary), "\n");
  }
  absl::StrAppend(&out, ".SH OPTIONS\n.TP\n", ManFlagLabel(HelpFlag()), "\n",
                  "Show the list of commands and exit.\n.TP\n\\fB\\-\\-version\\fR\n",
                  "Print the version and exit.\n");
  absl::StrAppend(&out, ManEnvironment(nullptr));
  absl::StrAppend(
      &out, ".SH FILES\n",
      "Without CONFIG, compile, explain, check, why and run read the first of:\n",
      ".RS\n.nf\n\\fB$CODEWHALE_HOME/config.toml\\fR\n\\fB~/.codewhale/config.toml\\fR\n",
      "\\fB~/.deepseek/config.toml\\fR (legacy)\n.fi\n.RE\n",
      ".PP\nA compile also reads the project layer \\fB<cwd>/.codewhale/config.toml\\fR ",
      "(skipped with \\fB\\-\\-no\\-project\\-config\\fR).\n");
  absl::StrAppend(&out, ".SH EXIT STATUS\n",
                  "0 ok, 1 a check failed, 2 bad input or usage, 3 plan refused, 4 target not "
                  "applicable; each command's page has its own.\n");
  absl::StrAppend(&out, ".SH EXAMPLES\n");
  for (const Command& c : Commands()) {
    std::span<const Example> examples = ExamplesOf(c.name);
    if (!examples.empty()) absl::StrAppend(&out, ManExample(examples.front()));
  }
  absl::StrAppend(&out, ".SH SEE ALSO\n");
  bool first = true;
  for (const Command& c : Commands()) {
    absl::StrAppend(&out, first ? "" : ",\n", ".BR cwsc\\-", Roff(c.name), " (1)");
    first = false;
  }
  absl::StrAppend(&out, "\n");
  return out;
}

std::string BashCompletion() {
  std::string out = absl::StrCat("# bash completion for cwsc; ", kGenerated, ".\n");
  absl::StrAppend(&out,
                  "_cwsc() {\n"
                  "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
                  "  # --opt=value: bash splits the word at '='.\n"
                  "  if [[ $cur == = ]]; then cur=''; elif [[ $prev == = ]] && ((COMP_CWORD > 1)); "
                  "then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
                  "  local cmd='' i\n"
                  "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
                  "    if [[ ${COMP_WORDS[i]} != -* ]]; then cmd=${COMP_WORDS[i]}; break; fi\n"
                  "  done\n"
                  "  if [[ -z $cmd ]]; then\n"
                  "    COMPREPLY=($(compgen -W '",
                  CommandWords(),
                  " --help --version' -- \"$cur\"))\n"
                  "    return\n"
                  "  fi\n"
                  "  local j\n"
                  "  for ((j = i + 1; j < COMP_CWORD; j++)); do\n"
                  "    # After --: the program and its arguments.\n"
                  "    if [[ ${COMP_WORDS[j]} == -- ]]; then\n"
                  "      if ((j + 1 == COMP_CWORD)); then COMPREPLY=($(compgen -c -- \"$cur\"));\n"
                  "      else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
                  "      return\n"
                  "    fi\n"
                  "  done\n"
                  "  local opts='' args=file\n"
                  "  case $cmd in\n");
  for (const Command& c : Commands()) {
    absl::StrAppend(&out, "    ", c.name, ")\n      case $prev in\n");
    for (const Flag* f : FlagsWithHelp(c)) {
      if (!f->TakesValue()) continue;
      std::string action;
      switch (f->kind) {
        case ValueKind::kChoice:
          action = absl::StrCat("COMPREPLY=($(compgen -W '", ChoiceWords(*f), "' -- \"$cur\"))");
          break;
        case ValueKind::kDir:
          action = "COMPREPLY=($(compgen -d -- \"$cur\"))";
          break;
        case ValueKind::kFile:
          action = "COMPREPLY=($(compgen -f -- \"$cur\"))";
          break;
        default:
          action = "COMPREPLY=()";
      }
      absl::StrAppend(&out, "        ", absl::StrJoin(Spellings(*f), "|"), ") ", action,
                      "; return ;;\n");
    }
    std::vector<std::string> opts;
    for (const Flag* f : FlagsWithHelp(c)) {
      for (const std::string& s : Spellings(*f)) opts.push_back(s);
    }
    absl::string_view args = "none";
    if (!c.positionals.empty()) {
      args = c.positionals[0].kind == ValueKind::kCommand ? "command" : "file";
    }
    absl::StrAppend(&out, "      esac\n      opts='", absl::StrJoin(opts, " "), "' args=", args,
                    " ;;\n");
  }
  absl::StrAppend(&out,
                  "    *) return ;;\n"
                  "  esac\n"
                  "  if [[ $cur == -* ]]; then\n"
                  "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
                  "  elif [[ $args == command ]]; then\n"
                  "    COMPREPLY=($(compgen -W '",
                  CommandWords(),
                  "' -- \"$cur\"))\n"
                  "  elif [[ $args == file ]]; then\n"
                  "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
                  "  fi\n"
                  "}\n"
                  "complete -o filenames -F _cwsc cwsc\n");
  return out;
}

std::string ZshCompletion() {
  std::string out = absl::StrCat("#compdef cwsc\n# zsh completion for cwsc; ", kGenerated, ".\n");
  absl::StrAppend(&out,
                  "_cwsc() {\n"
                  "  local curcontext=\"$curcontext\" state line\n"
                  "  typeset -A opt_args\n"
                  "  _arguments -C \\\n"
                  "    '(- :)'{-h,--help}'[show the list of commands]' \\\n"
                  "    '(- :)--version[print the version]' \\\n"
                  "    '1:command:->command' \\\n"
                  "    '*::arg:->args'\n"
                  "  case $state in\n"
                  "    command)\n"
                  "      local -a commands\n"
                  "      commands=(\n");
  for (const Command& c : Commands()) {
    absl::StrAppend(&out, "        '", c.name, ":", Describe(c.summary), "'\n");
  }
  absl::StrAppend(&out,
                  "      )\n"
                  "      _describe -t commands 'cwsc command' commands\n"
                  "      ;;\n"
                  "    args)\n"
                  "      case $line[1] in\n");
  for (const Command& c : Commands()) {
    absl::StrAppend(&out, "        ", c.name, ")\n          _arguments -s \\\n");
    for (const Flag* f : FlagsWithHelp(c)) {
      std::vector<std::string> names = Spellings(*f);
      std::string spec;
      if (f->repeatable) {
        spec = "'*'";
      } else if (names.size() > 1) {
        spec = absl::StrCat("'(", absl::StrJoin(names, " "), ")'");
      }
      // A long option with a value takes it as the next word or after '='.
      if (f->TakesValue()) {
        for (std::string& n : names) {
          if (n.size() > 2) n += '=';
        }
      }
      if (names.size() > 1) {
        absl::StrAppend(&spec, "{", absl::StrJoin(names, ","), "}'");
      } else {
        absl::StrAppend(&spec, "'", names[0]);
      }
      absl::StrAppend(&spec, "[", Describe(f->help), "]");
      if (f->TakesValue()) {
        std::string action;
        switch (f->kind) {
          case ValueKind::kChoice:
            action = absl::StrCat("(", ChoiceWords(*f), ")");
            break;
          case ValueKind::kDir:
            action = "_files -/";
            break;
          case ValueKind::kFile:
            action = "_files";
            break;
          default:
            action = " ";
        }
        absl::StrAppend(&spec, ":", f->value_name, ":", action);
      }
      absl::StrAppend(&out, "            ", spec, "' \\\n");
    }
    int n = 0;
    for (const Positional& p : c.positionals) {
      ++n;
      absl::string_view action = p.kind == ValueKind::kCommand ? "(" : "_files";
      std::string act = p.kind == ValueKind::kCommand ? absl::StrCat("(", CommandWords(), ")")
                                                      : std::string(action);
      std::string pos = p.variadic ? "*" : absl::StrCat(n);
      absl::StrAppend(&out, "            '", pos, ":", p.name, ":", act, "' \\\n");
    }
    // End the continued command.
    absl::StrAppend(&out, "            && return\n          ;;\n");
  }
  absl::StrAppend(&out,
                  "      esac\n"
                  "      ;;\n"
                  "  esac\n"
                  "}\n"
                  "_cwsc \"$@\"\n");
  return out;
}

std::string FishCompletion() {
  std::string out = absl::StrCat("# fish completion for cwsc; ", kGenerated, ".\n");
  absl::StrAppend(&out, "complete -c cwsc -f\n");
  for (const Command& c : Commands()) {
    absl::StrAppend(&out, "complete -c cwsc -n __fish_use_subcommand -a ", c.name, " -d '",
                    Describe(c.summary), "'\n");
  }
  absl::StrAppend(&out,
                  "complete -c cwsc -n __fish_use_subcommand -s h -l help -d 'show the list of "
                  "commands'\n"
                  "complete -c cwsc -n __fish_use_subcommand -l version -d 'print the version'\n");
  for (const Command& c : Commands()) {
    std::string cond = absl::StrCat("-n '__fish_seen_subcommand_from ", c.name, "'");
    for (const Flag* f : FlagsWithHelp(c)) {
      std::string line = absl::StrCat("complete -c cwsc ", cond);
      for (const std::string& s : Spellings(*f)) {
        bool is_long = s.size() > 2;
        absl::StrAppend(&line, is_long ? " -l " : " -s ", s.substr(is_long ? 2 : 1));
      }
      switch (f->kind) {
        case ValueKind::kChoice:
          absl::StrAppend(&line, " -x -a '", ChoiceWords(*f), "'");
          break;
        case ValueKind::kDir:
          absl::StrAppend(&line, " -x -a '(__fish_complete_directories)'");
          break;
        case ValueKind::kFile:
          absl::StrAppend(&line, " -r -F");
          break;
        case ValueKind::kWord:
        case ValueKind::kCommand:
          absl::StrAppend(&line, " -x");
          break;
        case ValueKind::kNone:
          break;
      }
      absl::StrAppend(&out, line, " -d '", Describe(f->help), "'\n");
    }
    if (!c.positionals.empty()) {
      if (c.positionals[0].kind == ValueKind::kCommand) {
        absl::StrAppend(&out, "complete -c cwsc ", cond, " -a '", CommandWords(), "'\n");
      } else {
        absl::StrAppend(&out, "complete -c cwsc ", cond, " -F\n");
      }
    }
  }
  return out;
}

}  // namespace cwsc::gendoc
