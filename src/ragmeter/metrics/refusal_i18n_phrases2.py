"""Refusals in Korean, Arabic, Hindi, Turkish, Polish, Indonesian and Vietnamese: the declining
phrases (as ``refusal_i18n_phrases`` for the first nine languages) and the words the rules of
``refusal_i18n`` read in them (but, although, sorry, advice, talk to the user).

Why a module of their own: before, a Korean pipeline's "제공된 문서에는 해당 정보가 없습니다."
was judged as a claim (a low faithfulness, as if a hallucination) and ``refusal_rate`` said 0%;
seven languages' phrasings would have taken ``refusal_i18n_phrases`` past 400 lines.

The discipline is the English one: the speaker's "I don't know" anywhere (only the first
person: Turkish "bilmiyorum", not "bilmiyor", he does not know; Polish "nie wiem", not "nie
wie"); "does not say / mention" only with the documents as subject ("대통령은 ... 언급하지
않았습니다", the president did not mention, answers); "not enough information" only as a verdict
on answering. Korean attaches particles to words, Turkish suffixes: their patterns are written
on stems ("문서에는", "belgelerde"). Hindi vowel signs are not word characters for ``re``, so its
patterns use no ``\\b``. Korean and Turkish past tenses ("없었습니다", "bahsetmedi") report
somebody else's lack, as "彼は答えを知りませんでした" does in Japanese.
"""

from __future__ import annotations

import re


def _alt(*parts: str) -> str:
    return "(?:" + "|".join(parts) + ")"


# ---- Korean ------------------------------------------------------------------------------
_KO_DOCS = (
    r"(?:문서|문맥|컨텍스트|맥락|자료|텍스트|본문|지문|출처|제공된\s*정보|주어진\s*정보|"
    r"제공된\s*내용|주어진\s*내용)"
)
_KO_NOW = r"(?:습니다|어요|네요|음|다)"  # present, never the past "없었습니다"
_KO = _alt(
    r"모르겠(?!다고|다는|다며)|(?:저는|저도|제가)\s*(?:\S{1,40}+\s+){0,3}?(?:모릅니다|몰라요|알지\s*못합니다)|"
    r"^\W*(?:잘\s*)?(?:모릅니다|몰라요)|확실하지\s*않" + _KO_NOW + r"|확신할\s*수\s*없",
    r"(?:답변|대답|답|판단|확인|단정|파악|말씀)(?:을|를)?\s*(?:해\s*)?(?:드릴|할|하실)\s*수\s*"
    r"(?:가\s*)?없" + _KO_NOW,
    _KO_DOCS + r"[^.?!。]{0,40}?(?:언급|정보|내용|기재|설명|답|명시|기록|자료)\w*\s*(?:이|가|은|는|"
    r"도)?\s*(?:없" + _KO_NOW + r"|(?:되어|돼|나와|적혀|포함되어)\s*있지\s*않" + _KO_NOW + r"|"
    r"(?:하|되)지\s*않" + _KO_NOW + r")",
    _KO_DOCS
    + r"[^.?!。]{0,40}?(?:나와|적혀|언급되어|명시되어|포함되어|기재되어)\s*있지\s*않"
    + _KO_NOW,
    _KO_DOCS + r"[^.?!。]{0,40}?(?:알\s*수|찾을\s*수|확인할\s*수)\s*(?:가\s*)?없" + _KO_NOW,
    r"(?:정보|답|답변|내용|언급)(?:을|를|은|는)?\s*(?:\S{1,40}+\s+){0,2}?찾을\s*수\s*(?:가\s*)?없"
    + _KO_NOW,
    r"(?:답변|대답|답|판단)하기에\s*(?:는\s*)?(?:충분한\s*)?(?:정보|근거|자료)(?:가|이)?\s*(?:부족|"
    r"충분하지\s*않|없)",
    r"^\W*(?:충분한\s*)?(?:정보|자료)(?:가|이)?\s*(?:부족합니다|충분하지\s*않습니다|없습니다)\W*$",
)

