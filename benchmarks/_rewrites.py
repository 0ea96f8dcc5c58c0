"""How the visible sets' answers are rewritten for the robustness checks of
faithfulness_visible.py: the same content in another form, whose claims should be the
answer's as written (so its score should be too).

- ``glue``: context sentences joined without a space ("end.Next");
- ``lower_tokenized``: lower case, punctuation and clitics as tokens ("i do n't know .");
- ``cited``: citation markers and a closing sources list;
- ``framed``: "According to the context, ...";
- ``reasoned``: a reasoning model's working before the answer, in one of three forms.
"""

from __future__ import annotations

import re

_SPACE_AFTER_STOP = re.compile(r"(?<=[a-z0-9)][.!?]) +(?=[A-Z][a-z]+[\s,;:'])")


def glue(text: str) -> str:
    """The text with the space after each sentence's full stop removed ("end. Next" ->
    "end.Next") where the next sentence starts with a capitalised word."""
    return _SPACE_AFTER_STOP.sub("", text)


_CLITIC = re.compile(r"(?i)(n't|'(?:s|re|ve|m|ll|d))\b")
# A mark ending a word, not the full stop of an abbreviation or initial ("e.g.", "J.", "Jr."),
# which tokenizers keep in the word.
_PUNCT_END = re.compile(r"(?<=\S)(?<!\.\w)(?<!\b\w)(?<!\bjr)([.,!?;:]+)(?=\s|$)")


def lower_tokenized(text: str) -> str:
    """The text as dialogue corpora and their models often write it: lower case, punctuation
    and clitics as tokens of their own ("i do n't know . it 's in paris !")."""
    text = _CLITIC.sub(r" \1", text.lower()).replace("n 't", " n't")
    return _PUNCT_END.sub(r" \1", text)


_CITE_STYLES = (" [1]", " [1][2]", " (Source 1)", "\u30101\u2020source\u3011")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def cited(answer: str, n: int) -> str:
    """The answer as a pipeline told to cite writes it: a marker before each sentence's final
    mark (a style per item ``n``: "[1]", "[1][2]", "(Source 1)", "【1†source】") and, for every
    other item, a closing "Sources:" list."""
    style = _CITE_STYLES[n % len(_CITE_STYLES)]
    parts = []
    for sent in _SENTENCE_END.split(answer.strip()):
        end = len(sent.rstrip(".!?"))
        parts.append(sent[:end] + style + sent[end:])
    out = " ".join(parts)
    return out + ("\n\nSources:\n[1] Retrieved passage 1" if n % 2 else "")


_FRAMES = (
    "According to the context, ",
    "Based on the provided documents, ",
    "The passage states that ",
    "As mentioned in the context, ",
)
_LOWER_FIRST = {"the", "it", "a", "an", "they", "he", "she", "this", "there", "in", "on", "its"}


def framed(answer: str, n: int) -> str:
    """The answer as a pipeline told to answer from the context often writes it: its first
    sentence inside an attribution frame ("According to the context, ...", a frame per item)."""
    text = answer.strip()
    first = text.split(" ", 1)[0]
    if first.lower() in _LOWER_FIRST:
        text = text[:1].lower() + text[1:]
    return _FRAMES[n % len(_FRAMES)] + text


def item_of(row: dict) -> str:
    return str(row["metadata"].get("item") or row["question_id"])


def lower_tokenized_row(row: dict, which: str) -> dict:
    out = {**row, "answer": lower_tokenized(row["answer"])}
    if which == "all":
        out["question"] = lower_tokenized(row["question"])
        out["contexts"] = [lower_tokenized(c) for c in row["contexts"]]
    return out


def _closest_sentence(question: str, contexts: list[str]) -> str:
    """The context sentence sharing most words with the question (what a trace quotes)."""
    from ragmeter.text import split_sentences, tokens

    q = set(tokens(question))
    sentences = [s for c in contexts for s in split_sentences(c)]
    return max(sentences, key=lambda s: len(q & set(tokens(s))), default="")


