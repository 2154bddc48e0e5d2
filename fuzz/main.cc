// The libFuzzer entry of one target; CWSC_FUZZ_TARGET names its function in
// fuzz/targets.h (fuzz/meson.build builds one program per target).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cwsc::fuzz::CWSC_FUZZ_TARGET(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
