// The --json result channel of `cwsc run` and `cwsc exec`
// (runtime/result_channel.h): what is refused, and a planted symlink
// replaced rather than followed.
#include "runtime/result_channel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <string>

#include "gtest/gtest.h"
#include "tests/runtime/proc_helpers.h"

namespace cwsc::runtime {
namespace {

TEST(ResultChannelTest, RefusesWhatIsNoPlaceForAResult) {
  absl::StatusOr<ResultChannel> c = OpenResultChannel(std::nullopt, std::string("2"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "--json-fd: expected a descriptor number of 3 or more (0, 1 and 2 are the command's "
            "own), got '2'");
  c = OpenResultChannel(std::nullopt, std::string("999"));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "--json-fd 999: not an open descriptor");
  c = OpenResultChannel(std::string("out/.."), std::nullopt);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "-o out/..: not a file name");
  c = OpenResultChannel(std::string("/nonexistent-cwsc-dir/r.json"), std::nullopt);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "-o /nonexistent-cwsc-dir/r.json: cannot open the directory /nonexistent-cwsc-dir: "
            "No such file or directory");
  // Neither: a channel nothing is written to.
  c = OpenResultChannel(std::nullopt, std::nullopt);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->fd, -1);
  EXPECT_EQ(c->dir_fd, -1);
}

TEST(ResultChannelTest, ReplacesAPlantedSymlink) {
  testing::TempDir dir;
  testing::WriteFile(dir / "victim", "keep\n");
  ASSERT_EQ(symlink((dir / "victim").c_str(), (dir / "r.json").c_str()), 0);
  absl::StatusOr<ResultChannel> c = OpenResultChannel(dir / "r.json", std::nullopt);
  ASSERT_TRUE(c.ok()) << c.status();
  int err = 0;
  ASSERT_TRUE(WriteResult(*c, "{\"ok\":true}\n", &err)) << err;
  EXPECT_EQ(testing::ReadFileOr(dir / "victim"), "keep\n");
  EXPECT_EQ(testing::ReadFileOr(dir / "r.json"), "{\"ok\":true}\n");
  close(c->dir_fd);
}

TEST(ResultChannelTest, WritesOntoTheDescriptorAndSaysWhyNot) {
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  absl::StatusOr<ResultChannel> c = OpenResultChannel(std::nullopt, std::to_string(p[1]));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(fcntl(p[1], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);  // never the command's
  int err = 0;
  ASSERT_TRUE(WriteResult(*c, "line\n", &err));
  char buf[8] = {};
  EXPECT_EQ(read(p[0], buf, sizeof buf), 5);
  EXPECT_EQ(std::string(buf), "line\n");
  close(p[0]);
  signal(SIGPIPE, SIG_IGN);
  EXPECT_FALSE(WriteResult(*c, "line\n", &err));
  EXPECT_EQ(err, EPIPE);
  close(p[1]);
}

}  // namespace
}  // namespace cwsc::runtime