def reasoned(row: dict, n: int) -> dict:
    """The row's answer after a reasoning model's working, in the form of item ``n``:

    0. ``<think>TRACE</think>`` then the answer (tags left in by the serving stack);
    1. ``TRACE</think>`` then the answer (a chat template that opens the block in the prompt,
       as DeepSeek-R1's does);
    2. no tags: talk about answering, then "Final answer: ANSWER".

    TRACE quotes the context sentence closest to the question (a supported claim if judged),
    says the context mentions nothing else (a refusal phrase) and asks itself a question; it is
    the same for every answer of an item, so the answers compared with each other share it.
    """
    quote = _closest_sentence(row["question"], row["contexts"]).strip()
    trace = (
        f"Okay, the user is asking about this. The context says: {quote} Hmm, is there "
        "anything else about it? The context does not mention anything else. So I can answer."
    )
    answer = row["answer"].strip()
    form = n % 3
    if form == 0:
        text = f"<think>\n{trace}\n</think>\n\n{answer}"
    elif form == 1:
        text = f"{trace}\n</think>\n\n{answer}"
    else:
        talk = "Okay, so the user is asking about this. Let me check the context."
        text = f"{talk} Let me think step by step.\n\nFinal answer: {answer}"
    return {**row, "answer": text}


def wrapped(row: dict, n: int) -> dict:
    """The row's answer in the wrapping of item ``n``, as pipelines deliver answers:

    0. JSON from structured output: ``{"answer": ANSWER, "sources": [1, 2]}``;
    1. HTML: ``<p>ANSWER</p>``, its first word in ``<b>``, "&amp;" for "&";
    2. a markdown blockquote after a "TL;DR:" label: ``> TL;DR: ANSWER``;
    3. "The answer is: ANSWER".
    """
    import json

    answer = row["answer"].strip()
    form = n % 4
    if form == 0:
        text = json.dumps({"answer": answer, "sources": [1, 2]}, ensure_ascii=False)
    elif form == 1:
        first, _, rest = answer.partition(" ")
        body = f"<b>{first}</b> {rest}".strip().replace("&", "&amp;")
        text = f"<p>{body}</p>"
    elif form == 2:
        text = f"> TL;DR: {answer}"
    else:
        text = f"The answer is: {answer}"
    return {**row, "answer": text}


def chatty(row: dict, n: int) -> dict:
    """The row's answer as a chat assistant delivers it, in the wrapping of item ``n`` (a full
    stop added to an answer without final punctuation, as a sentence before the next one):

    0. "Certainly! ANSWER I hope this helps! Let me know if you have any other questions. 😊";
    1. "✅ ANSWER" then "For more information, see https://en.wikipedia.org/wiki/Special:Search.
       Have a great day!";
    2. "ANSWER[^1]" then the footnote "[^1]: Retrieved passage 1." and "Disclaimer: I am an AI
       and may make mistakes.";
    3. "Great question! ANSWER Read more [here](https://example.org/source). Feel free to ask
       if you need more details. Happy to help!"
    """
    answer = row["answer"].strip()
    if answer and answer[-1].isalnum():  # "Warsaw" -> "Warsaw.": a sentence, before the next
        answer += "."
    form = n % 4
    if form == 0:
        text = (
            f"Certainly! {answer} I hope this helps! Let me know if you have any other "
            "questions. \U0001f60a"
        )
    elif form == 1:
        text = (
            f"\u2705 {answer}\n\nFor more information, see "
            "https://en.wikipedia.org/wiki/Special:Search. Have a great day!"
        )
    elif form == 2:
        text = (
            f"{answer}[^1]\n\n[^1]: Retrieved passage 1.\n\n"
            "Disclaimer: I am an AI and may make mistakes."
        )
    else:
        text = (
            f"Great question! {answer} Read more [here](https://example.org/source). Feel free "
            "to ask if you need more details. Happy to help!"
        )
    return {**row, "answer": text}


