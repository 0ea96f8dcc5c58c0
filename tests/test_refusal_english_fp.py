"""English answers that share a refusal's words must not be taken for refusals, and the refusals
with the same words must still decline.

Why: an answer taken for a refusal gets faithfulness "not applicable" (no claim judged) and
answer relevance 0, so a hallucinated answer that happened to name the song "I Don't Know", or
to say what the city archives lack, was never checked. Three readings were wrong (2026-11-28,
review): "I don't know" inside another clause (a title, reported speech), "There is / was no
information / data ..." placed in another record than the provided material, and someone
else's text ("The treaty's text does not mention X", while "The text of the treaty does not
mention X" already answered). A sentence of a longer answer wrongly read as a remark on what the
documents lack was dropped from the claims: that is checked too.
"""

from __future__ import annotations

import pytest

from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.refusal import declines
from ragmeter.metrics.speaker import says_context_lacks

Q = "What happened?"

# "I don't know" inside another clause: a title or reported speech
TITLES = [
    "The song I Don't Know was released in 1980.",
    "The patient answered I don't know to every question.",
    "Her album I Don't Know Why topped the charts.",
    "The film I Don't Know How She Does It stars Sarah Jessica Parker.",
    "The witness said I don't know when asked about the car.",
    "When asked, he replied I don't know.",
    "Every student wrote I don't know on the last exam question.",
    "The band's single I Dont Know reached number five.",
    "Ozzy Osbourne's I Don't Know opens the album Blizzard of Ozz.",
    "The poll's most common answer was I don't know, at 41 percent.",
]
# "There is / was no information / data" in another record than the provided material
ELSEWHERE = [
    "There is no information about X in the city archives.",
    "There was no data on the flight recorder.",
    "There is no information about the victims in the police report.",
    "There was no information on the website about refunds.",
    "There is no data in the registry for 1920.",
    "There was no data on the hard drive.",
    "There are no details about the contract in the newspaper.",
    "There is no mention of casualties in the police report.",
    "There was no information about the ship in the port's records.",
    "No information about the crew was found in the ship's logbook.",
    "There is no information in the treaty's text about Crimea.",
]
# someone else's text: a claim, as "The text of the treaty does not mention X." is
OWNED = [
    "The treaty's text does not mention Crimea.",
    "The text of the treaty does not mention Crimea.",
    "The company's documents do not mention the merger.",
    "The Bible's text does not mention Christmas trees.",
    "The constitution's text does not say anything about parties.",
    "The law's text does not specify a penalty.",
    "The author's sources do not mention Napoleon.",
    "Their documents do not mention the sale.",
    "His sources do not say where he was born.",
    "The treaty's text makes no mention of Crimea.",
    "The court's documents are silent on the motive.",
]
ANSWERS = TITLES + ELSEWHERE + OWNED

