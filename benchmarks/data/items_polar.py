"""Yes/no comparison questions: a bare "yes"/"no" vs a wordy hallucination of the other
polarity (written for ragmeter, 2026-11-25, committed before any judge ran on it).

Why: comparison questions over two passages ("Were both Mozart and Haydn born in Vienna?") are
a common form of multi-hop QA, and their right answer is a bare "yes" or "no". Word overlap
gives such an answer nothing (the word "no" is in no passage), while a hallucinated sentence
of the other polarity restates the question's words and scores high. The passages are written
here from general knowledge; each question's answer follows from them alone.

Each item: (question, passages, right answer, hallucinated answer). Items 1-10 answer in
lower case without a full stop, as multi-hop QA datasets do; items 11-20 as "Yes." / "No.".
Ten right answers are yes and ten are no.
"""

from __future__ import annotations

POLAR_ITEMS: list[tuple[str, list[str], str, str]] = [
    (
        "Are the Danube and the Rhine both longer than 1,000 kilometres?",
        [
            "The Danube is Europe's second-longest river, flowing about 2,850 kilometres from "
            "the Black Forest to the Black Sea.",
            "The Rhine rises in the Swiss Alps and flows about 1,230 kilometres to the North Sea "
            "in the Netherlands.",
        ],
        "yes",
        "No, the Rhine is only about 820 kilometres long, so only the Danube is longer than "
        "1,000 kilometres.",
    ),
    (
        "Were both Mozart and Haydn born in Vienna?",
        [
            "Wolfgang Amadeus Mozart was born in Salzburg in 1756 and moved to Vienna in 1781.",
            "Joseph Haydn was born in 1732 in Rohrau, a village in Lower Austria near the "
            "Hungarian border.",
        ],
        "no",
        "Yes, both composers were born in Vienna and began their careers at the imperial court.",
    ),
    (
        "Is Mount Kilimanjaro taller than Mont Blanc?",
        [
            "Mount Kilimanjaro in Tanzania rises to 5,895 metres and is the highest mountain in "
            "Africa.",
            "Mont Blanc, on the border of France and Italy, is 4,806 metres high.",
        ],
        "yes",
        "No, Mont Blanc is about 300 metres taller than Mount Kilimanjaro.",
    ),
    (
        "Did the Beatles and the Rolling Stones both form in Liverpool?",
        [
            "The Beatles were formed in Liverpool in 1960 by John Lennon, Paul McCartney, George "
            "Harrison and Stuart Sutcliffe.",
            "The Rolling Stones were formed in London in 1962.",
        ],
        "no",
        "Yes, both bands formed in Liverpool in the early 1960s.",
    ),
    (
        "Are both the okapi and the giraffe native to Africa?",
        [
            "The okapi lives in the rainforests of the Democratic Republic of the Congo in "
            "central Africa.",
            "Giraffes live in the savannas and open woodlands of sub-Saharan Africa.",
        ],
        "yes",
        "No, the okapi is native to the rainforests of Southeast Asia, not Africa.",
    ),
    (
        "Was the Eiffel Tower completed before the Statue of Liberty was dedicated?",
        [
            "The Eiffel Tower was completed in March 1889 for the World's Fair in Paris.",
            "The Statue of Liberty was dedicated in New York Harbor in October 1886.",
        ],
        "no",
        "Yes, the Eiffel Tower was finished in 1884, two years before the statue was dedicated.",
    ),
    (
        "Do Norway and Sweden both use the euro?",
        [
            "Norway's currency is the Norwegian krone; the country is not a member of the "
            "European Union.",
            "Sweden, a member of the European Union since 1995, has kept the Swedish krona "
            "instead of adopting the euro.",
        ],
        "no",
        "Yes, both countries adopted the euro in 2002 along with most of Europe.",
    ),
    (
        "Were Agatha Christie and Arthur Conan Doyle both British writers?",
        [
            "Agatha Christie (1890-1976) was an English writer known for her detective novels.",
            "Sir Arthur Conan Doyle (1859-1930) was a British writer and physician, the creator "
            "of Sherlock Holmes.",
        ],
        "yes",
        "No, Arthur Conan Doyle was an American writer who grew up in Boston.",
    ),
    (
        "Is Canberra the largest city in Australia?",
        [
            "Canberra is the capital of Australia and has about 460,000 inhabitants.",
            "Sydney, with more than five million inhabitants, is the largest city in Australia.",
        ],
        "no",
        "Yes, Canberra is Australia's largest city as well as its capital.",
    ),
    (
        "Are the Amazon and the Nile on the same continent?",
        [
            "The Amazon flows east across South America and empties into the Atlantic Ocean.",
            "The Nile flows north through northeastern Africa into the Mediterranean Sea.",
        ],
        "no",
        "Yes, the Amazon and the Nile both flow through South America.",
    ),
    (
        "Were penicillin and insulin both discovered in the 1920s?",
        [
            "Alexander Fleming discovered penicillin in London in 1928.",
            "Frederick Banting and Charles Best isolated insulin in Toronto in 1921.",
        ],
        "Yes.",
        "No, insulin was not isolated until 1936, well after penicillin was discovered.",
    ),
    (
        "Do dolphins and sharks both breathe air?",
        [
            "Dolphins are mammals and must come to the surface to breathe air through a blowhole.",
            "Sharks are fish that take oxygen from the water with their gills.",
        ],
        "No.",
        "Yes, dolphins and sharks both surface regularly to breathe air.",
    ),
    (
        "Are Tokyo and Kyoto on the same Japanese island?",
        [
            "Tokyo lies on Tokyo Bay on the island of Honshu.",
            "Kyoto is in the Kansai region of Honshu, about 370 kilometres west of Tokyo.",
        ],
        "Yes.",
        "No, Kyoto is on the island of Kyushu, south of Honshu.",
    ),
    (
        "Was Frida Kahlo married to Diego Rivera?",
        [
            "Frida Kahlo, a Mexican painter known for her self-portraits, married the muralist "
            "Diego Rivera in 1929.",
            "Kahlo and Rivera divorced in 1939 and remarried in 1940.",
        ],
        "Yes.",
        "No, Frida Kahlo never married; Diego Rivera was her teacher at art school.",
    ),
    (
        "Are both the Sahara and the Gobi hot deserts?",
        [
            "The Sahara is the largest hot desert in the world and covers much of North Africa.",
            "The Gobi, in Mongolia and northern China, is a cold desert where winter "
            "temperatures fall below -40 degrees Celsius.",
        ],
        "No.",
        "Yes, the Sahara and the Gobi are both hot deserts where it rarely freezes.",
    ),
    (
        "Did Neil Armstrong and Buzz Aldrin both walk on the Moon during Apollo 11?",
        [
            "On 20 July 1969 Neil Armstrong and Buzz Aldrin landed the lunar module Eagle and "
            "walked on the Moon.",
            "Michael Collins stayed in lunar orbit aboard the command module Columbia.",
        ],
        "Yes.",
        "No, only Neil Armstrong left the lunar module; Buzz Aldrin stayed inside to monitor "
        "its systems.",
    ),
    (
        "Is the Pacific Ocean larger than the Atlantic Ocean?",
        [
            "The Pacific Ocean covers about 165 million square kilometres, more than twice the "
            "area of the Atlantic Ocean.",
        ],
        "Yes.",
        "No, the Atlantic Ocean is the larger of the two by about 20 million square kilometres.",
    ),
    (
        "Were Vincent van Gogh and Rembrandt both Dutch painters?",
        [
            "Vincent van Gogh (1853-1890) was a Dutch Post-Impressionist painter.",
            "Rembrandt van Rijn (1606-1669) was a Dutch painter of the Golden Age who worked in "
            "Amsterdam.",
        ],
        "Yes.",
        "No, Rembrandt was a Flemish painter from Antwerp.",
    ),
    (
        "Are bats and birds both mammals?",
        [
            "Bats are the only mammals capable of true flight.",
            "Birds are feathered, egg-laying vertebrates that form the class Aves.",
        ],
        "No.",
        "Yes, bats and birds are both classed as flying mammals.",
    ),
    (
        "Was the Great Wall of China built in a single dynasty?",
        [
            "The Great Wall of China was built over many centuries: walls begun in the 7th "
            "century BC were joined under the Qin dynasty, and most of what stands today was "
            "built by the Ming dynasty (1368-1644).",
        ],
        "No.",
        "Yes, the whole wall was built during the Qin dynasty in about ten years.",
    ),
]
