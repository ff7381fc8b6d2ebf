"""English word forms the stemmer cannot join: irregular verbs, plurals and comparatives.

The index stems words (Porter on SQLite, Snowball on PostgreSQL), so *decided* meets
*decide* and *databases* meets *database*; but *chose* never meets *choose*, nor *children*
*child*, nor *better* *good*. Recall joins them at query time: a question word that belongs
to a group below is searched as the OR of the group's forms (each one a quoted literal), so
existing stores need no new index. Pure data and lookups, no I/O.

Light verbs (*go, get, make, take, come, give, say, see, know, think*) are left out: their
forms are nearly as common as function words, and joining them found more wrong turns than
right ones in conversations. Each line of a table is one group, its forms separated by
spaces; groups that share a form join into one family (*chose* finds *choice* through
*choose*). A word's expansion is its family, at most :data:`MAX_FORMS` forms; a regular
ending is looked through (*decided* finds *decision*). Forms the stemmer already joins with
another form of their family are left out (a test checks it), so no word counts twice.
Groups whose forms are function words (*be*, *have*, *do*) are absent: recall leaves those
words out anyway.
"""

from __future__ import annotations

import functools

__all__ = ["MAX_FORMS", "word_forms"]

MAX_FORMS = 6

_VERBS = """
arise arose arisen
awake awoke awoken
beat beaten
become became
begin began begun
bend bent
bite bit bitten
bleed bled
blow blew blown
break broke broken
breed bred
bring brought
build built
burn burnt
buy bought
catch caught
choose chose chosen
cling clung
creep crept
deal dealt
dig dug
draw drew drawn
dream dreamt
drink drank drunk
drive drove driven
eat ate eaten
fall fell fallen
feed fed
feel felt
fight fought
find found
flee fled
fly flew flown flies
forbid forbade forbidden
foresee foresaw foreseen
forget forgot forgotten
forgive forgave forgiven
freeze froze frozen
grow grew grown
hang hung
hear heard
hide hid hidden
hold held
keep kept
kneel knelt
lay laid
lead led
leap leapt
learn learnt
leave left
lend lent
lie lay lain
light lit
lose lost
mean meant
meet met
mislead misled
mistake mistook mistaken
overcome overcame
override overrode overridden
oversee oversaw overseen
overtake overtook overtaken
pay paid
prove proven
rebuild rebuilt
redo redid redone
rerun reran
rethink rethought
rewrite rewrote rewritten
ride rode ridden
rise rose risen
run ran
seek sought
sell sold
send sent
shake shook shaken
shine shone
shoot shot
show shown
shrink shrank shrunk
sing sang sung
sink sank sunk
sit sat
sleep slept
slide slid
speak spoke spoken
speed sped
spend spent
spin spun
stand stood
steal stole stolen
stick stuck
sting stung
strike struck stricken
strive strove striven
swear swore sworn
sweep swept
swim swam swum
swing swung
teach taught
tear tore torn
tell told
throw threw thrown
undergo underwent undergone
understand understood
undo undid undone
uphold upheld
wake woke woken
wear wore worn
weave wove woven
weep wept
win won
withdraw withdrew withdrawn
withhold withheld
write wrote written
"""

_NOUNS = """
child children
man men
woman women
person people
mouse mice
foot feet
tooth teeth
goose geese
ox oxen
datum data
criterion criteria
phenomenon phenomena
crisis crises
thesis theses
hypothesis hypotheses
diagnosis diagnoses
index indices
matrix matrices
vertex vertices
appendix appendices
knife knives
life lives
wife wives
half halves
shelf shelves
wolf wolves
thief thieves
cactus cacti
fungus fungi
nucleus nuclei
radius radii
alumnus alumni
stimulus stimuli
"""

_IRREGULAR_COMPARISON = """
good better best
bad worse worst
far farther farthest furthest
little less least
"""

# Adjectives compared with -er / -est (the spelling rules are applied below).
_COMPARED = """
big bright busy cheap clean clear close cold cool crazy dark deep dense dirty dry early easy
fast fat fine flat fresh full funny great happy hard healthy heavy high hot hungry large
late lazy light long loose loud low lucky messy near neat new nice noisy old poor pretty
quick quiet rare rich risky rough sad safe sharp short simple slim slow small smart smooth
soft strange strict strong sure tall thick thin tight tiny tough tricky ugly warm weak wet
wide wise young
"""

