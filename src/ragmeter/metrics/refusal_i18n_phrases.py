"""The declining phrases of ``refusal_i18n``, one block per language (French, Spanish, German,
Italian, Portuguese, Dutch, Russian, Chinese, Japanese; seven more in
``refusal_i18n_phrases2``), searched as one pattern (``REFUSAL``).

Why a module of their own: nine languages' phrasings are most of the lines; the rules that use
them (claims beside a refusal, courtesies, the length of CJK text) are in ``refusal_i18n``.
The discipline is the English one (``refusal._REFUSAL``): the speaker's "I don't know" anywhere;
"does not say / mention / contain" only with the documents as subject; "not enough information"
only as a verdict on answering; a bare "not mentioned" only as the whole answer.
"""

from __future__ import annotations

from ragmeter.metrics.refusal_i18n_phrases2 import LANGUAGES2, Gated


def _alt(*parts: str) -> str:
    return "(?:" + "|".join(parts) + ")"


# ---- French ------------------------------------------------------------------------------
_FR_DOCS = (
    r"(?:le|les|ce|ces|l')\s*(?:contexte|documents?|textes?|sources?|passages?|extraits?|"
    r"articles?|informations?)(?:\s+(?:fournie?s?|donnée?s?|ci-dessus|disponibles?|récupérée?s?))?"
)
_FR_DANS = r"(?:dans|d'après|selon|à\s+partir)\s+(?:de\s+)?" + _FR_DOCS
_FR_VERB = (
    r"(?:dit|disent|mentionnent|mentionne|précisent|précise|indiquent|indique|contiennent|"
    r"contient|fournissent|fournit|donnent|donne|parlent|parle|abordent|aborde|évoquent|évoque|"
    r"spécifient|spécifie|permettent|permet|répondent|répond)"
)
_FR = _alt(
    r"\b(?:je\s+ne\s+(?:le\s+)?sais\s+pas|je\s+sais\s+pas|j'sais\s+pas|chais\s+pas|"
    r"je\s+l'ignore|je\s+n'en\s+sais\s+rien|je\s+n'ai\s+(?:aucune|pas\s+d')\s*idée|"
    r"aucune\s+idée|je\s+ne\s+suis\s+pas\s+(?:s[ûu]re?|certaine?)|"
    r"je\s+ne\s+(?:peux|pourrais|saurais)\s+pas\s+(?:vous\s+)?(?:le\s+)?(?:répondre|dire|"
    r"déterminer|préciser|trouver|confirmer|savoir)|"
    r"je\s+suis\s+(?:incapable|dans\s+l'impossibilité)\s+de\s+(?:répondre|dire|déterminer)|"
    r"je\s+n'ai\s+(?:pas\s+)?trouvé\s+(?:aucune\s+|d'|cette\s+|l')?(?:information|réponse)|"
    r"je\s+ne\s+trouve\s+pas\s+(?:d'|cette\s+|l'|la\s+)?(?:information|réponse)|"
    r"je\s+ne\s+dispose\s+pas\s+d(?:'|e\s+)(?:assez\s+d'|suffisamment\s+d')?information)",
    _FR_DOCS
    + r"\s+(?:ne\s+(?:le\s+|la\s+|les\s+|l'|en\s+|me\s+)?|n'(?:en\s+|y\s+)?)"
    + _FR_VERB
    + r"\s+(?:pas|aucune?|rien|nulle\s+part)",
    _FR_DOCS + r"\s+ne\s+(?:fait|font)\s+(?:pas|aucune)\s+mention",
    # "not mentioned" ending the answer or of the documents: "Son nom n'est pas mentionné dans
    # le testament, ce qui a surpris la famille." claims (so in the other languages)
    r"\b(?:n'est|ne\s+sont)\s+pas\s+(?:mentionnée?s?|précisée?s?|spécifiée?s?)"
    r"(?=\s*[.!]?\s*$|[^.;!?]{0,300}" + _FR_DANS + ")",
    r"\b(?:n'est|ne\s+sont)\s+pas\s+(?:indiquée?s?|donnée?s?|fournie?s?|disponibles?|"
    r"abordée?s?|traitée?s?)(?=\s*[.!]?\s*$|\s+" + _FR_DANS + ")",
    r"\b(?:il\s+n'y\s+a|je\s+n'ai)\s+(?:pas|aucune)\s+(?:d'|assez\s+d'|suffisamment\s+d')?"
    r"(?:informations?|mention|données|précisions?)",
    r"(?:^\W*|" + _FR_DOCS + r"\s+ne\s+(?:contient|contiennent|fournit|donne)\s+)"
    r"(?:aucune\s+(?:information|mention|donnée|précision)|pas\s+d'informations?)"
    r"(?!\s+(?:n'|ne\s))",  # "Aucune information n'a été communiquée." claims
    r"\b(?:pas\s+(?:assez|suffisamment)\s+d'|informations?\s+insuffisantes?)(?:informations?)?"
    r"(?=\s*[.!]?\s*$|\s+(?:pour\s+(?:répondre|déterminer|dire|savoir|le\s+dire|conclure|"
    r"préciser|confirmer)|" + _FR_DANS + r"))",
    r"^\W*(?:impossible\s+de\s+(?:répondre|dire|déterminer|savoir)|non\s+(?:mentionnée?|"
    r"précisée?|indiquée?|spécifiée?)s?\b)",
    r"\b(?:il\s+est\s+impossible|il\s+n'est\s+pas\s+possible)\s+de\s+(?:répondre|dire|"
    r"déterminer|savoir)(?=[^.;!?]{0,300}" + _FR_DANS + r"|\s*[.!]?\s*$)",
    _FR_DANS + r"\W+(?:il\s+est\s+impossible|il\s+n'est\s+pas\s+possible)\s+de",
)

