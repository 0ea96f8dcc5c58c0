"""Refusals in French, Spanish, German, Italian, Portuguese, Dutch, Russian, Chinese, Japanese,
Korean, Arabic, Hindi, Turkish, Polish, Indonesian and Vietnamese.

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

The last seven languages' phrases and words are in ``refusal_i18n_phrases2`` (Korean and
Turkish written on stems, Hindi without ``\\b``); an Arabic comma counts as a comma, "؟" ends a
question.

Around an answer (``speaker.py``), the same phrases find remarks on what the documents lack,
and ``talks_to_user`` the assistant's talk ("J'espère que cela vous aide !"): neither a claim.
"""

from __future__ import annotations

import math
import re

from ragmeter.metrics import refusal_i18n_phrases2 as more
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
    r"но|однако|зато)\b|但是|但|不过|不過|然而|可是|しかし|でも|ただし|けれども|けど|"
    + more.CONTRAST2,
    re.IGNORECASE,
)
_CONCESSION = re.compile(
    r"\b(?:bien\s+que|même\s+si|aunque|si\s+bien|obwohl|auch\s+wenn|wenngleich|anche\s+se|"
    r"sebbene|benché|embora|ainda\s+que|hoewel|ook\s+al|хотя)\b[^.;!?]*$|(?:虽然|雖然|尽管|儘管)"
    r"[^。！？]*$|" + more.CONCESSION2,
    re.IGNORECASE,
)
_DOCS_ANY = re.compile(
    r"\b(?:contexte|documents?|textes?|sources?|passages?|extraits?|contexto|documentos?|textos?|"
    r"fuentes?|pasajes?|fragmentos?|Kontext\w*|Dokument\w*|Quellen?|Unterlagen|contesto|"
    r"documenti|testi|fonti|brani|estratti|trechos?|context|documenten|teksten|bronnen|"
    r"контекст\w*|документ\w*|текст\w*|источник\w*)\b|上下文|文档|文檔|文件|资料|資料|材料|文中|"
    r"根据|根據|提供|文脈|コンテキスト|文書|ドキュメント|テキスト|本文|" + more.DOCS2,
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
    r"ごめんなさい|" + more.COURTESY2 + r")\W*$",
    re.IGNORECASE,
)
# "do not hesitate to ...": advice around a refusal, talk to the user around an answer
_HESITATE = (
    r"(?:n'h[ée]site[zr]?\s+pas|no\s+dude[sn]?\s+en|z[öo]ger(?:e|n\s+Sie)\s+nicht|non\s+"
    r"esit(?:are|i|ate)|n[ãa]o\s+hesite(?:m)?|aarzel\s+niet|не\s+стесняйтесь|не\s+стесняйся|"
    r"不要犹豫|不要猶豫|请随时|請隨時|お気軽に|遠慮なく)"
)
# advice to look elsewhere, never a claim
_ADVICE = re.compile(
    r"^\W*(?:je\s+vous\s+(?:conseille|recommande|invite|suggère)|vous\s+(?:pouvez|pourriez|"
    r"devriez)\s+(?:peut-être\s+)?(?:consulter|vérifier|contacter|vous\s+adresser|chercher|"
    r"regarder)|veuillez|(?:le|les|te|os)\s+(?:recomiendo|sugiero|aconsejo)|"
    r"(?:puede|podr[ií]a|deber[ií]a|puedes)\s+(?:consultar|revisar|contactar|verificar|buscar)|"
    r"(?:le\s+|te\s+)?recomiendo|(?:por\s+favor|no\s+dude)|bitte|(?:sie|du)\s+(?:können|könnten|"
    r"sollten|kannst|solltest)\s+(?:\w++\s+){0,4}?(?:nachsehen|prüfen|nachschlagen|kontaktieren|"
    r"wenden|fragen|konsultieren)|ich\s+empfehle|(?:le|ti|vi)\s+(?:consiglio|suggerisco)|"
    r"(?:può|potrebbe|puoi|dovrebbe)\s+(?:consultare|verificare|contattare|controllare)|"
    r"(?:recomendo|sugiro)|(?:você\s+|o\s+senhor\s+|a\s+senhora\s+)?(?:pode|poderia|deveria)\s+"
    r"(?:consultar|verificar|contatar|contactar|procurar)|(?:u|je)\s+kunt\s+(?:\w++\s+){0,4}?(?:raadplegen|"
    r"contacteren|bekijken|nakijken|navragen|opzoeken|controleren)|ik\s+raad|"
    r"(?:рекомендую|советую|попробуйте|обратитесь|вы\s+можете\s+(?:обратиться|проверить|"
    r"посмотреть|уточнить))|(?:建议|建議|请|請|您可以|你可以).{0,15}?(?:查阅|查閱|咨询|諮詢|联系|"
    r"聯繫|查看|参考|參考|访问|訪問|参阅|參閱)|(?:ご確認|お問い合わせ|ご参照)|.{0,40}(?:確認|問い合わせ|"
    r"参照|ご覧)(?:して)?(?:ください|下さい)\W*$|" + more.ADVICE2 + ")",
    re.IGNORECASE,
)
# quotation marks of other languages: « ... », „...“, 「...」, 『...』, and the Chinese title
# marks 《...》, 〈...〉 ("《我不知道》是一首歌。" names a song: 2026-11-28, review)
QUOTED = re.compile(
    r"\u00ab[^\u00bb]*\u00bb|\u201e[^\u201c\u201d]*[\u201c\u201d]|「[^」]*」|『[^』]*』|《[^》]*》|"
    r"〈[^〉]*〉"
)
_CLAUSE = re.compile(r"[,，、;；:：]")
# "I don't know" after a word: (pattern, the words before it, masked after one of them?)
_EMBEDDED = tuple(
    (re.compile(r"(?<!\s)(\s+)(?:" + p + r")\b", re.I), frozenset(w.split()), after)
    for p, w, after in more.EMBEDDED
)
_EMBEDDED_TITLE = re.compile(more.EMBEDDED_TITLE)
_EMBEDDED_ANY = re.compile(
    r"\s(?:" + "|".join(p for p, _, _ in more.EMBEDDED) + ")|" + more.EMBEDDED_TITLE, re.I
)
_WORD_BEFORE = re.compile(r"([^\W_]+)\s*$")


