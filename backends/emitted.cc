#include "backends/emitted.h"

namespace cwsc::backends {

std::vector<std::string> Texts(const EmittedArgv& argv) {
  std::vector<std::string> out;
  out.reserve(argv.size());
  for (const EmittedArg& a : argv) out.push_back(a.text);
  return out;
}

}  // namespace cwsc::backends