# ---- Spanish -----------------------------------------------------------------------------
_ES_DOCS = (
    # "pasaje" (and "passagem") is also a ticket: "Los pasajes no incluyen el equipaje." answers
    r"(?:el|los|la|las|este|estos|esta|estas|dicho|dichos)\s+(?:contexto|documentos?|textos?|"
    r"fuentes?|pasajes?(?=\s+(?:proporcionad|dad|anterior|recuperad|facilitad))|fragmentos?|"
    r"extractos?|art[ií]culos?|informaci[oó]n)(?:\s+(?:proporcionad"
    r"[oa]s?|dad[oa]s?|anteriores?|disponibles?|recuperad[oa]s?|facilitad[oa]s?))?"
)
_ES_EN = r"(?:en|seg[uú]n|de|a\s+partir\s+de|con)\s+" + _ES_DOCS.replace("(?:el|", "(?:el|del|")
_ES_Q = r"(?:cu[aá]l|qu[eé]|cu[aá]ndo|d[oó]nde|qui[eé]n|c[oó]mo|cu[aá]nt[oa]s?|si|la\s+respuesta)"
_ES = _alt(
    r"\b(?:no\s+lo\s+s[eé]\b|no\s+s[ée](?=\s*[.!,;]|\s*$|\s+" + _ES_Q + r"\b|\s+con\s+"
    r"(?:certeza|seguridad)|\s+exactamente)|no\s+sé\b|ni\s+idea|no\s+tengo\s+(?:ni\s+)?idea|"
    r"desconozco|no\s+estoy\s+segur[oa]|"
    r"no\s+(?:puedo|podr[ií]a)\s+(?:responder|contestar|decir(?:lo)?|determinar|"
    r"saber(?:lo)?|precisar|confirmar|encontrar)|"
    r"no\s+(?:tengo|dispongo\s+de)\s+(?:suficiente\s+|la\s+|esa\s+|informaci[oó]n\s+|"
    r"ninguna\s+)?(?:informaci[oó]n|datos)|"
    r"no\s+(?:he\s+encontrado|encontr[eé]|encuentro)\s+(?:ninguna\s+|la\s+|esa\s+)?"
    r"(?:informaci[oó]n|respuesta|datos))",
    _ES_DOCS + r"\s+no\s+(?:lo\s+|la\s+|los\s+|las\s+|me\s+|le\s+)?(?:dicen?|mencionan?|"
    r"especifican?|indican?|contienen?|contiene|incluyen?|proporcionan?|aportan?|precisan?|"
    r"detallan?|aclaran?|hablan?|ofrecen?|dan?|recogen?|hacen?\s+menci[oó]n|permiten?|"
    r"responden?)\b",
    # "it is not possible to say" only about the documents or ending the answer, as in English
    r"(?:contexto|documentos?|textos?|fuentes?|informaci[oó]n\s+proporcionada)\b[^.;!?]{0,300}\bno\s+es"
    r"\s+posible\s+(?:responder|determinar|saber|decir|precisar)|\bno\s+es\s+posible\s+"
    r"(?:responder|determinar(?:lo)?|saber(?:lo)?|decir(?:lo)?|precisar(?:lo)?)(?=\s*[.!]?\s*$|[^.;!?]{0,300}"
    + _ES_EN
    + ")",
    r"\bno\s+se\s+(?:mencionan?|especifican?|precisan?|detallan?|aclaran?)\b"
    r"(?=\s*[.!]?\s*$|[^.;!?]{0,300}" + _ES_EN + ")",
    r"\bno\s+se\s+(?:indican?|dicen?|proporcionan?|sabe)\b(?=\s*[.!]?\s*$|[^.;!?]{0,300}"
    + _ES_EN
    + ")",
    r"\bno\s+(?:est[aá]n?|es|son)\s+(?:mencionad|especificad)[oa]s?"
    r"(?=\s*[.!]?\s*$|[^.;!?]{0,300}" + _ES_EN + ")",
    r"\bno\s+(?:aparecen?|figuran?|consta|constan|est[aá]n?)\s+en\s+" + _ES_DOCS,
    r"\bno\s+(?:hay|existe|existen)\s+(?:suficiente\s+|ninguna\s+|ning[uú]n\s+)?(?:informaci[oó]n|"
    r"datos|menci[oó]n|detalles)",
    r"(?:^\W*|" + _ES_DOCS + r"\s+no\s+(?:contienen?|incluyen?|proporcionan?|dan?)\s+)"
    r"(?:ninguna\s+)?(?:informaci[oó]n|menci[oó]n|datos)(?:\s+suficientes?)?\b(?!\s+(?:(?:fue|fueron|"
    r"ha\s+sido|han\s+sido|se)\s+)?(?:filtr|perd|rob|borr|elimin|divulg|public|compart|vend|expu))",
    r"\b(?:informaci[oó]n\s+insuficiente|(?:no\s+hay\s+)?(?:suficiente|bastante)\s+"
    r"informaci[oó]n)(?=\s*[.!]?\s*$|\s+(?:para\s+(?:responder|contestar|determinar|saber|"
    r"decir|confirmar)|" + _ES_EN + r"))",
    r"^\W*(?:imposible\s+(?:de\s+)?(?:responder|determinar|saber)|no\s+(?:mencionad|"
    r"especificad|indicad)[oa]s?\b|sin\s+informaci[oó]n\b)",
)

