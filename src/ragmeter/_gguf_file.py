"""Why the file a ``gguf:PATH`` judge names cannot be a model llama.cpp loads, judged from
its existence and first bytes alone (never loaded, never read whole).

Why a module of its own: the same check is made where a judged metric asks for the judge
(``availability.judge_problem``) and, whatever the metrics, where the judge's name is checked
(``executors.common.check_judge_form``): a path with a typo in it is refused in the same
words either way, and availability.py has no room left.
"""

from __future__ import annotations

from pathlib import Path

from ragmeter.backends.gguf_header import gguf_problem


def gguf_file_problem(judge_model: str) -> str | None:
    """What is wrong with the GGUF file at ``judge_model`` (``~`` expanded), as the words
    that follow "cannot be had: ", with the fix; None when its header looks right."""
    path = Path(judge_model).expanduser()
    if not path.is_file():  # a directory or a FIFO is there, but is no model
        what = "does not exist" if not path.exists() else "is not a file"
        return f"the GGUF file {path} {what}; give a .gguf file: --judge gguf:PATH"
    if (wrong := gguf_problem(path)) is not None:  # a first few bytes, not the file
        return (
            f"the file {path} is no GGUF model llama.cpp can load: it {wrong}; give a "
            ".gguf file: --judge gguf:PATH"
        )
    return None
