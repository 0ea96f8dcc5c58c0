"""Refusals, talk to the user and remarks on the documents in seven more languages: Korean,
Arabic, Hindi, Turkish, Polish, Indonesian and Vietnamese.

Before, a Korean pipeline's "제공된 문서에는 해당 정보가 없습니다." was judged as a claim
(faithfulness low, as if a hallucination), refusal_rate said 0% and answer relevance did not
call it noncommittal. Each language has refusals that must decline and answers using the same
words that must not: somebody else (not the documents) who does not mention something, a claim
after "but", quoted text. Also: the cheap pre-check before the regex searches (a language's
patterns are only searched when the text holds what every one of them needs) finds exactly
what the plain search over all the languages finds.
"""

from __future__ import annotations

import re

import pytest

from judged_fakes import ScriptedJudge, statement_in
from ragmeter.metrics import refusal_i18n_phrases as phrases
from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.faithfulness import faithfulness, faithfulness_judge
from ragmeter.metrics.refusal import declines
from ragmeter.metrics.registry import get_metric
from ragmeter.metrics.relevance import answer_relevance
from ragmeter.metrics.speaker import says_context_lacks, talks_to_user
from ragmeter.protocols import Resources
from ragmeter.sample import Sample
from ragmeter.text import split_sentences

DECLINES = {
    "ko": [
        "모르겠습니다.",
        "잘 모르겠어요.",
        "제공된 문서에는 해당 정보가 없습니다.",
        "문맥에서 그의 생년월일은 언급되어 있지 않습니다.",
        "죄송하지만, 이 질문에는 답변할 수 없습니다.",
        "주어진 정보만으로는 답변하기에 충분한 정보가 없습니다.",
        "문서에서 해당 내용을 찾을 수 없습니다.",
        "확실하지 않습니다. 공식 웹사이트를 확인해 보시기 바랍니다.",
    ],
    "ar": [
        "لا أعرف.",
        "لا أعلم.",
        "عذرًا، لا أستطيع الإجابة على هذا السؤال.",
        "السياق لا يذكر تاريخ ميلاده.",
        "لا تذكر الوثائق المقدمة سعر المنتج.",
        "لا توجد معلومات كافية في النص للإجابة على هذا السؤال.",
        "لست متأكدًا، يرجى مراجعة الموقع الرسمي.",
        "للأسف، ليس لدي معلومات حول هذا الموضوع.",
    ],
    "hi": [
        "मुझे नहीं पता।",
        "मुझे पता नहीं।",
        "माफ़ कीजिए, मैं इस प्रश्न का उत्तर नहीं दे सकता।",
        "संदर्भ में उनकी जन्मतिथि का उल्लेख नहीं है।",
        "दिए गए दस्तावेज़ों में इसकी कोई जानकारी नहीं है।",
        "उत्तर देने के लिए पर्याप्त जानकारी नहीं है।",
        "मुझे यकीन नहीं है। कृपया आधिकारिक वेबसाइट देखें।",
        "मुझे इसकी जानकारी नहीं है।",
    ],
    "tr": [
        "Bilmiyorum.",
        "BİLMİYORUM.",
        "Üzgünüm, bu soruyu yanıtlayamam.",
        "Bağlamda doğum tarihi belirtilmemiş.",
        "Sağlanan belgelerde bu konuda bilgi bulunmamaktadır.",
        "Bu soruyu yanıtlamak için yeterli bilgi yok.",
        "Emin değilim. Lütfen resmi web sitesini kontrol edin.",
        "Bu konuda bilgim yok.",
        "Kaynaklar bu konuda bilgi vermiyor.",
    ],
    "pl": [
        "Nie wiem.",
        "Przepraszam, nie wiem.",
        "Kontekst nie podaje daty jego urodzenia.",
        "Dostarczone dokumenty nie zawierają informacji o cenie.",
        "Nie mogę odpowiedzieć na to pytanie na podstawie podanych informacji.",
        "W tekście nie ma informacji na ten temat.",
        "Brak informacji w kontekście.",
        "Nie jestem pewien. Proszę sprawdzić oficjalną stronę.",
    ],
    "id": [
        "Saya tidak tahu.",
        "Tidak tahu.",
        "Maaf, saya tidak dapat menjawab pertanyaan ini.",
        "Konteks tidak menyebutkan tanggal lahirnya.",
        "Dokumen yang diberikan tidak memuat informasi tentang harga.",
        "Tidak ada informasi yang cukup dalam konteks untuk menjawab pertanyaan ini.",
        "Saya tidak yakin. Silakan periksa situs web resmi.",
        "Informasi tersebut tidak disebutkan dalam dokumen.",
        "Informasi tersebut tidak tersedia dalam konteks.",
        "Berdasarkan konteks yang diberikan, tidak ada informasi tentang hal ini.",
    ],
    "vi": [
        "Tôi không biết.",
        "Xin lỗi, tôi không biết.",
        "Tài liệu không đề cập đến ngày sinh của ông ấy.",
        "Ngữ cảnh được cung cấp không nêu giá sản phẩm.",
        "Không có thông tin về vấn đề này trong tài liệu.",
        "Không đủ thông tin để trả lời câu hỏi này.",
        "Tôi không thể trả lời câu hỏi này dựa trên văn bản được cung cấp.",
        "Tôi không chắc. Bạn có thể kiểm tra trang web chính thức.",
    ],
}

