"""Refusals in French, Spanish, German, Italian, Portuguese, Dutch, Russian, Chinese, Japanese.

Why: refusal detection (``refusal.py``) read English only, so for a French or Spanish RAG
pipeline ``refusal_rate`` said 0% however often it declined, faithfulness judged "Je ne sais
pas." as a claim (a low score, as if it were a hallucination) and answer relevance did not call
it noncommittal. The rules are the English ones: the speaker's "I don't know / I'm not sure / I
cannot answer" declines anywhere; "does not say / mention / contain" only with the documents as
subject ("Le contexte ne mentionne pas la date." declines, "La police ne couvre pas les
inondations." and "Der Vertrag enthält keine Angaben zu ..." answer); "not enough information"
only as a verdict on answering ("... pour répondre", at the answer's end), never as somebody
else's lack ("Les enquêteurs n'avaient pas assez d'informations pour identifier le suspect.").

Text is read with the apostrophe made ASCII (``refusal.declines`` does it), accents optional
where users drop them ("je ne suis pas sur", "No se", "Nao sei", "Ich weiss es nicht").
Chinese and Japanese have no spaces: their phrases match as substrings, a sentence is cut into
clauses at commas, and every clause around the refusal must decline, be a courtesy or a frame
on the documents ("根据提供的上下文，"), so "我不知道他会来，所以我们没有准备晚饭。" ("I didn't
know he would come, so we made no dinner.") answers. ``words`` counts two CJK characters as a
word, so the length limit means about the same for them as for spaced languages.
"""

from __future__ import annotations

import math
import re

from ragmeter.metrics.refusal_i18n_phrases import REFUSAL
from ragmeter.text import tokens

# Han and kana: no spaces between words (Korean spaces its words: its tokens count as they are)
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_PUNCT = re.compile(r"[\u3000-\u303f\uff00-\uffef]")


def words(text: str) -> int:
    """Words of ``text`` for the length limit: its tokens, and one per two CJK characters.
    Text without CJK characters counts exactly as ``len(tokens(text))``."""
    cjk = len(_CJK.findall(text))
    if not cjk:
        return len(tokens(text))
    rest = _CJK_PUNCT.sub(" ", _CJK.sub(" ", text))
    return len(tokens(rest)) + math.ceil(cjk / 2)


