/* cwsc_argv: compile a policy through libcwsc and print the bubblewrap argv
 * the way `cwsc compile --target bwrap --format nul` does (each token
 * followed by a NUL byte).
 *
 *   cc cwsc_argv.c $(pkg-config --cflags --libs cwsc) -o cwsc_argv
 *   ./cwsc_argv POLICY MODE [--facts FILE] [-- PROGRAM ARGS...]
 *
 * Without --facts the policy is compiled against the live host. Errors are
 * printed as the cwsc program prints them; the exit status is the
 * cwsc_status (2 bad input, 3 refused, 4 no bwrap argv). */
#include <stdio.h>
#include <string.h>

#include "cwsc.h"

static int fail(cwsc_status status, cwsc_diagnostics* diags) {
  fputs(cwsc_diagnostics_render(diags), stderr);
  cwsc_diagnostics_free(diags);
  return (int)status;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s POLICY MODE [--facts FILE] [-- PROGRAM ARGS...]\n", argv[0]);
    return 1;
  }
  const char* policy_path = argv[1];
  const char* mode = argv[2];
  const char* facts_path = NULL;
  int program = argc;
  for (int i = 3; i < argc; ++i) {
    if (strcmp(argv[i], "--facts") == 0 && i + 1 < argc) {
      facts_path = argv[++i];
    } else if (strcmp(argv[i], "--") == 0) {
      program = i + 1;
      break;
    }
  }

  cwsc_diagnostics* diags = NULL;
  cwsc_facts* facts = NULL;
  cwsc_status s;
  if (facts_path) {
    s = cwsc_facts_load_file(facts_path, &facts, &diags);
    if (s != CWSC_OK) return fail(s, diags);
    cwsc_diagnostics_free(diags);
  } else {
    facts = cwsc_facts_live();
  }

  cwsc_options* options = cwsc_options_new();
  cwsc_options_set_program(options, (const char* const*)(argv + program), (size_t)(argc - program));

  /* Parse once: an engine keeps the policy and the facts for every command. */
  cwsc_policy* policy = NULL;
  s = cwsc_policy_load_file(policy_path, CWSC_FORMAT_AUTO, options, &policy, &diags);
  if (s != CWSC_OK) return fail(s, diags);
  cwsc_diagnostics_free(diags);

  cwsc_plan* plan = NULL;
  s = cwsc_compile(policy, mode, facts, options, &plan, &diags);
  if (s != CWSC_OK) return fail(s, diags);
  fputs(cwsc_diagnostics_render(diags), stderr); /* warnings and notes */
  cwsc_diagnostics_free(diags);

  cwsc_argv* out = NULL;
  s = cwsc_plan_argv(plan, CWSC_TARGET_BWRAP, &out, &diags);
  if (s != CWSC_OK) return fail(s, diags);
  cwsc_diagnostics_free(diags);
  for (size_t i = 0; i < cwsc_argv_count(out); ++i) {
    const char* token = cwsc_argv_at(out, i);
    fwrite(token, 1, strlen(token) + 1, stdout); /* with its NUL */
  }

  cwsc_argv_free(out);
  cwsc_plan_free(plan);
  cwsc_policy_free(policy);
  cwsc_options_free(options);
  cwsc_facts_free(facts);
  return fflush(stdout) == 0 ? 0 : 1;
}
