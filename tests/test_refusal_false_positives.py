"""Answers that share words with a refusal must never be taken for refusals, in English and the
sixteen other languages, and the refusal checks stay linear on long answers.

Why: an answer taken for a refusal gets faithfulness "not applicable" (no claim judged) and
answer relevance 0, so a hallucinated answer that happens to say "No data was lost" or "The
police do not know the cause" was never checked: ragmeter hid the failure. A sentence wrongly
taken for a remark on what the documents lack is a claim never judged. The English version of
each case is the reference: where it answers, every translation must answer too.
"""

from __future__ import annotations

import time

import pytest

from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.refusal import declines
from ragmeter.metrics.speaker import says_context_lacks

# (English reference, the same answer in another language): all answers, none a refusal
ANSWERS = [
    # what happened to data, not a lack of it
    ("No data was lost during the migration.", "Er zijn geen gegevens verloren gegaan."),
    ("No information was leaked.", "Er is geen informatie gelekt."),
    ("No information was released.", "Geen informatie werd vrijgegeven."),
    ("No information was released.", "Keine Informationen wurden veröffentlicht."),
    ("No information was leaked.", "Ninguna información fue filtrada."),
    ("No information was disclosed.", "Nessuna informazione è stata divulgata."),
    ("No information was disclosed.", "Nenhuma informação foi divulgada."),
    ("There was no data lost.", "Geen gegevens gingen verloren."),
    # somebody else's ignorance or silence
    ("The police do not know the cause of the fire.", "警察は火災の原因を知りません。"),
    ("He answered that he did not know.", "彼はわからないと答えました。"),
    ("He said that he did not know.", "그는 모르겠다고 말했습니다."),
    ("The police have no information.", "Cảnh sát không có thông tin."),
    (
        "Regarding this case, the police gave no information.",
        "इस मामले के संदर्भ में पुलिस ने कोई जानकारी नहीं दी।",
    ),
    (
        "The text of the treaty does not mention Taiwan, which caused a dispute in 1972.",
        "संधि के पाठ में ताइवान का उल्लेख नहीं है, जिससे 1972 में विवाद हुआ।",
    ),
    (
        "There is no mention of casualties in the police report.",
        "警察の報告書には死傷者の記載はありません。",
    ),
    # "not available" of a place, "not known" of the world
    (
        "The vaccine is not available in the children's section of the hospital.",
        "Vaksin tidak tersedia di bagian anak rumah sakit.",
    ),
    ("It is not known who built the temple.", "Tidak diketahui siapa yang membangun kuil itu."),
    # a ticket, not a passage of the documents
    ("The tickets do not include baggage.", "Los pasajes no incluyen el equipaje."),
    ("The tickets do not include baggage.", "As passagens não incluem bagagem."),
    # "cannot be determined without ...": a claim about the world
    ("The cause cannot be determined without an autopsy.", "検死なしでは死因は判断できません。"),
    (
        "The cause cannot be determined without an autopsy.",
        "부검 없이는 사인을 판단할 수 없습니다.",
    ),
    # a refusal phrase in title marks names a work
    ('"I Don\'t Know" is a song.', "《我不知道》是一首歌。"),
    ('"I Don\'t Know" is a song.', "〈わかりません〉は曲です。"),
]

# still refusals: the fixes above are narrow
REFUSALS = [
    "No information was found in the documents.",
    "No information is available.",
    "No data.",
    "Er is geen informatie beschikbaar.",
    "Keine Informationen.",
    "Ninguna información.",
    "Nessuna informazione.",
    "Nenhuma informação.",
    "Geen informatie.",
    "知りません。",
    "私はその答えを知りません。",
    "わかりません。",
    "記載されていません。",
    "提供された資料には記載されていません。",
    "この質問にはお答えできません。",
    "모르겠습니다.",
    "Không có thông tin.",
    "Rất tiếc, không có thông tin.",
    "संदर्भ में उनकी जन्मतिथि का उल्लेख नहीं है।",
    "Tidak diketahui.",
    "Tidak tahu.",
    "我不知道。",
    "Los pasajes proporcionados no mencionan la fecha.",
    "As passagens fornecidas não mencionam a data.",
    "文脈なしでは回答できません。",
    "정보 없이는 답변할 수 없습니다.",
    "判断できません。",
]


@pytest.mark.parametrize(("english", "answer"), ANSWERS)
def test_answers_sharing_refusal_words_are_not_refusals(english: str, answer: str) -> None:
    assert declines(english) is None  # the reference behaviour
    assert declines(answer) is None
    assert not says_context_lacks(answer) or says_context_lacks(english)
    assert claims_of("What happened?", answer).judged  # and its claim is judged


@pytest.mark.parametrize("answer", REFUSALS)
def test_refusals_still_decline(answer: str) -> None:
    assert declines(answer) is not None


def _texts() -> list[str]:
    """20,000-character answers in each script: runs of spaces, of articles (no word counts,
    so the length limit never cut them), of punctuation, one unspaced word, a repeated phrase."""
    seeds = {
        "en": "the context does not ",
        "es": "el contexto no ",
        "it": "il contesto non ",
        "pt": "o contexto não ",
        "ru": "в контексте не ",
        "zh": "上下文没有",
        "ko": "문서에는",
        "ar": "السياق لا ",
        "hi": "संदर्भ में ",
        "vi": "tài liệu không ",
    }
    out = []
    for seed in seeds.values():
        out += [
            seed + " " * 20000 + "x",
            seed + "a " * 10000,
            (seed + ", ") * (20000 // (len(seed) + 2)) + "!",
            (seed * 20000)[:20000],
        ]
    out.append("문서에는" + "정보" * 10000)  # "(?:\S+\s+)" retried at every "정보": 2 s
    return out


@pytest.mark.parametrize("text", _texts(), ids=lambda t: f"{t[:12]!r}")
def test_long_answers_are_linear(text: str) -> None:
    # 4 s before (a "[^\w.!?]+$" over a run of spaces, "\S+\s+" over a word without spaces);
    # a few ms now: the bound is loose for a shared machine
    for check in (declines, says_context_lacks):
        start = time.perf_counter()
        check(text)
        assert time.perf_counter() - start < 0.25, check.__name__


# the speaker's own ignorance is no remark on what the documents lack, as "I am not sure." and
# "Nie jestem pewna." are not: before, these were dropped as such (a claim never judged)
OWN = [
    "Nie jestem pewien.",
    "Nie jestem przekonany.",
    "저는 모릅니다.",
    "Cevap veremem.",
    "Em không rõ.",
]


@pytest.mark.parametrize("sentence", OWN)
def test_own_ignorance_is_not_what_the_documents_lack(sentence: str) -> None:
    assert not says_context_lacks("I am not sure.")  # the reference behaviour
    assert not says_context_lacks(sentence)
    assert declines(sentence) is not None  # still a refusal when it is the whole answer