def word_before(m: re.Match[str]) -> str:
    """The word just before ``m``, lower case (a bounded look back: linear on long text)."""
    w = _WORD_BEFORE.search(m.string[max(0, m.start() - 40) : m.start()])
    return w.group(1).lower() if w is not None else ""


def word_set(words: str) -> frozenset[str]:
    """The words of a space-separated list, as a set."""
    return frozenset(words.split())


def mask_after(text: str, pattern: re.Pattern[str], words: frozenset[str], after: bool) -> str:
    """``text`` with each match of ``pattern`` (its group 1 the spaces before it) masked as a
    quotation is, when the word just before it is in ``words`` (``after``) or is not (not
    ``after``); at the start, or after punctuation, never."""

    def mask(m: re.Match[str]) -> str:
        word = word_before(m)
        return m.group(1) + '"\u2026"' if word and (word in words) == after else m.group(0)

    return pattern.sub(mask, text)


def mask_embedded(text: str) -> str:
    """``text`` with an "I don't know" inside another clause (a title, reported speech) masked
    as a quotation is: "Das Lied Ich weiß es nicht erschien 1980." names a song."""
    if _EMBEDDED_ANY.search(text) is None:  # one search, not five, for most answers
        return text
    for pattern, words, after in _EMBEDDED:
        text = mask_after(text, pattern, words, after)
    return _EMBEDDED_TITLE.sub('\\1"\u2026"', text)


def no_claim(piece: str) -> bool:
    """A sentence that claims nothing in these languages: an apology, advice, a question."""
    p = piece.strip()
    return bool(_COURTESY.match(p) or _ADVICE.match(p) or p.endswith(("?", "？", "؟")))


# Somebody else's ignorance ("警察は火災の原因を知りません。", the police do not know the
# cause), and a bare "no mention" in some other source ("警察の報告書には死傷者の記載は
# ありません。", the police report mentions no casualties): answers, as in English (2026-11-28)
_JA_OTHER = re.compile(r"(?<!私)(?<!わたし)(?<!僕)(?<!俺)(?<!私たち)は")
_JA_SOURCE = re.compile(r"(?<=\w)(?:には|では)")
_JA_DOCS = re.compile(r"文脈|コンテキスト|文書|ドキュメント|資料|テキスト|文章|本文|ここ")