# ---- Arabic ------------------------------------------------------------------------------
_AR_NOUN = (
    r"(?:السياق|النص|النصوص|المستند|المستندات|الوثيقة|الوثائق|المصدر|المصادر|المقاطع|المقطع|"
    r"المعلومات|المقالة|المقال)(?:\s+(?:المقدمة|المقدم|المتاحة|المتوفرة|المعطاة|المذكورة|"
    r"المرفقة))?"
)
_AR_VERB = (
    r"(?:يذكر|تذكر|يحدد|تحدد|يتضمن|تتضمن|يحتوي|تحتوي|يوضح|توضح|يشير|تشير|يقدم|تقدم|يتناول|"
    r"تتناول|يبين|تبين|يتطرق|تتطرق)"
)
_AR_IN = r"(?:في|ضمن|من|حسب|وفقًا\s+ل|وفقا\s+ل|بناءً\s+على|بناء\s+على)\s*" + _AR_NOUN
_AR = _alt(
    r"(?:^|(?<=\W))(?:لا\s+(?:أعرف|أعلم|أدري)|لست\s+(?:متأكد|متأكدًا|متأكدا|متأكدة|متيقن)|"
    r"(?:لا\s+(?:أستطيع|يمكنني)|لا\s+أقدر\s+على)\s+(?:الإجابة|الرد|تحديد|معرفة|الجزم)|"
    r"(?:ليس\s+لدي|ليست\s+لدي|لا\s+أملك|لا\s+تتوفر\s+لدي)\s+(?:أي\s+)?(?:معلومات|معلومة|بيانات)|"
    r"لم\s+أجد\s+(?:أي\s+)?(?:معلومات|إجابة|معلومة))",
    r"(?:^|(?<=\W))" + _AR_NOUN + r"\s+(?:لا|لم)\s+" + _AR_VERB[:-1] + r"|تذكره|يذكره)",
    r"(?:^|(?<=\W))(?:لا|لم)\s+" + _AR_VERB + r"\s+" + _AR_NOUN,
    r"(?:^|(?<=\W))(?:لا\s+(?:توجد|يوجد|تتوفر|يتوفر)|ليس\s+هناك|ليست\s+هناك|لا\s+تتضمن)\s+"
    r"(?:أي\s+)?(?:معلومات|معلومة|بيانات|إشارة|ذكر)(?:\s+كافية)?(?=\W*$|[^.؟!]{0,300}"
    + _AR_IN
    + r"|\s+"
    r"(?:للإجابة|للرد|لتحديد))",
    r"(?:^|(?<=\W))(?:غير\s+مذكور|غير\s+مذكورة|لم\s+يرد\s+ذكر|لم\s+يُذكر|لم\s+يذكر|لم\s+تُذكر)"
    r"(?=[^.؟!]{0,300}" + _AR_IN + r"|\W*$)",
    r"(?:^|(?<=\W))(?:المعلومات|البيانات)\s+(?:المقدمة\s+|المتاحة\s+|المتوفرة\s+)?غير\s+كافية",
)

# ---- Hindi (no \b: vowel signs are not word characters) -----------------------------------
_HI_DOCS = (  # not inside a word: "लेख" (article) ends "उल्लेख" (mention)
    r"(?<![\u0900-\u097f])(?:संदर्भ|(?<!के\s)(?<!की\s)(?<!का\s)(?:सन्दर्भ|दस्तावेज़|दस्तावेज|दस्तावेज़ों|दस्तावेजों|पाठ|स्रोत|स्रोतों|अनुच्छेद|अंश|"
    r"लेख)|(?:दी|प्रदान\s+की)\s+गई\s+जानकारी)"
)
_HI = _alt(
    r"मुझे\s+(?:\S{1,40}+\s+){0,3}?(?:नहीं\s+पता|पता\s+नहीं|यकीन\s+नहीं|ज्ञात\s+नहीं|जानकारी\s+नहीं)|"
    r"मैं\s+(?:नहीं\s+जानता|नहीं\s+जानती|निश्चित\s+नहीं|पक्का\s+नहीं|आश्वस्त\s+नहीं)|"
    r"मैं\s+(?:\S{1,40}+\s+){0,4}?(?:उत्तर|जवाब)\s+नहीं\s+दे\s+(?:सकता|सकती|पाऊँगा|पाऊंगा)|"
    r"मेरे\s+पास\s+(?:\S{1,40}+\s+){0,3}?(?:कोई\s+|पर्याप्त\s+)?जानकारी\s+नहीं",
    _HI_DOCS + r"\s*(?:में|मे|के\s+अनुसार)\s+(?:(?!ने\s)\S++\s+){0,5}?(?:उल्लेख|जानकारी|ज़िक्र|जिक्र|"
    r"विवरण|उत्तर)\s+(?:\S{1,40}+\s+){0,2}?नहीं\s+(?:है|हैं|दी|किया|मिल)",
    _HI_DOCS + r"\s+(?:\S{1,40}+\s+){0,4}?नहीं\s+(?:बताता|बताते|बताती|देता|देते|देती|करता|करते|करती)",
    r"(?:उत्तर|जवाब)\s+देने\s+के\s+लिए\s+(?:पर्याप्त|काफ़ी|काफी)\s+जानकारी\s+(?:उपलब्ध\s+)?नहीं\s+"
    r"(?:है|हैं)",
    r"^\W*(?:पर्याप्त\s+जानकारी\s+नहीं|कोई\s+जानकारी\s+नहीं|जानकारी\s+उपलब्ध\s+नहीं)",
)

