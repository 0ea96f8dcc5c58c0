"""Hand-written QA items for the visible judged-metric benchmarks (written for ragmeter).

Each item: a short passage (the context), a question it answers, the right short answer, a
wrong one of the same kind, a sentence answer with ``{x}`` where the short answer goes (a
paraphrase, not a copy of the passage), the sentence negated, and an unsupported but plausible
detail that a wordy hallucination adds. Kinds: entity, number, date.
"""

from __future__ import annotations

# (id, kind, context, question, right, wrong, sentence, negated, extra)
QA_ITEMS: list[tuple[str, str, str, str, str, str, str, str, str]] = [
    (
        "qa01",
        "entity",
        "Lake Taupo lies in the centre of New Zealand's North Island. It fills a caldera formed "
        "by a supervolcanic eruption about 26,500 years ago. The Waikato River drains the lake "
        "at its north-eastern corner. The town of Taupo sits on the northern shore.",
        "Which river drains Lake Taupo?",
        "the Waikato River",
        "the Whanganui River",
        "Lake Taupo is drained by {x}.",
        "Lake Taupo is not drained by the Waikato River.",
        "which carries water from the lake to the Tasman Sea near New Plymouth",
    ),
    (
        "qa02",
        "number",
        "The Millau Viaduct crosses the valley of the river Tarn in southern France. Designed by "
        "Michel Virlogeux and Norman Foster, it has seven pylons. Its highest mast rises 343 "
        "metres above the base. It opened to traffic in December 2004.",
        "How many pylons does the Millau Viaduct have?",
        "seven",
        "nine",
        "The Millau Viaduct stands on {x} pylons.",
        "The Millau Viaduct does not have seven pylons.",
        "one for each kilometre of the bridge's length",
    ),
    (
        "qa03",
        "date",
        "The Rosetta spacecraft was launched by the European Space Agency in March 2004. After a "
        "ten-year journey it reached comet 67P/Churyumov-Gerasimenko in August 2014. Its lander, "
        "Philae, touched down on the comet in November 2014. The mission ended in September 2016.",
        "When did Philae land on the comet?",
        "November 2014",
        "January 2015",
        "Philae touched down on comet 67P in {x}.",
        "Philae never touched down on comet 67P.",
        "after a delay caused by a failed harpoon test",
    ),
    (
        "qa04",
        "entity",
        "Marie Curie shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri "
        "Becquerel. In 1911 she received the Nobel Prize in Chemistry for discovering polonium "
        "and radium. She was born in Warsaw and later worked in Paris.",
        "In which city was Marie Curie born?",
        "Warsaw",
        "Krakow",
        "Marie Curie was born in {x}.",
        "Marie Curie was not born in Warsaw.",
        "where her father taught mathematics at a gymnasium",
    ),
    (
        "qa05",
        "number",
        "The Great Barrier Reef stretches for over 2,300 kilometres along the coast of "
        "Queensland. It is made up of about 2,900 individual reefs and 900 islands. The reef was "
        "declared a World Heritage Site in 1981.",
        "About how many individual reefs make up the Great Barrier Reef?",
        "about 2,900",
        "about 4,100",
        "The Great Barrier Reef consists of {x} separate reefs.",
        "The Great Barrier Reef is not made up of separate reefs.",
        "most of them formed during the last ice age",
    ),
    (
        "qa06",
        "date",
        "The Channel Tunnel links Folkestone in England with Coquelles in France. Construction "
        "began in 1988, and the tunnel was formally opened by Queen Elizabeth II and President "
        "Francois Mitterrand on 6 May 1994. It is 50.5 kilometres long.",
        "When was the Channel Tunnel formally opened?",
        "6 May 1994",
        "14 June 1993",
        "The Channel Tunnel was officially opened on {x}.",
        "The Channel Tunnel was never formally opened.",
        "in a ceremony attended by over ten thousand guests",
    ),
    (
        "qa07",
        "entity",
        "The Atacama Desert occupies a strip of land in northern Chile west of the Andes. It is "
        "one of the driest places on Earth. The ALMA radio telescope array was built on its "
        "Chajnantor plateau because of the dry, thin air.",
        "Which telescope array was built on the Chajnantor plateau?",
        "ALMA",
        "the Very Large Array",
        "The {x} telescope array was built on the Chajnantor plateau.",
        "No telescope array was built on the Chajnantor plateau.",
        "with funding mostly from Japan",
    ),
    (
        "qa08",
        "number",
        "Mount Kilimanjaro in Tanzania is the highest mountain in Africa. Its summit, Uhuru Peak "
        "on the Kibo cone, reaches 5,895 metres above sea level. The mountain has three volcanic "
        "cones: Kibo, Mawenzi and Shira.",
        "How high is Uhuru Peak?",
        "5,895 metres",
        "6,210 metres",
        "Uhuru Peak rises to {x} above sea level.",
        "Uhuru Peak is not the summit of Kilimanjaro.",
        "which makes it taller than any peak in the Alps",
    ),
    (
        "qa09",
        "date",
        "The first Tour de France was organised by the newspaper L'Auto and held in July 1903. "
        "Maurice Garin won that first race, which had six stages. The race has been held every "
        "year since, except during the two World Wars.",
        "When was the first Tour de France held?",
        "July 1903",
        "August 1910",
        "The first Tour de France took place in {x}.",
        "The first Tour de France was not organised by a newspaper.",
        "and it started in Lyon",
    ),
    (
        "qa10",
        "entity",
        "Penicillin was discovered in 1928 by Alexander Fleming at St Mary's Hospital in London. "
        "He noticed that a mould, Penicillium notatum, killed the bacteria around it. Howard "
        "Florey and Ernst Chain later developed it into a usable drug.",
        "Who discovered penicillin?",
        "Alexander Fleming",
        "Louis Pasteur",
        "Penicillin was discovered by {x}.",
        "Alexander Fleming did not discover penicillin.",
        "while he was working on a vaccine against influenza",
    ),
    (
        "qa11",
        "number",
        "The Trans-Siberian Railway connects Moscow with Vladivostok on the Sea of Japan. The "
        "main line is 9,289 kilometres long and crosses eight time zones. A trip without stops "
        "takes about seven days.",
        "How many time zones does the Trans-Siberian Railway cross?",
        "eight",
        "eleven",
        "The Trans-Siberian Railway passes through {x} time zones.",
        "The Trans-Siberian Railway does not cross several time zones.",
        "more than any other railway line in the world",
    ),
    (
        "qa12",
        "date",
        "Wikipedia was launched by Jimmy Wales and Larry Sanger on 15 January 2001. It grew out "
        "of Nupedia, an earlier expert-written encyclopedia. The English edition passed six "
        "million articles in January 2020.",
        "When was Wikipedia launched?",
        "15 January 2001",
        "3 March 1999",
        "Wikipedia went online on {x}.",
        "Wikipedia was not launched by Jimmy Wales.",
        "from a server in Sanger's home in San Diego",
    ),
    (
        "qa13",
        "entity",
        "The Danube rises in the Black Forest in Germany and flows south-east for about 2,850 "
        "kilometres. It passes through four capital cities: Vienna, Bratislava, Budapest and "
        "Belgrade. It empties into the Black Sea through a delta in Romania and Ukraine.",
        "Into which sea does the Danube empty?",
        "the Black Sea",
        "the Adriatic Sea",
        "The Danube flows into {x}.",
        "The Danube does not empty into a sea.",
        "after passing through Sofia",
    ),
    (
        "qa14",
        "number",
        "A standard adult human skeleton has 206 bones. At birth a baby has around 270 bones, "
        "many of which fuse during growth. The femur, in the thigh, is the longest bone in the "
        "body.",
        "How many bones does an adult human skeleton have?",
        "206",
        "212",
        "An adult human skeleton is made up of {x} bones.",
        "An adult skeleton has more bones than a newborn's.",
        "a number that is the same for men and women",
    ),
    (
        "qa15",
        "date",
        "The Berlin Wall was built by the German Democratic Republic starting on 13 August 1961. "
        "It divided West Berlin from East Berlin and East Germany. The border crossings were "
        "opened on 9 November 1989, and the wall was mostly demolished in the following years.",
        "When were the Berlin Wall's border crossings opened?",
        "9 November 1989",
        "3 October 1990",
        "The border crossings of the Berlin Wall opened on {x}.",
        "The border crossings of the Berlin Wall were never opened.",
        "after a phone call between Moscow and East Berlin",
    ),
    (
        "qa16",
        "entity",
        "The painting The Starry Night was made by Vincent van Gogh in June 1889. He painted it "
        "from the window of his room at the asylum of Saint-Paul-de-Mausole in Saint-Remy-de-"
        "Provence. It has been held by the Museum of Modern Art in New York since 1941.",
        "Which museum holds The Starry Night?",
        "the Museum of Modern Art in New York",
        "the Van Gogh Museum in Amsterdam",
        "The Starry Night is held by {x}.",
        "The Starry Night is not held by a museum.",
        "where it hangs beside his Sunflowers",
    ),
    (
        "qa17",
        "number",
        "The Boeing 747 first flew on 9 February 1969. The original 747-100 could carry up to "
        "366 passengers in a typical three-class layout. It has four engines mounted under the "
        "wings.",
        "How many engines does the Boeing 747 have?",
        "four",
        "three",
        "The Boeing 747 is powered by {x} engines.",
        "The Boeing 747 has no engines under its wings.",
        "made by Rolls-Royce for every version",
    ),
    (
        "qa18",
        "date",
        "The Hubble Space Telescope was carried into orbit by the Space Shuttle Discovery on 24 "
        "April 1990. A flaw in its main mirror was corrected by a servicing mission in December "
        "1993. It orbits Earth at an altitude of about 540 kilometres.",
        "When was the Hubble mirror flaw corrected?",
        "December 1993",
        "May 1991",
        "Hubble's mirror flaw was fixed in {x}.",
        "Hubble's mirror flaw was never corrected.",
        "by astronauts who replaced the whole mirror",
    ),
    (
        "qa19",
        "entity",
        "The Rosetta Stone was found in 1799 by French soldiers near the town of Rashid in the "
        "Nile Delta. Its decree is written in hieroglyphs, Demotic script and ancient Greek. "
        "Jean-Francois Champollion announced its decipherment in 1822. It is kept in the British "
        "Museum.",
        "Who announced the decipherment of the Rosetta Stone?",
        "Jean-Francois Champollion",
        "Thomas Young",
        "{x} announced that the Rosetta Stone had been deciphered.",
        "Nobody has deciphered the Rosetta Stone.",
        "in a lecture at the University of Oxford",
    ),
    (
        "qa20",
        "number",
        "The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres "
        "tall including its antennas. The tower has three levels open to visitors, and the "
        "climb to the second level takes 674 steps.",
        "How many steps lead to the Eiffel Tower's second level?",
        "674",
        "1,665",
        "You climb {x} steps to reach the second level of the Eiffel Tower.",
        "There are no stairs to the second level of the Eiffel Tower.",
        "all of them made of the original 1889 iron",
    ),
    (
        "qa21",
        "date",
        "The Suez Canal connects the Mediterranean Sea with the Red Sea through Egypt. It was "
        "built by the Suez Canal Company under Ferdinand de Lesseps and opened on 17 November "
        "1869. Egypt nationalised the canal in 1956.",
        "When did the Suez Canal open?",
        "17 November 1869",
        "2 April 1875",
        "The Suez Canal opened on {x}.",
        "The Suez Canal was not built by the Suez Canal Company.",
        "with a performance of Verdi's Aida",
    ),
    (
        "qa22",
        "entity",
        "Insulin is a hormone made by the beta cells of the pancreas. It lets cells take up "
        "glucose from the blood. In 1921 Frederick Banting and Charles Best first isolated "
        "insulin at the University of Toronto.",
        "Which cells make insulin?",
        "the beta cells of the pancreas",
        "the alpha cells of the liver",
        "Insulin is produced by {x}.",
        "Insulin is not produced in the pancreas.",
        "and it was first isolated in Germany",
    ),
    (
        "qa23",
        "number",
        "Saturn has the most extensive ring system of any planet. As of 2023, astronomers "
        "counted 146 moons of Saturn with confirmed orbits. Its largest moon, Titan, is bigger "
        "than the planet Mercury.",
        "How many confirmed moons did Saturn have as of 2023?",
        "146",
        "83",
        "By 2023, {x} moons of Saturn had confirmed orbits.",
        "Saturn has no confirmed moons.",
        "more than Jupiter, Uranus and Neptune combined",
    ),
    (
        "qa24",
        "date",
        "Apollo 11 launched from Kennedy Space Center on 16 July 1969. Neil Armstrong and Buzz "
        "Aldrin landed the lunar module Eagle on 20 July 1969, while Michael Collins stayed in "
        "orbit. The crew returned to Earth on 24 July.",
        "When did the Apollo 11 lunar module land on the Moon?",
        "20 July 1969",
        "21 July 1970",
        "The lunar module Eagle landed on the Moon on {x}.",
        "The lunar module Eagle did not land on the Moon.",
        "in the Ocean of Storms",
    ),
    (
        "qa25",
        "entity",
        "The Sagrada Familia is a basilica in Barcelona designed by Antoni Gaudi. Construction "
        "started in 1882 and Gaudi worked on it until his death in 1926. It was consecrated by "
        "Pope Benedict XVI in 2010.",
        "Which pope consecrated the Sagrada Familia?",
        "Pope Benedict XVI",
        "Pope John Paul II",
        "The Sagrada Familia was consecrated by {x}.",
        "The Sagrada Familia has not been consecrated.",
        "during the basilica's centenary celebrations",
    ),
    (
        "qa26",
        "number",
        "The Amazon River discharges about 209,000 cubic metres of water per second into the "
        "Atlantic. That is more than the next seven largest rivers combined. Its basin covers "
        "about 7 million square kilometres.",
        "How much water does the Amazon discharge per second?",
        "about 209,000 cubic metres",
        "about 95,000 cubic metres",
        "Every second the Amazon pours {x} of water into the Atlantic.",
        "The Amazon does not flow into the Atlantic.",
        "which is a fifth of all river water on Earth",
    ),
    (
        "qa27",
        "date",
        "The Titanic left Southampton on its maiden voyage on 10 April 1912. It struck an "
        "iceberg late on 14 April and sank early on 15 April 1912. More than 1,500 people died.",
        "When did the Titanic sink?",
        "15 April 1912",
        "28 April 1912",
        "The Titanic sank on {x}.",
        "The Titanic did not strike an iceberg.",
        "less than a day's sailing from New York",
    ),
    (
        "qa28",
        "entity",
        "The Higgs boson was observed at CERN's Large Hadron Collider and the discovery was "
        "announced on 4 July 2012. Two experiments, ATLAS and CMS, reported it independently. "
        "Peter Higgs and Francois Englert received the 2013 Nobel Prize in Physics for the "
        "theory behind it.",
        "Which two experiments reported the Higgs boson?",
        "ATLAS and CMS",
        "ALICE and LHCb",
        "The Higgs boson was reported by the {x} experiments.",
        "No experiment at CERN reported the Higgs boson.",
        "working together as a single collaboration",
    ),
    (
        "qa29",
        "number",
        "The Panama Canal is about 82 kilometres long. Ships are raised by locks to Gatun Lake, "
        "26 metres above sea level, and lowered again on the other side. A transit usually "
        "takes 8 to 10 hours.",
        "How high above sea level is Gatun Lake?",
        "26 metres",
        "48 metres",
        "Gatun Lake lies {x} above sea level.",
        "Ships do not pass through Gatun Lake.",
        "which makes it the highest navigable lake in the Americas",
    ),
    (
        "qa30",
        "date",
        "The euro was introduced as an accounting currency on 1 January 1999. Euro banknotes "
        "and coins entered circulation on 1 January 2002. The European Central Bank in "
        "Frankfurt manages the currency.",
        "When did euro banknotes and coins enter circulation?",
        "1 January 2002",
        "1 July 2000",
        "Euro notes and coins came into circulation on {x}.",
        "Euro banknotes never entered circulation.",
        "first in Germany and France only",
    ),
]