def _claims_cjk(piece: str, m: re.Match[str]) -> bool:
    """Chinese and Japanese: every clause around the refusal must decline or claim nothing;
    one before it may also be a frame on the documents ("根据提供的上下文，")."""
    # the refusal's own clause may hold its object, before it in Japanese ("人口はわかりません")
    own = _CLAUSE.split(piece[: m.start()])[-1]
    if m.group(0).startswith("知") and own.rstrip().endswith("を") and _JA_OTHER.search(own):
        return True
    bare = m.group(0).startswith(("記載", "言及", "記述", "明記"))
    if bare and _JA_SOURCE.search(own) and not _JA_DOCS.search(own):
        return True
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


# "検死なしでは死因は判断できません。", "부검 없이는 사인을 판단할 수 없습니다.": the cause
# cannot be determined without an autopsy, a claim as in English; "情報なしでは..." declines
_WITHOUT = re.compile(r"なしでは|なしには|なければ|없이는|없이|없으면")
_INFO = re.compile(r"情報|データ|정보|데이터|내용")
_NO_INFO = re.compile(
    r"il\s+n'y\s+a|no\s+hay|es\s+gibt|non\s+c['i']|n[ãa]o\s+h[áa]|er\s+(?:is|zijn)|^\W*нет|"
    r"\bнет\s+(?:никакой\s+)?(?:информац|данн|сведен)",
    re.IGNORECASE,
)
_ELSEWHERE = re.compile(more.ELSEWHERE2, re.IGNORECASE)
# Russian "Текст договора не упоминает Крым." is "The text of the treaty does not mention
# Crimea.": someone else's text, a claim as in English ("В документах компании не упоминается
# слияние." too); an owner in the genitive follows the documents' word ("Текст выше не ...",
# "Документы прямо не ..." keep their adverb)
_OWNED_RU = re.compile(
    r"^(?:в\s+)?(?:текст|документ|источник|стать|материал)\w*\s+(?!(?:вопроса|выше|ниже|"
    r"ответа|статьи|текста|документа|документов|источника|источников|контекста)\b)"
    r"\w+(?:а|я|ы|и|ов|ев|ей|ий)\s+не\b",
    re.IGNORECASE,
)


def claims_besides(piece: str, m: re.Match[str]) -> bool:
    """Whether the sentence holding the refusal ``m`` also claims something (the English
    rule of ``refusal._claims_besides``, with these languages' contrast words)."""
    before = piece[: m.start()]
    if _WITHOUT.search(before) and not (_DOCS_ANY.search(before) or _INFO.search(before)):
        return True
    # "Il n'y a aucune information sur X dans les archives de la ville.": what a record lacks
    if _NO_INFO.search(m.group(0)) and _ELSEWHERE.search(piece) and not _DOCS_ANY.search(piece):
        return True
    if _OWNED_RU.match(m.group(0)):  # "Текст договора не упоминает Крым.": the treaty's text
        return True
    if _CJK.search(m.group(0)):
        return _claims_cjk(piece, m)
    piece = piece.replace("\u060c", ",")  # the Arabic comma, one character for another
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


