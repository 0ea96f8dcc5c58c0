"""Every exception ragmeter raises, in one place.

The hierarchy says who must act. A ``UsageError`` is the caller's to fix (bad data, unknown
metric, bad settings) and is raised before any expensive work. A ``ResourceUnavailable``
names a model that cannot be had and how to get it. A ``JudgeError`` is a model call that
went wrong; metrics turn it into a failed Score with its reason, so it never ends a run.
A ``RunAborted`` does end a run: the judge is unreachable (refused, DNS, TLS, 401/403/404),
so every further call would fail too. What was computed stays in the call cache, and a
re-run of the same command resumes from there.

The CLI's exit codes follow the hierarchy: 2 for a ``UsageError``, 3 for a ``RunAborted``
(1 is a finished run with failed scores, see ``EvaluationResult.exit_code``).

    RagmeterError
    ├── UsageError                  the caller's input or configuration (CLI exit 2)
    │   ├── DataError               the data, or the requested metrics: every Problem at once
    │   ├── MetricError             an unknown metric or mode, an empty metric list
    │   ├── ConfigError             settings a backend cannot be built from (keys, URLs, specs)
    │   │   └── ExecutorUnavailable an executor whose extra is not installed (ray)
    │   ├── OutputError             --out cannot be written, or holds a run with other settings
    │   └── UnpairedRunsError       two runs to compare whose question_ids do not pair
    ├── PipelineFailed              the caller's pipeline raised during an integration's collect
    ├── ResourceUnavailable         a judge, embedder or model cannot be built or used
    │   ├── ModelNotAvailable       the embedded GGUF's chunk packages are missing or corrupt
    │   │   └── LlamaCppMissing     llama-cpp-python is not installed
    │   ├── EmbedderUnavailable     the embedder's packages or weights are missing
    │   ├── ReportUnavailable       the HTML report's packages (jinja2, matplotlib) are missing
    │   └── IntegrationUnavailable  an integration's extra (langchain, llamaindex, otel, mlflow)
    ├── RunAborted                  the run stopped early; computed calls stay cached (exit 3)
    │   └── JudgeUnreachable        preflight or circuit breaker: refused, DNS, TLS, 401/403/404
    │       └── JudgeFailing        20 calls in a row failed after all their retries (5xx, 429)
    └── JudgeError                  one model call went wrong
        ├── TransientError          raised by backends: worth retrying (429, 5xx, time-out)
        ├── PermanentError          raised by backends: retrying cannot help (400, 401, 404)
        ├── CallFailed              the engine gave up on a call after its retries
        ├── NoModelOutput           a wrapped judge or embedder answered with no output at all
        └── JudgeFailed             a reply a metric cannot use (error reply, wrong shape)

``Problem`` is not an exception: it is one located finding (row, line, field, message) that
a ``DataError`` carries, so the user sees every problem in one go.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input: where it is and what was expected."""

    row: int | None  # 1-based data row; None for file-level problems
    field: str | None
    message: str
    line: int | None = None  # 1-based line in the source file, when it differs from the row

    def __str__(self) -> str:
        where = []
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.line is not None and self.line != self.row:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        prefix = ", ".join(where) if where else "input"
        return f"{prefix}: {self.message}"


class RagmeterError(Exception):
    """Base class of ragmeter's own errors."""


# ---- the caller's to fix ---------------------------------------------------------------------


class UsageError(RagmeterError):
    """Bad input or configuration, found before any expensive work."""


