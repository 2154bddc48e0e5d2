// min_supervisor: the least a supervising launcher can do — fork, exec
// argv[1..], wait, pass the status on. bench/run_overhead.sh runs bwrap
// through it (statically linked) to show what any design that keeps a
// parent process next to bwrap costs on this host, before doing any work.
//
//   min_supervisor /usr/bin/bwrap --ro-bind / / -- /bin/true
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  pid_t pid = fork();
  if (pid < 0) return 125;
  if (pid == 0) {
    execv(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 125;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