# ---- German ------------------------------------------------------------------------------
_DE_NOUN = (
    r"(?:Kontext(?:es|s)?|Dokument(?:e|en|s)?|Text(?:e|en|es)?|Quellen?|Passagen?|Abschnitt"
    r"(?:e|en)?|Auszug|Auszügen?|Artikeln?|Unterlagen|Informationen|Textstellen?)"
)
_DE_ADJ = r"(?:(?:bereitgestellten|vorliegenden|gegebenen|angegebenen|obigen|verfügbaren)\s+)?"
_DE_DOCS = r"(?:der|die|das|den|dem|des|diese[rsmn]?)\s+" + _DE_ADJ + _DE_NOUN
_DE_IN = r"(?:im|in\s+(?:den|der|dem|diesen?)|aus\s+(?:dem|den|der))\s+" + _DE_ADJ + _DE_NOUN
# "Keine Informationen wurden veröffentlicht.", "Er zijn geen gegevens verloren gegaan.": what
# happened to data, not a lack of it, as in English (2026-11-28, review)
_DE_LOST = (
    r"(?![^.;!?]{0,300}\b(?:verloren|veröffentlicht|weitergegeben|gestohlen|gelöscht|preisgegeben|"
    r"offengelegt|geteilt|verkauft|geleakt|durchgesickert)\b)"
)
_NL_LOST = (
    r"(?![^.;!?]{0,300}\b(?:verloren|gelekt|uitgelekt|gestolen|gewist|verwijderd|vrijgegeven|gedeeld|"
    r"gepubliceerd|verkocht|openbaar\s+gemaakt)\b)"
)
_DE = _alt(
    r"\b(?:ich\s+wei(?:ß|ss)\s+(?:es\s+|das\s+)?(?:leider\s+)?nicht|(?:das\s+)?wei(?:ß|ss)\s+ich"
    r"\s+(?:leider\s+)?nicht|keine\s+Ahnung|ich\s+bin\s+(?:mir\s+)?(?:leider\s+)?nicht\s+sicher|"
    r"ich\s+kann\b[^.;!?]{0,50}?\bnicht\s+(?:beantworten|sagen|feststellen|bestimmen|"
    r"herausfinden|finden|angeben|bestätigen)|ich\s+kann\s+(?:dazu\s+|hierzu\s+|leider\s+)*"
    r"keine\s+(?:Antwort|Angaben|Aussage)|ich\s+habe\s+(?:dazu\s+|hierzu\s+|darüber\s+|leider\s+)*"
    r"(?:keine|nicht\s+genügend|nicht\s+genug|zu\s+wenige?)\s+(?:Informationen|Angaben|Daten)|"
    r"kann\s+ich\s+(?:\w++\s+){0,4}?nicht\s+(?:sagen|beantworten|feststellen|bestimmen)|kann\s+ich"
    r"\s+(?:\w++\s+){0,2}?keine\s+(?:Informationen|Antwort|Angaben)|ich\s+konnte\s+(?:\w++\s+){0,4}?keine\s+(?:Antwort|Informationen|Angaben|Daten)\b)",
    _DE_DOCS + r"\s+(?:sagt|sagen|erwähnt|erwähnen|nennt|nennen|enthält|enthalten|gibt|geben|"
    r"liefert|liefern|spezifiziert|spezifizieren|beschreibt|beschreiben|macht|machen|"
    r"beantwortet|beantworten|bietet|bieten)\s+(?:\w++\s+){0,4}?(?:nicht|keine?n?|nichts)\b",
    r"\b(?:ist|sind|wird|werden)\s+(?:\w++\s+){0,5}?nicht\s+(?:erwähnt|genannt|angegeben|"
    r"spezifiziert)\b(?=\s*[.!]?\s*$|[^.;!?]{0,300}" + _DE_IN + ")",
    _DE_IN + r"\s+(?:\w++\s+){0,4}?(?:nicht|keine)\s+(?:erwähnt|genannt|angegeben|enthalten|"
    r"Informationen|Angaben|Hinweise)",
    r"\b(?:aus\s+(?:dem|den|der)\s+" + _DE_ADJ + _DE_NOUN + r"\s+(?:geht|gehen)|(?:geht|gehen)\s+"
    r"(?:\w++\s+){0,3}?aus\s+(?:dem|den|der)\s+" + _DE_ADJ + _DE_NOUN + r")\s+(?:\w++\s+){0,3}?"
    r"nicht\s+hervor",
    r"\b(?:es\s+gibt|(?:dazu|hierzu|darüber)\s+(?:liegen|gibt\s+es|habe\s+ich|finden\s+sich))\s+"
    r"(?:\w++\s+){0,2}?(?:keine|nicht\s+genügend|nicht\s+genug|zu\s+wenige?)\s+(?:Informationen|"
    r"Angaben|Daten)",
    # the verb first: "Leider enthalten die bereitgestellten Dokumente keine Informationen."
    r"\b(?:sagt|sagen|erwähnt|erwähnen|nennt|nennen|enthält|enthalten|liefert|liefern|gibt|geben)"
    r"\s+" + _DE_DOCS + r"\s+(?:\w++\s+){0,3}?(?:nicht|keine?n?|nichts)\b",
    r"^\W*(?:keine\s+(?:Informationen|Angaben?)"
    + _DE_LOST
    + r"|keine\s+Antwort|nicht\s+(?:erwähnt|"
    r"angegeben|genannt)\b)",
    r"^\W*nicht\s+" + _DE_IN + r"\s+(?:erwähnt|angegeben|genannt|enthalten)",
    r"\b(?:nicht\s+(?:genügend|genug|ausreichend(?:e)?)|unzureichende|zu\s+wenige?)\s+"
    r"(?:Informationen|Angaben|Kontext|Daten)(?=\s*[.!]?\s*$|\s+(?:vor|vorhanden)\b|\s+"
    + _DE_IN
    + r"|,?\s+um\s+(?:\w++\s+){0,4}?(?:zu\s+)?(?:beantworten|antworten|sagen|bestimmen|"
    r"beurteilen))",
)

