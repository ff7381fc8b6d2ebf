"""English category words and their common members: *countries* meets *Spain*.

A question often names a category (*which countries*, *what pets*, *which instruments*)
where the text names a member (*Spain*, *a dog*, *the guitar*): they share meaning, not
words, so neither the index nor the word families (``_wordforms``) join them. Recall joins
them at query time: a question word that names a category below is searched as the OR of
the word and the category's members (each one a quoted literal, at most :data:`MAX_MEMBERS`,
the commonest first), and counts as one word of the question in the ranking, at
:data:`CATEGORY_WEIGHT` of its bm25. Pure data and lookups, no I/O; existing stores need no
new index.

Each line is one category: the words that name it (singular and plural), a colon, then its
members in everyday English, one word each (the index splits and stems words alike on both
backends, so a member of two words would match differently on each). Members are general
knowledge, not any one data set's; a member that is itself a word of the question is left
to that word (so no word counts twice). A category's members are kinds or instances of it:
*books* and *films* are absent, since their members are titles (which no table can list),
and genre words describe a book rather than name one (measured: they cost book questions at
20,000 newer episodes); *genres* is a category of its own.
"""

from __future__ import annotations

import functools

__all__ = ["CATEGORY_WEIGHT", "MAX_MEMBERS", "category_members"]

MAX_MEMBERS = 24
# A category word's share of a score is this fraction of its bm25: a member is evidence of
# the category, weaker than the question's own word (measured in docs/recall.md).
CATEGORY_WEIGHT = 0.5

_CATEGORIES = """
country countries nation nations: france spain italy germany england japan china canada
  mexico brazil india australia greece portugal ireland scotland netherlands sweden norway
  switzerland austria thailand vietnam korea egypt morocco turkey peru argentina russia
city cities town towns: london paris rome tokyo berlin madrid barcelona amsterdam chicago
  boston seattle toronto sydney dublin vienna prague venice florence lisbon athens miami
  denver atlanta austin portland
pet pets: dog cat puppy kitten hamster rabbit parrot goldfish turtle bunny
  snake lizard budgie ferret gerbil tortoise canary
animal animals creature creatures wildlife: dog cat horse bird fish cow pig sheep goat
  chicken duck rabbit deer bear fox wolf lion tiger elephant monkey whale dolphin turtle
  snake owl eagle squirrel
instrument instruments: guitar piano violin drums cello flute ukulele saxophone trumpet
  bass keyboard harp clarinet banjo harmonica accordion trombone viola mandolin
sport sports: football soccer basketball baseball tennis golf hockey volleyball rugby
  cricket swimming running cycling skiing surfing boxing wrestling badminton softball
  climbing snowboarding skating karate lacrosse
hobby hobbies pastime pastimes: painting drawing reading writing gardening cooking baking
  photography knitting hiking fishing camping dancing singing pottery sewing crafts
  woodworking chess yoga journaling sketching birdwatching
food foods meal meals: pizza pasta bread rice soup salad burger sandwich steak chicken
  sushi tacos curry noodles cheese cake cookies pie eggs pancakes vegetables fruit
dish dishes cuisine cuisines: pasta curry soup stew salad lasagna risotto sushi tacos
  paella casserole roast noodles dumplings burrito
dessert desserts sweets treat treats: cake pie cookies brownies cupcakes pudding
  tart muffins chocolate cheesecake donuts pastries candy
drink drinks beverage beverages: coffee tea water juice milk soda beer wine lemonade
  smoothie cocktail whiskey cider latte espresso
colour colours color colors: red blue green yellow orange purple pink black white brown
  grey gray violet turquoise
family relative relatives: mother father mom dad parents sister brother son daughter
  kids children wife husband grandmother grandfather grandma grandpa aunt uncle cousin
  niece nephew siblings
job jobs profession professions occupation occupations: teacher nurse
  doctor engineer lawyer chef writer artist designer developer programmer accountant
  manager mechanic firefighter police counselor therapist scientist musician photographer
  journalist pilot
genre genres: fantasy mystery thriller romance horror comedy drama fiction documentary
  poetry biography memoir
game games: chess poker monopoly scrabble checkers cards puzzle
  sudoku crossword trivia bingo
vehicle vehicles: car truck bike bicycle motorcycle bus van train boat scooter jeep
  suv plane
language languages: english spanish french german italian chinese japanese korean
  portuguese russian arabic hindi mandarin dutch greek latin
weather: rain snow sunny sunshine storm wind windy cloudy fog heat cold thunderstorm
  hurricane drizzle
emotion emotions feeling feelings: happy sad angry scared anxious excited proud nervous
  grateful lonely frustrated stressed overwhelmed joy fear grief
art arts: painting drawing sculpture photography pottery music dance poetry theater
  film sketching
music: rock jazz pop classical country blues folk hiphop rap metal punk reggae indie
  opera soul
holiday holidays: christmas thanksgiving easter halloween hanukkah diwali passover
  ramadan birthday valentine
event events: concert festival party wedding conference parade fair race marathon
  workshop fundraiser exhibition show competition tournament
vacation vacations trip trips: beach cruise camping hiking resort island mountains
  abroad
"""


@functools.cache
def _table() -> dict[str, tuple[str, ...]]:
    """Each category word -> the category's members (a word of two categories joins both)."""
    table: dict[str, dict[str, None]] = {}
    entries = _CATEGORIES.strip().replace("\n  ", " ").splitlines()
    for entry in entries:
        names, members = entry.split(":")
        for name in names.split():
            table.setdefault(name, {}).update(dict.fromkeys(members.split()))
    return {name: tuple(m for m in members if m != name) for name, members in table.items()}


def category_members(word: str) -> tuple[str, ...]:
    """The members recall searches beside ``word`` (lowercase): () when it names no category.

    At most :data:`MAX_MEMBERS`, in the table's order (the commonest first).
    """
    return _table().get(word, ())[:MAX_MEMBERS]
