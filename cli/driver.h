// The driver layer's headers as cli/ uses them: cli/ parses options, calls
// compiler/driver/ (compiles with the missing-facts rule, the expectation
// runner, diff, audit, target dispatch, why, a plan's artifact checked,
// lints, live probes, the reports of explain and why) and the
// other layers, and renders what they return (docs/architecture.md).
#ifndef CWSC_CLI_DRIVER_H_
#define CWSC_CLI_DRIVER_H_

#include <string>
#include <vector>

#include "compiler/driver/audit.h"
#include "compiler/driver/check.h"
#include "compiler/driver/check_report.h"
#include "compiler/driver/compile.h"
#include "compiler/driver/diff.h"
#include "compiler/driver/emit.h"
#include "compiler/driver/expect.h"
#include "compiler/driver/format.h"
#include "compiler/driver/lints.h"
#include "compiler/driver/live_probe.h"
#include "compiler/driver/names.h"
#include "compiler/driver/report.h"
#include "compiler/driver/stage.h"
#include "compiler/driver/verify.h"
#include "compiler/driver/why.h"

#endif  // CWSC_CLI_DRIVER_H_
