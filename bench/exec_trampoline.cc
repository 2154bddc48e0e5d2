// exec_trampoline: exec argv[1..] in place, nothing else. bench/run_overhead.sh
// runs bwrap through it (statically linked) to show what one extra program
// start in front of bwrap costs on this host: the floor for any design that
// runs a program of its own before bwrap.
//
//   exec_trampoline /usr/bin/bwrap --ro-bind / / -- /bin/true
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  execv(argv[1], argv + 1);
  return 127;
}