# ---- Italian -----------------------------------------------------------------------------
_IT_DOCS = (
    r"(?:il|i|lo|gli|la|le|questo|questi|l')\s*(?:contesto|documenti|documento|testi|testo|fonti|"
    r"fonte|passaggi|passaggio|brani|brano|estratti|estratto|articoli|articolo|informazioni)"
    r"(?:\s+(?:fornit[oiae]|dat[oi]|sopra|disponibili|recuperat[oi]))?"
)
_IT_IN = (
    r"(?:nel|nei|nella|nelle|dal|dai|secondo\s+(?:il|i|la|le))\s+" + _IT_DOCS.split(r"\s*", 1)[1]
)
_IT = _alt(
    r"\b(?:non\s+(?:lo\s+)?so\b|non\s+(?:ne\s+)?ho\s+(?:la\s+minima\s+)?idea|nessuna\s+idea|"
    r"non\s+sono\s+(?:sicur|cert)[oa]|non\s+(?:posso|riesco\s+a|saprei)\s+(?:rispondere|dir(?:lo|e|"
    r"ti|le)?|determinar(?:e|lo)|stabilir(?:e|lo)|trovar(?:e|la)|saper(?:e|lo)|confermar(?:e|lo)|"
    r"precisar(?:e|lo))|non\s+ho\s+(?:abbastanza\s+|sufficienti\s+|alcuna\s+|nessuna\s+)?"
    r"(?:informazion[ei]|dati)|non\s+ho\s+trovato\s+(?:alcuna\s+|nessuna\s+|la\s+)?"
    r"(?:informazion[ei]|risposta))",
    _IT_DOCS + r"\s+non\s+(?:lo\s+|la\s+|li\s+|le\s+|ne\s+|mi\s+)?(?:dicono|dice|menzionano|"
    r"menziona|specificano|specifica|indicano|indica|contengono|contiene|riportano|riporta|"
    r"forniscono|fornisce|precisano|precisa|parlano|parla|citano|cita|includono|include|"
    r"fanno\s+menzione|fa\s+menzione|consentono|consente|permettono|permette)\b",
    r"\bnon\s+(?:è|e'|sono|viene|vengono)\s+(?:mai\s+)?(?:menzionat|specificat|precisat|"
    r"riportat)[oaie](?=\s*[.!]?\s*$|[^.;!?]{0,300}\b" + _IT_IN + ")",
    r"(?:contest[oi]|document[oi]|test[oi]|font[ie]|informazioni\s+fornite)\b[^.;!?]{0,300}\bnon\s+"
    r"(?:è|e')\s+possibile\s+(?:determinar|stabilir|dir|rispondere|saper)",
    r"\bnon\s+(?:è|e'|sono|viene|vengono)\s+(?:indicat|fornit|dett|citat)[oaie](?=\s*[.!]?\s*$|"
    r"[^.;!?]{0,300}\b" + _IT_IN + ")",
    r"\bnon\s+(?:c'è|c'e|ci\s+sono)\s+(?:abbastanza\s+|sufficienti\s+|alcuna\s+|nessuna\s+)?"
    r"(?:informazion[ei]|dati|menzione|riferimenti)",
    r"(?:^\W*|" + _IT_DOCS + r"\s+non\s+(?:contiene|contengono|fornisce|forniscono)\s+)"
    r"(?:nessuna|alcuna)\s+(?:informazione|menzione)(?!\s+(?:(?:è|e'|fu|venne)\s+)?(?:stat[ao]\s+)?"
    r"(?:divulgat|pers[ao]\b|rubat|trapelat|cancellat|pubblicat|condivis|vendut|espost|rivelat))",
    r"\binformazioni\s+insufficienti(?=\s*[.!]?\s*$|\s+(?:per\s+(?:rispondere|determinare|"
    r"stabilire)|" + _IT_IN + "))",
    r"^\W*(?:impossibile\s+(?:rispondere|determinarlo|stabilirlo|dirlo)|non\s+(?:menzionat|"
    r"specificat|indicat)[oaie]\b)",
)

