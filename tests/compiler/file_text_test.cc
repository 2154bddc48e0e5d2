// ReadFileText: whole reads, the limit, and what each failure reports.
#include "compiler/file_text.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "gtest/gtest.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::compiler {
namespace {

using ::cwsc::testing::TempDir;
using ::cwsc::testing::WriteFile;

TEST(FileTextTest, ReadsTheWholeFileAcrossManyReads) {
  TempDir d;
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "line " + std::to_string(i) + "\n";  // > 16 KiB buffer
  WriteFile(d / "f", text);
  FileText t = ReadFileText(d / "f", {.limit = text.size()});
  EXPECT_TRUE(t.ok());
  EXPECT_EQ(t.data, text);
}

TEST(FileTextTest, MissingFileReportsTheOpenErrno) {
  TempDir d;
  FileText t = ReadFileText(d / "missing", {.limit = 100});
  EXPECT_FALSE(t.ok());
  EXPECT_EQ(t.open_errno, ENOENT);
  EXPECT_EQ(t.data, "");
}

TEST(FileTextTest, OneByteOverTheLimitIsTooLarge) {
  TempDir d;
  WriteFile(d / "f", "12345");
  EXPECT_TRUE(ReadFileText(d / "f", {.limit = 5}).ok());
  FileText t = ReadFileText(d / "f", {.limit = 4});
  EXPECT_TRUE(t.too_large);
  EXPECT_FALSE(t.ok());
  // The size check of regular_only catches it before reading.
  FileText r = ReadFileText(d / "f", {.limit = 4, .regular_only = true});
  EXPECT_TRUE(r.too_large);
  EXPECT_EQ(r.data, "");
}

TEST(FileTextTest, RegularOnlyRefusesAFifoWithoutBlockingAndADirectory) {
  TempDir d;
  ASSERT_EQ(mkfifo((d / "fifo").c_str(), 0600), 0);  // no writer: a blocking open would hang
  FileText f = ReadFileText(d / "fifo", {.limit = 100, .regular_only = true});
  EXPECT_TRUE(f.not_regular);
  EXPECT_FALSE(f.ok());
  FileText dir = ReadFileText(d.path(), {.limit = 100, .regular_only = true});
  EXPECT_TRUE(dir.not_regular);
}

TEST(FileTextTest, ADirectoryWithoutRegularOnlyIsAReadError) {
  TempDir d;
  FileText t = ReadFileText(d.path(), {.limit = 100});
  EXPECT_EQ(t.open_errno, 0);
  EXPECT_EQ(t.read_errno, EISDIR);
  EXPECT_FALSE(t.ok());
}

TEST(FileTextTest, NoFollowRefusesASymlinkAndFollowingReadsItsTarget) {
  TempDir d;
  WriteFile(d / "target", "secret");
  ASSERT_EQ(symlink((d / "target").c_str(), (d / "link").c_str()), 0);
  FileText nofollow = ReadFileText(d / "link", {.limit = 100, .no_follow = true});
  EXPECT_EQ(nofollow.open_errno, ELOOP);
  EXPECT_EQ(nofollow.data, "");
  FileText follow = ReadFileText(d / "link", {.limit = 100});
  EXPECT_TRUE(follow.ok());
  EXPECT_EQ(follow.data, "secret");
}

TEST(FileTextTest, ProcFilesWhoseStatSizeIsZeroAreReadWhole) {
  FileText t = ReadFileText("/proc/self/status", {.limit = 1 << 20});
  ASSERT_TRUE(t.ok());
  EXPECT_NE(t.data.find("\nSigIgn:\t"), std::string::npos);
}

}  // namespace
}  // namespace cwsc::compiler
