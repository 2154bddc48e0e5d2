// Denial attribution (docs/behavior.md B-45, B-81): exact messages and the
// conservative rules, with stderr fed in awkward chunks.
#include "runtime/attribution.h"

#include <string>

#include "gtest/gtest.h"

namespace cwsc::runtime {
namespace {

StderrSummary Scan(const std::string& text, size_t chunk = 0) {
  StderrScanner s;
  if (chunk == 0) {
    s.Feed(text);
  } else {
    for (size_t i = 0; i < text.size(); i += chunk) s.Feed(std::string_view(text).substr(i, chunk));
  }
  return s.Summary();
}

TEST(AttributionTest, BwrapLineIsSetupFailure) {
  for (size_t chunk : {0, 1, 3, 7}) {
    StderrSummary s = Scan(
        "warming up\n   bwrap: Can't chdir to /tmp/w: No such file or directory\n"
        "bwrap: second\n",
        chunk);
    EXPECT_EQ(s.first_line, "warming up");
    Denial d = AttributeDenial("linux-bwrap", 1, s);
    EXPECT_TRUE(d.denied);
    EXPECT_EQ(d.message,
              "Bubblewrap could not create the sandbox: bwrap: Can't chdir to /tmp/w: No such "
              "file or directory");
  }
}

// bwrap's line quotes what the command named (a path, a program): a
// sandboxed command chose those bytes, so the message shows them escaped
// (ir/display.h) and cannot send a terminal escape or forge a line.
TEST(AttributionTest, QuotedBwrapLinesAreEscaped) {
  Denial d = AttributeDenial(
      "linux-bwrap", 1, Scan("bwrap: Can't mkdir /tmp/a\x1b[2J\xc2\x9b\xff\x7f: File exists\n"));
  EXPECT_TRUE(d.denied);
  EXPECT_EQ(d.message,
            "Bubblewrap could not create the sandbox: bwrap: Can't mkdir "
            "/tmp/a\\x1b[2J\\u009b\\xff\\x7f: File exists");
  Denial e = AttributeDenial(
      "linux-bwrap", 1, Scan("bwrap: execvp ./x\x1b]0;t\x07\xc2\x9b: No such file or directory\n"));
  EXPECT_EQ(e.exec_exit, 127);
  EXPECT_EQ(e.exec_message, "cannot run './x\\x1b]0;t\\x07\\u009b': No such file or directory");
}

TEST(AttributionTest, ReadOnlyFileSystemAnywhereEvenAcrossChunks) {
  for (size_t chunk : {0, 1, 2, 5, 11}) {
    StderrSummary s = Scan("touch: cannot touch '/etc/x': Read-only file system\n", chunk);
    EXPECT_TRUE(s.read_only_fs) << chunk;
    Denial d = AttributeDenial("linux-bwrap", 1, s);
    EXPECT_TRUE(d.denied);
    EXPECT_EQ(d.message, "Bubblewrap blocked access outside the writable workspace view.");
  }
}

TEST(AttributionTest, BwrapLineWinsOverReadOnly) {
  Denial d = AttributeDenial("launcher+bwrap", 1, Scan("Read-only file system\nbwrap: x\n"));
  EXPECT_EQ(d.message, "Bubblewrap could not create the sandbox: bwrap: x");
}

TEST(AttributionTest, GenericErrorsAreNotDenials) {
  for (const char* text :
       {"sh: 1: cannot create /x: Permission denied\n", "mount: Operation not permitted\n",
        "Bad system call\n", "curl: (7) Couldn't connect to server\n", ""}) {
    EXPECT_FALSE(AttributeDenial("linux-bwrap", 1, Scan(text)).denied) << text;
  }
}

TEST(AttributionTest, ExitZeroIsNeverADenial) {
  EXPECT_FALSE(AttributeDenial("linux-bwrap", 0, Scan("bwrap: warning\n")).denied);
}

TEST(AttributionTest, UnsandboxedRunIsNeverADenial) {
  StderrSummary s = Scan("bwrap: x\nRead-only file system\n");
  EXPECT_FALSE(AttributeDenial("none", 1, s).denied);
  EXPECT_FALSE(AttributeDenial("opensandbox", 1, s).denied);
  EXPECT_TRUE(AttributeDenial("none", 1, s).message.empty());
}

TEST(AttributionTest, BwrapMustStartTheLine) {
  EXPECT_FALSE(AttributeDenial("linux-bwrap", 1, Scan("error from bwrap: nothing\n")).denied);
}

TEST(AttributionTest, LastLineWithoutNewlineCounts) {
  StderrSummary s = Scan("bwrap: no newline", 4);
  EXPECT_EQ(s.first_bwrap_line, "bwrap: no newline");
  EXPECT_EQ(s.first_line, "bwrap: no newline");
}

TEST(AttributionTest, VeryLongLinesAreCapped) {
  std::string line = "bwrap: " + std::string(100000, 'a') + "\n";
  StderrSummary s = Scan(line, 4096);
  EXPECT_EQ(s.first_bwrap_line.size(), 4096u);
}

}  // namespace
}  // namespace cwsc::runtime