# A claim after "but" answers, as in English: "Je ne sais pas pourquoi, mais Rome est la
# capitale.", "El contexto no menciona la fecha, pero el tratado se firmó en 1992."
_CONTRAST = re.compile(
    r"\b(?:mais|cependant|toutefois|néanmoins|pourtant|pero|sino|sin\s+embargo|no\s+obstante|aber|"
    r"sondern|bensì|"
    r"jedoch|allerdings|ma|però|tuttavia|mas|porém|contudo|entretanto|todavia|maar|echter|"
    r"но|однако|зато)\b|但是|但|不过|不過|然而|可是|しかし|でも|ただし|けれども|けど",
    re.IGNORECASE,
)
_CONCESSION = re.compile(
    r"\b(?:bien\s+que|même\s+si|aunque|si\s+bien|obwohl|auch\s+wenn|wenngleich|anche\s+se|"
    r"sebbene|benché|embora|ainda\s+que|hoewel|ook\s+al|хотя)\b[^.;!?]*$|(?:虽然|雖然|尽管|儘管)"
    r"[^。！？]*$",
    re.IGNORECASE,
)
_DOCS_ANY = re.compile(
    r"\b(?:contexte|documents?|textes?|sources?|passages?|extraits?|contexto|documentos?|textos?|"
    r"fuentes?|pasajes?|fragmentos?|Kontext\w*|Dokument\w*|Quellen?|Unterlagen|contesto|"
    r"documenti|testi|fonti|brani|estratti|trechos?|context|documenten|teksten|bronnen|"
    r"контекст\w*|документ\w*|текст\w*|источник\w*)\b|上下文|文档|文檔|文件|资料|資料|材料|文中|"
    r"根据|根據|提供|文脈|コンテキスト|文書|ドキュメント|テキスト|本文",
    re.IGNORECASE,
)
# an apology, thanks or "unfortunately" as a whole sentence or clause: claims nothing
_COURTESY = re.compile(
    r"^\W*(?:(?:je\s+suis\s+)?(?:vraiment\s+|sincèrement\s+)?d[ée]sol[ée]e?s?|"
    r"malheureusement|excusez-moi|pardon|merci(?:\s+pour\s+[^.!?,]{0,40})?|"
    r"lo\s+(?:siento|lamento)(?:\s+mucho)?|lamentablemente|desafortunadamente|perd[oó]n|"
    r"disculpe?|gracias(?:\s+por\s+[^.!?,]{0,40})?|(?:es\s+)?tut\s+mir\s+(?:sehr\s+)?leid|leider|"
    r"entschuldigung|danke(?:\s+für\s+[^.!?,]{0,40})?|mi\s+dispiace(?:\s+molto)?|purtroppo|"
    r"spiacente|scusa(?:te|mi)?|grazie(?:\s+per\s+[^.!?,]{0,40})?|desculpe?|lamento|"
    r"infelizmente|sinto\s+muito|obrigad[oa](?:\s+pela?\s+[^.!?,]{0,40})?|het\s+spijt\s+me|"
    r"helaas|sorry|excuses|bedankt(?:\s+voor\s+[^.!?,]{0,40})?|извините|простите|к\s+сожалению|"
    r"спасибо(?:\s+за\s+[^.!?,]{0,40})?|(?:很|非常)?(?:抱歉|对不起|對不起|遗憾|遺憾)|不好意思|"
    r"(?:大変)?申し訳(?:ありません|ございません)(?:が)?|すみません(?:が)?|残念ながら|"
    r"ごめんなさい)\W*$",
    re.IGNORECASE,
)
# advice to look elsewhere, never a claim
_ADVICE = re.compile(
    r"^\W*(?:je\s+vous\s+(?:conseille|recommande|invite|suggère)|vous\s+(?:pouvez|pourriez|"
    r"devriez)\s+(?:peut-être\s+)?(?:consulter|vérifier|contacter|vous\s+adresser|chercher|"
    r"regarder)|veuillez|n'hésitez\s+pas|(?:le|les|te|os)\s+(?:recomiendo|sugiero|aconsejo)|"
    r"(?:puede|podr[ií]a|deber[ií]a|puedes)\s+(?:consultar|revisar|contactar|verificar|buscar)|"
    r"(?:le\s+|te\s+)?recomiendo|(?:por\s+favor|no\s+dude)|bitte|(?:sie|du)\s+(?:können|könnten|"
    r"sollten|kannst|solltest)\s+(?:\w+\s+){0,4}?(?:nachsehen|prüfen|nachschlagen|kontaktieren|"
    r"wenden|fragen|konsultieren)|ich\s+empfehle|(?:le|ti|vi)\s+(?:consiglio|suggerisco)|"
    r"(?:può|potrebbe|puoi|dovrebbe)\s+(?:consultare|verificare|contattare|controllare)|"
    r"(?:recomendo|sugiro)|(?:você\s+|o\s+senhor\s+|a\s+senhora\s+)?(?:pode|poderia|deveria)\s+"
    r"(?:consultar|verificar|contatar|contactar|procurar)|(?:u|je)\s+kunt\s+(?:\w+\s+){0,4}?(?:raadplegen|"
    r"contacteren|bekijken|nakijken|navragen|opzoeken|controleren)|ik\s+raad|"
    r"(?:рекомендую|советую|попробуйте|обратитесь|вы\s+можете\s+(?:обратиться|проверить|"
    r"посмотреть|уточнить))|(?:建议|建議|请|請|您可以|你可以).{0,15}?(?:查阅|查閱|咨询|諮詢|联系|"
    r"聯繫|查看|参考|參考|访问|訪問|参阅|參閱)|(?:ご確認|お問い合わせ|ご参照)|.{0,40}(?:確認|問い合わせ|"
    r"参照|ご覧)(?:して)?(?:ください|下さい)\W*$)",
    re.IGNORECASE,
)
# quotation marks of other languages: « ... », „...“, 「...」, 『...』
QUOTED = re.compile(
    r"\u00ab[^\u00bb]*\u00bb|\u201e[^\u201c\u201d]*[\u201c\u201d]|「[^」]*」|『[^』]*』"
)
_CLAUSE = re.compile(r"[,，、;；:：]")


def no_claim(piece: str) -> bool:
    """A sentence that claims nothing in these languages: an apology, advice, a question."""
    p = piece.strip()
    return bool(_COURTESY.match(p) or _ADVICE.match(p) or p.endswith(("?", "？")))


def _claims_cjk(piece: str, m: re.Match[str]) -> bool:
    """Chinese and Japanese: every clause around the refusal must decline or claim nothing;
    one before it may also be a frame on the documents ("根据提供的上下文，")."""
    # the refusal's own clause may hold its object, before it in Japanese ("人口はわかりません")
    before = _CLAUSE.split(_CONTRAST.sub("，", piece[: m.start()]))[:-1]
    rest = _CONTRAST.split(piece[m.end() :], maxsplit=1)
    after = _CLAUSE.split(rest[0], maxsplit=1)[1:] + rest[1:]
    for c in before:
        if not (_COURTESY.match(c) or _DOCS_ANY.search(c) or not re.search(r"\w", c)):
            return True
    for part in after:
        for c in _CLAUSE.split(part):
            if re.search(r"\w", c) and not (REFUSAL.search(c) or no_claim(c)):
                return True
    return False


def claims_besides(piece: str, m: re.Match[str]) -> bool:
    """Whether the sentence holding the refusal ``m`` also claims something (the English
    rule of ``refusal._claims_besides``, with these languages' contrast words)."""
    if _CJK.search(m.group(0)):
        return _claims_cjk(piece, m)
    tail = piece[m.end() :]
    if _CONCESSION.search(piece[: m.start()]):
        after = tail.partition(",")[2]
        if re.search(r"\w", after):
            return not REFUSAL.search(after)
    head = list(_CONTRAST.finditer(piece[: m.start()]))
    before = piece[: head[-1].start()] if head else ""
    frame = _DOCS_ANY.search(before) and len(before.split()) <= 5  # "D'après le contexte, mais"
    if re.search(r"\w", before) and not (_COURTESY.match(before) or frame):
        return True
    contrast = _CONTRAST.search(tail)
    if contrast is None:
        return False
    after = tail[contrast.end() :]
    return bool(re.search(r"\w", after)) and not (REFUSAL.search(after) or no_claim(after))