# ---- Portuguese --------------------------------------------------------------------------
_PT_DOCS = (
    r"(?:o|os|a|as|este|estes|esta|estas|esse|esses|essa|essas)\s+(?:contexto|documentos?|textos?|"
    r"fontes?|passagens?(?=\s+(?:fornecid|dad|acima|recuperad))|trechos?|excertos?|artigos?|informa[çc][õo]es)(?:\s+(?:fornecid[oa]s?|dad[oa]s?|acima|"
    r"dispon[ií]veis|recuperad[oa]s?))?"
)
_PT_IN = (
    r"(?:no|nos|na|nas|do|dos|da|das|segundo\s+o|segundo\s+os)\s+(?:contexto|documentos?|"
    r"textos?|fontes?|passagens?|trechos?|excertos?|artigos?)"
)
_NAO = r"n(?:ã|a)o"
_PT = _alt(
    r"\b(?:" + _NAO + r"\s+sei\b|" + _NAO + r"\s+(?:tenho|estou)\s+(?:(?:a\s+)?certeza|cert[oa]|"
    r"segur[oa])|"
    + _NAO
    + r"\s+(?:tenho|fa[çc]o)\s+(?:a\s+menor\s+)?id[ée]ia|sem\s+id[ée]ia|"
    + _NAO
    + r"\s+(?:posso|consigo|sei)\s+(?:responder|dizer|determinar|"
    r"afirmar|encontrar|saber|confirmar|precisar)|" + _NAO + r"\s+(?:tenho|disponho\s+de)\s+"
    r"(?:essa\s+|esta\s+|a\s+|nenhuma\s+)?(?:informa[çc](?:[õo]es|[ãa]o)|dados)|"
    + _NAO
    + r"\s+encontrei\s+(?:nenhuma\s+|a\s+)?"
    r"(?:informa[çc](?:[õo]es|[ãa]o)|resposta|dados))",
    _PT_DOCS + r"\s+" + _NAO + r"\s+(?:o\s+|a\s+|os\s+|as\s+|me\s+)?(?:dizem|diz|mencionam|"
    r"menciona|especificam|especifica|indicam|indica|cont[ée]m|cont[eê]m|informam|informa|"
    r"fornecem|fornece|apresentam|apresenta|trazem|traz|falam|fala|citam|cita|incluem|inclui|"
    r"detalham|detalha|esclarecem|esclarece|fazem\s+men[çc][ãa]o|faz\s+men[çc][ãa]o|permitem|"
    r"permite)\b",
    r"\b" + _NAO + r"\s+(?:[ée]|est[áa]|s[ãa]o|est[ãa]o|foi|foram)\s+(?:mencionad|especificad|"
    r"citad)[oa]s?(?=\s*[.!]?\s*$|[^.;!?]{0,300}\b" + _PT_IN + ")",
    r"(?:contexto|documentos?|textos?|fontes?|informa[çc][õo]es\s+fornecidas)\b[^.;!?]{0,300}\b"
    + _NAO
    + r"\s+[ée]\s+poss[ií]vel\s+(?:responder|determinar|saber|dizer|afirmar)|\b"
    + _NAO
    + r"\s+[ée]\s+poss[ií]vel\s+(?:responder|determinar|saber|dizer)(?=\s*[.!]?\s*$|[^.;!?]{,300}\b"
    + _PT_IN
    + ")",
    r"\b" + _NAO + r"\s+(?:[ée]|est[áa]|s[ãa]o|est[ãa]o)\s+(?:informad|indicad|dispon[ií]ve)"
    r"(?:[oa]s?|l|is)(?=\s*[.!]?\s*$|[^.;!?]{0,300}\b" + _PT_IN + ")",
    r"\b" + _NAO + r"\s+(?:h[áa]|existe[m]?|constam?)\s+(?:informa[çc](?:[õo]es|[ãa]o)|dados|"
    r"men[çc][ãa]o|detalhes|nenhuma\s+informa[çc][ãa]o)(?:\s+suficientes?)?",
    r"\b" + _NAO + r"\s+(?:consta|constam|aparece|aparecem)\s+" + _PT_IN,
    r"(?:^\W*|" + _PT_DOCS + r"\s+" + _NAO + r"\s+(?:cont[ée]m|cont[eê]m|fornece|fornecem|"
    r"traz|trazem)\s+)(?:nenhuma\s+)?(?:informa[çc](?:[õo]es|[ãa]o)|men[çc][ãa]o)\b(?!\s+(?:(?:foi|"
    r"foram)\s+)?(?:perdid|vazad|divulgad|roubad|apagad|compartilhad|publicad|vendid|expost|revelad))",
    r"\b(?:informa[çc](?:[õo]es|[ãa]o)\s+insuficientes?|sem\s+informa[çc](?:[õo]es|[ãa]o)\s+"
    r"suficientes?)(?=\s*[.!]?\s*$|\s+(?:para\s+(?:responder|determinar|saber|afirmar)|"
    + _PT_IN
    + r"))",
    r"^\W*(?:imposs[ií]vel\s+(?:responder|determinar|saber)|" + _NAO + r"\s+(?:mencionad|"
    r"especificad|informad)[oa]s?\b|sem\s+informa[çc](?:[õo]es|[ãa]o)\b)",
)