# Verbs and adjectives with the nouns of their act or quality that the stemmer keeps apart
# (decide / decision, fail / failure, long / length). Agent nouns (paint / painter) are not
# here: measured on conversations they found more wrong turns than right ones.
_DERIVED = """
decide decision
conclude conclusion
include inclusion
exclude exclusion
deploy deployment
fail failure
introduce introduction
produce production
reduce reduction
choose choice
succeed success
describe description
agree agreement
disagree disagreement
pay payment
analyze analysis
explain explanation
expand expansion
extend extension
compare comparison
admit admission
permit permission
submit submission
move movement
deny denial
lose loss
fly flight
die death
grow growth
able ability
stable stability
simple simplicity
long length
strong strength
wide width
deep depth
high height
warm warmth
retain retention
maintain maintenance
resolve resolution
solve solution
respond response
apply application
rely reliance
comply compliance
occur occurrence
create creation
react reaction
marry marriage
"""

# American and British spellings of one word (optimize / optimise, color / colour).
_SPELLINGS = """
analyze analyse
optimize optimise
organize organise
prioritize prioritise
recognize recognise
apologize apologise
realize realise
summarize summarise
authorize authorise
minimize minimise
maximize maximise
normalize normalise
serialize serialise
customize customise
standardize standardise
utilize utilise
visualize visualise
initialize initialise
synchronize synchronise
categorize categorise
localize localise
behavior behaviour
color colour
favorite favourite
flavor flavour
honor honour
humor humour
labor labour
neighbor neighbour
center centre
meter metre
theater theatre
fiber fibre
liter litre
license licence
catalog catalogue
dialog dialogue
analog analogue
gray grey
defense defence
offense offence
jewelry jewellery
mold mould
aluminum aluminium
pajamas pyjamas
skeptical sceptical
"""

_VOWELS = frozenset("aeiou")


def _compared(adjective: str) -> tuple[str, str, str]:
    """``adjective`` with its -er and -est forms, spelled by the regular rules."""
    if adjective.endswith("e"):
        return adjective, adjective + "r", adjective + "st"
    if adjective.endswith("y") and adjective[-2] not in _VOWELS:
        stem = adjective[:-1] + "i"
        return adjective, stem + "er", stem + "est"
    last3 = adjective[-3:]
    doubled = (
        len(adjective) <= 4
        and len(last3) == 3
        and last3[0] not in _VOWELS
        and last3[1] in _VOWELS
        and last3[2] not in _VOWELS | {"w", "x", "y"}
    )
    stem = adjective + adjective[-1] if doubled else adjective
    return adjective, stem + "er", stem + "est"


def _groups() -> list[tuple[str, ...]]:
    groups = [
        tuple(line.split())
        for table in (_VERBS, _NOUNS, _IRREGULAR_COMPARISON, _DERIVED, _SPELLINGS)
        for line in table.strip().splitlines()
    ]
    groups.extend(_compared(word) for word in _COMPARED.split())
    return groups


@functools.cache
def _table() -> dict[str, tuple[str, ...]]:
    """Each form's family: the groups joined through the forms they share."""
    family: dict[str, dict[str, None]] = {}
    for group in _groups():
        joined: dict[str, None] = dict.fromkeys(group)
        for form in group:
            joined.update(family.get(form, {}))
        for form in joined:
            family[form] = joined
    return {form: tuple(forms) for form, forms in family.items()}


def _bases(word: str) -> list[str]:
    """``word`` and the forms a regular ending could have come from (decided -> decide)."""
    found = [word]
    if word in _NOT_INFLECTED:
        return found
    for ending, replacements in _ENDINGS:
        if word.endswith(ending) and len(word) > len(ending) + 2:
            stem = word[: -len(ending)]
            found += [stem + extra for extra in replacements]
            if ending in {"ed", "ing"} and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:
                found.append(stem[:-1])
    return found


_NOT_INFLECTED = frozenset(("news", "goods", "means", "series", "species", "lens", "gas", "bus"))
_ENDINGS = (
    ("ies", ("y",)),
    ("ied", ("y",)),
    ("es", ("", "e")),
    ("s", ("",)),
    ("ed", ("", "e")),
    ("ing", ("", "e")),
)


def word_forms(word: str) -> tuple[str, ...]:
    """The forms recall searches for ``word`` (lowercase): the word first, then its family's.

    A regular ending is looked through (*decided* finds the family of *decide*: *decision*),
    and the form it came from is left out, since the stemmer already joins it with the word.
    A word in no family is its own only form.
    """
    table = _table()
    for base in _bases(word):
        family = table.get(base)
        if family is not None:
            others = (form for form in family if form not in {word, base})
            return (word, *others)[:MAX_FORMS]
    return (word,)