class DataError(UsageError, ValueError):
    """The input data (or the requested metrics) cannot be used; lists every problem."""

    def __init__(
        self, problems: list[Problem], source: str | None = None, *, total: int | None = None
    ) -> None:
        """``total``: how many problems there were when only the first few were kept."""
        self.problems = list(problems)
        self.source = source
        self.total = max(total or 0, len(self.problems))
        head = f"{self.total} problem(s) in {source or 'the input'}"
        shown = self.problems[:50]
        lines = [head, *(f"  - {p}" for p in shown)]
        if self.total > len(shown):
            lines.append(f"  ... and {self.total - len(shown)} more")
        super().__init__("\n".join(lines))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (a Ray task, a process pool) as its problems, not its message: rebuilt from
        the message it read as one problem per character."""
        return (_data_error, (self.problems, self.source, self.total))


def _data_error(problems: list[Problem], source: str | None, total: int) -> DataError:
    return DataError(problems, source, total=total)


class MetricError(UsageError, ValueError):
    """An unknown metric name or bad metric parameter."""


class ConfigError(UsageError):
    """A backend cannot be built from the given settings."""


class UnpairedRunsError(UsageError, ValueError):
    """Two runs cannot be compared sample by sample: names the ids found in only one run."""

    def __init__(
        self,
        only_in_a: list[str],
        only_in_b: list[str],
        a: str = "A",
        b: str = "B",
        *,
        none_paired: bool = False,
        message: str | None = None,
    ) -> None:
        self.only_in_a = list(only_in_a)
        self.only_in_b = list(only_in_b)
        if message is None:
            parts = []
            for ids, name in ((self.only_in_a, a), (self.only_in_b, b)):
                if ids:
                    more = f" ... (+{len(ids) - 10})" if len(ids) > 10 else ""
                    # an id is shown cut at 60 characters: a 10,000-character one filled
                    # the terminal with one error
                    shown = ", ".join(i if len(i) <= 60 else f"{i[:57]}..." for i in ids[:10])
                    parts.append(f"{len(ids)} id(s) only in {name}: {shown}{more}")
            if none_paired:
                message = "; ".join(["the runs share no question_id: nothing to compare", *parts])
            else:
                message = (
                    "the runs do not pair: "
                    + "; ".join(parts)
                    + " (compare on the shared ids with intersect=True / --intersect)"
                )
        super().__init__(message)

    @classmethod
    def metrics(cls, unknown: list[str], shared: list[str]) -> UnpairedRunsError:
        return cls(
            [],
            [],
            message=f"metric(s) not in both runs: {', '.join(unknown)} "
            f"(shared: {', '.join(shared) or 'none'})",
        )


class ExecutorUnavailable(ConfigError, ImportError):
    """An executor was chosen whose extra is not installed (``executor="ray"`` without
    ``ragmeter[ray]``); the one-line message names the ``pip install`` that fixes it. A usage
    error: said before any work."""


class OutputError(UsageError):
    """The output directory cannot be written, or holds a run made with other settings."""


class PipelineFailed(RagmeterError):
    """Questions raised in the caller's pipeline during an integration's ``collect``.

    Every question is still asked, so one failing question no longer throws away the answers
    already captured: the samples of those that ran are on ``.samples`` (in question order)
    and each failure on ``.failures`` as ``(question, exception)``; the first exception is
    also the ``__cause__``. ``collect(..., on_error="skip")`` returns the samples with a
    warning instead."""

    def __init__(self, message: str, samples: list[Any], failures: list[tuple[str, BaseException]]):
        super().__init__(message)
        self.samples = samples
        self.failures = failures


# ---- a run that cannot go on -----------------------------------------------------------------


class RunAborted(RagmeterError):
    """The run stopped before its end; calls already answered stay in the cache.

    Never caught by metrics or the scheduler: it ends the run (CLI exit 3).
    """


class JudgeUnreachable(RunAborted):
    """The judge (or embedder) cannot be reached or refuses us: connection refused, DNS,
    TLS, HTTP 401/403/404, seen at preflight or on several consecutive calls."""

    def __init__(self, message: str, *, endpoint: str | None = None) -> None:
        super().__init__(message)
        self.endpoint = endpoint


class JudgeFailing(JudgeUnreachable):
    """The judge answers, but every call of ``CircuitBreaker.EXHAUSTED`` in a row failed
    after all its retries (HTTP 5xx, 429, time-outs): a server down behind a proxy. Why a
    run stops: it sent five requests per call for every row (470 of 480 wasted on 100 rows)
    and ended, hours later on a large set, as a run of failed scores."""


# ---- a model that cannot be had --------------------------------------------------------------


class ResourceUnavailable(RagmeterError):
    """A resource a metric needs is not configured or cannot load; the message says how."""


class ModelNotAvailable(ResourceUnavailable):
    """The embedded model cannot be assembled or verified; the message says how to fix it."""


class LlamaCppMissing(ModelNotAvailable):
    """llama-cpp-python, which runs the local judge, is not installed."""


class EmbedderUnavailable(ResourceUnavailable):
    """The embedder cannot be built; the message says how to fix it."""


class ReportUnavailable(ResourceUnavailable, ImportError):
    """The HTML report needs the ``report`` extra (jinja2, matplotlib)."""


class IntegrationUnavailable(ResourceUnavailable, ImportError):
    """An integration (LangChain, LlamaIndex, OpenInference traces, MLflow) was used without
    its extra installed; the one-line message names the ``pip install`` that fixes it."""


# ---- one model call that went wrong ----------------------------------------------------------


class JudgeError(RagmeterError):
    """A judge, embedder or scorer call that did not give a usable answer."""


class TransientError(JudgeError):
    """A fault worth retrying (rate limit, overload, dropped connection)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class PermanentError(JudgeError):
    """A fault that retrying cannot fix (bad request, auth, unknown model)."""


class CallFailed(JudgeError):
    """A call that did not produce model output, after all retries."""

    def __init__(
        self, reason: str, attempts: int, transient: bool, unreachable: bool = False
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.attempts = attempts
        self.transient = transient
        self.unreachable = unreachable  # refused, DNS, TLS, 401/403/404: see JudgeUnreachable


class NoModelOutput(JudgeError):
    """A wrapped judge or embedder reported an error without model output: not cached."""


class JudgeFailed(JudgeError):
    """A judge call came back with an error; the metric's Score becomes failed."""
