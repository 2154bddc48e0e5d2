// EmittedArg is one token of an emitted argv (or one line of an emitted
// profile) together with the Origin that produced it, so `cwsc explain` can
// justify every token.
#ifndef CWSC_BACKENDS_EMITTED_H_
#define CWSC_BACKENDS_EMITTED_H_

#include <string>
#include <vector>

#include "ir/origin.h"

namespace cwsc::backends {

struct EmittedArg {
  std::string text;
  ir::Origin origin;
  bool operator==(const EmittedArg&) const = default;
};

using EmittedArgv = std::vector<EmittedArg>;

// Texts drops the origins.
std::vector<std::string> Texts(const EmittedArgv& argv);

}  // namespace cwsc::backends

#endif  // CWSC_BACKENDS_EMITTED_H_
