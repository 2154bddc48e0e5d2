// Where `cwsc run --json` and `cwsc exec --json` write their result
// (docs/runtime.md): a directory opened before the command starts (so the
// command cannot move the file elsewhere by swapping a path component) and a
// name in it, or a descriptor of the caller's. Nothing here prints: the
// caller says what failed.
#ifndef CWSC_RUNTIME_RESULT_CHANNEL_H_
#define CWSC_RUNTIME_RESULT_CHANNEL_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace cwsc::runtime {

struct ResultChannel {
  int dir_fd = -1;
  std::string name;
  std::string path;  // as given, for messages
  int fd = -1;       // --json-fd N, or -1
};

// OpenResultChannel opens `-o FILE`'s directory, or checks `--json-fd N`
// (a descriptor of 3 or more, open; it is made close-on-exec so the command
// never gets it). With neither, a channel that is never written.
absl::StatusOr<ResultChannel> OpenResultChannel(const std::optional<std::string>& output,
                                                const std::optional<std::string>& json_fd);

// WriteResult writes `line` onto the descriptor, or into a new file beside
// the target renamed over it (a symlink planted at the name is replaced,
// never followed). It returns false, with the errno of what failed in
// `*err`, when the line was not written.
bool WriteResult(const ResultChannel& c, const std::string& line, int* err);

}  // namespace cwsc::runtime

#endif  // CWSC_RUNTIME_RESULT_CHANNEL_H_
