"""Refusals in French, Spanish, German, Italian, Portuguese, Dutch, Russian, Chinese, Japanese.

Before, only English refusals were detected: for a French or Spanish pipeline refusal_rate was 0
however often it declined, faithfulness judged "Je ne sais pas." as a claim and answer relevance
did not call it noncommittal. Each language has refusals (the speaker's and the documents'
forms) that must decline, and answers using the same words that must not: a fact stated with
the same verbs, somebody else's ignorance, a refusal followed by a claim.
"""

from __future__ import annotations

import pytest

from judged_fakes import ScriptedJudge
from ragmeter.metrics.faithfulness import faithfulness
from ragmeter.metrics.refusal import declines
from ragmeter.metrics.registry import get_metric
from ragmeter.metrics.relevance import answer_relevance
from ragmeter.protocols import Resources
from ragmeter.sample import Sample

DECLINES = {
    "fr": [
        "Je ne sais pas.",
        "Je sais pas.",
        "Désolé, je ne sais pas.",
        "Le contexte ne mentionne pas la date de sa naissance.",
        "Les documents fournis ne précisent pas le montant de l’amende.",
        "Il n'y a pas assez d'informations dans le contexte pour répondre à cette question.",
        "Je ne peux pas répondre à cette question à partir des documents fournis.",
        "Cette information n'est pas mentionnée dans le contexte.",
        "Je ne suis pas sûr. Je vous conseille de consulter le site officiel.",
        "Aucune information à ce sujet dans les documents.",
        "Le texte n’en parle pas.",
    ],
    "es": [
        "No lo sé.",
        "No sé.",
        "No se.",
        "Lo siento, no tengo esa información.",
        "El contexto no menciona la fecha de la firma.",
        "Los documentos proporcionados no especifican el precio.",
        "No hay suficiente información en el contexto para responder.",
        "No estoy seguro. Le recomiendo consultar la página oficial.",
        "No se menciona en los documentos.",
        "No puedo responder a esta pregunta con la información proporcionada.",
    ],
    "de": [
        "Ich weiß es nicht.",
        "Ich weiss es nicht.",
        "Keine Ahnung.",
        "Der Kontext enthält keine Angaben zu seinem Geburtsjahr.",
        "Die bereitgestellten Dokumente erwähnen den Preis nicht.",
        "Das wird im Text nicht erwähnt.",
        "Aus den Dokumenten geht das leider nicht hervor.",
        "Ich kann diese Frage anhand des Kontexts nicht beantworten.",
        "Es tut mir leid, dazu liegen mir keine Informationen vor.",
        "Keine Angabe im Kontext.",
        "Ich bin mir nicht sicher. Bitte wenden Sie sich an den Kundendienst.",
    ],
    "it": [
        "Non lo so.",
        "Non so.",
        "Mi dispiace, non ho informazioni al riguardo.",
        "Il contesto non menziona la data di nascita.",
        "I documenti forniti non specificano il prezzo.",
        "Non è menzionato nel contesto.",
        "Non posso rispondere a questa domanda in base ai documenti.",
        "Non sono sicuro. Ti consiglio di consultare il sito ufficiale.",
        "Non ci sono abbastanza informazioni nel testo.",
    ],
    "pt": [
        "Não sei.",
        "Nao sei.",
        "Desculpe, não tenho essa informação.",
        "O contexto não menciona a data de fundação.",
        "Os documentos fornecidos não especificam o valor da multa.",
        "Não há informações suficientes no contexto para responder.",
        "Não tenho certeza. Recomendo consultar o site oficial.",
        "Isso não é mencionado nos documentos.",
        "Não consigo responder a essa pergunta com base no texto.",
    ],
    "nl": [
        "Ik weet het niet.",
        "Geen idee.",
        "Sorry, dat weet ik niet.",
        "De context vermeldt de datum niet.",
        "De gegeven documenten bevatten geen informatie over de prijs.",
        "Dat wordt in de tekst niet vermeld.",
        "Er is onvoldoende informatie in de context om deze vraag te beantwoorden.",
        "Ik kan deze vraag niet beantwoorden op basis van de documenten.",
        "Ik ben er niet zeker van. U kunt de officiële website raadplegen.",
    ],
    "ru": [
        "Не знаю.",
        "Я не знаю.",
        "Извините, я не знаю ответа на этот вопрос.",
        "В контексте не говорится о дате его рождения.",
        "В предоставленных документах нет информации о цене.",
        "Дата не указана.",
        "Я не могу ответить на этот вопрос на основе предоставленного текста.",
        "Недостаточно информации для ответа.",
        "Я не уверен. Рекомендую обратиться в службу поддержки.",
    ],
    "zh": [
        "我不知道。",
        "不知道。",
        "抱歉，我不知道。",
        "上下文中没有提到他的出生日期。",
        "提供的资料中没有关于价格的信息。",
        "根据提供的上下文，我无法确定这家公司是在哪一年成立的。",
        "文档未提及该产品的价格。",
        "信息不足，无法回答。",
        "我不确定。建议您查阅官方网站。",
    ],
    "ja": [
        "わかりません。",
        "分かりません。",
        "申し訳ありませんが、提供された文書にはその情報が記載されていません。",
        "文脈には彼の生年月日についての記載がありません。",
        "資料には価格に関する情報がありません。",
        "その点については言及されていません。",
        "申し訳ございませんが、お答えできません。",
        "確かではありません。公式サイトをご確認ください。",
    ],
}

