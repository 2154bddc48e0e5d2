// MakeLiveFacts: the HostFacts that answer from the running host (syscalls,
// environment, the wrapper probes), memoized per process. It is the only
// HostFacts that touches the host; the compiler sees it through the
// interface of compiler/facts/host_facts.h.
//
//   std::unique_ptr<compiler::HostFacts> facts = runtime::MakeLiveFacts();
//   compiler::PathInfo p = facts->Path("/home/me/proj");
#ifndef CWSC_RUNTIME_HOST_LIVE_FACTS_H_
#define CWSC_RUNTIME_HOST_LIVE_FACTS_H_

#include <memory>

#include "compiler/facts/host_facts.h"

namespace cwsc::runtime {

// MakeLiveFacts answers from the running host; answers are memoized.
std::unique_ptr<compiler::HostFacts> MakeLiveFacts();

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_HOST_LIVE_FACTS_H_
