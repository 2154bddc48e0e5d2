/* cwsc_spawn: run a command confined by a policy through libcwsc, as an
 * agent engine would (docs/embedding.md, "Running a plan"): compile against
 * the live host, spawn with an explicit environment (this program's own,
 * which the plan's allow-list filters: API keys stay out), forward Ctrl-C
 * and the other signals `cwsc run` forwards, and exit as `cwsc run` exits.
 *
 *   cc -std=c99 cwsc_spawn.c $(pkg-config --cflags --libs cwsc) -o cwsc_spawn
 *   ./cwsc_spawn POLICY MODE [--timeout SECONDS] -- PROGRAM ARGS...
 *
 * The command runs in the current directory. Exit status: the command's
 * (128+N for signal N), 124 after the timeout, 125 when the run was
 * refused, 2 for a bad policy. */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cwsc.h"

extern char** environ;

static int fail(int code, cwsc_diagnostics* diags) {
  fputs(cwsc_diagnostics_render(diags), stderr);
  cwsc_diagnostics_free(diags);
  return code;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s POLICY MODE [--timeout SECONDS] -- PROGRAM ARGS...\n", argv[0]);
    return 2;
  }
  double timeout = 0;
  int program = argc;
  for (int i = 3; i < argc; ++i) {
    if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
      timeout = atof(argv[++i]);
    } else if (strcmp(argv[i], "--") == 0) {
      program = i + 1;
      break;
    }
  }
  if (program >= argc) {
    fprintf(stderr, "%s: no program after --\n", argv[0]);
    return 2;
  }

  /* The signals to forward are read from a signalfd, beside the child's pidfd. */
  sigset_t forwarded;
  sigemptyset(&forwarded);
  sigaddset(&forwarded, SIGINT);
  sigaddset(&forwarded, SIGTERM);
  sigaddset(&forwarded, SIGHUP);
  sigaddset(&forwarded, SIGQUIT);
  /* A shell starts a background job with SIGINT ignored: an ignored signal
   * is never pending, so back to the default action first (blocked, it does
   * nothing but wait on the signalfd). */
  signal(SIGINT, SIG_DFL);
  signal(SIGQUIT, SIG_DFL);
  sigprocmask(SIG_BLOCK, &forwarded, NULL);
  int sfd = signalfd(-1, &forwarded, SFD_CLOEXEC);

  cwsc_diagnostics* diags = NULL;
  cwsc_facts* facts = cwsc_facts_live();
  cwsc_options* options = cwsc_options_new();
  cwsc_plan* plan = NULL;
  if (cwsc_compile_file(argv[1], CWSC_FORMAT_AUTO, argv[2], facts, options, &plan, &diags) !=
      CWSC_OK) {
    return fail(2, diags);
  }
  cwsc_diagnostics_free(diags);

  size_t env_count = 0;
  while (environ[env_count] != NULL) ++env_count;
  cwsc_spawn_options* so = cwsc_spawn_options_new();
  cwsc_spawn_options_set_program(so, (const char* const*)(argv + program),
                                 (size_t)(argc - program));
  cwsc_spawn_options_set_env(so, (const char* const*)environ, env_count);
  cwsc_spawn_options_set_stdio(so, 0, 1, 2);
  if (timeout > 0) cwsc_spawn_options_set_timeout(so, timeout, 2);
  cwsc_child* child = NULL;
  if (cwsc_spawn(plan, facts, so, &child, &diags) != CWSC_OK) {
    /* Nothing ran: the diagnostic says why (refused, no-sandbox, cannot-run). */
    return fail(125, diags);
  }
  fputs(cwsc_diagnostics_render(diags), stderr); /* warnings, if any */
  cwsc_diagnostics_free(diags);

  int done = 0;
  while (!done) {
    struct pollfd fds[2] = {{sfd, POLLIN, 0}, {cwsc_child_pidfd(child), POLLIN, 0}};
    poll(fds, 2, fds[1].fd >= 0 ? -1 : 100); /* a signal to forward, or the child ended */
    if (fds[0].revents & POLLIN) {
      struct signalfd_siginfo si;
      if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        cwsc_child_signal(child, (int)si.ssi_signo);
      }
    }
    cwsc_child_wait_timeout(child, 0, &done);
  }
  int code = cwsc_child_exit_code(child);
  if (cwsc_child_timed_out(child)) {
    fprintf(stderr, "%s: timed out after %g s\n", argv[0], timeout);
  } else if (cwsc_child_sandbox_denied(child)) {
    fprintf(stderr, "%s: sandbox denied: %s\n", argv[0], cwsc_child_denial_message(child));
  }
  cwsc_child_free(child);
  cwsc_spawn_options_free(so);
  cwsc_plan_free(plan);
  cwsc_options_free(options);
  cwsc_facts_free(facts);
  return code;
}
