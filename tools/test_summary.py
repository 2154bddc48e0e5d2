#!/usr/bin/python3
"""Print the plain closing line `N passed, N failed, N skipped` from Meson's
JUnit logs (one or more: the sums over all of them), counting the GoogleTest
cases that really ran (a GTEST_SKIP case counts as skipped), and exit 1 on
any failure or when no case ran. A log that cannot be read counts as one
failure: a build whose suites never ran must not pass silently."""
import sys
import xml.etree.ElementTree as ET

paths = sys.argv[1:] or ["build/meson-logs/testlog.junit.xml"]
passed = failed = skipped = 0
for path in paths:
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"test summary: cannot read {path}: {e}", file=sys.stderr)
        failed += 1
        continue
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            failed += 1
        elif "skipped" in tags:
            skipped += 1
        else:
            passed += 1
    # A suite that crashed before reporting its cases shows up as a testsuite
    # with errors/failures but no testcase children: count it as one failure.
    for suite in root.iter("testsuite"):
        if not list(suite.iter("testcase")) and (
            int(suite.get("failures", 0)) or int(suite.get("errors", 0))
        ):
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed or passed == 0 else 0)