# ---- Turkish -----------------------------------------------------------------------------
_TR_DOCS = (
    r"\b(?:(?:sağlanan|verilen|sunulan|mevcut)\s+)?(?:bağlam|belge|metin|metn|kaynak|pasaj|"
    r"doküman|döküman|bilgiler)\w*"
)
_TR = _alt(
    r"\b(?:bilmiyorum|bilemiyorum|emin\s+değilim|(?:hiçbir\s+)?fikrim\s+yok|bilgim\s+yok|"
    r"(?:yanıtlayam|cevaplayam|söyleyem|belirleyem)(?:am|em|ıyorum|iyorum)|(?:cevap|yanıt)\s+"
    r"veremem|(?:bilgi|cevap|yanıt)\s+bulamadım)\b",
    _TR_DOCS + r"\s+(?:\w++\s+){0,4}?(?:belirtilm(?:emiş|iyor|emekte)|bahsedilm(?:emiş|iyor|"
    r"emekte)|bahsetm(?:iyor|emekte)|söz\s+edilm(?:emiş|iyor)|içerm(?:iyor|ez|emekte)|"
    r"geçm(?:iyor|emekte))\w*",
    _TR_DOCS + r"\s+(?:\w++\s+){0,4}?(?:bilgi|veri|açıklama|ayrıntı|detay)\w*\s+(?:\w++\s+)?"
    r"(?:yok|bulunm(?:uyor|amakta)|yer\s+alm(?:ıyor|amakta)|verm(?:iyor|emekte))\w*",
    r"\b(?:yanıtla|cevapla|belirle|söyle)m[ae]k\s+için\s+(?:yeterli|yeteri\s+kadar)\s+bilgi\s+"
    r"(?:yok|bulunm(?:uyor|amakta))",
    r"^\W*(?:yeterli\s+bilgi\s+(?:yok|bulunm)|bilgi\s+(?:yok|yetersiz)\W*$|belirtilmemiş\W*$)",
)