def structured(row: dict, n: int) -> dict:
    """The row's answer in the sections a structured prompt asks for, the form of item ``n``:

    0. "**Answer:** ANSWER" then "**Confidence:** high";
    1. "ANSWER (confidence: 90%)";
    2. "Explanation: ANSWER" then "Confidence level: 0.9";
    3. the answer as one quotation: "“ANSWER”".
    """
    answer = row["answer"].strip()
    form = n % 4
    if form == 0:
        text = f"**Answer:** {answer}\n**Confidence:** high"
    elif form == 1:
        text = f"{answer} (confidence: 90%)"
    elif form == 2:
        text = f"Explanation: {answer}\nConfidence level: 0.9"
    else:
        text = f"\u201c{answer}\u201d"
    return {**row, "answer": text}


_PLURAL = ("are", "were", "do", "have")
_NOT = {"can": "can't", "will": "won't", "shall": "shan't"}


def polar_reply(row: dict, n: int) -> dict:
    """A bare "yes" / "no" answer as chat assistants write it, the form of item ``n`` (other
    answers unchanged):

    0. "Absolutely!" / "Absolutely not.";
    1. an elliptical clause after the yes or no, with the question's auxiliary: "Yes, they
       are." / "No, it doesn't.";
    2. "Certainly." / "Of course not.";
    3. the clause alone: "It is." / "They weren't.".
    """
    answer = row["answer"].strip().rstrip(".!").lower()
    if answer not in ("yes", "no"):
        return row
    yes = answer == "yes"
    aux = row["question"].split()[0].lower()
    they = aux in _PLURAL or " both " in f" {row['question'].lower()} "
    subject = "they" if they else "it"
    negated = _NOT.get(aux, aux + "n't")
    clause = f"{subject} {aux}" if yes else f"{subject} {negated}"
    form = n % 4
    if form == 0:
        text = "Absolutely!" if yes else "Absolutely not."
    elif form == 1:
        text = f"{'Yes' if yes else 'No'}, {clause}."
    elif form == 2:
        text = "Certainly." if yes else "Of course not."
    else:
        text = clause[:1].upper() + clause[1:] + "."
    return {**row, "answer": text}


def it_is(row: dict, n: int) -> dict:
    """A short answer to a wh-question ("Rome", "1896") framed by a dummy subject, the form of
    item ``n`` (other answers unchanged): "It's X.", "That would be X.", "It is X.", "That's
    X."."""
    from ragmeter.metrics.claims import claims_of, last_turn
    from ragmeter.metrics.polar import question_kind

    answer = row["answer"].strip().rstrip(".")
    judged = claims_of(row["question"], row["answer"]).judged
    if len(judged) != 1 or not judged[0].startswith("The answer to "):
        return row
    if question_kind(last_turn(row["question"])) != "wh":
        return row
    form = ("It's {}.", "That would be {}.", "It is {}.", "That's {}.")[n % 4]
    return {**row, "answer": form.format(answer[:1].upper() + answer[1:])}


def attributed(row: dict, n: int) -> dict:
    """The row's answer with the words around a claim that LLMs add, the form of item ``n``:

    0. an attribution after it: "..., according to the provided context." (a short answer:
       "Rome, according to the context.");
    1. a hedge before it: "I believe the capital is Rome." ("Probably Rome.");
    2. "... (as stated in the passage)." ("Rome is the correct answer.");
    3. "Most likely, the capital is Rome." ("My answer is Rome.").
    """
    from ragmeter.metrics.claims import SHORT_WORDS
    from ragmeter.text import tokens

    answer = row["answer"].strip()
    form = n % 4
    if not answer or answer.lower().startswith(("i believe", "i think")):
        return row
    if answer.endswith("?") and form in (0, 2):  # nothing to attribute after a question
        return row
    short = len(tokens(answer)) <= SHORT_WORDS and "\n" not in answer
    body = answer.rstrip(".!")
    end = "" if body.endswith("?") else "."
    first_lower = body[:1].lower() + body[1:] if body[:2] != body[:2].upper() else body
    if short:
        text = (
            f"{body}, according to the context.",
            f"Probably {body}.",
            f"{body} is the correct answer.",
            f"My answer is {body}.",
        )[form]
    elif form == 0:
        text = f"{body}, according to the provided context."
    elif form == 1:
        text = f"I believe {first_lower}{end}"
    elif form == 2:
        text = f"{body} (as stated in the passage)."
    else:
        text = f"Most likely, {first_lower}{end}"
    return {**row, "answer": text}
