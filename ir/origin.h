// Origin records why a plan element exists: the config key (with its file,
// line and column), the environment variable, the permission mode, a host
// fact or a built-in default that produced it. Every element of a LaunchPlan
// and every token a backend emits carries one, so `cwsc explain` can justify
// each argv token and each SBPL line.
//
//   Origin o = Origin::Config("sandbox_mode", "cfg.toml", 3, 16);
//   o.Describe()  ->  "config sandbox_mode at cfg.toml:3:16"
#ifndef CWSC_IR_ORIGIN_H_
#define CWSC_IR_ORIGIN_H_

#include <string>

#include "ir/shared_string.h"

namespace cwsc::ir {

struct Origin {
  enum class Kind { kDefault, kConfig, kManaged, kProject, kEnv, kMode, kFact, kCli };

  Kind kind = Kind::kDefault;
  SharedString detail;  // key, variable, mode, fact or default being described
  SharedString file;    // config file for kConfig/kManaged/kProject, else empty
  int line = 0;         // 1-based; 0 when there is no position
  int col = 0;          // 1-based; 0 when there is no position

  static Origin Default(std::string what) { return {Kind::kDefault, std::move(what), {}, 0, 0}; }
  static Origin Env(std::string var) { return {Kind::kEnv, std::move(var), {}, 0, 0}; }
  static Origin Mode(std::string what) { return {Kind::kMode, std::move(what), {}, 0, 0}; }
  static Origin Fact(std::string what) { return {Kind::kFact, std::move(what), {}, 0, 0}; }
  static Origin Cli(std::string what) { return {Kind::kCli, std::move(what), {}, 0, 0}; }
  static Origin Config(SharedString key, SharedString file, int line, int col) {
    return {Kind::kConfig, std::move(key), std::move(file), line, col};
  }

  // Describe renders the origin in one line for explain output and messages.
  std::string Describe() const;
  // KindName is the stable JSON spelling of `kind` ("config", "env", ...).
  static const char* KindName(Kind kind);

  bool operator==(const Origin&) const = default;
};

}  // namespace cwsc::ir

#endif  // CWSC_IR_ORIGIN_H_
