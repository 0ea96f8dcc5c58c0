"""`python -m ragmeter ...`: the command line.

The CLI is a leaf that no library module imports; this entry point runs it as a program
(``runpy``, the way ``python -m ragmeter.cli`` would) rather than importing it.
"""

import runpy

runpy.run_module("ragmeter.cli", run_name="__main__", alter_sys=True)
