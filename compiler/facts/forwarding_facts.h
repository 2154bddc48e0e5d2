// ForwardingFacts passes every question on to another HostFacts. A decorator
// derives from it and overrides only the questions it treats differently:
//
//   class CachingFacts : public ForwardingFacts {
//    public:
//     using ForwardingFacts::ForwardingFacts;
//     ProbeResult BwrapProbe() override;  // everything else goes to inner()
//   };
#ifndef CWSC_COMPILER_FACTS_FORWARDING_FACTS_H_
#define CWSC_COMPILER_FACTS_FORWARDING_FACTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "compiler/facts/host_facts.h"

namespace cwsc::compiler {

class ForwardingFacts : public HostFacts {
 public:
  // `inner` is not owned and must outlive this object.
  explicit ForwardingFacts(HostFacts* inner) : inner_(inner) {}

  std::string Platform() override { return inner_->Platform(); }
  UserInfo User() override { return inner_->User(); }
  uint32_t Uid() override { return inner_->Uid(); }
  std::string Cwd() override { return inner_->Cwd(); }
  std::optional<std::string> Env(absl::string_view name) override { return inner_->Env(name); }
  bool EnvIsSet(absl::string_view name) override { return inner_->EnvIsSet(name); }
  const PathInfo& Path(absl::string_view path) override { return inner_->Path(path); }
  void ExpectPaths(size_t n) override { inner_->ExpectPaths(n); }
  std::optional<std::string> ReadFile(absl::string_view path) override {
    return inner_->ReadFile(path);
  }
  ProbeResult BwrapProbe() override { return inner_->BwrapProbe(); }
  int LandlockAbi() override { return inner_->LandlockAbi(); }
  ProbeResult SeatbeltProbe() override { return inner_->SeatbeltProbe(); }
  std::optional<std::string> DarwinUserCacheDir() override { return inner_->DarwinUserCacheDir(); }
  LauncherUser LauncherUserOf(const std::vector<std::string>& launcher) override {
    return inner_->LauncherUserOf(launcher);
  }
  ProbeResult LauncherProbe(const std::vector<std::string>& launcher,
                            const std::vector<std::string>& bwrap_argv) override {
    return inner_->LauncherProbe(launcher, bwrap_argv);
  }
  std::vector<std::string> UnlistedPaths() const override { return inner_->UnlistedPaths(); }
  const std::shared_ptr<ir::ConsultedArena>& Records() override { return inner_->Records(); }

 protected:
  HostFacts& inner() { return *inner_; }

 private:
  HostFacts* inner_;
};

}  // namespace cwsc::compiler

#endif  // CWSC_COMPILER_FACTS_FORWARDING_FACTS_H_
