"""Remarks on the documents and talk to the user in the nine refusal languages: not claims.

Before, ``speaker.says_context_lacks`` and ``speaker.talks_to_user`` read English only, so
"Le contexte ne mentionne pas sa population. Paris est la capitale." kept the remark as a
claim the judge found unsupported, and an honest French answer scored as a half-hallucination.
"""

from __future__ import annotations

import pytest

from judged_fakes import ScriptedJudge, statement_in
from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.faithfulness import faithfulness_judge
from ragmeter.metrics.refusal import declines
from ragmeter.metrics.speaker import says_context_lacks, talks_to_user
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

Q = "Parlez-moi de Paris."

# (a remark on what the documents lack, a claim) per language
LACKS = [
    ("Le contexte ne mentionne pas sa population.", "Paris est la capitale de la France."),
    ("Le contexte ne mentionne pas sa population.", "Paris est la capitale."),
    ("Les documents fournis ne précisent pas la date.", "Le traité a été signé à Rome."),
    ("Je n\u2019ai pas trouvé d\u2019information sur sa population.", "Paris est la capitale."),
    ("El contexto no menciona su población.", "París es la capital de Francia."),
    ("No hay información sobre su población.", "París es la capital de Francia."),
    ("Der Kontext erwähnt die Einwohnerzahl nicht.", "Paris ist die Hauptstadt Frankreichs."),
    ("Il contesto non menziona la popolazione.", "Parigi è la capitale della Francia."),
    ("O contexto não menciona a população.", "Paris é a capital da França."),
    ("De context vermeldt het aantal inwoners niet.", "Parijs is de hoofdstad van Frankrijk."),
    ("В контексте не говорится о населении.", "Париж является столицей Франции."),
    ("上下文没有提到它的人口。", "巴黎是法国的首都。"),
    ("文脈には人口についての記載がありません。", "パリはフランスの首都です。"),
]

# (a claim, talk to the user) per language
TALK = [
    ("Paris est la capitale de la France.", "J\u2019espère que cela vous aide !"),
    ("Paris est la capitale de la France.", "N'hésitez pas à me poser d'autres questions."),
    ("Paris est la capitale de la France.", "Bonne journée !"),
    ("París es la capital de Francia.", "¡Espero que esto te ayude!"),
    ("París es la capital de Francia.", "¡Que tengas un buen día!"),
    ("Paris ist die Hauptstadt Frankreichs.", "Ich hoffe, das hilft!"),
    ("Paris ist die Hauptstadt Frankreichs.", "Zögern Sie nicht, weitere Fragen zu stellen."),
    ("Parigi è la capitale della Francia.", "Spero che questo ti sia utile!"),
    ("Paris é a capital da França.", "Espero que isso ajude!"),
    ("Parijs is de hoofdstad van Frankrijk.", "Ik hoop dat dit helpt!"),
    ("Париж является столицей Франции.", "Надеюсь, это поможет!"),
    ("巴黎是法国的首都。", "希望对您有帮助！"),
    ("パリはフランスの首都です。", "お役に立てれば幸いです。"),
]

# the same words, claims about the world: kept
KEPT = [
    # a contract, not the documents, lacks the penalty: the answer's claim
    ("Le contrat ne mentionne pas de pénalité.", "Il a été signé en 2020."),
    ("La police ne couvre pas les inondations.", "Elle couvre les incendies."),
    ("Der Vertrag enthält keine Angaben zu Strafen.", "Er wurde 2020 unterzeichnet."),
    # questions about a contract, not an offer of more help
    (
        "Si vous avez des questions sur le contrat, l'article 5 s'applique.",
        "Il a été signé en 2020.",
    ),
    # English words that look like Spanish talk ("no dude en preguntar")
    ("No dude, Rome is the capital.", "It has been since 1871."),
    # the speaker's hope about the world, not about the answer helping (English keeps
    # "I hope he comes." as a claim too)
    ("J'espère qu'il viendra.", "Paris est la capitale."),
    ("Ich hoffe, dass er morgen kommt.", "Paris ist die Hauptstadt."),
    ("Espero que llueva mañana.", "París es la capital."),
    # "I don't know X" beside claims stays, as "I don't know its population." does in English
    ("Je ne sais pas sa population.", "Paris est la capitale."),
    # a claim after "but"
    (
        "Le contexte ne mentionne pas la date, mais le traité a été signé à Rome.",
        "Il compte 12 articles.",
    ),
    # somebody else's "not mentioned"
    (
        "Son nom n'est pas mentionné dans le testament, ce qui a surprit la famille.",
        "Il est mort en 1900.",
    ),
    # a wish that is a claim
    ("Bonne journée pour visiter le musée: le lundi.", "Il ferme à 18 h."),
    ("希望工程始于1989年。", "它资助了很多学生。"),
]


@pytest.mark.parametrize(("remark", "claim"), LACKS)
def test_a_remark_on_what_the_documents_lack_is_not_a_claim(remark, claim):
    assert says_context_lacks(remark)
    got = claims_of(Q, f"{remark} {claim}")
    assert got.original == [claim]
    assert [d["why"] for d in got.dropped] == ["says what the context lacks"]


@pytest.mark.parametrize(("claim", "talk"), TALK)
def test_talk_to_the_user_is_not_a_claim(claim, talk):
    assert talks_to_user(talk)
    got = claims_of(Q, f"{claim} {talk}")
    assert got.original == [claim]
    assert len(got.dropped) == 1


@pytest.mark.parametrize(("first", "second"), KEPT)
def test_the_same_words_about_the_world_stay_claims(first, second):
    assert not says_context_lacks(first) and not talks_to_user(first)
    assert claims_of(Q, f"{first} {second}").original == [first, second]


def test_a_refusal_with_talk_to_the_user_declines_and_one_with_a_claim_does_not():
    assert declines("Je ne sais pas. Bonne journée !") is not None
    assert declines("No lo sé. ¡Espero que esto te ayude de todos modos!") is not None
    assert declines("Je ne sais pas. Paris est la capitale.") is None


async def test_an_honest_french_answer_keeps_full_faithfulness():
    """End to end: the judge supports the claims and nothing else; before, the remark and the
    courtesy were judged too and faithfulness was 1/3."""
    supported = {"Paris est la capitale de la France."}
    judge = ScriptedJudge(lambda t: 0.95 if statement_in(t) in supported else 0.05)
    answer = (
        "Le contexte ne mentionne pas sa population. Paris est la capitale de la France. "
        "J'espère que cela vous aide !"
    )
    s = Sample(
        question_id="fr",
        question=Q,
        answer=answer,
        contexts=["Paris est la capitale de la France."],
    )
    got = await faithfulness_judge(s, Resources(judge=judge))
    assert got.value == pytest.approx(0.95)
    assert len(got.details["dropped"]) == 2
