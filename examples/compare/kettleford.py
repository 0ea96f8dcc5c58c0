# ruff: noqa: E501  (one document or question per line reads better than wrapped strings)
"""The knowledge base and questions of a small made-up RAG pipeline: "Ask Kettleford".

Kettleford is a fictional town; its residents ask the town's help desk about services.
Written for ragmeter's examples (not taken from any dataset). Each question has one
document that answers it (its reference context) and a short reference answer.
"""

from __future__ import annotations

# id -> (topic, text)
DOCS: dict[str, tuple[str, str]] = {
    "bins-1": (
        "waste",
        "Kettleford collects household rubbish every Tuesday. Bins must be at the kerb by 7 am on collection day.",
    ),
    "bins-2": (
        "waste",
        "Recycling is collected every second Thursday. Glass bottles go in the green crate, not in the blue recycling bin.",
    ),
    "bins-3": (
        "waste",
        "Garden waste collection runs from March to November. A garden waste permit costs 45 pounds a year.",
    ),
    "bins-4": (
        "waste",
        "Bulky items such as sofas and fridges are collected on request. A bulky item collection costs 20 pounds for up to three items.",
    ),
    "bins-5": (
        "waste",
        "The recycling centre on Mill Lane is open daily from 8 am to 6 pm. Residents need proof of address to use the centre.",
    ),
    "bins-6": (
        "waste",
        "A replacement bin is free if the old bin was damaged by the collection lorry. Otherwise a new bin costs 30 pounds.",
    ),
    "lib-1": (
        "library",
        "The central library on Bridge Street opens at 9 am on weekdays and 10 am on Saturdays. It is closed on Sundays.",
    ),
    "lib-2": (
        "library",
        "Library members may borrow up to twelve books at a time. Loans last three weeks and can be renewed twice online.",
    ),
    "lib-3": (
        "library",
        "Library membership is free for all residents. Children under 16 need a parent to sign the membership form.",
    ),
    "lib-4": (
        "library",
        "Late returns cost 15 pence per book per day. Fines are never charged on children's books.",
    ),
    "lib-5": (
        "library",
        "The library lends laptops for use inside the building. A laptop can be booked for two hours at the front desk.",
    ),
    "lib-6": (
        "library",
        "Rhyme time for toddlers takes place every Wednesday at 10:30 in the children's room. No booking is needed.",
    ),
    "bus-1": (
        "transit",
        "Route 4 runs from the railway station to Kettleford Hospital every 15 minutes. The first bus leaves at 6:10 am.",
    ),
    "bus-2": (
        "transit",
        "A single bus fare within town costs 1.80 pounds. A weekly pass costs 12 pounds and covers every town route.",
    ),
    "bus-3": (
        "transit",
        "Residents over 66 travel free on town buses after 9:30 am with a concession card.",
    ),
    "bus-4": (
        "transit",
        "Concession cards are issued at the town hall. Applicants bring a photo and proof of age.",
    ),
    "bus-5": (
        "transit",
        "The night bus N1 runs on Fridays and Saturdays until 2 am. It follows the Route 4 line with extra stops at the marina.",
    ),
    "bus-6": (
        "transit",
        "Bicycles may be taken on the ferry to Gull Island free of charge. The ferry leaves the harbour every hour from 7 am.",
    ),
    "park-1": (
        "parks",
        "Dogs must be kept on a lead in Riverside Park between April and September. Outside those months dogs may run free in the east meadow.",
    ),
    "park-2": (
        "parks",
        "Barbecues are allowed only in the marked area near the boathouse. Disposable barbecues are banned in all parks.",
    ),
    "park-3": (
        "parks",
        "The Riverside Park boathouse rents rowing boats from Easter to October. An hour on the water costs 9 pounds.",
    ),
    "park-4": (
        "parks",
        "Allotment plots are let by the parks office. The waiting list for a full plot is about two years.",
    ),
    "park-5": (
        "parks",
        "The outdoor swimming pool at Lido Gardens opens on the first of June. Entry is free for children under five.",
    ),
    "park-6": (
        "parks",
        "Football pitches at Ashgrove Fields can be booked by clubs for 35 pounds per match, changing rooms included.",
    ),
    "tax-1": (
        "council tax",
        "Council tax is paid in ten monthly instalments from April to January. Residents may ask to spread payments over twelve months.",
    ),
    "tax-2": (
        "council tax",
        "A person who lives alone gets a 25 percent single person discount on council tax.",
    ),
    "tax-3": (
        "council tax",
        "Full-time students are exempt from council tax. They must send a certificate from their college.",
    ),
    "tax-4": (
        "council tax",
        "Council tax can be paid by direct debit on the 1st, 15th or 28th of the month.",
    ),
    "tax-5": (
        "council tax",
        "Residents who disagree with their council tax band can appeal to the valuation office within six months of moving in.",
    ),
    "tax-6": (
        "council tax",
        "An empty and unfurnished home is charged double council tax after it has been empty for two years.",
    ),
    "perm-1": (
        "permits",
        "A resident parking permit costs 60 pounds a year. Each household may hold at most two permits.",
    ),
    "perm-2": ("permits", "Visitor parking vouchers are sold in books of ten for 8 pounds."),
    "perm-3": (
        "permits",
        "Putting a skip on the road needs a skip permit, which the skip company applies for. The permit lasts fourteen days.",
    ),
    "perm-4": (
        "permits",
        "Street parties need a road closure application at least eight weeks before the event. There is no fee for street parties.",
    ),
    "perm-5": (
        "permits",
        "Market traders apply for a pitch licence at the town hall. A Saturday market pitch costs 25 pounds a day.",
    ),
    "perm-6": (
        "permits",
        "Householders need planning permission for a front extension but not for a small garden shed under 2.5 metres high.",
    ),
}

