"""Hand-written chit-chat turns over one knowledge sentence (written for ragmeter, 2026-11-25).

A second, harder dialogue set, written before any judge ran on it, to look like open-domain
knowledge-grounded chat rather than question answering. Each item: one knowledge sentence, a
short history (user first, alternating), and four replies:

- ``copy`` (faithful): the knowledge restated almost word for word in a conversational frame;
- ``flourish`` (faithful): the knowledge paraphrased, wrapped in the speaker's feelings or a
  question back ("I love that!", "Have you been?"), which state nothing about the world;
- ``personal`` (unfaithful): an on-topic reply built on a claim about the world the knowledge
  does not make, often through the speaker's own experience; few words of the knowledge;
- ``swap`` (unfaithful): the knowledge restated closely with one detail changed (a name, a
  number, a date, a place, a negation), the near-copy hallucination word overlap misses.
"""

from __future__ import annotations

# (id, knowledge, history, copy, flourish, personal, swap)
CHAT_ITEMS: list[tuple[str, str, list[str], str, str, str, str]] = [
    (
        "ch01",
        "The Eiffel Tower was completed in 1889 as the entrance arch to the World's Fair in Paris.",
        ["I'm finally going to Paris next month!", "Lucky you! What will you see first?"],
        "Oh nice, the Eiffel Tower was completed in 1889 as the entrance arch to the World's "
        "Fair in Paris.",
        "I adore Paris! The tower went up in 1889, built as the gateway to that year's World's "
        "Fair. Have you booked a visit?",
        "My sister went up last year and said the top floor is closed every winter for repairs.",
        "Oh nice, the Eiffel Tower was completed in 1899 as the entrance arch to the World's "
        "Fair in Paris.",
    ),
    (
        "ch02",
        "Cheddar cheese originated in the English village of Cheddar in Somerset.",
        ["I made grilled cheese sandwiches for lunch.", "Yum, what cheese did you use?"],
        "Cheddar! It originated in the English village of Cheddar in Somerset.",
        "Cheddar, my favourite! Funny enough, it's named after the Somerset village where it "
        "was first made.",
        "Cheddar. It only became popular after sailors took it to America in the 1700s.",
        "Cheddar! It originated in the English village of Cheddar in Yorkshire.",
    ),
    (
        "ch03",
        "Cats sleep for around 12 to 16 hours a day.",
        ["My cat is asleep on my keyboard again.", "Ha, typical. Does she sleep a lot?"],
        "All the time, cats sleep for around 12 to 16 hours a day.",
        "Oh yes, and it's so cute! Apparently cats spend something like 12 to 16 hours of each "
        "day sleeping.",
        "All the time. My vet told me they dream about hunting, which is why their paws twitch.",
        "All the time, cats sleep for around 18 to 20 hours a day.",
    ),
    (
        "ch04",
        "The Amazon River carries more water than any other river in the world.",
        ["I watched a documentary about South America.", "Which part did you like best?"],
        "The Amazon! It carries more water than any other river in the world.",
        "The Amazon, it's breathtaking. No other river on Earth moves as much water as it does. "
        "Would you ever go?",
        "The Amazon. I read that it has no bridges because the ground is too soft to build on.",
        "The Amazon! It carries less water than the Nile, but it is still huge.",
    ),
    (
        "ch05",
        "Leonardo da Vinci painted the Mona Lisa, which hangs in the Louvre.",
        ["I love Renaissance art.", "Me too! Any favourite painting?"],
        "The Mona Lisa, which Leonardo da Vinci painted. It hangs in the Louvre.",
        "Honestly, the Mona Lisa! Leonardo da Vinci's masterpiece, and you can see it in the "
        "Louvre. Isn't it wonderful?",
        "The Mona Lisa. A friend who saw it said it is much smaller than you'd expect and kept "
        "behind bulletproof glass.",
        "The Mona Lisa, which Michelangelo painted. It hangs in the Louvre.",
    ),
    (
        "ch06",
        "Spiders are not insects; they are arachnids and have eight legs.",
        ["There's a spider in my bathroom.", "Eek. Are you scared of insects?"],
        "It's not an insect, actually: spiders are arachnids and have eight legs.",
        "Ha, a little! Though technically spiders aren't insects at all, they're arachnids, "
        "with eight legs.",
        "A bit. They only come inside in autumn because they are looking for a warm place to mate.",
        "It's an insect, actually: spiders are insects and have eight legs.",
    ),
    (
        "ch07",
        "The Beatles were formed in Liverpool in 1960.",
        ["I've been listening to a lot of sixties music.", "Like who?"],
        "The Beatles mostly. They were formed in Liverpool in 1960.",
        "The Beatles, I just can't get enough of them! They got together in Liverpool back in "
        "1960. Do you like them?",
        "The Beatles. I heard John Lennon wrote most of their songs on a piano his aunt gave him.",
        "The Beatles mostly. They were formed in Manchester in 1960.",
    ),
    (
        "ch08",
        "Venus is the hottest planet in the Solar System, with surface temperatures of about "
        "465 degrees Celsius.",
        [
            "I saw a bright planet near the Moon tonight.",
            "Probably Venus! What do you know about it?",
        ],
        "Venus is the hottest planet in the Solar System, with surface temperatures of about "
        "465 degrees Celsius.",
        "Oh wow, I love stargazing! Venus is the hottest planet we have, its surface is around "
        "465 degrees Celsius.",
        "Only that it spins the opposite way to Earth, so the Sun rises in the west there.",
        "Venus is the coldest planet in the Solar System, with surface temperatures of about "
        "465 degrees below zero.",
    ),
    (
        "ch09",
        "The first Harry Potter book was published in 1997 by Bloomsbury.",
        ["I'm rereading Harry Potter with my kids.", "How fun! When did the first one come out?"],
        "The first Harry Potter book was published in 1997 by Bloomsbury.",
        "It's such a joy to share it with them! The first book came out in 1997, published by "
        "Bloomsbury.",
        "I think twelve publishers rejected it before a small one finally took it on.",
        "The first Harry Potter book was published in 1995 by Penguin.",
    ),
    (
        "ch10",
        "Sharks have existed for more than 400 million years, longer than trees.",
        ["I went to the aquarium today.", "Did you see the sharks?"],
        "Yes! Sharks have existed for more than 400 million years, longer than trees.",
        "Yes, they're my favourite! It blows my mind that sharks have been around for over 400 "
        "million years, even before trees.",
        "Yes, and the guide said they have to keep swimming or they sink and drown.",
        "Yes! Sharks have existed for about 40 million years, not as long as trees.",
    ),
    (
        "ch11",
        "The Tour de France was first held in 1903.",
        ["Are you watching the cycling this summer?", "The Tour? Definitely. How old is it?"],
        "Pretty old, the Tour de France was first held in 1903.",
        "I'm so excited for it! It's been going since 1903, when the first Tour de France was "
        "held.",
        "Pretty old. Back then riders had to repair their own bikes and could not accept help.",
        "Pretty old, the Tour de France was first held in 1923.",
    ),
    (
        "ch12",
        "Pineapples take about two years to grow from planting to harvest.",
        ["I'm trying to grow a pineapple from a top.", "Cool! How long will it take?"],
        "A while: pineapples take about two years to grow from planting to harvest.",
        "Good luck, that's a fun project! Be patient though, it's roughly two years from "
        "planting until you can harvest one.",
        "A while. Mine flowered after a few months once I put an apple in the pot with it.",
        "Not long: pineapples take about two months to grow from planting to harvest.",
    ),
    (
        "ch13",
        "Mount Kilimanjaro in Tanzania is the highest mountain in Africa.",
        ["I want to climb a big mountain someday.", "Which one?"],
        "Kilimanjaro, in Tanzania. It's the highest mountain in Africa.",
        "Kilimanjaro, it's my dream! Africa's highest peak, in Tanzania. Would you come with me?",
        "Kilimanjaro. People say you can do it in trainers because there is a road most of the "
        "way.",
        "Kilimanjaro, in Kenya. It's the highest mountain in Africa.",
    ),
    (
        "ch14",
        "The piano was invented by Bartolomeo Cristofori in Italy around the year 1700.",
        ["I'm thinking about taking piano lessons.", "Go for it! Do you know its history?"],
        "A bit: the piano was invented by Bartolomeo Cristofori in Italy around the year 1700.",
        "Thanks, I'm nervous! I do know it was an Italian, Bartolomeo Cristofori, who came up "
        "with it around 1700.",
        "A bit. Early pianos had only two octaves and were made for queens and kings.",
        "A bit: the piano was invented by Bartolomeo Cristofori in Germany around the year 1800.",
    ),
    (
        "ch15",
        "Water boils at a lower temperature at high altitude because the air pressure is lower.",
        ["My pasta took forever to cook on our camping trip.", "Were you up in the mountains?"],
        "Yes, way up. Water boils at a lower temperature at high altitude because the air "
        "pressure is lower.",
        "Yes, and it was gorgeous up there! The thin air means lower pressure, so water boils "
        "at a lower temperature.",
        "Yes. Our guide said adding salt to the water makes it boil faster at altitude.",
        "Yes, way up. Water boils at a higher temperature at high altitude because the air "
        "pressure is higher.",
    ),
    (
        "ch16",
        "The giant panda's diet is about 99 percent bamboo.",
        ["We saw pandas at the zoo!", "Aww, what were they doing?"],
        "Eating, of course. The giant panda's diet is about 99 percent bamboo.",
        "So adorable! They were munching away, which makes sense since bamboo is about 99 "
        "percent of what giant pandas eat.",
        "Eating. The keeper told us they also hunt small birds when nobody is watching.",
        "Eating, of course. The giant panda's diet is about 60 percent bamboo.",
    ),
    (
        "ch17",
        "Neil Armstrong and Buzz Aldrin landed on the Moon on 20 July 1969 during the Apollo 11 "
        "mission.",
        ["My grandfather remembers the Moon landing.", "Amazing! When was it?"],
        "Neil Armstrong and Buzz Aldrin landed on the Moon on 20 July 1969, on Apollo 11.",
        "What a memory to have! It was the Apollo 11 mission, 20 July 1969, with Neil "
        "Armstrong and Buzz Aldrin. Does he talk about it?",
        "In the sixties. He says half the country watched it on television in shop windows.",
        "Neil Armstrong and Michael Collins landed on the Moon on 20 July 1969, on Apollo 11.",
    ),
    (
        "ch18",
        "Tea was first drunk in China, where legend dates it to around 2737 BC.",
        ["I'm more of a tea person than a coffee person.", "Same! Where does tea come from?"],
        "Tea was first drunk in China, where legend dates it to around 2737 BC.",
        "Yay, a fellow tea lover! It comes from China, and legend says people there were "
        "drinking it around 2737 BC.",
        "I believe it was monks in Japan who first brewed it to stay awake while meditating.",
        "Tea was first drunk in India, where legend dates it to around 2737 BC.",
    ),
    (
        "ch19",
        "The Sydney Opera House was designed by the Danish architect Jorn Utzon and opened in "
        "1973.",
        ["I just got back from Australia.", "Did you see the Opera House?"],
        "Yes! It was designed by the Danish architect Jorn Utzon and opened in 1973.",
        "Yes, and it was stunning! A Danish architect, Jorn Utzon, designed it, and it opened "
        "in 1973. Have you been?",
        "Yes! Its roof is covered in tiles that clean themselves whenever it rains.",
        "Yes! It was designed by the Swedish architect Jorn Utzon and opened in 1983.",
    ),
    (
        "ch20",
        "Dolphins sleep with one half of their brain at a time, so they can keep breathing.",
        ["I saw dolphins from the ferry today!", "So cool. Do dolphins ever sleep?"],
        "Yes, they sleep with one half of their brain at a time, so they can keep breathing.",
        "They do, and it's fascinating! Only one half of the brain rests at a time, which lets "
        "them keep breathing. Weren't they beautiful?",
        "Yes, but only for a few minutes a day, usually floating near the surface in groups.",
        "Yes, they sleep with both halves of their brain at once, so they stop breathing.",
    ),
]