ANSWERS = {
    "ko": [
        "대통령은 그 날짜를 언급하지 않았습니다.",
        "보험은 홍수 피해를 보장하지 않습니다.",
        "이유는 모르겠지만, 서울은 한국의 수도입니다.",
        "문서에는 날짜가 언급되어 있지 않지만, 조약은 1992년에 체결되었습니다.",
        "문맥에 그의 나이는 나와 있지 않습니다. 그는 1950년에 태어났습니다.",
        "그는 \u201c모르겠습니다\u201d라고 말하고 회의실을 나갔습니다.",
        "경찰은 범인을 확인할 수 없었습니다.",
    ],
    "ar": [
        "الرئيس لم يذكر تاريخ الاجتماع.",
        "التأمين لا يغطي أضرار الفيضانات.",
        "لا أعرف السبب، لكن القاهرة هي عاصمة مصر.",
        "السياق لا يذكر عمره. وُلد عام 1950.",
        "قال: \u00abلا أعرف\u00bb ثم غادر القاعة دون أن يجيب على أسئلة الصحفيين.",
        "لم يكن لدى المحققين معلومات كافية لتحديد هوية المشتبه به.",
    ],
    "hi": [
        "राष्ट्रपति ने तारीख का उल्लेख नहीं किया।",
        "बीमा बाढ़ से हुए नुकसान को कवर नहीं करता।",
        "मुझे नहीं पता क्यों, लेकिन दिल्ली भारत की राजधानी है।",
        "संदर्भ में उनकी उम्र का उल्लेख नहीं है। उनका जन्म 1950 में हुआ था।",
        "उसने कहा, \u201cमुझे नहीं पता\u201d और कमरे से बाहर चला गया।",
        "जांचकर्ताओं के पास संदिग्ध की पहचान करने के लिए पर्याप्त जानकारी नहीं थी।",
    ],
    "tr": [
        "Başkan toplantının tarihinden bahsetmedi.",
        "Sigorta sel hasarını kapsamıyor.",
        "Nedenini bilmiyorum ama Ankara Türkiye'nin başkentidir.",
        "Bağlamda yaşı belirtilmemiş. 1950'de doğdu.",
        "O yüzmeyi bilmiyor.",
        "\u201cBilmiyorum\u201d dedi ve gazetecilerin sorularını yanıtlamadan salondan çıktı.",
    ],
    "pl": [
        "Prezydent nie wspomniał o dacie spotkania.",
        "Ubezpieczenie nie obejmuje szkód powodziowych.",
        "Nie wiem dlaczego, ale Warszawa jest stolicą Polski.",
        "Kontekst nie podaje jego wieku. Urodził się w 1950 roku.",
        "On nie wie, kto to zrobił.",
        "Powiedział: \u201eNie wiem\u201d, po czym wyszedł z sali bez odpowiedzi.",
        "Kontekst nie podaje daty, ale traktat podpisano w Rzymie.",
        # the historical context, not the documents; and the documents' past
        "Kontekst historyczny nie pozwala na taką reformę.",
        "Dokumenty nie podawały daty, bo zaginęły w czasie wojny.",
    ],
    "id": [
        "Presiden tidak menyebutkan tanggal pertemuan.",
        "Asuransi tidak menanggung kerusakan akibat banjir.",
        "Saya tidak tahu pasti, tetapi Jakarta adalah ibu kota Indonesia.",
        "Konteks tidak menyebutkan usianya. Ia lahir pada tahun 1950.",
        "Dia tidak tahu cara berenang.",
        "Ia berkata, \u201cSaya tidak tahu,\u201d lalu pergi tanpa menjawab wartawan.",
        "Tidak ada informasi resmi, tetapi media melaporkan 12 korban.",
    ],
    "vi": [
        "Tổng thống không đề cập đến ngày họp.",
        "Bảo hiểm không chi trả thiệt hại do lũ lụt.",
        "Tôi không biết tại sao, nhưng Hà Nội là thủ đô của Việt Nam.",
        "Tài liệu không đề cập đến tuổi của ông ấy. Ông sinh năm 1950.",
        "Anh ấy không biết bơi.",
        "Anh ta nói: \u201cTôi không biết\u201d rồi rời khỏi phòng mà không trả lời phóng viên.",
    ],
}