ANSWERS = {
    "fr": [
        "La police ne couvre pas les inondations.",
        "Le président ne mentionne pas la crise dans son discours.",
        "Les enquêteurs n'avaient pas assez d'informations pour identifier le suspect.",
        "Il ne sait pas nager, selon sa mère.",
        "Je ne sais pas pourquoi, mais Rome est la capitale de l'Italie.",
        "Le contexte ne précise pas sa date de naissance. Il est mort en 1950.",
        "Le contexte ne mentionne pas la date, mais le traité a été signé par la France.",
        "Il a dit : « Je ne sais pas. » Puis il a quitté la salle sans répondre aux journalistes.",
        "Ce médicament n'est pas indiqué chez l'enfant de moins de six ans.",
    ],
    "es": [
        "El presidente no mencionó la fecha.",
        "El seguro no cubre los daños por inundación.",
        "No se permiten mascotas en el hotel.",
        "El informe no menciona Asia, pero sí Europa y África.",
        "No sé por qué, pero Madrid es la capital de España.",
        "El contexto no dice su edad. Nació en 1950.",
        "Ella respondió: «No lo sé», y se marchó de la sala.",
    ],
    "de": [
        "Der Vertrag enthält keine Angaben zu Überstunden, daher gilt das Arbeitszeitgesetz.",
        "Die Versicherung deckt keine Hochwasserschäden.",
        "Der Minister sagte nicht, wann die Reform kommt.",
        "Die Ermittler hatten nicht genügend Informationen, um den Täter zu identifizieren.",
        "Ich weiß es nicht genau, aber Berlin ist die Hauptstadt.",
        "Der Kontext nennt sein Alter nicht. Er wurde 1950 geboren.",
        "Er sagte: „Ich weiß es nicht.“ Danach verließ er den Saal ohne weitere Erklärung.",
    ],
    "it": [
        "Il sindaco non ha menzionato la data.",
        "L'assicurazione non copre i danni da alluvione.",
        "Non so perché, ma Roma è la capitale d'Italia.",
        "Il contesto non specifica l'età. È nato nel 1950.",
        "Lui non sa nuotare e non ha mai imparato.",
        "Il farmaco non è indicato nei bambini sotto i sei anni.",
        "Ha detto: «Non lo so.» Poi è uscito dalla stanza senza rispondere alle domande.",
    ],
    "pt": [
        "O seguro não cobre danos causados por enchentes.",
        "O presidente não mencionou a data da reunião.",
        "Não sei ao certo o motivo, mas Lisboa é a capital de Portugal.",
        "O contexto não diz a idade dele. Ele nasceu em 1950.",
        "O medicamento não é indicado para crianças menores de seis anos.",
        "Ela respondeu: «Não sei.» Depois saiu da sala sem falar com ninguém.",
    ],
    "nl": [
        "De verzekering dekt geen overstromingsschade.",
        "De minister zei niet wanneer de hervorming komt.",
        "De onderzoekers hadden onvoldoende informatie om de dader te identificeren.",
        "Ik weet het niet precies, maar Amsterdam is de hoofdstad.",
        "De context noemt zijn leeftijd niet. Hij is geboren in 1950.",
        "Het contract bevat geen informatie over overuren, dus geldt de wet.",
    ],
    "ru": [
        "Страховка не покрывает ущерб от наводнения.",
        "Президент не упомянул дату встречи.",
        "Я не знаю почему, но Москва является столицей России.",
        "В контексте не указан его возраст. Он родился в 1950 году.",
        "У следователей было недостаточно информации, чтобы установить личность преступника.",
        "Он сказал: «Не знаю». Потом он ушёл из зала, не ответив на вопросы журналистов.",
    ],
    "zh": [
        "我不知道他会来，所以我们没有准备晚饭，他很生气。",
        "罗马是意大利的首都。我不知道它的人口。",
        "上下文没有提到具体日期，但条约是由法国和西班牙签署的。",
        "总统在讲话中没有提到这次危机。",
        "由于信息不足，警方未能确定凶手的身份。",
        "他说：「我不知道。」然后就离开了会议室，没有回答记者的问题。",
    ],
    "ja": [
        "東京は日本の首都です。人口はわかりません。",
        "文書には日付の記載がありませんが、条約はフランスとスペインによって署名されました。",
        "彼は「わかりません」と答えて、部屋を出て行きました。その後、記者会見は中止されました。",
        "保険は洪水による損害を補償しません。",
        "社長はその件について何も話しませんでした。",
        "警察は犯人を特定できませんでした。",
    ],
}

