"""The user's own faithfulness calibration (``options.faithfulness_calibration``).

Why: the package calibration (``prompts/faithfulness_calibration.json``) was fitted on
general-domain QA; in other domains (SciFact's scientific claims) its lexical terms are noise
and a refit on a few hundred of the user's own labels (``ragmeter meta-eval labels
--fit-calibration OUT.json``, the same schema) does better. The file is checked when the
settings are built (``metric_options.read_calibration_file``); here it is read for scoring.

It is named in a Score's details as ``<version>+sha256:<12 hex>``: two different files with
the same version never look alike. The calibration is applied after the judge, so the judge's
calls (and their cache keys) are the same whichever file is used.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ragmeter.errors import ResourceUnavailable
from ragmeter.metric_options import calibration_path, read_calibration_file
from ragmeter.metrics.judging import options_of
from ragmeter.metrics.support import Calibration, parse_calibration
from ragmeter.protocols import Resources

OPTION = "faithfulness_calibration"


def calibration_label(version: str, sha256: str) -> str:
    """What a Score's ``calibration`` says of a user's file: its version and content digest."""
    return f"{version}+sha256:{sha256[:12]}"


def user_calibration_of(resources: Resources | None, variant: str) -> Calibration | None:
    """The user's calibration when the option names a file and the variant is
    ``calibrated``, else None (the package's: faithfulness's own ``load_calibration``). With
    ``faithfulness_combine=judge`` the file is not read: it changes nothing there, so it
    cannot fail a score either."""
    value = options_of(resources).get(OPTION)
    if variant != "calibrated" or not value:
        return None
    return user_calibration(str(value))


def user_calibration(value: str) -> Calibration:
    """The calibration in the file ``value`` names; ResourceUnavailable (a failed score,
    naming the option and the file) when it went missing or bad after the settings checked
    it. Cached by the file's identity and modification time: read once per run, not per
    sample, yet a file rewritten between two runs of one process is read again."""
    path = calibration_path(value)
    try:
        st = path.stat()
    except OSError:
        st = None
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size) if st is not None else None
    return _load(value, key)


@lru_cache(maxsize=8)
def _load(value: str, key: tuple[str, int, int] | None) -> Calibration:
    """``key``: (resolved path, mtime in ns, size), None for a file that cannot be stat'ed
    (read anyway, for its error message; an error is never cached: lru_cache keeps results)."""
    try:
        doc, sha256 = read_calibration_file(value)
    except ValueError as exc:
        raise ResourceUnavailable(f"faithfulness: options.{OPTION}: {exc}") from None
    cal = parse_calibration(doc, str(value))
    return replace(cal, version=calibration_label(cal.version, sha256))