# ---- Polish ------------------------------------------------------------------------------
_PL_DOCS = (  # no other adjective: "Kontekst historyczny nie pozwala na reformę." answers
    r"\b(?:(?:podany|podane|dostarczony|dostarczone|przekazany|przekazane|powyższy|powyższe|"
    r"ten|te)\s+)?(?:kontekst|kontekś|dokument|tekst|tekś|źródł|fragment|materiał|informacj)\w*"
    r"(?:\s+(?:ten|te|powyżej))?"
)
_PL = _alt(
    r"\b(?:nie\s+wiem|nie\s+jestem\s+(?:pew(?:ien|na|ny)|przekonan[ya])|nie\s+(?:mogę|potrafię|"
    r"jestem\s+w\s+stanie)\s+(?:\w++\s+){0,2}?(?:odpowiedzieć|powiedzieć|ustalić|określić|"
    r"znaleźć|potwierdzić)|nie\s+mam\s+(?:\w++\s+){0,2}?(?:informacji|danych)|"
    r"nie\s+znalazł(?:em|am)\s+(?:\w++\s+)?(?:informacji|odpowiedzi|danych)|nie\s+mam\s+pojęcia)\b",
    # the present only: "Dokumenty nie podawały ..." reports the past
    _PL_DOCS + r"\s+nie\s+(?:podaj[eą]|wspomina(?:ją)?|zawiera(?:ją)?|określa(?:ją)?|mówi[ąa]?|"
    r"wymienia(?:ją)?|precyzuj[eą]|informuj[eą]|opisuj[eą]|pozwala(?:ją)?)\b",
    r"\b(?:w|we)\s+" + _PL_DOCS + r"\s+(?:\w++\s+){0,2}?(?:nie\s+ma|brak)\s+(?:\w++\s+)?"
    r"(?:informacji|wzmianki|danych|odpowiedzi)",
    r"\bnie\s+(?:jest|zostało|zostały|został|są)\s+(?:wspomnian|podan|określon|wymienion)\w*"
    r"(?=\W*$|[^.;!?]{0,300}\b(?:w|we)\s+" + _PL_DOCS + ")",
    r"(?:^\W*|\b(?:w|we)\s+" + _PL_DOCS + r"\s+)brak\s+(?:\w++\s+)?(?:informacji|danych|wzmianki)",
    r"\b(?:za\s+mało|niewystarczając\w+|zbyt\s+mało)\s+(?:informacji|danych)(?=\W*$|,?\s+"
    r"(?:aby|by|żeby)\s+(?:\w++\s+)?(?:odpowiedzieć|ustalić|określić)|\s+(?:w|we)\s+"
    + _PL_DOCS
    + ")",
)

# ---- Indonesian --------------------------------------------------------------------------
_ID_DOCS = (
    r"\b(?:konteks|dokumen|teks|sumber|bagian(?=\s+(?:teks|dokumen|yang))|kutipan|artikel|informasi)(?:\s+yang\s+"
    r"(?:diberikan|disediakan|tersedia|ada))?(?:\s+(?:ini|tersebut))?"
)
_ID_TIDAK = r"(?:tidak|tak)"
_ID = _alt(
    r"\b(?:(?:saya|aku)\s+(?:benar-benar\s+)?" + _ID_TIDAK + r"\s+(?:tahu|yakin|pasti)|"
    r"(?:saya|aku)\s+" + _ID_TIDAK + r"\s+(?:dapat|bisa|mampu)\s+(?:\w++\s+)?(?:menjawab|"
    r"memastikan|menentukan|menemukan)|(?:saya|aku)\s+" + _ID_TIDAK + r"\s+(?:memiliki|punya|"
    r"mempunyai|menemukan)\s+(?:\w++\s+){0,2}?(?:informasi|data|jawaban|keterangan))\b",
    r"^\W*(?:" + _ID_TIDAK + r"\s+tahu\b|tidak\s+diketahui(?=\W*$))",
    _ID_DOCS + r"\s+" + _ID_TIDAK + r"\s+(?:menyebutkan|menjelaskan|memuat|berisi|mengandung|"
    r"memberikan|mencantumkan|membahas|menyatakan|menyinggung)\b",
    r"\b" + _ID_TIDAK + r"\s+(?:disebutkan|dijelaskan|dicantumkan|tercantum|dibahas|tersedia)\b"
    r"(?=\W*$|[^.;!?]{0,300}\b(?:dalam|di|pada)\s+" + _ID_DOCS + ")",
    r"\b(?:berdasarkan|menurut|dalam|di)\s+" + _ID_DOCS + r"\W+" + _ID_TIDAK + r"\s+(?:ada|"
    r"terdapat)\s+(?:informasi|keterangan|data|penjelasan)\b",
    r"\b" + _ID_TIDAK + r"\s+(?:ada|terdapat)\s+(?:informasi|keterangan|data|penjelasan)\b"
    r"(?=\W*$|[^.;!?]{0,300}\b(?:dalam|di|pada|dari|berdasarkan)\s+" + _ID_DOCS + ")",
    r"\b(?:(?:informasi|data)\s+(?:\w++\s+){0,2}?"
    + _ID_TIDAK
    + r"\s+(?:cukup|memadai)|"
    + _ID_TIDAK
    + r"\s+cukup\s+informasi)(?=\W*$|\s+untuk\s+(?:menjawab|menentukan|memastikan))",
)