# second round (mixed languages): LLM-style refusals, and answers that report somebody else's
# ignorance, a fact after "Aucune information", a refusal sentence then a claim
MORE_DECLINES = [
    "Lo siento, pero no puedo encontrar información sobre eso en el contexto proporcionado.",
    "Según el contexto proporcionado, no hay información sobre la fecha de fundación de la "
    "empresa.",
    "La información proporcionada no menciona quién ganó el premio en 2019.",
    "Je suis désolé, mais je n'ai pas d'informations sur ce sujet dans les documents fournis.",
    "Les informations fournies ne permettent pas de déterminer la date exacte.",
    "D'après les documents fournis, je ne peux pas répondre à cette question.",
    "Basierend auf dem bereitgestellten Kontext kann ich diese Frage nicht beantworten.",
    "Die bereitgestellten Informationen enthalten keine Angaben darüber, wer den Preis "
    "gewonnen hat.",
    "Leider kann ich keine Informationen zu diesem Thema finden.",
    "Mi dispiace, ma le informazioni fornite non contengono dettagli su questo argomento.",
    "Sulla base del contesto fornito, non è possibile determinare la data.",
    "Com base no contexto fornecido, não é possível determinar a data.",
    "Desculpe, mas as informações fornecidas não mencionam quem ganhou o prêmio.",
    "Op basis van de gegeven context kan ik deze vraag niet beantwoorden.",
    "На основе предоставленного контекста невозможно определить дату.",
    "К сожалению, в предоставленной информации нет ответа на этот вопрос.",
    "根据所提供的信息，无法确定该公司的成立日期。",
    "抱歉，根据提供的上下文，我无法回答这个问题。",
    "提供された情報に基づいて、この質問に答えることはできません。",
    "提供された文脈では、会社の設立日は明らかではありません。",
    "No es posible determinarlo.",
    "Je ne le sais pas, désolé.",
    "Euh… je ne sais pas trop.",
    "Je n’ai aucune idée.",
    "No tengo idea, lo siento mucho.",
    "Lo siento, pero no puedo responder a eso con la información disponible.",
    "Das kann ich leider nicht sagen.",
    "Tut mir leid, das weiß ich nicht. Bitte prüfen Sie die offizielle Website.",
    "Purtroppo il contesto fornito non specifica la data.",
    "Infelizmente não sei.",
    "Dat weet ik helaas niet.",
    "Извините, но я не могу ответить на этот вопрос.",
    "不好意思，我不太清楚。",
    "すみません、わかりません。",
    "Je suis désolé, mais les documents fournis ne contiennent aucune information sur ce sujet.",
    "D'après le contexte, il n'est pas possible de déterminer la date exacte.",
    "Le contexte ne permet pas de répondre à cette question.",
    "Je n'ai pas trouvé cette information dans les documents.",
    "Malheureusement, je ne dispose pas de suffisamment d'informations pour répondre.",
    "Aucune idée.",
    "Je ne peux pas le dire.",
    "Lo siento, pero el contexto proporcionado no contiene información sobre ese tema.",
    "Según los documentos, no es posible determinar la fecha.",
    "No tengo información suficiente para responder a esa pregunta.",
    "Desconozco la respuesta.",
    "No encontré información sobre eso en los documentos.",
    "Leider enthalten die bereitgestellten Dokumente keine Informationen zu diesem Thema.",
    "Das weiß ich leider nicht.",
    "Im Kontext wird das Gründungsjahr nicht genannt.",
    "Dazu gibt es im Kontext keine Informationen.",
    "Ich konnte in den Dokumenten keine Antwort finden.",
    "Mi dispiace, ma il contesto fornito non contiene informazioni su questo argomento.",
    "Il testo non ne parla.",
    "Purtroppo non riesco a trovare la risposta nei documenti.",
    "Infelizmente, o contexto fornecido não contém informações sobre esse assunto.",
    "Não encontrei a resposta nos documentos.",
    "Não faço ideia.",
    "Helaas bevat de context geen informatie over dit onderwerp.",
    "Dat staat niet in de tekst.",
    "Ik heb daar geen informatie over.",
    "К сожалению, в предоставленном контексте нет информации об этом.",
    "Понятия не имею.",
    "Об этом в документах ничего не сказано.",
    "很抱歉，提供的资料中没有相关信息。",
    "根据上下文，无法回答这个问题。",
    "文档中并未提及他的年龄。",
    "我无法回答这个问题。",
    "申し訳ございませんが、その質問にはお答えできません。",
    "提供された情報からは判断できません。",
    "不明です。",
    "Je ne sais pas. Pouvez-vous reformuler votre question ?",
    "Hmm, je ne suis pas certaine.",
    "Les passages fournis n'indiquent pas qui a écrit ce livre.",
    "Selon le contexte, il est impossible de répondre.",
    "Non précisé.",
    "No lo sé, lo siento.",
    "La información proporcionada no incluye detalles sobre el precio.",
    "No está especificado en el contexto.",
    "¿No lo sé? No, de verdad no lo sé.",
    "Nicht im Kontext angegeben.",
    "Darüber habe ich leider keine Informationen.",
    "Im bereitgestellten Text wird der Preis nicht angegeben.",
    "Non è specificato.",
    "Nel contesto non c'è alcuna informazione sulla data.",
    "Não é mencionado no contexto.",
    "Não sei dizer.",
    "Deze informatie wordt niet vermeld in de documenten.",
    "Weet ik niet.",
    "В тексте об этом не говорится.",
    "Я не могу найти эту информацию в документах.",
    "资料不足，无法判断。",
    "对不起，我不清楚。",
    "上下文没有说明这一点。",
    "この質問にはお答えできません。",
    "文書には記載がありません。",
    "情報が不足しているため、回答できません。",
]
MORE_ANSWERS = [
    # "not X but Y" ("sino", "sondern") states Y
    "El contexto no dice 1492 sino 1493.",
    "Der Kontext nennt nicht 1492, sondern 1493.",
    "Le contexte ne dit pas 1492 mais 1493.",
    "没有人知道巨石阵是谁建造的。",
    "On ne sait pas qui a construit Stonehenge.",
    # "it is not possible to determine" of the world, a refusal then a claim
    "Según el contexto, la empresa se fundó en 1998, pero no sé quién la fundó exactamente, "
    "aunque el texto menciona a Juan Pérez.",
    "Die Firma wurde 1998 gegründet; wer sie gegründet hat, weiß ich nicht.",
    "根据上下文，公司成立于1998年，但我不知道创始人是谁。",
    "Я не знаю точной даты, но компания была основана в 1990-х годах.",
    "Non so la data esatta, ma l'azienda è stata fondata negli anni '90.",
    "No es posible determinar la causa del incendio sin una investigación.",
    "Não é possível determinar a idade de um fóssil sem datação por carbono.",
    "Невозможно определить возраст без анализа.",
    "Non è possibile stabilire la causa senza un'autopsia.",
    # a sentence after the refusal that looks like advice but claims something
    "Ik weet het niet. Je kunt er met de trein komen.",
    "我不知道。你可以乘火车到达那里。",
    "わかりません。1日2回服用してください。",
    # "not mentioned" of something else than the documents, with a clause after it
    "Son nom n'est pas mentionné dans le testament, ce qui a surpris la famille.",
    "Le vaccin n'est pas disponible pour les enfants de moins de 5 ans.",
    "Le prix n'est pas indiqué sur l'étiquette, mais il est de 20 euros en magasin.",
    "La cause du décès n'est pas précisée par le rapport officiel de la police de Lyon, qui a "
    "ouvert une enquête.",
    "Su nombre no se menciona en el testamento, lo que sorprendió a la familia.",
    "No hay datos oficiales, según el ministerio, pero se estiman 300 heridos.",
    "Sein Name wird im Testament nicht erwähnt, was die Familie überraschte.",
    "Il suo nome non è menzionato nel testamento, il che ha sorpreso la famiglia.",
    "O nome dele não é mencionado no testamento, o que surpreendeu a família.",
    "Zijn naam wordt niet vermeld in het testament, wat de familie verraste.",
    "Его имя не упоминается в завещании, что удивило семью.",
    "他的名字没有出现在遗嘱中，这让家人很惊讶。",
    "彼の名前は遺言書に記載されていませんでした。",
    "Je ne sais pas. Mais Rome est la capitale.",
    "Les documents montrent que Rome est la capitale, mais je ne sais pas depuis quand.",
    "Je ne sais pas si vous connaissez Rome, mais c'est la capitale de l'Italie.",
    "Le contrat ne mentionne pas de clause de non-concurrence, donc le salarié est libre.",
    "Aucune information n'a été communiquée à la presse avant le 3 mai.",
    "El seguro no cubre inundaciones, así que el cliente debe pagar la reparación.",
    "No hay información oficial, pero la prensa informó de 12 muertos.",
    "Según los documentos, la empresa se fundó en 1998.",
    "Die Polizei weiß nicht, wer der Täter ist.",
    "Es gibt keine Hinweise auf Fremdverschulden, sagte die Polizei.",
    "La polizia non sa chi sia il colpevole.",
    "O relatório não menciona a Ásia.",
    "Geen enkele speler scoorde in de eerste helft.",
    "Полиция не знает, кто преступник.",
    "他不知道答案。",
    "我不知道他的名字，但他是一位著名的医生。",
    "彼は答えを知りませんでした。",
    "東京は日本の首都ですが、人口はわかりません。",
    "Il ne le sait pas encore : les résultats arrivent lundi.",
    "Elle ne sait pas nager, donc elle reste au bord.",
    "Je ne sais pas. Le traité a été signé en 1992.",
    "Le rapport n'indique pas de hausse des prix en 2023.",
    "Le ministre ne précise pas de date, mais promet une réforme en 2025.",
    "El documento de identidad no es necesario para menores de 14 años.",
    "Los expertos no saben si el virus es estacional.",
    "No sé. Madrid tiene 3,3 millones de habitantes.",
    "Der Patient weiß nicht, welches Medikament er genommen hat.",
    "Die Quelle des Flusses liegt in den Alpen.",
    "Ich weiß es nicht. Berlin hat 3,7 Millionen Einwohner.",
    "Non so. Roma ha 2,8 milioni di abitanti.",
    "Não sei. Lisboa tem 500 mil habitantes.",
    "Ik weet het niet. Amsterdam heeft 900.000 inwoners.",
    "Не знаю. В Москве живёт 13 миллионов человек.",
    "我不知道。北京有两千多万人口。",
    "わかりません。東京の人口は約1400万人です。",
    "Документы не были подписаны вовремя.",
    "Le contexte historique ne permettait pas une telle réforme.",
]


