"""`python -m ragmeter.cli ...`."""

from ragmeter.cli import main

main()