# ---- Vietnamese --------------------------------------------------------------------------
_VI_DOCS = (
    r"(?:ngữ\s+cảnh|bối\s+cảnh|tài\s+liệu|văn\s+bản|đoạn\s+văn|đoạn\s+trích|nguồn|"
    r"thông\s+tin\s+(?:được\s+)?cung\s+cấp)(?:\s+(?:được\s+)?(?:cung\s+cấp|đã\s+cho|trên))?"
)
_VI = _alt(
    r"\b(?:(?:tôi|mình|em)\s+(?:thực\s+sự\s+)?(?:không|chẳng)\s+(?:biết|chắc|rõ)|"
    r"(?:tôi|mình|em)\s+(?:không\s+thể|chưa\s+thể)\s+(?:\w++\s+)?(?:trả\s+lời|xác\s+định|"
    r"tìm\s+thấy|khẳng\s+định)|(?:tôi|mình|em)\s+không\s+(?:có|tìm\s+thấy)\s+(?:\w++\s+){0,2}?"
    r"thông\s+tin)\b",
    r"^\W*(?:không\s+(?:biết|rõ)|không\s+có\s+thông\s+tin)\W*$",
    r"\b" + _VI_DOCS + r"\s+(?:\w++\s+)?không\s+(?:đề\s+cập|nêu|nói|cung\s+cấp|chứa|ghi|"
    r"cho\s+biết|nhắc)",
    r"\bkhông\s+(?:được\s+)?(?:đề\s+cập|nêu|nhắc\s+đến|ghi)\b(?=\W*$|[^.;!?]{0,300}\btrong\s+"
    + _VI_DOCS
    + ")",
    r"(?:^|(?<=[,:])|(?<=[,:]\s))không\s+có\s+(?:\w++\s+)?thông\s+tin\b(?=\W*$)",
    r"\bkhông\s+có\s+(?:\w++\s+)?thông\s+tin\b(?=[^.;!?]{0,300}\b(?:trong|từ|theo)\s+"
    + _VI_DOCS
    + ")",
    r"\bkhông\s+đủ\s+thông\s+tin(?=\W*$|\s+(?:để|nhằm)\s+(?:trả\s+lời|xác\s+định|kết\s+luận))",
)

# (what every pattern of the language needs, the patterns): searched only when the gate is
# found. The gates are each language's script, or the negations all its patterns spell out
# (lower case, "ı" as "i": see ``fold``).
LANGUAGES2 = (
    (r"[\uac00-\ud7af]", _KO),
    (r"[\u0600-\u06ff]", _AR),
    (r"[\u0900-\u097f]", _HI),
    (
        r"\bbil(?:mi|emi|gi)|emin|fikr|yanit|cevap|söyle|belirle|belirt|bahse|söz|içerm|geçm|yok|"
        r"bulun|yer\s+al|verm",
        _TR,
    ),
    (r"\bnie\b|\bbrak|mało|niewystarcz", _PL),
    (r"tidak|\btak\b", _ID),
    (r"không|chẳng", _VI),
)