# ---- Dutch -------------------------------------------------------------------------------
_NL_NOUN = (
    r"(?:context|documenten|document|teksten|tekst|bronnen|bron|passages?|fragmenten|fragment|"
    r"artikelen|artikel|informatie)"
)
_NL_DOCS = (
    r"(?:de|het|deze|dit)\s+(?:(?:gegeven|verstrekte|aangeleverde|bovenstaande)\s+)?" + _NL_NOUN
)
_NL_IN = r"(?:in|uit|volgens)\s+" + _NL_DOCS
_NL = _alt(
    r"\b(?:ik\s+weet\s+(?:het|dat)\s+(?:helaas\s+)?niet|(?:dat\s+)?weet\s+ik\s+(?:helaas\s+)?niet|"
    r"geen\s+idee|kan\s+ik\s+(?:\w++\s+){0,4}?niet\s+(?:zeggen|beantwoorden|"
    r"bepalen)|ik\s+ben\s+(?:er\s+)?(?:helaas\s+)?niet\s+zeker|"
    r"ik\s+kan\b[^.;!?]{0,50}?\bniet\s+(?:beantwoorden|zeggen|bepalen|vinden|vaststellen|"
    r"bevestigen)|ik\s+kan\s+(?:hier\s+|daar\s+|helaas\s+)*geen\s+antwoord|"
    r"ik\s+heb\s+(?:hier\s+|daar\s+|helaas\s+|er\s+)*(?:geen|niet\s+genoeg|onvoldoende)\s+"
    r"(?:informatie|gegevens)|ik\s+kon\s+(?:hier\s+|daar\s+|helaas\s+|er\s+)*geen\s+"
    r"(?:informatie|antwoord|gegevens))",
    _NL_DOCS + r"\s+(?:zegt|zeggen|vermeldt|vermelden|noemt|noemen|bevat|bevatten|geeft|geven|"
    r"specificeert|specificeren|beschrijft|beschrijven|biedt|bieden|gaat|gaan)\s+(?:\w++\s+){0,4}?"
    r"(?:niet|geen|niets)\b",
    r"\b(?:zegt|zeggen|vermeldt|vermelden|noemt|noemen|bevat|bevatten|geeft|geven)\s+"
    + _NL_DOCS
    + r"\s+(?:\w++\s+){0,3}?(?:niet|geen|niets)\b",
    r"\b(?:wordt|worden|is|zijn)\s+(?:\w++\s+){0,5}?niet\s+(?:vermeld|genoemd|gespecificeerd)\b"
    r"(?=\s*[.!]?\s*$|[^.;!?]{0,300}\b" + _NL_IN + ")",
    r"\b(?:staat|staan|wordt|worden)\s+(?:\w++\s+){0,3}?niet\s+(?:aangegeven\s+)?(?:in|uit)\s+"
    + _NL_DOCS,
    r"\b(?:er\s+(?:is|zijn)|" + _NL_DOCS + r"\s+(?:bevat|bevatten))\s+(?:\w++\s+){0,2}?"
    r"(?:geen|onvoldoende|niet\s+genoeg)\s+(?:informatie|gegevens|vermelding)" + _NL_LOST,
    r"^\W*(?:geen\s+(?:informatie|gegevens)"
    + _NL_LOST
    + r"|geen\s+antwoord|niet\s+(?:vermeld|gespecificeerd|"
    r"genoemd)\b)",
    r"\b(?:onvoldoende|niet\s+genoeg)\s+(?:informatie|gegevens|context)(?=\s*[.!]?\s*$|\s+"
    + _NL_IN
    + r"|\s+om\s+(?:\w++\s+){0,4}?te\s+(?:beantwoorden|bepalen|zeggen|antwoorden))",
)

