"""Pairwise human-preference sets: (dimension, preferred sample, other sample).

WikiEval (RAGAS paper, section 4) is the first adapter; another pairwise set only needs a
function returning ``PreferencePair``s, registered in ``DATASETS``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragmeter._json_rows import DuplicateKey, dotted, parse_json
from ragmeter._parquet import read_parquet
from ragmeter.errors import DataError, Problem
from ragmeter.sample import Sample

DIMENSIONS = ("faithfulness", "answer_relevance", "context_relevance")

# RAGAS paper (Es et al. 2023), Table 1, gpt-3.5-turbo-16k on WikiEval.
PAPER_TABLE1 = {
    "RAGAs": {"faithfulness": 0.95, "answer_relevance": 0.78, "context_relevance": 0.70},
    "GPT Score": {"faithfulness": 0.72, "answer_relevance": 0.52, "context_relevance": 0.63},
    "GPT Ranking": {"faithfulness": 0.54, "answer_relevance": 0.40, "context_relevance": 0.52},
}


@dataclass(frozen=True)
class PreferencePair:
    pair_id: str
    group: str  # source row: pairs of one group share texts, so they run together
    dimension: str
    preferred: Sample
    other: Sample


def _strip(text: str, prefix: str) -> str:
    text = (text or "").strip()
    return text[len(prefix) :].strip() if text.startswith(prefix) else text


def _array_rows(path: Path, problems: list[Problem]) -> list[tuple[int, int, dict[str, Any]]]:
    """The objects of a file holding one JSON array (``json.dump(rows, f, indent=2)``, pandas'
    ``to_json(orient="records")``), numbered from 1 as rows; each problem to ``problems``."""
    try:
        records = parse_json(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as exc:
        problems.append(Problem(None, None, f"not UTF-8 text: {exc.reason} at byte {exc.start}"))
        return []
    except DuplicateKey as exc:
        problems.append(Problem(None, dotted(exc.path) or None, exc.reason("the file")))
        return []
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        problems.append(Problem(None, None, f"invalid JSON: {exc.msg} ({where})"))
        return []
    out = []
    for n, record in enumerate(records, start=1):
        if isinstance(record, dict):
            out.append((n, n, record))
        else:
            kind = type(record).__name__
            problems.append(Problem(n, None, f"expected a JSON object, got {kind}", n))
    return out


def _read_rows(path: Path, problems: list[Problem]) -> list[tuple[int, int, dict[str, Any]]]:
    """(row, line, record) of each non-blank line, numbered from 1 as ``evaluate`` numbers
    them (rows skip blank lines, lines do not); each unreadable line goes to ``problems``,
    and a file without any row raises "no rows". A line is parsed without its line ending:
    with it, json placed the error of a line cut short at "column 1" of a next line. A
    Parquet file (WikiEval as Hugging Face ships it) or a JSON array is read whole, its rows
    numbered from 1."""
    if not path.is_file():  # a directory is there, but is no data file
        what = "is a directory, not a data file" if path.is_dir() else "file not found"
        raise DataError([Problem(None, "data", f"{what}: {path}")])
    out: list[tuple[int, int, dict[str, Any]]] = []
    with path.open("rb") as fh:
        head = fh.read(4096)
    whole, parquet = None, head.startswith(b"PAR1")
    if parquet:  # Hugging Face's file: read as text, "not UTF-8" every line
        whole = [(n, n, record) for n, record in enumerate(read_parquet(path), start=1)]
    elif head.decode("utf-8", "ignore").lstrip("\ufeff \t\r\n").startswith("["):
        whole = _array_rows(path, problems)  # a JSON array: an "invalid JSON" per line before
    if whole is not None:
        if not whole and not problems:
            what = "no rows: " + ("the file has none" if parquet else "the JSON array is empty")
            raise DataError([Problem(None, None, what)], source=str(path))
        return whole
    row = 0
    with path.open("rb") as fh:
        for line, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8-sig" if line == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                row += 1
                problems.append(
                    Problem(row, None, f"not UTF-8 text: {exc.reason} at byte {exc.start}", line)
                )
                continue
            if not text.strip():
                continue
            row += 1
            try:
                record = parse_json(text.rstrip("\r\n"))
            except DuplicateKey as exc:
                field = dotted(exc.path) or None
                problems.append(Problem(row, field, exc.reason("the line"), line))
                continue
            except json.JSONDecodeError as exc:
                problems.append(
                    Problem(row, None, f"invalid JSON: {exc.msg} (column {exc.colno})", line)
                )
                continue
            if not isinstance(record, dict):
                kind = type(record).__name__
                problems.append(Problem(row, None, f"expected a JSON object, got {kind}", line))
                continue
            out.append((row, line, record))
    if not out and not problems:
        raise DataError([Problem(None, None, "no rows: the file is empty")], source=str(path))
    return out


_PREFIXES = {
    "question": "Question:",
    "answer": "Answer:",
    "ungrounded_answer": "Answer:",
    "poor_answer": "Answer:",
}


def _blank(row: dict[str, Any]) -> list[tuple[str, str]]:
    """The fields of a row with nothing in them once read: a text of white space or of its
    prefix alone (``"Question: "``), a context list of blank strings. Why: they passed the
    "missing or empty" check, and the judge was asked about an empty question (a score
    anyway), or a blank answer made its pair a tie: a data error counted as a finding."""
    out = [
        (k, f"blank: nothing but white space or its {prefix!r} prefix")
        for k, prefix in _PREFIXES.items()
        if not _strip(row[k], prefix)
    ]
    out += [
        (k, "blank: every context in it is empty or white space")
        for k in ("context_v1", "context_v2")
        if not any(c.strip() for c in row[k])
    ]
    return out


def wikieval_pairs(path: str | Path) -> list[PreferencePair]:
    """WikiEval (RAGAS paper section 4): 50 rows, three pairs each; JSONL, a JSON array or
    Parquet."""
    path = Path(path)
    pairs: list[PreferencePair] = []
    problems: list[Problem] = []
    needed = ("question", "answer", "ungrounded_answer", "poor_answer", "context_v1", "context_v2")
    for n, line, row in _read_rows(path, problems):
        missing = [k for k in needed if not row.get(k)]
        if missing:
            problems.extend(Problem(n, k, "missing or empty", line) for k in missing)
            continue
        bad = [(k, "must be a string") for k in needed[:4] if not isinstance(row[k], str)]
        bad += [
            (k, "must be a list of strings")
            for k in needed[4:]
            if not isinstance(row[k], list) or not all(isinstance(c, str) for c in row[k])
        ]
        if bad:
            problems.extend(Problem(n, k, why, line) for k, why in bad)
            continue
        if blank := _blank(row):
            problems.extend(Problem(n, k, why, line) for k, why in blank)
            continue
        i = line - 1  # ids as before: the 0-based line of the source row
        q = _strip(row["question"], "Question:")
        qid = f"wikieval-{i}"

        def sample(
            answer: str, contexts: list[str], side: str, q: str = q, qid: str = qid
        ) -> Sample:
            return Sample(
                question=q,
                question_id=f"{qid}-{side}",
                answer=_strip(answer, "Answer:"),
                contexts=list(contexts),
            )

        v1, v2 = list(row["context_v1"]), list(row["context_v2"])
        pairs += [
            PreferencePair(
                f"{qid}-faithfulness",
                qid,
                "faithfulness",
                sample(row["answer"], v1, "answer"),
                sample(row["ungrounded_answer"], v1, "ungrounded"),
            ),
            PreferencePair(
                f"{qid}-context_relevance",
                qid,
                "context_relevance",
                sample(row["answer"], v1, "answer"),
                sample(row["answer"], v2, "context_v2"),
            ),
            PreferencePair(
                f"{qid}-answer_relevance",
                qid,
                "answer_relevance",
                sample(row["answer"], v1, "answer"),
                sample(row["poor_answer"], v1, "poor"),
            ),
        ]
    if problems:
        problems.sort(key=lambda p: p.line or 0)
        raise DataError(problems, source=str(path))
    return pairs


DATASETS: dict[str, Callable[[str | Path], list[PreferencePair]]] = {"wikieval": wikieval_pairs}