# the rules' words in these languages (read by ``refusal_i18n``)
CONTRAST2 = (
    r"\b(?:하지만|그러나|그렇지만|그런데|다만|لكن|ولكن|لكنه|لكنها|ولكنه|ولكنها|غير\s+أن|إلا\s+أن|"
    r"ama|fakat|ancak|lakin|ale|lecz|jednak|jednakże|natomiast|tetapi|tapi|namun|nhưng|tuy\s+nhiên)"
    r"\b|지만|(?:(?<=\s)|^)(?:लेकिन|परंतु|परन्तु|किंतु|किन्तु|मगर)(?=\s|,|$)"
)
CONCESSION2 = (
    r"(?:\b(?:비록|رغم\s+أن|على\s+الرغم\s+من|مع\s+أن|her\s+ne\s+kadar|chociaż|choć|mimo\s+że|"
    r"pomimo\s+że|meskipun|walaupun|walau|biarpun|mặc\s+dù|tuy\s+rằng)\b|(?:हालांकि|हालाँकि|"
    r"यद्यपि))[^.;!?।]*$"
)
DOCS2 = (
    r"문서|문맥|컨텍스트|자료|텍스트|본문|السياق|النص|المستند|الوثائق|الوثيقة|المصادر|संदर्भ|"
    r"दस्तावेज|पाठ|स्रोत|\b(?:bağlam\w*|belge\w*|metin\w*|kaynak\w*|kontekst\w*|dokument\w*|"
    r"tekst\w*|tekś\w*|kontekś\w*|źródł\w*|konteks|dokumen|teks|sumber|ngữ\s+cảnh|tài\s+liệu|văn\s+bản)\b"
)
COURTESY2 = (
    r"(?:정말\s*)?죄송(?:합니다|해요|하)?|미안(?:합니다|해요)|유감스럽게도|안타깝게도|아쉽게도|"
    r"감사합니다|عذرًا|عذرا|آسف|آسفة|أعتذر|للأسف|مع\s+الأسف|شكرًا|شكرا|क्षमा\s+करें|"
    r"माफ़\s+(?:कीजिए|करें)|माफ\s+(?:कीजिए|करें)|(?:मुझे\s+)?खेद\s+है|दुर्भाग्य\s+से|धन्यवाद|"
    r"üzgünüm|maalesef|ne\s+yazık\s+ki|kusura\s+bakmayın|özür\s+dilerim|teşekkürler|"
    r"przepraszam|niestety|przykro\s+mi|dziękuję|(?:mohon\s+)?maaf|sayangnya|terima\s+kasih|"
    r"xin\s+lỗi|rất\s+tiếc|tiếc\s+là|cảm\s+ơn"
)
ADVICE2 = (
    r".{0,30}(?:확인해\s*(?:보시기|주시기)|문의하시기|참고하시기)\s*바랍니다|.{0,30}(?:확인하세요|"
    r"문의하세요)|يرجى|أنصحك|يمكنك\s+(?:مراجعة|التواصل|الاطلاع|زيارة)|कृपया|lütfen|"
    r".{0,40}(?:kontrol\s+etmenizi|başvurmanızı)\s+öneririm|proszę|polecam|sugeruję|"
    r"(?:możesz|warto)\s+(?:sprawdzić|skontaktować|zajrzeć)|silakan|mohon\s+(?:periksa|hubungi)|"
    r"saya\s+sarankan|anda\s+(?:dapat|bisa)\s+(?:memeriksa|menghubungi|melihat|mengecek)|"
    r"vui\s+lòng|bạn\s+(?:có\s+thể|nên)\s+(?:kiểm\s+tra|liên\s+hệ|tham\s+khảo|xem)|"
    r"tôi\s+khuyên\s+bạn"
)
SERVICE2 = (
    r"(?:(?:이|이\s*정보가|이\s*답변이|이\s*내용이)\s*)?도움이\s*(?:되|됐|되었)\w*\s*(?:바랍니다|"
    r"바래요|좋겠습니다|좋겠어요)|(?:다른|추가|더|궁금한)\s*(?:\S+\s*){0,2}?(?:질문|문의|점)\w*\s*"
    r"(?:이|가)?\s*있으시면.{0,40}|좋은\s*하루\s*(?:되세요|보내세요)"
    r"|(?:أتمنى|آمل|نأمل)\s+أن\s+(?:يكون\s+(?:هذا|ذلك)\s+(?:مفيدًا|مفيدا)|(?:يساعدك|يفيدك)\s+"
    r"(?:هذا|ذلك)|(?:هذا|ذلك)\s+(?:يساعدك|يفيدك|مفيد))|.{0,60}لا\s+تتردد\s+في\s+(?:السؤال|"
    r"التواصل|طرح).{0,30}|(?:أتمنى\s+لك\s+)?(?:يومًا|يوما)\s+(?:سعيدًا|سعيدا)|يوم\s+سعيد"
    r"|(?:आशा|उम्मीद)\s+है\s+(?:कि\s+)?(?:यह|इससे|यह\s+जानकारी)\s+(?:आपकी\s+|आपके\s+)?(?:मदद|"
    r"उपयोगी|काम).{0,30}|.{0,60}बेझिझक\s+(?:पूछें|पूछिए|संपर्क).{0,20}|आपका\s+दिन\s+शुभ\s+हो"
    r"|umarım\s+(?:bu\s+)?(?:yardımcı|faydalı|işinize)\w*\s*(?:olur|olmuştur|yarar)\w*"
    r"|(?:başka\s+)?(?:sorularınız|bir\s+sorunuz)\s+(?:varsa|olursa).{0,50}|.{0,40}"
    r"çekinmeyin|iyi\s+günler|kolay\s+gelsin"
    r"|mam\s+nadzieję,?\s+że\s+(?:to\s+|ta\s+informacja\s+|ta\s+odpowiedź\s+)?(?:pomoże|pomogło|"
    r"pomogła|się\s+przyda|będzie\s+pomocn\w+)|jeśli\s+(?:masz|mają\s+państwo)\s+(?:jakieś\s+)?"
    r"(?:inne|dodatkowe|dalsze)\s+pytania.{0,50}|nie\s+wahaj\s+się.{0,50}|miłego\s+dnia|pozdrawiam|"
    r"powodzenia"
    r"|semoga\s+(?:ini\s+|informasi\s+ini\s+|jawaban\s+ini\s+)?(?:membantu|bermanfaat)\b.{0,30}|"
    r"(?:jika|kalau|bila)\s+(?:anda\s+|kamu\s+)?(?:punya|memiliki|ada|mempunyai)\s+pertanyaan\s+"
    r"(?:lain|lebih\s+lanjut|lainnya).{0,60}|jangan\s+ragu\s+untuk.{0,50}|semoga\s+harimu\s+"
    r"menyenangkan"
    r"|(?:tôi\s+)?hy\s+vọng\s+(?:điều\s+này|thông\s+tin\s+này|câu\s+trả\s+lời\s+này)\s+(?:sẽ\s+)?"
    r"(?:giúp\s+ích|hữu\s+ích|có\s+ích).{0,30}|nếu\s+bạn\s+có\s+(?:bất\s+kỳ\s+)?câu\s+hỏi.{0,60}|"
    r"đừng\s+ngần\s+ngại.{0,50}|chúc\s+bạn.{0,30}(?:tốt\s+lành|vui\s+vẻ|may\s+mắn)"
)
IGNORANCE2 = (
    r"모르|모릅|몰라|알지|확실|확신|답변|대답|답|판단|أعرف|أعلم|أدري|متأكد|الإجابة|الرد|لدي|أملك|पता|"
    r"जानत|यकीन|निश्चित|उत्तर|जवाब|मेरे\s+पास|bilmiyorum|bilemiyorum|emin|fikrim|bilgim|yanıtla|"
    r"cevapla|söyleye|belirleye|veremem|wiem|pewn|pewien|przekonan|mogę|potrafię|nie\s+mam|saya|"
    r"aku|tôi|mình|\bem\b"  # "Nie jestem pewien.", "저는 모릅니다.": the speaker's (2026-11-28)
)
FINDS2 = r"찾|أجد|bulamad|znalazł|menemukan|tìm\s+thấy"