# (a remark on what the documents lack, a claim): the remark is dropped, the claim kept
LACKS = [
    ("문서에는 인구에 대한 정보가 없습니다.", "서울은 한국의 수도입니다."),
    ("السياق لا يذكر عدد السكان.", "القاهرة هي عاصمة مصر."),
    ("Bağlamda nüfusu belirtilmemiş.", "Ankara Türkiye'nin başkentidir."),
    ("Kontekst nie podaje liczby mieszkańców.", "Warszawa jest stolicą Polski."),
    ("Konteks tidak menyebutkan jumlah penduduknya.", "Jakarta adalah ibu kota Indonesia."),
    ("Tài liệu không đề cập đến dân số.", "Hà Nội là thủ đô của Việt Nam."),
]
# (a claim, talk to the user)
TALK = [
    ("서울은 한국의 수도입니다.", "도움이 되셨기를 바랍니다!"),
    ("서울은 한국의 수도입니다.", "다른 질문이 있으시면 언제든지 물어보세요."),
    ("القاهرة هي عاصمة مصر.", "أتمنى أن يكون هذا مفيدًا!"),
    ("القاهرة هي عاصمة مصر.", "إذا كان لديك أي أسئلة أخرى، فلا تتردد في السؤال."),
    ("Ankara Türkiye'nin başkentidir.", "Umarım yardımcı olur!"),
    ("Ankara Türkiye'nin başkentidir.", "Başka sorularınız varsa çekinmeden sorun."),
    ("Warszawa jest stolicą Polski.", "Mam nadzieję, że to pomoże!"),
    ("Warszawa jest stolicą Polski.", "Jeśli masz inne pytania, śmiało pytaj."),
    ("Jakarta adalah ibu kota Indonesia.", "Semoga membantu!"),
    (
        "Jakarta adalah ibu kota Indonesia.",
        "Jika Anda punya pertanyaan lain, jangan ragu untuk bertanya.",
    ),
    ("Hà Nội là thủ đô của Việt Nam.", "Hy vọng thông tin này hữu ích cho bạn!"),
    ("Hà Nội là thủ đô của Việt Nam.", "Chúc bạn một ngày tốt lành!"),
]
# the same words about the world: kept as claims
KEPT = [
    ("대통령은 인구를 언급하지 않았습니다.", "서울은 한국의 수도입니다."),
    ("الرئيس لم يذكر عدد السكان.", "القاهرة هي عاصمة مصر."),
    ("أتمنى أن ينجح في الامتحان.", "القاهرة هي عاصمة مصر."),
    ("Umarım yarın gelir.", "Ankara Türkiye'nin başkentidir."),
    ("Prezydent nie wspomniał o liczbie mieszkańców.", "Warszawa jest stolicą Polski."),
    ("Mam nadzieję, że jutro przyjdzie.", "Warszawa jest stolicą Polski."),
    ("Semoga dia cepat sembuh.", "Jakarta adalah ibu kota Indonesia."),
    ("Tổng thống không đề cập đến dân số.", "Hà Nội là thủ đô của Việt Nam."),
    (
        "Konteks tidak menyebutkan tanggalnya, tetapi perjanjian ditandatangani di Roma.",
        "Itu pada 1992.",
    ),
]
# Hindi: "।" ends a sentence that text.split_sentences does not cut, so these are read one
# sentence at a time
HI_LACKS = "संदर्भ में उसकी आबादी का उल्लेख नहीं है।"
HI_TALK = ["आशा है कि इससे आपकी मदद होगी!", "अगर आपके कोई और प्रश्न हैं, तो बेझिझक पूछें।"]
HI_KEPT = ["राष्ट्रपति ने आबादी का उल्लेख नहीं किया।", "आशा है कि वह कल आएगा।"]

