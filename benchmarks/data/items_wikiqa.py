"""Short right answers vs wordy hallucinations over WikiEval's long contexts (written for
ragmeter, 2026-11-25, committed before any judge ran on it).

The pattern where the judge once lost to word overlap: the right answer is a bare entity, a
date or a number ("Christopher Nolan"), the hallucinated one a fluent sentence that restates
the question with one fact swapped and adds a plausible detail. The knowledge is a WikiEval
row's ``context_v1`` (98-1,275 words of Wikipedia), the question a single-hop question about a
fact that WikiEval's own grounded answer takes from it.

Each item: (WikiEval row, question, short right answer, wordy hallucinated answer).
"""

from __future__ import annotations

WIKIQA_ITEMS: list[tuple[int, str, str, str]] = [
    (
        0,
        "From which space centre will the PSLV-C56 mission be launched?",
        "Satish Dhawan Space Centre",
        "The PSLV-C56 mission will be launched from the Vikram Sarabhai Space Centre in "
        "Thiruvananthapuram, ISRO's main facility for polar launches.",
    ),
    (
        2,
        "In which year was PharmaCann founded?",
        "2014",
        "PharmaCann was founded in 2011, shortly after Illinois passed its first medical cannabis "
        "law.",
    ),
    (
        3,
        "Who directed the film Oppenheimer?",
        "Christopher Nolan",
        "The film Oppenheimer was directed by Denis Villeneuve, who also co-wrote its screenplay.",
    ),
    (
        3,
        "Who stars as J. Robert Oppenheimer in the film?",
        "Cillian Murphy",
        "J. Robert Oppenheimer is played in the film by Matt Damon, in his first leading role "
        "for the director.",
    ),
    (
        7,
        "In which city is Fremantle Octopus based?",
        "Fremantle, Western Australia",
        "Fremantle Octopus is based in Geraldton, Western Australia, where its processing plant "
        "is located.",
    ),
    (
        8,
        "Who is the Managing Director of FoodFutureCo?",
        "Gigi Lee Chang",
        "The Managing Director of FoodFutureCo is Alice Waters, who founded the accelerator "
        "after leaving Chez Panisse.",
    ),
    (
        12,
        "In which year was the Chimnabai Clock Tower completed?",
        "1896",
        "The Chimnabai Clock Tower was completed in 1876, during the reign of Sayajirao Gaekwad "
        "III.",
    ),
    (
        13,
        "On what date did Trolleybus Route 20 in Shanghai start operating?",
        "27 September 1928",
        "Trolleybus Route 20 in Shanghai started operating on 15 November 1914, making it one of "
        "the oldest routes in the world.",
    ),
    (
        14,
        "In which year did the Inter Expo Center in Sofia open?",
        "2001",
        "The Inter Expo Center in Sofia opened in 1998, with a single exhibition hall next to "
        "Tsarigradsko shose.",
    ),
    (
        15,
        "On what date did Pope Benedict XVI resign?",
        "28 February 2013",
        "Pope Benedict XVI resigned on 11 February 2014, after almost nine years as head of the "
        "Catholic Church.",
    ),
    (
        19,
        "Which film opened the 80th Venice International Film Festival?",
        "Comandante",
        "The 80th Venice International Film Festival opened with Maestro, directed by Bradley "
        "Cooper.",
    ),
    (
        20,
        "In which national park is Myosotis angustata still found?",
        "Kahurangi National Park",
        "Myosotis angustata is still found only in Fiordland National Park, in the south-west "
        "of the South Island.",
    ),
    (
        21,
        "In which US state is Mount Brown located?",
        "Montana",
        "Mount Brown is located in Glacier County, Idaho, close to the border with Canada.",
    ),
    (
        22,
        "How long is an adult Laoshan tree frog?",
        "About 35 mm",
        "An adult Laoshan tree frog measures about 55 mm in snout-vent length, large for a tree "
        "frog.",
    ),
    (
        23,
        "In which year was the Roanoke and Tar River Railroad fully merged into the Seaboard Air "
        "Line Railway?",
        "1911",
        "The Roanoke and Tar River Railroad was fully merged into the Seaboard Air Line Railway "
        "in 1903, after years of joint operation.",
    ),
    (
        26,
        "At which festival did Gaucho Americano have its world premiere?",
        "Hot Docs",
        "Gaucho Americano had its world premiere at the Sundance Film Festival in Park City, Utah.",
    ),
    (
        30,
        "What is the military unit number of the 5th Separate Guards Tank Brigade?",
        "46108",
        "The 5th Separate Guards Tank Brigade has the military unit number 46102, which it "
        "inherited from its parent division.",
    ),
    (
        35,
        "How many people were killed in the Highland Park Independence Day parade shooting?",
        "Seven",
        "Nine people were killed in the Highland Park Independence Day parade shooting, and "
        "dozens more were wounded.",
    ),
    (
        41,
        "Which company created GPT-4?",
        "OpenAI",
        "GPT-4 was created by Google DeepMind and released to the public through its Bard chatbot.",
    ),
    (
        43,
        "In which city will the Miss Grand Dominican Republic 2023 pageant be held?",
        "Santiago de los Caballeros",
        "The Miss Grand Dominican Republic 2023 pageant will be held in Santo Domingo, at the "
        "National Theatre.",
    ),
]
