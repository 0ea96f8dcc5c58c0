"""`python -m ragmeter ...`: the command line.

The CLI is a leaf that no library module imports; this entry point runs it as a program
(``runpy``, the way ``python -m ragmeter.cli`` would) rather than importing it.
"""

import runpy
import sys

try:
    runpy.run_module("ragmeter.cli", run_name="__main__", alter_sys=True)
except KeyboardInterrupt:  # in runpy, before ragmeter.cli can catch it: exit 130, no traceback
    sys.stderr.write("interrupted\n")
    sys.exit(130)