def fold(text: str) -> str:
    """``text`` lower-cased as ``re.IGNORECASE`` compares letters: one character for one
    ("İ" to "i", not "i" and a combining dot; "ı" to "i" and "ſ" to "s", which it equates), so
    a word gate found in ``fold(text)`` with no flags is found wherever a pattern matches."""
    return text.replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")


class Gated:
    """One search over every language's patterns, skipping a language whose gate is absent:
    the very match ``re.compile(alternation of all).search`` returns (the leftmost, the first
    language in order at that position), at a fraction of the cost. A script gate ("[...]") is
    searched in the text with ``re.IGNORECASE``; a word gate, written lower case, in the text
    folded once (``fold``) with no flags, which is several times faster."""

    def __init__(self, languages: tuple[tuple[str, str], ...]) -> None:
        self._languages = [
            (
                re.compile(gate, re.IGNORECASE if gate.startswith("[") else 0),
                not gate.startswith("["),
                re.compile(pattern, re.IGNORECASE),
            )
            for gate, pattern in languages
        ]

    def search(self, text: str) -> re.Match[str] | None:
        best: re.Match[str] | None = None
        folded = fold(text)
        for gate, on_folded, pattern in self._languages:
            if gate.search(folded if on_folded else text) is None:
                continue
            m = pattern.search(text)
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        return best