@pytest.mark.parametrize(
    "answer", [a for v in DECLINES.values() for a in v] + MORE_DECLINES, ids=lambda a: a[:40]
)
def test_refusals_in_other_languages_decline(answer: str) -> None:
    assert declines(answer) is not None


@pytest.mark.parametrize(
    "answer", [a for v in ANSWERS.values() for a in v] + MORE_ANSWERS, ids=lambda a: a[:40]
)
def test_answers_with_the_same_words_do_not_decline(answer: str) -> None:
    assert declines(answer) is None


def test_every_language_has_enough_cases() -> None:
    assert set(DECLINES) == set(ANSWERS)
    assert all(len(DECLINES[k]) >= 6 and len(ANSWERS[k]) >= 6 for k in DECLINES)


def test_cjk_length_counts_two_characters_a_word() -> None:
    """The 40-word limit holds for text without spaces: before, a whole Chinese paragraph
    counted as one word, so any length of it could be a "short" refusal."""
    from ragmeter.metrics.refusal_i18n import words  # new in refusal v9

    assert words("我不知道他会来。") == 4 and words("I don't know.") == 3
    assert declines("我不知道。" + "很抱歉。" * 9) is not None  # 31 characters: 16 words
    assert declines("我不知道。" + "很抱歉。" * 30) is None  # 94 characters: 47 words
    story = "我不知道。" + "他昨天去了北京参加会议，会上讨论了很多重要的问题。" * 4
    assert declines(story) is None


def test_an_english_question_answered_no_se_declines() -> None:
    assert get_metric("refusal_rate").compute(_sample("No sé.")).value == 1.0


def _sample(answer: str, question: str = "What is the capital of Italy?") -> Sample:
    return Sample(
        question_id="q",
        question=question,
        answer=answer,
        contexts=["Rome is the capital of Italy."],
    )


async def test_a_french_refusal_through_the_metrics() -> None:
    row = _sample("Je ne sais pas.", "Quelle est la capitale de l'Italie ?")
    assert get_metric("refusal_rate").compute(row).value == 1.0
    judge = ScriptedJudge(lambda t: 0.9)
    f = await faithfulness(row, Resources(judge=judge))
    assert f.status == "undefined" and "not applicable" in f.reason and f.details["declined"]
    ar = await answer_relevance(row, Resources(judge=judge))
    assert ar.value == 0.0 and ar.details["noncommittal"]
    assert not judge.log  # no judge call for either


async def test_a_french_answer_is_still_judged() -> None:
    row = _sample("Le contexte ne précise pas la date. Rome est la capitale.")
    judge = ScriptedJudge(lambda t: 0.9)
    f = await faithfulness(row, Resources(judge=judge))
    assert f.status == "ok" and judge.log
