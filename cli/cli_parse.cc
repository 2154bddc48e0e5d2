#include "cli/cli_parse.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/cli_help.h"
#include "compiler/edit_distance.h"
#include "ir/display.h"
#include "ir/status_macros.h"

namespace cwsc::cli {

bool ParsedArgs::Has(absl::string_view name) const {
  for (const auto& [n, v] : flags) {
    if (n == name) return true;
  }
  return false;
}

std::optional<std::string> ParsedArgs::Last(absl::string_view name) const {
  std::optional<std::string> out;
  for (const auto& [n, v] : flags) {
    if (n == name) out = v;
  }
  return out;
}

std::vector<std::string> ParsedArgs::All(absl::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : flags) {
    if (n == name) out.push_back(v);
  }
  return out;
}

namespace {

std::string UnknownOption(const Command& c, const std::string& name) {
  std::vector<absl::string_view> names = {"--help"};
  for (const Flag& f : c.flags) {
    names.push_back(f.name);
    if (!f.alias.empty()) names.push_back(f.alias);
  }
  std::string m = absl::StrCat("unknown option '", name, "' for '", c.name, "'");
  if (std::string near = DidYouMean(name, names); !near.empty()) {
    absl::StrAppend(&m, " (did you mean '", near, "'?)");
  }
  return m;
}

size_t MaxPositionals(const Command& c) {
  if (!c.positionals.empty() && c.positionals.back().variadic) return SIZE_MAX;
  return c.positionals.size();
}

}  // namespace

std::string DidYouMean(absl::string_view word, const std::vector<absl::string_view>& candidates) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (absl::string_view c : candidates) {
    // Only a distance of 2 or less is ever named: 3 stands for "farther".
    size_t d = compiler::EditDistance(word, c, 3);
    if (d < best_d) {
      best_d = d;
      best = std::string(c);
    }
  }
  if (best_d <= 2 && best_d * 2 < word.size()) return best;
  return "";
}

namespace {

// CheckNeeds: each flag given that needs another (Flag::needs) has one of
// them given too.
absl::Status CheckNeeds(const Command& c, const ParsedArgs& p) {
  for (const auto& [name, value] : p.flags) {
    const Flag* f = FindFlag(c, name);
    if (f == nullptr || f->needs.empty()) continue;
    std::vector<std::string> needed;
    bool met = false;
    for (absl::string_view n : f->needs) {
      const Flag* other = FindFlag(c, n);
      if (other == nullptr) continue;  // a flag another command has
      met = met || p.Has(n);
      needed.push_back(absl::StrCat(n, other->TakesValue() ? " " : "", other->value_name));
    }
    if (met || needed.empty()) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        f->name, f->TakesValue() ? " " : "", f->value_name, " needs ",
        absl::StrJoin(needed, " or "), f->needs_why.empty() ? "" : ": ", f->needs_why));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ParsedArgs> Parse(const Command& c, const std::vector<std::string>& args) {
  ParsedArgs p;
  p.command = &c;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      if (!c.takes_program) {
        return absl::InvalidArgumentError(
            absl::StrCat("'", c.name, "' takes no program (nothing after --)"));
      }
      p.saw_dashdash = true;
      p.program.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a == "--help" || a == "-h") {
      p.help = true;
      continue;
    }
    if (a.size() > 1 && a[0] == '-') {
      std::string name = a, value;
      bool has_value = false;
      if (size_t eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        has_value = true;
      }
      const Flag* f = FindFlag(c, name);
      if (f == nullptr) return absl::InvalidArgumentError(UnknownOption(c, name));
      if (!f->TakesValue()) {
        if (has_value) {
          return absl::InvalidArgumentError(absl::StrCat("option '", name, "' takes no value"));
        }
      } else if (!has_value) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat("option '", name, "' needs a value"));
        }
        value = args[++i];
      }
      p.flags.emplace_back(std::string(f->name), std::move(value));
      continue;
    }
    if (p.positionals.size() >= MaxPositionals(c)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unexpected argument '", a, "'", c.takes_program ? " (put the program after --)" : ""));
    }
    p.positionals.push_back(a);
  }
  if (!p.help) CWSC_RETURN_IF_ERROR(CheckNeeds(c, p));
  return p;
}

namespace {
UsageErrorObserver usage_error_observer = nullptr;  // one per process: the CLI's report
}  // namespace

void SetUsageErrorObserver(UsageErrorObserver observer) { usage_error_observer = observer; }

int PrintUsageError(absl::string_view command, absl::string_view message) {
  if (usage_error_observer != nullptr) usage_error_observer(message);
  std::string hint = command.empty() ? "cwsc --help" : absl::StrCat("cwsc ", command, " --help");
  // The message quotes what was typed (or a script passed on): shown escaped.
  std::string out = absl::StrCat("cwsc: error: ", ir::Displayable(std::string(message)), "\nTry '",
                                 ir::Displayable(hint), "'.\n");
  std::fputs(out.c_str(), stderr);
  return 2;
}

std::optional<ParsedArgs> ParseOrExit(absl::string_view name, const std::vector<std::string>& args,
                                      int* rc) {
  const Command* c = FindCommand(name);
  absl::StatusOr<ParsedArgs> p = Parse(*c, args);
  if (!p.ok()) {
    *rc = PrintUsageError(name, p.status().message());
    return std::nullopt;
  }
  if (p->help) {
    std::string help = CommandHelp(*c);
    std::fwrite(help.data(), 1, help.size(), stdout);
    *rc = 0;
    return std::nullopt;
  }
  return *std::move(p);
}

}  // namespace cwsc::cli