# (question_id, question, reference document id, reference answer)
QUESTIONS: list[tuple[str, str, str, str]] = [
    (
        "k01",
        "Could you tell me which day of the week the rubbish is collected?",
        "bins-1",
        "Every Tuesday",
    ),
    (
        "k02",
        "I have a lot of glass bottles, where should I put them for recycling?",
        "bins-2",
        "In the green crate",
    ),
    ("k03", "What is the cost of the permit for garden waste?", "bins-3", "45 pounds a year"),
    (
        "k04",
        "What does it cost to have an old sofa taken away?",
        "bins-4",
        "20 pounds for up to three items",
    ),
    (
        "k05",
        "At what time is the recycling centre open to the public?",
        "bins-5",
        "Daily from 8 am to 6 pm",
    ),
    (
        "k06",
        "The lorry broke my bin, do I have to pay for a new one?",
        "bins-6",
        "No, the replacement is free",
    ),
    ("k07", "What time does the central library open on a Saturday?", "lib-1", "10 am"),
    (
        "k08",
        "How many books is a member allowed to borrow at one time?",
        "lib-2",
        "Up to twelve books",
    ),
    ("k09", "Is there a charge to join the library?", "lib-3", "No, it is free for residents"),
    ("k10", "If I return a book late, how much is the fine?", "lib-4", "15 pence per book per day"),
    (
        "k11",
        "Is it possible to borrow a laptop at the library?",
        "lib-5",
        "Yes, for two hours inside the building",
    ),
    ("k12", "When is the rhyme time session for toddlers on?", "lib-6", "Wednesdays at 10:30"),
    ("k13", "How often is there a bus to the hospital?", "bus-1", "Every 15 minutes"),
    ("k14", "What is the price of a pass for a week of bus travel?", "bus-2", "12 pounds"),
    (
        "k15",
        "Who is allowed to travel for free on the buses in town?",
        "bus-3",
        "Residents over 66 after 9:30 am",
    ),
    ("k16", "Where do I go to get a concession card?", "bus-4", "At the town hall"),
    ("k17", "Until what time at night does the night bus run?", "bus-5", "Until 2 am"),
    (
        "k18",
        "Is it possible to take a bicycle on the ferry to Gull Island?",
        "bus-6",
        "Yes, free of charge",
    ),
    (
        "k19",
        "At what time of the year do dogs have to be on a lead in the park?",
        "park-1",
        "Between April and September",
    ),
    (
        "k20",
        "Am I allowed to use a disposable barbecue in the park?",
        "park-2",
        "No, they are banned",
    ),
    ("k21", "How much is it to rent a rowing boat for an hour on the river?", "park-3", "9 pounds"),
    ("k22", "How long is the wait to get a plot at the allotments?", "park-4", "About two years"),
    (
        "k23",
        "On what date does the outdoor swimming pool open for the summer?",
        "park-5",
        "On the first of June",
    ),
    (
        "k24",
        "How much does it cost for a club to book a football pitch for a match?",
        "park-6",
        "35 pounds per match",
    ),
    (
        "k25",
        "In how many instalments is the council tax paid over the year?",
        "tax-1",
        "Ten monthly instalments",
    ),
    (
        "k26",
        "Is there a discount on the council tax for a person who lives on their own?",
        "tax-2",
        "25 percent",
    ),
    ("k27", "Do students at college have to pay the council tax?", "tax-3", "No, they are exempt"),
    (
        "k28",
        "On which days of the month can the direct debit for council tax be taken?",
        "tax-4",
        "The 1st, 15th or 28th",
    ),
    (
        "k29",
        "How long do I have to appeal against the band of my council tax?",
        "tax-5",
        "Six months after moving in",
    ),
    (
        "k30",
        "Is the council tax higher on a home that is left empty?",
        "tax-6",
        "Double after two years empty",
    ),
    ("k31", "How much is it for a parking permit as a resident?", "perm-1", "60 pounds a year"),
    (
        "k32",
        "How do I buy vouchers for my visitors to park?",
        "perm-2",
        "In books of ten for 8 pounds",
    ),
    (
        "k33",
        "Who has to apply for the permit to put a skip on the road?",
        "perm-3",
        "The skip company",
    ),
    (
        "k34",
        "How far in advance do I have to apply to hold a street party?",
        "perm-4",
        "At least eight weeks before",
    ),
    ("k35", "How much is a pitch at the market on a Saturday?", "perm-5", "25 pounds a day"),
    (
        "k36",
        "Do I need planning permission to put up a shed in the garden?",
        "perm-6",
        "Not for a small shed under 2.5 metres",
    ),
]
