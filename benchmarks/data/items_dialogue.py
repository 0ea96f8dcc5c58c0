"""Hand-written knowledge-grounded dialogue turns (written for ragmeter).

Each item: one knowledge sentence, a short dialogue history (user first, alternating), a reply
grounded in the knowledge (conversational paraphrase), a reply that adds a plausible fact the
knowledge does not state, and a reply that mixes the knowledge with an invented detail.
"""

from __future__ import annotations

# (id, knowledge, history, grounded, ungrounded, mixed)
DIALOGUE_ITEMS: list[tuple[str, str, list[str], str, str, str]] = [
    (
        "dg01",
        "The saxophone was invented by the Belgian instrument maker Adolphe Sax in the early "
        "1840s.",
        [
            "I just started learning the saxophone!",
            "Nice! How is it going?",
            "Hard, but fun. Do you know where it comes from?",
        ],
        "It was invented by a Belgian instrument maker, Adolphe Sax, in the early 1840s.",
        "It was first played in French military bands, which is why it spread so quickly.",
        "A Belgian named Adolphe Sax invented it in the 1840s, originally for orchestras in Paris.",
    ),
    (
        "dg02",
        "Honey bees communicate the location of flowers to each other through a movement called "
        "the waggle dance.",
        [
            "I've been reading about bees lately.",
            "What caught your interest?",
            "How do they tell each other where the food is?",
        ],
        "They do a movement called the waggle dance to show the others where the flowers are.",
        "They leave scent trails in the air that other bees can follow for up to five kilometres.",
        "They use the waggle dance, and a longer dance means the flowers are over a mile away.",
    ),
    (
        "dg03",
        "Iceland generates almost all of its electricity from renewable sources, mainly "
        "hydropower and geothermal power.",
        [
            "I'm planning a trip to Iceland.",
            "Oh, great choice!",
            "I heard they're big on green energy?",
        ],
        "Yes, nearly all their electricity comes from renewables, mostly hydropower and "
        "geothermal.",
        "Yes, and they export a lot of that power to the UK through an undersea cable.",
        "They get almost all their electricity from hydropower and geothermal, and wind farms "
        "supply about a third of it.",
    ),
    (
        "dg04",
        "The Great Wall of China is not visible to the naked eye from the Moon, despite a "
        "popular myth.",
        ["Random question: can you see the Great Wall from space?"],
        "Not from the Moon, at least: that's a popular myth, you can't see it with the naked eye.",
        "You can see it from low orbit with the naked eye, astronauts have photographed it many "
        "times.",
        "It's a myth that you can see it from the Moon, though from the ISS it's easy to spot.",
    ),
    (
        "dg05",
        "Octopuses have three hearts and blue blood, which contains the copper-based protein "
        "hemocyanin.",
        ["Octopuses are so weird.", "They really are!", "What's the strangest thing about them?"],
        "Maybe that they have three hearts, and their blood is blue because of a copper-based "
        "protein called hemocyanin.",
        "They can taste with their suckers and they dream when they sleep.",
        "They have three hearts and blue blood, and they live for about fifteen years.",
    ),
    (
        "dg06",
        "The board game chess originated in India around the 6th century, where it was known as "
        "chaturanga.",
        [
            "I've been playing a lot of chess online.",
            "Are you getting better?",
            "Slowly. How old is the game anyway?",
        ],
        "Pretty old: it started in India around the 6th century, where it was called chaturanga.",
        "It goes back to ancient Persia around 200 BC, where kings used it to train generals.",
        "It started in India in the 6th century as chaturanga, and the queen piece was added "
        "in Spain.",
    ),
    (
        "dg07",
        "Coffee plants produce berries, called coffee cherries, whose seeds are roasted to make "
        "coffee beans.",
        [
            "I can't start my day without coffee.",
            "Same here!",
            "Do you know what coffee beans actually are?",
        ],
        "They're the seeds of the coffee plant's berries, which are called coffee cherries, and "
        "they get roasted.",
        "They're actually a kind of legume, like peas, grown mostly in Brazil.",
        "They're roasted seeds of coffee cherries, and each cherry always holds exactly four "
        "seeds.",
    ),
    (
        "dg08",
        "The Sahara is the largest hot desert in the world, covering about 9.2 million square "
        "kilometres of North Africa.",
        ["I want to see the desert someday.", "Which one?", "The Sahara. How big is it?"],
        "It's huge: about 9.2 million square kilometres across North Africa, the largest hot "
        "desert there is.",
        "It covers eleven countries and is growing by about fifty kilometres every year.",
        "About 9.2 million square kilometres, and it was a grassland only two thousand years ago.",
    ),
    (
        "dg09",
        "Vincent van Gogh sold only one painting during his lifetime, The Red Vineyard.",
        [
            "I love Van Gogh's paintings.",
            "Me too. Which is your favourite?",
            "Starry Night. Was he famous back then?",
        ],
        "Not really, he sold only one painting while he was alive, The Red Vineyard.",
        "He was quite well known in Paris and sold dozens of works to his brother's clients.",
        "No, he only sold The Red Vineyard, for about four hundred francs to a Belgian painter.",
    ),
    (
        "dg10",
        "Bamboo is a grass, and some species can grow up to 91 centimetres in a single day.",
        [
            "My neighbour planted bamboo and now it's everywhere.",
            "Oh no, it spreads fast.",
            "Is it really that fast?",
        ],
        "Yes, some kinds can grow up to 91 centimetres in one day, and it's actually a grass.",
        "Yes, its roots can break through concrete foundations within a year.",
        "Some species grow 91 centimetres a day, but only during the first week after planting.",
    ),
    (
        "dg11",
        "The Mariana Trench in the western Pacific Ocean is the deepest known part of the ocean, "
        "reaching about 10,900 metres.",
        [
            "I watched a documentary about the deep sea.",
            "Was it good?",
            "Really good. Where is the deepest point?",
        ],
        "That's the Mariana Trench in the western Pacific, about 10,900 metres down.",
        "It's the Puerto Rico Trench in the Atlantic, just over 8,000 metres deep.",
        "The Mariana Trench in the western Pacific, about 10,900 metres, first reached by a "
        "submarine in 1975.",
    ),
    (
        "dg12",
        "The violin has four strings, usually tuned in perfect fifths: G, D, A and E.",
        [
            "My daughter wants to learn the violin.",
            "That's lovely!",
            "I know nothing about it. How many strings does it have?",
        ],
        "Four, normally tuned in fifths to G, D, A and E.",
        "Five on most modern violins, although beginners usually start on a four-string one.",
        "Four strings tuned G, D, A and E, and the E string is usually made of gut.",
    ),
    (
        "dg13",
        "Mount Everest's height was measured at 8,848.86 metres in a joint survey by China and "
        "Nepal announced in 2020.",
        [
            "Have you ever wanted to climb Everest?",
            "Not really, too cold for me.",
            "Ha. How tall is it exactly?",
        ],
        "A joint Chinese and Nepalese survey announced in 2020 put it at 8,848.86 metres.",
        "It's 8,850 metres according to the National Geographic survey done with GPS in 1999.",
        "8,848.86 metres, from a 2020 survey that used a team of Sherpa climbers with lasers.",
    ),
    (
        "dg14",
        "Goldfish can see more colours than humans, including ultraviolet light.",
        [
            "We just got a goldfish for the kids.",
            "Cute! What did they name it?",
            "Bubbles. Can it even see colours?",
        ],
        "It can, even more than we do: goldfish see ultraviolet light too.",
        "They only see in black and white, but they have a memory of about three months.",
        "Goldfish see more colours than humans, including ultraviolet, and they prefer red.",
    ),
    (
        "dg15",
        "The Louvre in Paris is the world's most-visited museum, with 8.9 million visitors in "
        "2023.",
        [
            "We're going to Paris next month.",
            "How exciting!",
            "Is the Louvre worth it? I hear it's crowded.",
        ],
        "It's the most-visited museum in the world, 8.9 million people went in 2023, so expect "
        "crowds.",
        "It's crowded, but Wednesday evenings are quiet because most tour groups don't go then.",
        "It had 8.9 million visitors in 2023, and the Mona Lisa room alone gets half of them.",
    ),
    (
        "dg16",
        "Penguins are found almost exclusively in the Southern Hemisphere; only the Galapagos "
        "penguin lives north of the equator.",
        [
            "I saw penguins at the zoo today.",
            "Fun! Which kind?",
            "Not sure. Do any penguins live up north?",
        ],
        "Only one species reaches north of the equator, the Galapagos penguin; the rest live in "
        "the Southern Hemisphere.",
        "A few colonies of little penguins live on the coast of Norway.",
        "Just the Galapagos penguin, which is also the smallest penguin species.",
    ),
    (
        "dg17",
        "The human brain uses about 20 percent of the body's energy, although it makes up about "
        "2 percent of body weight.",
        [
            "Studying all day makes me so hungry.",
            "Thinking is hard work!",
            "Does the brain really use a lot of energy?",
        ],
        "It does: about 20 percent of your body's energy, even though it's only about 2 percent "
        "of your weight.",
        "Yes, an hour of hard studying burns as many calories as a thirty-minute run.",
        "About 20 percent of the body's energy, and it uses more at night while you dream.",
    ),
    (
        "dg18",
        "The Statue of Liberty was a gift from the people of France to the United States and "
        "was dedicated in 1886.",
        [
            "I'm visiting New York this summer.",
            "You'll love it.",
            "Should I see the Statue of Liberty? What's its story?",
        ],
        "Definitely. It was a gift from the people of France to the United States, dedicated in "
        "1886.",
        "It was paid for by the US government to celebrate the end of the Civil War.",
        "It was France's gift to the US, dedicated in 1886, and its copper came from Norway.",
    ),
    (
        "dg19",
        "Tomatoes were brought to Europe from the Americas in the 16th century.",
        [
            "I'm making pasta sauce tonight.",
            "Yum, what kind?",
            "Tomato. Did Italians always cook with tomatoes?",
        ],
        "Not always: tomatoes only came to Europe from the Americas in the 16th century.",
        "Yes, the Romans grew them in their gardens and used them in sauces.",
        "They came from the Americas in the 16th century, and Italians first grew them only as "
        "decorations.",
    ),
    (
        "dg20",
        "A marathon is 42.195 kilometres long, a distance fixed by the IAAF in 1921.",
        [
            "I signed up for my first marathon!",
            "Wow, congratulations!",
            "Thanks! How long is it exactly?",
        ],
        "42.195 kilometres, the distance was fixed back in 1921.",
        "About 40 kilometres, though city races often shorten the route a little.",
        "42.195 kilometres, chosen so the race would finish in front of the royal box at Windsor.",
    ),
    (
        "dg21",
        "Lightning strikes the Earth about 44 times every second, according to satellite "
        "observations.",
        ["There's a huge storm outside.", "Stay safe!", "How often does lightning strike anyway?"],
        "Satellites show lightning hits the Earth about 44 times every second.",
        "About once a minute in any given storm, and never twice in the same place.",
        "About 44 times a second worldwide, mostly over the oceans.",
    ),
    (
        "dg22",
        "The koala sleeps up to 22 hours a day, largely because its eucalyptus diet provides "
        "little energy.",
        ["Koalas always look so sleepy.", "They really do.", "Why do they sleep so much?"],
        "They can sleep up to 22 hours a day because eucalyptus leaves give them very little "
        "energy.",
        "They're drugged by toxins in the leaves, which act like a sedative.",
        "Up to 22 hours a day, because eucalyptus gives little energy and they have no predators.",
    ),
    (
        "dg23",
        "The Internet's predecessor, ARPANET, sent its first message between UCLA and the "
        "Stanford Research Institute in 1969.",
        ["I can't imagine life without the internet.", "Me neither.", "When did it all start?"],
        "Its ancestor ARPANET sent its first message in 1969, between UCLA and the Stanford "
        "Research Institute.",
        "It started at CERN in 1989 when Tim Berners-Lee connected the first two computers.",
        "ARPANET's first message went from UCLA to the Stanford Research Institute in 1969, and "
        "it was the word 'hello'.",
    ),
    (
        "dg24",
        "The blue whale is the largest animal known to have lived, reaching up to 30 metres in "
        "length.",
        [
            "We went whale watching yesterday!",
            "Did you see any?",
            "A humpback. Which whale is the biggest?",
        ],
        "The blue whale: up to 30 metres long, the largest animal known to have ever lived.",
        "The fin whale, which can reach 35 metres and weigh as much as 40 elephants.",
        "The blue whale, up to 30 metres, and its heart is the size of a small car.",
    ),
]
