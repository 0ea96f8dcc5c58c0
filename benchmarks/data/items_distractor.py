"""Right answers vs hallucinations built from the context's own words (written for ragmeter,
2026-11-26, committed before any judge ran on it).

The hallucination pattern a word-overlap signal cannot see: the wrong answer names another
entity, date or number **of the same kind that the context itself holds** ("Robert Downey
Jr." for the actor who plays General Groves, where the context casts him as Lewis Strauss).
Every word of the wrong answer is in the context, so K-Precision and the lexical support of
ragmeter's default faithfulness give it full marks, and no name or number is absent. Only
reading which entity the context attaches to what can tell the answers apart. The set checks
that the combination of judge and lexical evidence is not worse than the judge alone where
the lexical evidence is blind.

The knowledge is a WikiEval row's ``context_v1``; each item has a short answer (at most 4
words, judged as the claim it makes about the question) and a sentence answer, right and
wrong, the wrong ones differing from the right ones only in the distractor.

Each item: (WikiEval row, question, right short, wrong short, right sentence, wrong
sentence, the right and the wrong entity as the context writes them).
"""

from __future__ import annotations

DISTRACTOR_ITEMS: list[tuple[int, str, str, str, str, str, str, str]] = [
    (
        1,
        "How long is the rail connection the Uzbekistan-Afghanistan-Pakistan Railway Project "
        "would establish?",
        "573 km",
        "760 km",
        "The project would establish a 573-km rail connection between Tashkent, Kabul and "
        "Peshawar.",
        "The project would establish a 760-km rail connection between Tashkent, Kabul and "
        "Peshawar.",
        "573-km",
        "760 kilometers",
    ),
    (
        3,
        "Who plays General Leslie Groves in Oppenheimer?",
        "Matt Damon",
        "Robert Downey Jr.",
        "Matt Damon plays General Leslie Groves, director of the Manhattan Project.",
        "Robert Downey Jr. plays General Leslie Groves, director of the Manhattan Project.",
        "Matt Damon",
        "Robert Downey Jr.",
    ),
    (
        6,
        "To which subgenus does Dasypoda radchenkoi belong?",
        "Heterodasypoda",
        "Microdasypoda",
        "Dasypoda radchenkoi belongs to the subgenus Heterodasypoda, like the Iberian Dasypoda "
        "morotei.",
        "Dasypoda radchenkoi belongs to the subgenus Microdasypoda, like the Iberian Dasypoda "
        "morotei.",
        "Heterodasypoda",
        "Microdasypoda",
    ),
    (
        11,
        "How many main stations is the Zubaydah Trail connected to?",
        "27",
        "58",
        "The Zubaydah Trail is connected to 27 main stations, most of them in Saudi Arabia.",
        "The Zubaydah Trail is connected to 58 main stations, most of them in Saudi Arabia.",
        "27 main stations",
        "58 subsidiary stations",
    ),
    (
        12,
        "Who inaugurated the Chimnabai Clock Tower?",
        "Mir Kamaluddin Hussainkhan",
        "Sayajirao Gaekwad III",
        "The Chimnabai Clock Tower was inaugurated by Mir Kamaluddin Hussainkhan of Baroda.",
        "The Chimnabai Clock Tower was inaugurated by Sayajirao Gaekwad III of Baroda.",
        "Mir Kamaluddin Hussainkhan",
        "Sayajirao Gaekwad III",
    ),
    (
        14,
        "In which year did the Inter Expo Center have its first expansion?",
        "2003",
        "2008",
        "The Inter Expo Center had its first expansion in 2003, when a congress center was added.",
        "The Inter Expo Center had its first expansion in 2008, when a congress center was added.",
        "2003",
        "2008",
    ),
    (
        19,
        "Which film will close the 80th Venice International Film Festival?",
        "Society of the Snow",
        "Challengers",
        "J. A. Bayona's Society of the Snow will close the festival on 9 September.",
        "Luca Guadagnino's Challengers will close the festival on 9 September.",
        "Society of the Snow",
        "Challengers",
    ),
    (
        19,
        "Who is the Jury President for the main competition of the 80th Venice International "
        "Film Festival?",
        "Damien Chazelle",
        "Alice Diop",
        "The American filmmaker Damien Chazelle is Jury President for the main competition.",
        "The French filmmaker Alice Diop is Jury President for the main competition.",
        "Damien Chazelle",
        "Alice Diop",
    ),
    (
        23,
        "In which year was the Roanoke and Tar River Railroad first chartered?",
        "1871",
        "1885",
        "The railroad was first chartered by the North Carolina State Legislature in 1871.",
        "The railroad was first chartered by the North Carolina State Legislature in 1885.",
        "1871",
        "1885",
    ),
    (
        23,
        "Where did the Murfreesboro Railroad branch off the Roanoke and Tar River Railroad?",
        "At Pendleton",
        "At Kelford",
        "The Murfreesboro Railroad branched off the Roanoke and Tar River Railroad at Pendleton.",
        "The Murfreesboro Railroad branched off the Roanoke and Tar River Railroad at Kelford.",
        "Pendleton",
        "Kelford",
    ),
    (
        24,
        "Where did Moud Goba grow up?",
        "Harare, Zimbabwe",
        "Birmingham, England",
        "Moud Goba grew up in Harare, Zimbabwe, before she fled the country.",
        "Moud Goba grew up in Birmingham, England, before she fled the country.",
        "Harare, Zimbabwe",
        "Birmingham, England",
    ),
    (
        24,
        "Which magazine honoured Moud Goba with a Pride Award in 2017?",
        "Attitude",
        "The Independent",
        "In 2017 the LGBT magazine Attitude honoured Goba with a Pride Award.",
        "In 2017 The Independent honoured Goba with a Pride Award.",
        "Attitude",
        "The Independent",
    ),
    (
        26,
        "Who directed Gaucho Americano?",
        "Nicolás Molina",
        "Paula López",
        "Gaucho Americano is a Chilean documentary directed by Nicolás Molina.",
        "Gaucho Americano is a Chilean documentary directed by Paula López.",
        "Nicolás Molina",
        "Paula López",
    ),
    (
        26,
        "On what date was Gaucho Americano commercially released in Chilean theaters?",
        "September 8, 2022",
        "April 29, 2021",
        "Gaucho Americano was commercially released in Chilean theaters on September 8, 2022.",
        "Gaucho Americano was commercially released in Chilean theaters on April 29, 2021.",
        "September 8, 2022",
        "April 29, 2021",
    ),
    (
        29,
        "In which cathedral is the Tomb of Alexander Stewart located?",
        "Dunkeld Cathedral",
        "Elgin Cathedral",
        "The Tomb of Alexander Stewart is located in Dunkeld Cathedral, Perthshire.",
        "The Tomb of Alexander Stewart is located in Elgin Cathedral, Perthshire.",
        "Dunkeld Cathedral",
        "Elgin",
    ),
    (
        29,
        "Which year is inscribed on the Tomb of Alexander Stewart?",
        "1420",
        "1370",
        "The tomb of Alexander Stewart is inscribed with the year 1420.",
        "The tomb of Alexander Stewart is inscribed with the year 1370.",
        "1420",
        "1370",
    ),
    (
        34,
        "How many people did the 2022 Hormozgan earthquakes kill?",
        "Seven",
        "Twelve",
        "The 2022 Hormozgan earthquakes killed seven people and injured dozens more.",
        "The 2022 Hormozgan earthquakes killed twelve people and injured dozens more.",
        "seven people",
        "twelve",
    ),
    (
        34,
        "What was the magnitude of the strongest aftershock of the 2022 Hormozgan earthquakes "
        "by 3 July?",
        "5.7 Mw",
        "6.0 Mw",
        "By 3 July the strongest of the twelve aftershocks measured 5.7 Mw.",
        "By 3 July the strongest of the twelve aftershocks measured 6.0 Mw.",
        "5.7 Mw",
        "6.0",
    ),
    (
        40,
        "How many people were hospitalized for carbon monoxide poisoning in Herat Province?",
        "At least 140",
        "At least 160",
        "At least 140 people using gas for heating were hospitalized in Herat Province.",
        "At least 160 people using gas for heating were hospitalized in Herat Province.",
        "140",
        "160",
    ),
    (
        40,
        "On what date did the cold snap in Afghanistan begin?",
        "January 10, 2023",
        "January 17, 2023",
        "The cold snap began in Afghanistan on January 10, 2023.",
        "The cold snap began in Afghanistan on January 17, 2023.",
        "January 10, 2023",
        "January 17",
    ),
    (
        43,
        "In which city will the Miss Grand Dominican Republic 2023 pageant be held?",
        "Santiago de los Caballeros",
        "Vietnam",
        "The pageant will be held at the Cibao Grand Theatre in Santiago de los Caballeros.",
        "The pageant will be held in Vietnam, at the Cibao Grand Theatre.",
        "Santiago de los Caballeros",
        "Vietnam",
    ),
    (
        43,
        "Who held the Miss Grand Dominican Republic license before Alejandro Martínez and "
        "Jorge Cruz?",
        "Joe Amhed",
        "Karla Martínez",
        "Before Alejandro Martínez and Jorge Cruz, the license was held by Joe Amhed.",
        "Before Alejandro Martínez and Jorge Cruz, the license was held by Karla Martínez.",
        "Joe Amhed",
        "Karla Martínez",
    ),
]