# "I don't know" inside another clause is a title or reported speech, as in English (2026-11-28,
# review): straight after a word that is no lead of the speaker's own clause ("Le patient a
# répondu je ne sais pas à chaque question.", "Das Lied Ich weiß es nicht erschien 1980.");
# in Spanish, Italian, Portuguese and Russian (no subject pronoun needed, or a lower-case one)
# only a capitalised title ("La canción No lo sé se publicó en 1980.") or after "answered".
# (the phrase, the words before it, whether the phrase is masked after one of them or after
# any other word): the speaker's leads ("Malheureusement je ne sais pas.") keep a refusal
EMBEDDED = (
    (
        r"je\s+ne\s+(?:le\s+)?sais\s+pas|je\s+sais\s+pas|je\s+n'en\s+sais\s+rien",
        "désolé désolée navré navrée pardon mais et ou ni donc alors car puisque que honnêtement "
        "honnête franchement sincèrement malheureusement hélas bien bon moi euh vraiment "
        "contexte documents question",
        False,
    ),
    (
        r"ich\s+wei(?:ß|ss)\s+(?:es\s+)?nicht",
        "leider aber und oder also gesagt leid sorry entschuldigung ehrlich offen doch denn hm "
        "hmm äh nun tja na dass weil kontext dokumenten frage",
        False,
    ),
    (
        r"ik\s+weet\s+(?:het\s+)?niet",
        "helaas maar en of dus gezegd sorry excuses eerlijk want hmm nou tja dat omdat context "
        "documenten vraag",
        False,
    ),
    (
        r"no\s+(?:lo\s+)?s[eé]|non\s+lo\s+so|n[ãa]o\s+sei",
        "respondió contestó dijo rispose risposto disse respondeu responderam",
        True,
    ),
)
# case-sensitive: a capitalised refusal after a word is a title
EMBEDDED_TITLE = (
    r"(?<=[^\W\d_])(\s+)(?:No\s+(?:lo\s+)?s[eé]|Non\s+lo\s+so|N[ãa]o\s+sei|Я\s+не\s+знаю)\b"
)

# "There is no information about X in the city archives." placed in another record than the
# provided material is a claim about that record, as in English (2026-11-28, review): "dans",
# "en", "in", "em", "в" + a record's name ("sur", "sobre", "über" mean "about", never a place)
ELSEWHERE2 = (
    r"\bdans\s+(?:les?|la|l'|un|une|des|ses|son|sa|leurs?|ce|cette|ces)\s*(?:[\w'-]+\s+){0,2}?"
    r"(?:archives?|registres?|rapports?|dossiers?|journa(?:l|ux)|sites?|enregistreurs?|"
    r"disques?|serveurs?|bo[iî]te\s+noire|base\s+de\s+donn[ée]es)\b"
    r"|\ben\s+(?:el|la|los|las|un|una|su|sus|este|esta|estos|estas)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:archivos?|registros?|informes?|expedientes?|peri[oó]dicos?|sitio|grabadora|disco|"
    r"servidor|caja\s+negra|base\s+de\s+datos)\b"
    r"|\b(?:in|nel|nella|nei|negli|nelle|nell')\s*(?:[\w-]+\s+){0,2}?(?:archivi|archivio|"
    r"registr[oi]|rapport[oi]|relazion[ei]|fascicol[oi]|giornal[ei]|sito|disco|server|"
    r"scatola\s+nera|banca\s+dati)\b"
    r"|\b(?:no|na|nos|nas)\s+(?:[\w-]+\s+){0,2}?(?:arquivos?|registros?|relat[oó]rios?|"
    r"processos?|jornais|jornal|site|gravador|disco|servidor|caixa\s+preta|banco\s+de\s+dados)\b"
    r"|\b(?:im|in\s+(?:der|den|dem|einem|einer|seinem|seiner|ihrem|ihrer)|auf\s+(?:dem|der))\s+"
    r"(?:[\w-]+\s+){0,2}?\w*(?:archiv|register|bericht|akte|zeitung|website|webseite|"
    r"flugschreiber|festplatte|server|datenbank)\w*"
    r"|\b(?:in|op)\s+(?:het|de|een|zijn|haar|hun)\s+(?:[\w-]+\s+){0,2}?\w*(?:archief|register|"
    r"rapport|verslag|dossier|krant|website|vluchtrecorder|schijf|server|database)\w*"
    r"|\bв\s+(?:[\w-]+\s+){0,2}?(?:архив|реестр|отч[её]т|газет|сайт|самописц|баз\w*\s+"
    r"данных)\w*"
)