# the refusals with the same words: the fixes are narrow
REFUSALS = [
    "I don't know.",
    "Sorry, I don't know the answer.",
    "Honestly, I don't know.",
    "Unfortunately I don't know.",
    "I'm afraid I don't know.",
    "I'm sorry but I don't know.",
    "Sorry I don't know.",
    "Based on the provided context I don't know the answer.",
    "I don't know, sorry.",
    "I do not know who won.",
    "To be honest I don't know.",
    "At the moment I don't know.",
    "I must admit I don't know.",
    "Rome? I don't know.",
    "There is no information on the report's author.",
    "There is no information about the website's owner in the context.",
    "There is no data on the website's traffic.",
    "There is no information about this in the provided documents.",
    "There is no information about that.",
    "There is no information.",
    "There is no data.",
    "There is no information on this topic.",
    "There is no information about his time in the army.",
    "There is no information about the city archives in the documents.",
    "There is no information in my records about that.",
    "No information is available.",
    "The text does not mention his age.",
    "The context does not say.",
    "The documents make no mention of Crimea.",
    "The provided passages do not mention the date.",
    "The documents are silent on the motive.",
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_answers_are_not_refusals(answer: str) -> None:
    assert declines(answer) is None
    assert claims_of(Q, answer).judged  # and its claim is judged


@pytest.mark.parametrize("answer", ELSEWHERE + OWNED)
def test_not_a_remark_on_the_documents(answer: str) -> None:
    # inside a longer answer it was dropped as what the documents lack: a claim never judged
    assert not says_context_lacks(answer)
    judged = claims_of(Q, f"The ship sank in 1912. {answer}").judged
    assert len(judged) == 2, judged


@pytest.mark.parametrize("answer", REFUSALS)
def test_refusals_still_decline(answer: str) -> None:
    assert declines(answer) is not None


@pytest.mark.parametrize(
    "remark",
    [
        "There is no information about his age.",
        "There is no information about his age in the provided documents.",
        "The text does not mention his age.",
    ],
)
def test_remarks_on_the_documents_still_dropped(remark: str) -> None:
    assert says_context_lacks(remark)
    judged = claims_of(Q, f"The ship sank in 1912. {remark}").judged
    assert len(judged) == 1 and "1912" in judged[0], judged


# the same answers in the other languages where the construction exists: answers as in English
I18N_ANSWERS = [
    (
        "The song I Don't Know was released in 1980.",
        "La chanson Je ne sais pas est sortie en 1980.",
    ),
    (
        "The patient answered I don't know to every question.",
        "Le patient a répondu je ne sais pas à chaque question.",
    ),
    ("The song I Don't Know was released in 1980.", "Das Lied Ich weiß es nicht erschien 1980."),
    (
        "The patient answered I don't know to every question.",
        "Der Patient antwortete ich weiß es nicht auf jede Frage.",
    ),
    (
        "The patient answered I don't know to every question.",
        "De patiënt antwoordde ik weet het niet op elke vraag.",
    ),
    ("The song I Don't Know was released in 1980.", "La canción No lo sé se publicó en 1980."),
    (
        "The patient answered I don't know to every question.",
        "El paciente respondió no lo sé a cada pregunta.",
    ),
    ("The song I Don't Know was released in 1980.", "La canzone Non lo so è uscita nel 1980."),
    ("The song I Don't Know was released in 1980.", "A música Não sei foi lançada em 1980."),
    ("The song I Don't Know was released in 1980.", "Песня Я не знаю вышла в 1980 году."),
    (
        "There is no information about X in the city archives.",
        "Il n'y a aucune information sur X dans les archives de la ville.",
    ),
    (
        "There is no information about X in the city archives.",
        "No hay información sobre X en los archivos de la ciudad.",
    ),
    (
        "There is no information about X in the city archives.",
        "Es gibt keine Informationen über X im Stadtarchiv.",
    ),
    (
        "There is no information about X in the city archives.",
        "Non ci sono informazioni su X negli archivi della città.",
    ),
    (
        "There is no information about X in the city archives.",
        "Não há informações sobre X nos arquivos da cidade.",
    ),
    (
        "There is no information about X in the city archives.",
        "Er is geen informatie over X in het stadsarchief.",
    ),
    (
        "There is no information about X in the city archives.",
        "Нет информации об X в городском архиве.",
    ),
    ("The text of the treaty does not mention Crimea.", "Текст договора не упоминает Крым."),
    (
        "The company's documents do not mention the merger.",
        "Документы компании не упоминают слияние.",
    ),
]
I18N_REFUSALS = [
    "Je ne sais pas.",
    "Désolé, je ne sais pas.",
    "Malheureusement je ne sais pas.",
    "Ich weiß es nicht.",
    "Tut mir leid, ich weiß es nicht.",
    "Ik weet het niet.",
    "Helaas ik weet het niet.",
    "No lo sé.",
    "Sinceramente no lo sé.",
    "Non lo so.",
    "Purtroppo non lo so.",
    "Não sei.",
    "Infelizmente não sei.",
    "Я не знаю.",
    "К сожалению, я не знаю.",
    "Il n'y a aucune information à ce sujet.",
    "Il n'y a aucune information sur X dans les documents fournis.",
    "No hay información sobre X en los documentos proporcionados.",
    "Es gibt keine Informationen dazu.",
    "Non ci sono informazioni su questo.",
    "Não há informações sobre isso.",
    "Er is geen informatie over X in de documenten.",
    "Нет информации об этом в контексте.",
    "Текст не упоминает его возраст.",
    "Документы прямо не упоминают дату.",
    "Предоставленные документы не упоминают дату.",
]


@pytest.mark.parametrize(("english", "answer"), I18N_ANSWERS)
def test_other_languages_answer_as_english_does(english: str, answer: str) -> None:
    assert declines(english) is None  # the reference behaviour
    assert declines(answer) is None
    assert not says_context_lacks(answer)
    assert len(claims_of(Q, f"The ship sank in 1912. {answer}").judged) == 2


@pytest.mark.parametrize("answer", I18N_REFUSALS)
def test_other_languages_refusals_still_decline(answer: str) -> None:
    assert declines(answer) is not None