# ---- around an answer: talk to the user, remarks on the documents (``speaker.py``) ------------
# The English rules of ``speaker._SERVICE``: whole sentences only, hopes that *the answer*
# helps (never "J'espère qu'il viendra.", a hope about the world, kept as "I hope he comes."
# is), offers of more help, wishes and sign-offs.
_THIS = (
    r"(?:cela|ceci|ça|ca|cette\s+r[ée]ponse|ces\s+informations|cette\s+information|esto|eso|"
    r"esta\s+(?:respuesta|informaci[oó]n)|das|dies|es|diese\s+(?:Antwort|Informationen?)|questo|"
    r"ci[oò]|questa\s+risposta|queste\s+informazioni|isso|isto|esta\s+resposta|essas?\s+"
    r"informa[çc](?:[õo]es|[ãa]o)|dit|dat|het|deze\s+informatie|dit\s+antwoord|это|эта\s+"
    r"информация|этот\s+ответ)"
)
_HELPS = (
    r"(?:vous\s+|t'|te\s+|le\s+|les\s+|lhe\s+|o\s+|ti\s+|vi\s+|ihnen\s+|dir\s+|je\s+|u\s+|вам\s+)?"
    r"(?:aide(?:ra)?|a\s+aid[ée]|(?:vous\s+)?sera\s+utile|est\s+utile|ayude|sirva|haya\s+ayudado|"
    r"sea\s+[úu]til|hilft|geholfen\s+hat|hat\s+geholfen|hilfreich\s+ist|ist\s+hilfreich|aiuti|"
    r"sia\s+(?:stato\s+|stata\s+)?utile|abbia\s+aiutato|ajude|tenha\s+ajudado|seja\s+[úu]til|"
    r"helpt|heeft\s+geholpen|nuttig\s+is|поможет|помогло|помог|будет\s+полезн\w+|был[аои]?\s+"
    r"полезн\w+|полезно)"
)
_SERVICE = re.compile(
    r"^\W*(?:"
    # "J'espère que cela vous aide !", "Ich hoffe, das hilft!", "Надеюсь, это поможет!"
    r"(?:j'esp[èe]re|en\s+esp[ée]rant|espero|ich\s+hoffe|hoffentlich|spero|ik\s+hoop|hopelijk|"
    r"надеюсь)(?:\s+que|\s+che|\s+dat|,?\s*что)?,?\s+(?:"
    + _THIS
    + r"\s+)?(?:ti\s+|le\s+|vi\s+)?"
    + _HELPS
    + r"\b[^.;!?]{0,30}"
    # "N'hésitez pas à demander.", "Si vous avez d'autres questions, ..."
    r"|" + _HESITATE + r".{0,80}"
    r"|(?:si\s+vous\s+avez|si\s+tienes|si\s+tiene|wenn\s+Sie|se\s+(?:hai|ha|avete|tiver|tem)|"
    r"als\s+je|als\s+u|если\s+у\s+вас)\b.{0,60}\b(?:questions?|preguntas?|Fragen|domande|"
    r"perguntas?|vragen|вопрос\w*)\b.{0,40}\b(?:h[ée]sit|demande[rz]?|contacte[rz]|dites|"
    r"faites|je\s+(?:suis|reste)|pregunt[ae]r?|dud[ae]s?|av[íi]same|d[íi]melo|estoy|escr[íi]b|"
    r"fragen|melden|gerne?|z[öo]ger|chied|esit|sono\s+qui|scriv|pergunt[ae]|hesit|estou|vraag|"
    r"laat|aarzel|спрашивайте|обращайтесь|задавайте|пишите|стесня)\w*\b.{0,40}"
    r"|(?:dites-le-moi|fais-moi\s+savoir|faites-moi\s+savoir|h[áa]game\s+saber|av[íi]same|"
    r"fammi\s+sapere|laat\s+het\s+(?:me|mij)\s+weten|me\s+avise|me\s+diga)\b.{0,60}"
    # wishes and sign-offs
    r"|(?:passez\s+une\s+|je\s+vous\s+souhaite\s+une\s+)?(?:bonne|belle)\s+(?:journ[ée]e|soir[ée]e|"
    r"chance|continuation|fin\s+de\s+journ[ée]e)|cordialement|bien\s+[àa]\s+vous|au\s+plaisir|"
    r"(?:que\s+)?(?:tengas?|tenga)\s+(?:un\s+)?(?:buen|excelente|feliz|gran)\s+d[íi]a|buen\s+d[íi]a|"
    r"(?:un\s+)?saludos?(?:\s+cordiales)?|(?:mucha\s+)?suerte|"
    r"(?:ich\s+w[üu]nsche\s+(?:Ihnen|dir)\s+)?(?:noch\s+)?einen\s+sch[öo]nen\s+Tag|sch[öo]nen\s+Tag"
    r"(?:\s+noch)?|viel\s+(?:Erfolg|Gl[üu]ck|Spa(?:ß|ss))|alles\s+Gute|(?:mit\s+)?freundlichen"
    r"\s+Gr[üu](?:ß|ss)en|viele\s+Gr[üu](?:ß|ss)e|buona\s+(?:giornata|fortuna|serata|"
    r"continuazione)|cordiali\s+saluti|un\s+saluto|(?:tenha|tenham)\s+um\s+(?:[óo]timo|bom|"
    r"excelente)\s+dia|boa\s+sorte|atenciosamente|(?:nog\s+)?een\s+fijne\s+dag|succes|met\s+"
    r"vriendelijke\s+groet(?:en)?|хорошего\s+дня|удачи|всего\s+(?:доброго|хорошего)|"
    r"с\s+уважением"
    # "Happy to help!": ravi, encantado, gerne, felice, feliz, graag, рад
    r"|(?:je\s+suis\s+)?(?:ravie?|heureux|heureuse)\s+de\s+(?:vous\s+)?(?:aider|rendre\s+service)"
    r"|(?:estoy\s+)?encantad[oa]\s+de\s+ayudar|gern(?:e)?\s+geschehen|(?:sono\s+)?felice\s+di\s+"
    r"(?:aiutar(?:e|ti|la))|(?:fico\s+)?feliz\s+em\s+ajudar|graag\s+gedaan|рад[аы]?\s+помочь"
    # Chinese and Japanese: substrings of the whole sentence
    r"|希望(?:这|這|以上|这些|這些|此)?(?:(?:信息|資訊|回答|内容|內容)\s*)?(?:能|可以)?(?:对|對)?"
    r"(?:您|你)?(?:有所|有)?(?:帮助|幫助|用|所帮助|所幫助)|如果(?:您|你)还?有(?:其他|任何|更多)"
    r"(?:问题|問題).{0,30}|祝(?:您|你)?.{0,8}(?:愉快|顺利|順利|好运|好運)|很高兴(?:为您|為您)?"
    r"(?:帮忙|幫忙|帮助|幫助|服务|服務)|(?:お役に立て|参考にな)(?:れば|たら|ると)(?:幸いです|"
    r"嬉しいです)?|良い一日を|よろしくお願いします|" + more.SERVICE2 + r")\W*$",
    re.IGNORECASE,
)
_IGNORANCE = re.compile(  # the speaker's, not the documents': "Je ne sais pas sa population."
    r"sais|ignore|id[ée]e|idea|id[ée]ia|\bs[ûu]re?\b|certain|peux|pourrais|saurais|incapable|impossib|"
    r"\bs[eé]\b|desconozco|segur|puedo|podr|posible|wei(?:ß|ss)|Ahnung|sicher|\bkann\b|\bso\b|"
    r"sicur|cert[oa]|posso|riesco|saprei|possibile|\bsei\b|certeza|consigo|poss[ií]vel|weet|idee|"
    r"zeker|\bkan\b|знаю|понятия|уверен|могу|затрудняюсь|невозможно|нельзя|不知道|不清楚|不确定|"
    r"不確定|无法|無法|不能|没办法|沒辦法|无可奉告|わか|分か|分り|知りません|存じません|確か|定か|"
    r"確信|できません|できかねます|いたしかねます|でき|出来|" + more.IGNORANCE2,
    re.IGNORECASE,
)
_FINDS = re.compile(r"trouv|encontr|find|trov|vind|найти|找到|見つか|" + more.FINDS2, re.I)


def talks_to_user(piece: str) -> bool:
    """Talk to the user in these languages ("J'espère que cela vous aide !", "希望对您有帮助")."""
    return _SERVICE.match(piece.strip().replace("\u2019", "'")) is not None


def says_context_lacks(piece: str) -> bool:
    """A remark on what the documents lack in these languages ("Le contexte ne mentionne pas sa
    population."): a declining phrase with nothing claimed beside it, and not the speaker's own
    "I don't know / I'm not sure / I cannot say", a claim beside others as in English, unless
    the documents are named ("D'après le contexte, il est impossible de le dire.")."""
    text = piece.strip().replace("\u2019", "'")
    if len(text) > 2000:  # no remark: every pattern read 20,000 characters in 50 ms (2026-11-28)
        return False
    m = REFUSAL.search(text)
    if m is None or claims_besides(text, m):
        return False
    own = _IGNORANCE.search(m.group(0)) and not _FINDS.search(m.group(0))
    return not own or _DOCS_ANY.search(text) is not None