ALL_CASES = [a for v in DECLINES.values() for a in v] + [a for v in ANSWERS.values() for a in v]


@pytest.mark.parametrize("answer", [a for v in DECLINES.values() for a in v], ids=lambda a: a[:30])
def test_refusals_in_seven_more_languages_decline(answer: str) -> None:
    assert declines(answer) is not None


@pytest.mark.parametrize("answer", [a for v in ANSWERS.values() for a in v], ids=lambda a: a[:30])
def test_answers_with_the_same_words_do_not_decline(answer: str) -> None:
    assert declines(answer) is None


def test_every_language_has_enough_cases() -> None:
    assert set(DECLINES) == set(ANSWERS) == {"ko", "ar", "hi", "tr", "pl", "id", "vi"}
    assert all(len(DECLINES[k]) >= 6 and len(ANSWERS[k]) >= 6 for k in DECLINES)


@pytest.mark.parametrize(("remark", "claim"), LACKS)
def test_a_remark_on_what_the_documents_lack_is_not_a_claim(remark: str, claim: str) -> None:
    assert says_context_lacks(remark)
    got = claims_of("?", f"{remark} {claim}")
    assert got.original == [claim]
    assert [d["why"] for d in got.dropped] == ["says what the context lacks"]


@pytest.mark.parametrize(("claim", "talk"), TALK)
def test_talk_to_the_user_is_not_a_claim(claim: str, talk: str) -> None:
    assert talks_to_user(talk)
    got = claims_of("?", f"{claim} {talk}")
    assert got.original == [claim]
    assert len(got.dropped) == 1


@pytest.mark.parametrize(("first", "second"), KEPT)
def test_the_same_words_about_the_world_stay_claims(first: str, second: str) -> None:
    assert not says_context_lacks(first) and not talks_to_user(first)
    assert claims_of("?", f"{first} {second}").original == [first, second]


def test_hindi_remarks_and_talk_one_sentence_at_a_time() -> None:
    assert says_context_lacks(HI_LACKS)
    assert all(talks_to_user(t) for t in HI_TALK)
    assert not any(says_context_lacks(k) or talks_to_user(k) for k in HI_KEPT)


def test_hindi_full_stop_and_arabic_question_mark_end_sentences() -> None:
    """ "।" and "؟" end a sentence: a claim after a refusal answers, a question back does not."""
    assert declines("मुझे नहीं पता। दिल्ली भारत की राजधानी है।") is None
    assert declines("मुझे नहीं पता। क्या आप प्रश्न दोबारा पूछ सकते हैं?") is not None
    assert declines("لا أعرف. هل يمكنك إعادة صياغة السؤال؟") is not None
    assert declines("لا أعرف. القاهرة هي عاصمة مصر، وعدد سكانها كبير.") is None
    assert declines("لا أعرف، لكن القاهرة هي عاصمة مصر.") is None