# ---- Russian -----------------------------------------------------------------------------
_RU_DOCS = (
    r"(?:контекст(?:е|а)?|документ(?:ах|е|ы|а)?|текст(?:е|ах|ы)?|источник(?:ах|е|и)?|"
    r"отрывк(?:е|ах|и)|фрагмент(?:е|ах|ы)?|стать(?:е|ях|и)|материал(?:ах|е|ы)?|информаци(?:и|я))"
)
_RU = _alt(
    r"(?:^|(?<=\W))(?:я\s+не\s+знаю|не\s+знаю(?=\s*[.!,]|\s*$)|понятия\s+не\s+имею|"
    r"я\s+не\s+уверен(?:а)?|я\s+не\s+могу\s+(?:точно\s+)?(?:ответить|сказать|определить|найти|"
    r"подтвердить)|затрудняюсь\s+(?:ответить|сказать)|у\s+меня\s+нет\s+(?:достаточно\s+)?"
    r"(?:информации|данных|сведений)|я\s+не\s+наш(?:ё|е)л(?:а)?\s+(?:информации|ответа|сведений|"
    r"данных))",
    r"^\W*(?:не\s+(?:знаю|уверен(?:а)?|могу\s+(?:ответить|сказать|определить))|нет\s+"
    r"(?:информации|данных|сведений)|не\s+указано)",
    r"(?:^|(?<=\W))(?:в\s+)?(?:предоставленн\w++\s+|данн\w++\s+|приведённ\w++\s+|приведенн\w++\s+)?"
    + _RU_DOCS
    + r"\s+(?:\w++\s+){0,3}?(?:не\s+(?:говорится|сказано|упоминается|упоминаются|указано|"
    r"указывается|содержится|содержатся|приводится|приводятся|уточняется|сообщается|"
    r"упоминает|упоминают|указывает|содержит|содержат|говорит)|нет\s+(?:\w++\s+)?(?:информации|"
    r"данных|сведений|упоминани[яй]|ответа))",
    r"(?:^|(?<=\W))не\s+(?:указан[оаы]?|упоминается|упоминаются|упомянут[оаы]?|уточняется)"
    r"(?=\s*[.!]?\s*$|[^.;!?]{0,300}\bв\s+" + _RU_DOCS + ")",
    r"(?:контекст|документ|текст|источник|информаци)\w*[^.;!?]{0,300}(?:невозможно|нельзя)\s+"
    r"(?:определить|ответить|сказать|установить)",
    r"(?:^|(?<=\W))(?:недостаточно|не\s+хватает)\s+(?:информации|данных|сведений)"
    r"(?=\s*[.!]?\s*$|,?\s+(?:чтобы\s+(?:ответить|определить|сказать)|для\s+(?:ответа|"
    r"определения|того)|в\s+" + _RU_DOCS + r"))",
    r"(?:^|(?<=\W))(?:об\s+этом|на\s+этот\s+счёт|на\s+этот\s+счет)\s+(?:\w++\s+){0,2}?ничего\s+не\s+"
    r"(?:сказано|говорится|известно)",
)

