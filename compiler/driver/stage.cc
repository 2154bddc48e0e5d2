#include "compiler/driver/stage.h"

#include <type_traits>
#include <variant>

#include "absl/strings/str_cat.h"
#include "compiler/config_key_table.h"
#include "ir/plan.h"
#include "ir/plan_json.h"

namespace cwsc::driver {
namespace {

using compiler::ConfigKey;
using compiler::KeyType;
using compiler::LinuxBackend;
using compiler::PathList;
using compiler::PolicySpec;
using compiler::Setting;

// Quoted spells a string as a TOML basic string: `"` and `\` escaped. What
// a terminal must not see raw is escaped where the text is printed
// (ir::Text).
std::string Quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string_view LinuxBackendSpelling(LinuxBackend b) {
  switch (b) {
    case LinuxBackend::kAuto:
      return "auto";
    case LinuxBackend::kBwrap:
      return "bwrap";
    case LinuxBackend::kLandlock:
      return "landlock";
  }
  return "auto";
}

std::string ValueText(const std::string& v) { return Quoted(v); }
std::string ValueText(bool v) { return v ? "true" : "false"; }
std::string ValueText(int v) { return absl::StrCat(v); }
std::string ValueText(LinuxBackend v) { return Quoted(LinuxBackendSpelling(v)); }
std::string ValueText(ir::Contract v) { return Quoted(ir::ContractName(v)); }
// An enum-valued setting shows its parsed value; an unsupported backend, which
// has none, the text that the refusal quotes.
std::string ValueText(const compiler::SandboxBackend& v) {
  switch (v.kind) {
    case compiler::BackendKind::kNone:
      return Quoted("none");
    case compiler::BackendKind::kOpenSandbox:
      return Quoted("opensandbox");
    case compiler::BackendKind::kUnsupported:
      break;
  }
  return Quoted(v.text);
}
std::string ValueText(const compiler::SandboxMode& v) { return Quoted(ir::PolicyTypeName(v.type)); }
std::string ValueText(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) absl::StrAppend(&out, i == 0 ? "" : ", ", Quoted(v[i]));
  return out + "]";
}
std::string ValueText(const PathList& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    absl::StrAppend(&out, i == 0 ? "" : ", ", Quoted(v[i].value));
  }
  return out + "]";
}

}  // namespace

std::optional<Stage> ParseStage(std::string_view name) {
  for (Stage s : {Stage::kSpec, Stage::kLayered, Stage::kPolicy, Stage::kPlan}) {
    if (StageName(s) == name) return s;
  }
  return std::nullopt;
}

std::string_view StageName(Stage stage) {
  switch (stage) {
    case Stage::kSpec:
      return "spec";
    case Stage::kLayered:
      return "layered";
    case Stage::kPolicy:
      return "policy";
    case Stage::kPlan:
      return "plan";
  }
  return "plan";
}

std::vector<StageSetting> SpecSettings(const PolicySpec& spec) {
  std::vector<StageSetting> out;
  for (const ConfigKey& k : compiler::ConfigKeys()) {
    std::visit(
        [&](auto member) {
          const auto& field = spec.*member;
          if (!field) return;
          StageSetting s;
          s.key = std::string(k.name);
          s.origin = field->origin;
          if (k.type == KeyType::kSecret) {
            s.value = "(withheld)";
            s.secret = true;
          } else {
            s.value = ValueText(field->value);
          }
          using Value = std::decay_t<decltype(field->value)>;
          if constexpr (std::is_same_v<Value, PathList>) {
            if (s.origin.kind == ir::Origin::Kind::kDefault && !field->value.empty()) {
              s.origin = field->value.front().origin;
            }
          }
          out.push_back(std::move(s));
        },
        k.field);
  }
  return out;
}

absl::StatusOr<Report> StageReport(Stage stage, const compiler::CompileOptions& copts,
                                   const compiler::CompileResult& r) {
  Report out;
  out.json =
      Json{{"stage", std::string(StageName(stage))}, {"settings", nullptr}, {"value", nullptr}};
  if (stage == Stage::kPolicy || stage == Stage::kPlan) {
    absl::StatusOr<std::string> text = ir::PlanToJson(r.plan);
    if (!text.ok()) return text.status();
    Json plan = Json::parse(*text);
    if (stage == Stage::kPolicy) {
      out.text.AddJson(plan["policy"].dump(2) + "\n");
      out.json["value"] = plan["policy"];
    } else {
      out.text.AddJson(*text);
      out.json["value"] = std::move(plan);
    }
    return out;
  }
  compiler::PolicySpec spec;
  if (stage == Stage::kSpec) {
    absl::StatusOr<compiler::ParsedConfig> parsed = compiler::ReadConfig(copts);
    if (!parsed.ok()) return parsed.status();  // read once already: only a file changed since
    spec = std::move(parsed->user);
  } else {
    spec = r.merged;
  }
  out.json["settings"] = Json::array();
  for (const StageSetting& s : SpecSettings(spec)) {
    out.text << s.key << " = " << s.value << "  # " << s.origin.Describe() << "\n";
    out.json["settings"].push_back(Json{{"key", s.key},
                                        {"value", s.secret ? Json(nullptr) : Json(s.value)},
                                        {"withheld", s.secret},
                                        {"origin", OriginJson(s.origin)}});
  }
  return out;
}

}  // namespace cwsc::driver
