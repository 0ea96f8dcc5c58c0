"""A short answer put back into its wh-question (metrics/wh_claim.py), and where no rule is sure."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmeter.metrics.claims import claims_of
from ragmeter.metrics.wh_claim import declarative

CASES = [
    # subject questions: the answer replaces the wh-phrase
    ("Who discovered penicillin?", "Alexander Fleming", "Alexander Fleming discovered penicillin."),
    ("What is the capital of Italy?", "Rome", "Rome is the capital of Italy."),
    (
        "Which film opened the 80th Venice International Film Festival?",
        "Comandante",
        "Comandante opened the 80th Venice International Film Festival.",
    ),
    (
        "Which two experiments reported the Higgs boson?",
        "ATLAS and CMS",
        "ATLAS and CMS reported the Higgs boson.",
    ),
    (
        "Which telescope array was built on the Chajnantor plateau?",
        "ALMA",
        "ALMA was built on the Chajnantor plateau.",
    ),
    (
        "Which film will close the festival?",
        "Society of the Snow",
        "Society of the Snow will close the festival.",
    ),
    (
        "Who stars as J. Robert Oppenheimer in the film?",
        "Cillian Murphy",
        "Cillian Murphy stars as J. Robert Oppenheimer in the film.",
    ),
    ("Which cells make insulin?", "The beta cells", "The beta cells make insulin."),
    # copular and passive questions, a preposition before the wh-phrase
    ("In which US state is Mount Brown located?", "Montana", "Mount Brown is located in Montana."),
    ("In which year was PharmaCann founded?", "2014", "PharmaCann was founded in 2014."),
    (
        "When was the Channel Tunnel formally opened?",
        "6 May 1994",
        "The Channel Tunnel was formally opened on 6 May 1994.",
    ),
    (
        "When was the first Tour de France held?",
        "July 1903",
        "The first Tour de France was held in July 1903.",
    ),
    (
        "In which national park is Myosotis angustata still found?",
        "Kahurangi",
        "Myosotis angustata is still found in Kahurangi.",
    ),
    # do-support: the verb inflected for tense and person
    (
        "Into which sea does the Danube empty?",
        "The Black Sea",
        "The Danube empties into the Black Sea.",
    ),
    ("When did the Titanic sink?", "15 April 1912", "The Titanic sank on 15 April 1912."),
    ("Where did Moud Goba grow up?", "Harare", "Moud Goba grew up in Harare."),
    (
        "At which festival did Gaucho Americano have its world premiere?",
        "Hot Docs",
        "Gaucho Americano had its world premiere at Hot Docs.",
    ),
    (
        "On what date did the cold snap in Afghanistan begin?",
        "January 10, 2023",
        "The cold snap in Afghanistan began on January 10, 2023.",
    ),
    ("Who did Marie Curie marry?", "Pierre Curie", "Marie Curie married Pierre Curie."),
    (
        "What did Napoleon eat for breakfast on the morning of Waterloo?",
        "Chicken",
        "Napoleon ate Chicken for breakfast on the morning of Waterloo.",
    ),
    ("What do you call a baby kangaroo?", "A joey", "You call a baby kangaroo a joey."),
    ("Which bike should a beginner buy?", "The Model X", "A beginner should buy the Model X."),
    ("Where does tea come from?", "China", "Tea comes from China."),
    # modals
    (
        "From which space centre will the PSLV-C56 mission be launched?",
        "Satish Dhawan Space Centre",
        "The PSLV-C56 mission will be launched from Satish Dhawan Space Centre.",
    ),
    # how many / much / high
    (
        "How many bones does an adult human skeleton have?",
        "206",
        "An adult human skeleton has 206 bones.",
    ),
    (
        "How many confirmed moons did Saturn have as of 2023?",
        "146",
        "Saturn had 146 confirmed moons as of 2023.",
    ),
    (
        "How many people were killed in the shooting?",
        "Seven",
        "Seven people were killed in the shooting.",
    ),
    (
        "About how many individual reefs make up the Great Barrier Reef?",
        "About 2,900",
        "About 2,900 individual reefs make up the Great Barrier Reef.",
    ),
    (
        "How many main stations is the trail connected to?",
        "27",
        "The trail is connected to 27 main stations.",
    ),
    (
        "How much water does the Amazon discharge per second?",
        "About 209,000 cubic metres",
        "The Amazon discharges about 209,000 cubic metres per second.",
    ),
    ("How high is Uhuru Peak?", "5,895 metres", "Uhuru Peak is 5,895 metres high."),
    (
        "How many people did the earthquakes kill?",
        "At least 140",
        "The earthquakes killed at least 140 people.",
    ),
    # the last question of a chat turn
    ("Amazing! When was it?", "In the sixties.", "It was in the sixties."),
    # a stranded preposition: the answer goes after it, not before it
    ("What port does the server listen on?", "8080", "The server listens on 8080."),
    ("Who did the Beatles sign with?", "EMI", "The Beatles signed with EMI."),
    ("Who do I report to?", "The team lead", "I report to the team lead."),
    ("Who does the team report to?", "The CTO", "The team reports to the CTO."),
    ("What does SSO stand for?", "Single sign-on", "SSO stands for Single sign-on."),
    ("How much did the house sell for?", "$1.2 million", "The house sold for $1.2 million."),
    ("What gas do plants give off?", "Oxygen", "Plants give off Oxygen."),
    # a negative subject question
    ("Which country did not sign the treaty?", "France", "France did not sign the treaty."),
    ("How many employees did not attend?", "Five", "Five employees did not attend."),
    # "What caused X?": the wh-word alone is the subject
    ("What caused the fire?", "An electrical fault", "An electrical fault caused the fire."),
    # an indefinite answer says what the subject is
    ("Who was Cleopatra?", "An Egyptian queen", "Cleopatra was an Egyptian queen."),
    (
        "What is Kubernetes?",
        "An orchestration platform",
        "Kubernetes is an orchestration platform.",
    ),
    # a share of something: the rest of the wh-phrase is kept
    (
        "What percentage of the Earth is covered by water?",
        "71%",
        "71% of the Earth is covered by water.",
    ),
    # the counted noun kept whole when the answer names its unit
    ("How many days of leave do I get?", "25 days", "I get 25 days of leave."),
    ("How many hours a week do employees work?", "40 hours", "Employees work 40 hours a week."),
    ("How many GB of storage do I get?", "100 GB", "I get 100 GB of storage."),
    (
        "How many weeks of parental leave are offered?",
        "16 weeks",
        "16 weeks of parental leave are offered.",
    ),
    (
        "How many people live in Tokyo?",
        "About 14 million",
        "About 14 million people live in Tokyo.",
    ),
    # "How many N are in / there ...": the counted noun is the subject
    ("How many countries are in the EU?", "27", "27 countries are in the EU."),
    ("How many members are there in the EU?", "27", "There are 27 members in the EU."),
    ("When will the feature be released?", "Q3 2024", "The feature will be released in Q3 2024."),
]


@pytest.mark.parametrize(("question", "answer", "claim"), CASES)
def test_short_answer_put_back_into_its_question(question: str, answer: str, claim: str) -> None:
    assert declarative(question, answer) == claim


NO_RULE = [
    ("Why did the Roman Empire fall?", "Overexpansion"),  # a reason, no slot to fill
    ("How did the war end?", "A treaty"),  # manner
    ("When did the water level rise?", "In 2020"),  # "level" or "rise": not sure which is the verb
    ("What is the lake called?", "Taupo"),  # "Taupo is the lake called" would be wrong
    ("Who is Pierre Curie married to?", "Marie Curie"),  # the wh-word is no subject
    ("How long did the siege last?", "86 days"),  # where the amount goes is not sure
    ("How long will it take?", "A while."),
    ("Who wrote Hamlet, and when?", "Shakespeare"),  # two questions
    ("When was the Eiffel Tower completed and how tall is it?", "1889"),  # two questions
    ("Is Rome the capital of Italy?", "Yes"),  # polar: not a wh-question
    ("Tell me the capital of Italy.", "Rome"),  # a request, no question mark
    ("Who or what caused the fire?", "Lightning"),
    ("What?", "Rome"),
    # the answer is not the whole wh-phrase: "Jupiter is the largest", "Igneous is granite"
    ("Which of the planets is the largest?", "Jupiter"),
    ("What kind of animal is a dingo?", "A wild dog"),
    ("What type of rock is granite?", "Igneous"),
    ("What colour is the sky?", "Blue"),
    ("What version of Python is required?", "3.10 or later"),
    ("What size screws should I use?", "10-15 mm"),
    # "N far / fast / heavy / big" is not English, and "from Earth" is no part of the subject
    ("How far is the Moon from Earth?", "About 384,400 km"),
    ("How fast is a cheetah?", "Up to 120 km/h"),
    ("How heavy is an elephant?", "Up to 6 tonnes"),
    ("How big is the file limit?", "25 MB"),
    # "five times" belongs at the end: "Brazil has won five times the World Cup" is wrong
    ("How many times has Brazil won the World Cup?", "Five"),
    ("How many times did Brazil win the World Cup?", "Five times"),
    # no participle: where the subject ends is not sure ("It to Boston is 200 miles")
    ("How many miles is it to Boston?", "About 200 miles"),
    ("How many days a week is the office open?", "Five days"),
    # "causes" / "makes": the verb, or a noun before the verb ("The Moon tides.")
    ("What causes tides?", "The Moon"),
    ("What makes bread rise?", "Yeast"),
]


@pytest.mark.parametrize(("question", "answer"), NO_RULE)
def test_no_sentence_when_no_rule_is_sure(question: str, answer: str) -> None:
    assert declarative(question, answer) is None


def test_claims_use_the_sentence_and_keep_the_template_otherwise() -> None:
    assert claims_of("What is the capital of Italy?", "Rome").judged == [
        "Rome is the capital of Italy."
    ]
    assert claims_of("How did the war end?", "A treaty").judged == [
        'The answer to "How did the war end?" is A treaty.'
    ]
    # the yes/no claim of a polar question is unchanged
    assert claims_of("Is Rome the capital of Italy?", "Yes").judged == [
        'The answer to "Is Rome the capital of Italy?" is Yes.'
    ]


def test_final_punctuation_does_not_change_the_claim() -> None:
    q = "Which river drains Lake Taupo?"
    assert {
        claims_of(q, a).judged[0]
        for a in ("The Waikato River", "The Waikato River.", "The Waikato River!")
    } == {"The Waikato River drains Lake Taupo."}


_WORD = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-'",
    min_size=1,
    max_size=9,
)


@settings(max_examples=300, deadline=None)
@given(
    q=st.lists(_WORD, min_size=1, max_size=9).map(lambda ws: " ".join(ws) + "?"),
    wh=st.sampled_from(["Who", "What", "Which", "When", "Where", "How many", "In which", "How"]),
    a=st.lists(_WORD, min_size=1, max_size=4).map(" ".join),
)
def test_any_sentence_holds_the_answer_and_the_question_words(q: str, wh: str, a: str) -> None:
    """Whatever the question, a sentence made holds every word of the answer (a leading
    function word may be lower-cased), ends with a full stop, and nothing raises."""
    question = f"{wh} {q}"
    out = declarative(question, a)
    if out is None:
        return
    low = out.lower()
    for w in a.split():
        assert w.lower() in low
    assert out.endswith(".")