def test_a_refusal_with_talk_to_the_user_declines() -> None:
    assert declines("모르겠습니다. 좋은 하루 보내세요!") is not None
    assert declines("Nie wiem. Miłego dnia!") is not None
    assert declines("Nie wiem. Warszawa jest stolicą Polski.") is None


def _sample(answer: str, question: str) -> Sample:
    return Sample(
        question_id="q", question=question, answer=answer, contexts=["서울은 한국의 수도입니다."]
    )


async def test_a_korean_refusal_through_the_metrics() -> None:
    row = _sample("제공된 문서에는 해당 정보가 없습니다.", "서울의 인구는 얼마입니까?")
    assert get_metric("refusal_rate").compute(row).value == 1.0
    judge = ScriptedJudge(lambda t: 0.9)
    f = await faithfulness(row, Resources(judge=judge))
    assert f.status == "undefined" and f.details["declined"]
    ar = await answer_relevance(row, Resources(judge=judge))
    assert ar.value == 0.0 and ar.details["noncommittal"]
    assert not judge.log


async def test_an_honest_korean_answer_keeps_full_faithfulness() -> None:
    """End to end: the judge supports the claim and nothing else; before, the remark and the
    talk were judged too and faithfulness was 1/3."""
    claim = "서울은 대한민국의 수도이며 한강을 따라 자리 잡은 가장 큰 도시입니다."
    judge = ScriptedJudge(lambda t: 0.95 if statement_in(t) == claim else 0.05)
    answer = f"문서에는 인구에 대한 정보가 없습니다. {claim} 도움이 되셨기를 바랍니다!"
    got = await faithfulness_judge(
        _sample(answer, "서울에 대해 알려주세요."), Resources(judge=judge)
    )
    assert got.value == pytest.approx(0.95)
    assert len(got.details["dropped"]) == 2


def test_the_pre_check_finds_what_the_plain_search_finds() -> None:
    """The gated search (each language's patterns only when the text holds what they all
    need) returns the very match of one search over every language's patterns."""
    import test_refusal_i18n as nine

    plain = re.compile("|".join(f"(?:{p})" for _, p in phrases.LANGUAGES), re.IGNORECASE)
    texts = ALL_CASES + [a for v in nine.DECLINES.values() for a in v] + nine.MORE_DECLINES
    texts += [a for v in nine.ANSWERS.values() for a in v] + nine.MORE_ANSWERS
    texts += ["The context does not say.", "Rome is the capital.", "No se.", "Nao sei."]
    for t in texts:
        for piece in [t, *re.split(r"(?<=[.!?。！？।؟])\s*", t)]:
            a, b = phrases.REFUSAL.search(piece), plain.search(piece)
            assert (a and (a.span(), a.group(0))) == (b and (b.span(), b.group(0))), piece


def test_a_hindi_or_arabic_answer_is_split_into_its_sentences() -> None:
    """Before, split_sentences cut at no "।" or "؟": a Hindi answer was one claim holding its
    fact, a remark on the documents and talk to the user, judged together (and a Hindi context
    one sentence, for context relevance and evidence alike)."""
    fact = "दिल्ली भारत की राजधानी है।"
    got = claims_of("?", f"{fact} {HI_LACKS} {HI_TALK[0]}")
    assert got.original == [fact]
    assert len(got.dropped) == 2
    assert split_sentences("भारत की राजधानी नई दिल्ली है। इसकी जनसंख्या बहुत बड़ी है।") == [
        "भारत की राजधानी नई दिल्ली है।",
        "इसकी जनसंख्या बहुत बड़ी है।",
    ]
    assert split_sentences("ما هي عاصمة مصر؟ القاهرة هي العاصمة.") == [
        "ما هي عاصمة مصر؟",
        "القاهرة هي العاصمة.",
    ]
    assert split_sentences("اسلام آباد دارالحکومت ہے۔ یہ خوبصورت ہے۔") == [
        "اسلام آباد دارالحکومت ہے۔",
        "یہ خوبصورت ہے۔",
    ]