# ---- Chinese and Japanese: substrings --------------------------------------------------
_ZH_DOCS = (
    r"(?:上下文|语境|語境|文档|文檔|文件|文本|资料|資料|材料|段落|来源|來源|文章|原文|文中|"
    r"所提供的(?:内容|內容|信息|資訊)|提供的(?:内容|內容|信息|資訊))"
)
_ZH = _alt(
    r"我(?:并|並)?(?:不知道|不清楚|不确定|不確定|不太清楚|不太确定|不太確定)",
    r"^\W*(?:不知道|不清楚|不确定|不確定|(?:无法|無法)(?:回答|判断|判斷|确定|確定|得知)|无可奉告|未提及|未提到|没有相关信息|"
    r"沒有相關資訊|信息不足|資訊不足)",
    r"我(?:无法|無法|不能|没办法|沒辦法)(?:回答|确定|確定|判断|判斷|得知|找到|提供|给出|給出)",
    r"我没有(?:足够的?|相关的?|关于)?.{0,10}?(?:信息|资料|資料|资讯|資訊)",
    r"我沒有(?:足夠的?|相關的?|關於)?.{0,10}?(?:資訊|資料|信息)",
    _ZH_DOCS + r"(?:中|里|裡|内|內|里面|裡面)?(?:并|並)?(?:没有|沒有|未|并未|並未|不)"
    r"(?:提到|提及|提供|说明|說明|包含|涉及|给出|給出|记载|記載|指出|明确|明確|说|說)",
    _ZH_DOCS + r"(?:中|里|裡|内|內|里面|裡面)?(?:没有|沒有|并无|並無|无|無)"
    r".{0,20}?(?:信息|资讯|資訊|内容|內容|资料|資料|记载|記載|答案)",
    r"(?:无法|無法|不能)(?:从|從|根据|根據)"
    + _ZH_DOCS
    + r".{0,6}?(?:得知|确定|確定|找到|判断|判斷|"
    r"回答|得出)",
    r"(?:根据|根據|从|從|基于|基於)" + _ZH_DOCS + r".{0,4}?[，,]?\s*(?:无法|無法|不能)(?:确定|確定|"
    r"回答|判断|判斷|得知)",
    r"(?:信息|资料|資料|資訊|资讯)不足(?=[，,]?\s*(?:无法|無法|不能)|\W*$)",
    r"没有足够的?(?:信息|资料)|沒有足夠的?(?:資訊|資料|信息)",
)
_JA_DOCS = (
    r"(?:文脈|コンテキスト|文書|ドキュメント|資料|テキスト|文章|本文|出典|記事|文献|情報源|"
    r"提供された(?:情報|文書|資料|テキスト|文章))"
)
_JA = _alt(
    r"(?:わかりません|分かりません|分りません|わからない|分からない|知りません|存じません)"
    r"(?!でした|と|って)",  # "彼は答えを知りませんでした。", "わからないと答えた": he did not know
    r"(?:確か|定か)ではありません|確信が(?:持てません|ありません)",
    r"(?:お答え|回答|判断|特定|断定)(?:することが|は|が)?(?:できません|できかねます|"
    r"いたしかねます)(?!でした)|(?:答える|回答する|お答えする|判断する|特定する)ことは(?:でき|出来)"
    r"ません(?!でした)",
    _JA_DOCS + r"(?:に|には|では|の中に|の中には|中に|内に|から)?.{0,30}?(?:記載|言及|記述|"
    r"情報|説明|記録|答え)(?:が|は|も)?(?:ありません|ない|なく|見当たりません|見つかりません|"
    r"されていません|含まれていません)|" + _JA_DOCS + r".{0,30}?明らか(?:ではありません|ではない|"
    r"になっていません)",
    r"(?:記載|言及|記述|明記)(?:されていません|がありません|はありません|されておりません)"
    r"(?=\W*$)",
    r"(?:十分な|必要な)?情報(?:が|は)(?:ありません|見つかりません|含まれていません|不足して"
    r"(?:います|いる|おり)|足りません)",
    r"^\W*(?:不明(?:です)?|情報なし|記載なし)\W*$",
)

_CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
# (what every pattern of a language needs, its patterns), in the order of the one alternation
# they replace. Why: searched for every answer of every judged metric, the nine languages'
# alternation was ragmeter's largest own CPU per sample after the HTTP client (0.14 ms a
# sentence, mostly English text no pattern can match); a language is now searched only when
# its gate is found: its script, or a negation word every one of its patterns spells out.
LANGUAGES = (
    (r"\bpas|\baucun|\brien|\bnulle|l'ignore|incapab|impossib|insuffis|trouv|\bnon\b", _FR),
    (r"\bno\b|ni\s+idea|desconozco|informaci|menci|datos|imposib", _ES),
    (r"nicht|kein|unzureichend|zu\s+wenig", _DE),
    (r"\bnon\b|nessun|alcuna|insufficien|impossib", _IT),
    (r"n[ãa]o|sem\s+id|informa[çc]|men[çc][ãa]o|imposs[ií]v", _PT),
    (r"niet|geen|onvoldoende", _NL),
    (r"[\u0400-\u04ff]", _RU),
    (_CJK, _ZH),
    (_CJK, _JA),
    *LANGUAGES2,
)


REFUSAL = Gated(LANGUAGES)
