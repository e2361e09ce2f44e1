"""A small, real-looking website and its mirror, built in memory and served on 127.0.0.1.

``contentseen-demo`` and the crawl tests use it: a magazine, *The Field Notes Review*, with one
shared page template (head, top navigation, sidebar with related articles and a tag cloud,
footer, cookie notice) around different article bodies, an index page, a PNG image, a PDF, a
plain-text page and a ``robots.txt``. A few pages exercise what real sites do to crawlers:

* ``/articles/roman-roads.html`` -- windows-1252, declared only in the HTTP header;
* ``/articles/lighthouse-keepers.html`` -- ISO-8859-1, declared only in ``<meta http-equiv>``;
* ``/articles/chess-openings.html`` -- Latin-1 bytes and no charset anywhere;
* ``/articles/urban-beekeeping.html`` -- broken HTML (unclosed elements, stray end tags);
* ``/articles/solar-ovens.html`` -- sent with ``Content-Encoding: gzip``.

The mirror (``build_site(mirror=True)``) serves the same paths: byte-identical copies of most,
near-copies of some (``NEAR_CHANGES`` says what differs) and a few pages that keep the template
but carry a different body; ``MIRROR_LABELS`` labels every mirror path ``identical``, ``near``
or ``different``. ``serve(pages)`` runs a threaded ``http.server`` on ``127.0.0.1`` port 0.
"""

from __future__ import annotations

import gzip
import re
import struct
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator, Mapping, NamedTuple
from urllib.parse import urlsplit

SITE_NAME = "The Field Notes Review"

IDENTICAL, NEAR, DIFFERENT = "identical", "near", "different"
LABELS = (IDENTICAL, NEAR, DIFFERENT)


class Page(NamedTuple):
    """One resource: its Content-Type header, its (uncompressed) body, and whether the server
    sends it gzip-compressed (``Content-Encoding: gzip``)."""

    content_type: str
    body: bytes
    gzip: bool = False


Site = dict[str, Page]


@dataclass(frozen=True)
class Article:
    slug: str
    section: str
    title: str
    author: str
    published: str
    summary: str
    tags: tuple[str, ...]
    text: str  # paragraphs separated by blank lines; "## " starts a subheading
    folder: str = "articles"

    @property
    def path(self) -> str:
        return f"/{self.folder}/{self.slug}.html"


# --------------------------------------------------------------------------------------------
# The articles (prose written for this demo).

ARTICLES: tuple[Article, ...] = (
    Article(
        "sourdough-winter", "food", "Keeping a Sourdough Starter Alive Through Winter",
        "Maren Okafor", "9 January 2024",
        "Cold kitchens slow the yeast, not kill it: warmth, ratios and rye bring a tired culture back.",
        ("baking", "fermentation", "winter"),
        """A sourdough starter is a small, stubborn ecosystem: wild yeasts and lactic acid bacteria
living together in a jar of flour and water. In summer it practically runs itself. Feed it once a
day, leave it on the counter, and it doubles by lunchtime. Winter is another matter. When the
kitchen drops below eighteen degrees, fermentation slows to a crawl, the culture turns sluggish
and sour, and many home bakers conclude that their starter has died.

It almost certainly has not. Cold does not kill the microbes; it merely slows their metabolism.
The bacteria keep producing acetic acid long after the yeast has lost interest, which is why a
neglected winter starter smells sharp, like nail varnish or vinegar, and why a grey liquid called
hooch collects on top. Pour the hooch away, discard most of the culture, and feed what remains
with warm water and a generous handful of wholemeal rye.

## Finding a warm corner

Bakers are inventive about warmth. Some park the jar on top of the fridge, where the compressor
exhausts a gentle heat. Others use an oven with only the light switched on, a seed-propagation
mat borrowed from the greenhouse, or a picnic cooler holding a bottle of hot water. The target is
roughly twenty-four to twenty-six degrees; a cheap probe thermometer pays for itself within a week.

## Changing the ratio

If warmth is impossible, change the recipe instead. A stiffer starter, made with less water,
ferments more slowly and tolerates longer gaps between feedings. Increasing the proportion of
fresh flour at each feeding, say one part starter to five parts flour and water, dilutes the acid
and gives the yeast room to recover. Rye and spelt contain more minerals and enzymes than white
bread flour and wake a tired culture noticeably faster.

## When to give up

Pink or orange streaks, fuzzy mould, or a smell of rot rather than sourness are genuine warning
signs. In that case scrape out a teaspoon from the bottom, transfer it to a scrupulously clean
jar, and begin again. More often than not the culture bounces back within three feedings.""",
    ),
    Article(
        "night-trains", "travel", "The Quiet Return of the European Night Train",
        "Jonas Lindqvist", "22 February 2024",
        "Sleeper services are back on the map, helped by climate targets and travellers who hate airports.",
        ("rail", "europe", "climate"),
        """Ten years ago the sleeper train looked finished. Budget airlines had undercut the overnight
routes that once linked Paris with Rome and Amsterdam with Copenhagen, rolling stock was ageing,
and operators quietly cancelled service after service. Today the map is filling in again.
Austrian, Swedish and Dutch railways have ordered new couchette cars, private start-ups lease
carriages from wherever they can find them, and tickets on popular routes sell out weeks in
advance.

Part of the revival is about carbon. A passenger travelling from Vienna to Hamburg overnight
produces a fraction of the emissions of the equivalent flight, and companies with climate targets
increasingly steer staff towards rail. But travellers also talk about time. A departure at nine
in the evening and an arrival at seven the next morning replaces an airport transfer, a security
queue, a hotel night and a lost morning. You board in one city centre and wake up in another.

## What the compartments are like

Expectations matter. A standard couchette holds six bunks with pillows, sheets and a thin
blanket; strangers share, and the ventilation has opinions of its own. Sleeper compartments for
one to three people add a washbasin, proper mattresses and sometimes a small shower. The newest
cars offer capsule-style mini cabins, a compromise between privacy and price that has proved
unexpectedly popular with solo travellers.

## The remaining obstacles

Cross-border ticketing is still clumsy. Booking a journey that involves two operators often means
two websites, two sets of conditions and no guaranteed connection if the first train is late.
Track access charges, which some countries levy per kilometre, can make a night service expensive
to run even when every berth is sold. Maintenance depots capable of servicing old carriages are
scarce. Advocates argue that governments should treat night trains as infrastructure rather than
as a niche product, and several ministers now appear to agree.""",
    ),
    Article(
        "tide-pools", "science", "What Lives in a Tide Pool at Low Water",
        "Isla Fernández", "14 March 2024",
        "Trapped twice a day, rock-pool creatures survive swings of heat and salt that few habitats match.",
        ("ocean", "biology", "coast"),
        """Twice a day the sea retreats from a rocky shore and leaves behind hundreds of small,
isolated basins. For a few hours each becomes a closed world with its own temperature, salinity
and oxygen budget, and the organisms trapped inside must endure conditions that change faster
than almost anywhere else on the planet.

The upper pools, close to the high-water line, are the harshest. Sunlight can warm them by ten
degrees in an afternoon; rain can dilute them until they are barely brackish; evaporation on a
windy day can push salinity in the opposite direction. Only hardy specialists live here: green
filamentous algae, periwinkles that seal themselves behind a horny door, and tiny copepods that
tolerate almost anything.

## Lower down the shore

Pools near the low-water mark are refilled quickly and stay closer to ordinary seawater. They are
crowded. Beadlet anemones fold their tentacles into glossy red blobs when exposed and open them
again under water. Hermit crabs quarrel over empty whelk shells. Blennies, small fish with
expressive faces, wedge themselves into crevices and can survive for hours out of water by
breathing through their skin. Starfish prise open mussels with patient, hydraulic force, and
purple sea urchins graze the coralline algae that paint the rock pink.

## Watching without harming

The best way to explore is slowly. Sit beside a pool for five minutes and animals that froze when
your shadow fell across the surface begin to move again. If you turn a stone to look underneath,
return it the same way up, because the creatures on its lower face die quickly in sunlight. Never
pull an anemone or limpet from the rock; their grip is their defence, and a torn foot rarely
heals. Check the tide tables before you set out, wear shoes with good grip on wet weed, and keep
an eye on the returning water, which advances across flat rock much faster than visitors
expect.""",
    ),
    Article(
        "mechanical-keyboards", "technology", "Why Programmers Fall for Mechanical Keyboards",
        "Dev Raman", "3 April 2024",
        "Linear, tactile or clicky: how a humble input device became a hobby with its own vocabulary.",
        ("hardware", "programming", "design"),
        """Walk into any software office and you will hear them before you see them: the crisp
clatter of mechanical keyboards. Unlike the membrane boards bundled with most computers, where
each keystroke presses a rubber dome against a printed circuit, a mechanical keyboard gives every
key its own switch, a small spring-loaded mechanism with a defined actuation point and a
characteristic feel.

Enthusiasts divide switches into three families. Linear switches travel smoothly from top to
bottom and suit people who type lightly. Tactile switches add a bump halfway down, a physical
signal that the keystroke has registered. Clicky switches pair that bump with an audible snap,
beloved by their owners and tolerated, with varying grace, by colleagues.

## Why programmers care

Programmers spend long days on the keyboard, and many claim that a consistent actuation force
reduces fatigue in the fingers and wrists. The evidence for ergonomic benefits is thin, but the
appeal is easy to understand. Keycaps can be replaced, layouts rearranged, and firmware rewritten
so that a rarely used key becomes a modifier or a macro. Split and ortholinear designs, which
place keys in straight columns, promise a more natural hand position, at the price of relearning
muscle memory.

## A hobby of its own

The community has grown into a small industry. Group buys fund limited runs of keycap sets in
colours named after sweets and sunsets. Hobbyists lubricate switches one by one with a fine
brush, dampen stabilisers with tape, and swap plates of aluminium, brass or polycarbonate to tune
the sound. Online forums debate whether a board should sound thocky or clacky with the
seriousness of wine critics. For newcomers, a hot-swappable board is the sensible start: switches
pull out without soldering, so mistakes cost little.""",
    ),
    Article(
        "roman-roads", "history", "How Roman Roads Were Built to Last",
        "Clara Whitcombe", "18 April 2024",
        "Four layers, a cambered surface and a milestone every thousand paces: the engineering of the Via Appia.",
        ("engineering", "archaeology", "europe"),
        """Stand on a stretch of the Via Appia south of Rome and you are walking on paving that
carried legions, merchants and funeral processions more than two thousand years ago. The Romans
built around eighty thousand kilometres of paved highway, and parts of it remain in use. How did
they make roads that outlived the empire itself?

## Layers beneath the surface

The answer lies mostly underground. Engineers began by marking a line with surveying instruments
called groma, then dug a trench down to firm subsoil. Into it went a foundation of large stones,
the statumen; a layer of rubble bound with lime mortar, the rudus; a bed of finer gravel and
crushed tile, the nucleus; and finally the pavimentum, polygonal blocks of basalt or local stone
fitted tightly together. A properly built road could be more than a metre deep.

Drainage mattered as much as strength. The surface was cambered so that rain ran off into ditches
on either side, and kerbstones held the paving in place. Where roads crossed marshland, builders
laid timber rafts or raised the route on embankments; where they met rivers, they built stone
bridges whose arches still stand in Spain, France and Turkey.

## Straight, but not stubbornly so

The Romans\u2019 reputation for \u201cstraight\u201d roads is deserved but exaggerated. Surveyors
preferred straight alignments between sighting points on high ground, yet they readily
zig-zagged up steep slopes and bent around obstacles that would have been costly to remove.
Milestones every thousand paces recorded distances to the nearest town and the name of the
emperor who paid for repairs \u2014 a useful piece of propaganda.

## A network that shaped Europe

Many modern routes follow Roman alignments, from Watling Street in England to the roads around
P\u00e9rigueux and N\u00eemes. Towns grew at river crossings and staging posts, and the
network\u2019s hierarchy of main roads, local tracks and private lanes foreshadowed the way we
still classify highways today.""",
    ),
    Article(
        "urban-beekeeping", "science", "Beekeeping on City Rooftops",
        "Tomasz Wi\u015bniewski", "2 May 2024",
        "City honey is booming, but ecologists warn that too many hives can crowd out wild pollinators.",
        ("bees", "cities", "biology"),
        """On the flat roof of a printing works in east London, six wooden hives hum quietly above
the traffic. Their keeper, a former accountant, inspects them every Saturday from April to
September, lifting frames heavy with capped honey and checking the brood for signs of disease.
City beekeeping has boomed over the past fifteen years, and rooftops, allotments and back
gardens now host tens of thousands of colonies.

Urban bees often do surprisingly well. Streets lined with lime trees, parks planted with lavender
and buddleia, and gardens full of flowering shrubs provide a long season of nectar, while
agricultural landscapes can become green deserts once the oilseed rape has finished blooming.
City honey tends to be complex and dark, flavoured by dozens of plant species rather than a
single crop.

## Too many hives?

Ecologists have begun to sound a note of caution. Honeybees are managed livestock, and a crowded
neighbourhood of hives competes with wild pollinators such as bumblebees, solitary mining bees
and hoverflies for the same flowers. Studies in several European capitals suggest that hive
density in some districts already exceeds what local forage can support. Wild species cannot
simply move elsewhere.

## Doing it responsibly

New beekeepers are encouraged to join a local association, take a practical course and find a
mentor before buying a colony. Swarms in May and June alarm neighbours, so regular inspections and
swarm control matter. Varroa mites must be monitored and treated. Above all, planting for
pollinators helps more than adding another hive: a window box of thyme, a patch of unmown lawn or
a hedge of hawthorn feeds wild insects as well as honeybees.""",
    ),
    Article(
        "lighthouse-keepers", "history", "The Last Lighthouse Keepers",
        "Yann Le Bihan", "16 May 2024",
        "Oil lamps, clockwork and months cut off by storms: remembering a profession automation ended.",
        ("coast", "archaeology", "work"),
        """For two centuries lighthouse keeping was one of the loneliest professions in Europe.
Keepers lived on rock towers miles offshore, trimmed wicks, polished lenses and wound the
clockwork that turned the light, recording every hour of weather in a logbook. When the last
manned stations were automated in the late twentieth century, a way of life disappeared almost
overnight.

The work was relentless rather than dramatic. Before electricity, lamps burned colza oil, later
paraffin, and the glass had to be cleaned of soot each morning so that the beam would carry
twenty miles that night. Keepers stood watches in rotation, sounded fog signals by hand when
visibility closed in, and reported passing ships. Relief boats arrived every few weeks if the sea
allowed, and in winter storms it often did not.

## Life on the rock

Families were sometimes housed on shore stations, where children grew up among oil stores and
signal flags. On isolated towers such as Ar-Men off the Breton coast, known to keepers as
l'Enfer, the Hell, crews of two or three men could be cut off for more than a month. They fished,
played cards, built models and kept meticulous diaries. Tensions between colleagues were a
constant risk, and regulations dictated everything from meal times to the colour of the paint.

## After automation

Solar panels, reliable bulbs and remote monitoring made the keepers redundant. Today most
lighthouses are visited only by maintenance teams, and many shore cottages have become holiday
lets or small museums. At Cr\u00e9ac'h, on the \u00eele d'Ouessant, a museum displays the great
rotating optics that once guided ships into the Channel. Former keepers, now elderly, are
interviewed by historians eager to record the technical knowledge and the peculiar rhythms of a
job that no longer exists.""",
    ),
    Article(
        "solar-ovens", "technology", "Cooking with Sunlight: A Field Test of Solar Ovens",
        "Amara Nwosu", "30 May 2024",
        "A cardboard box, a folding panel and an evacuated tube, tested for a week in a village garden.",
        ("energy", "cooking", "climate"),
        """A solar oven is little more than an insulated box with a glass lid and a few reflective
panels, yet on a clear day it can bake bread, simmer beans and pasteurise drinking water without
a scrap of fuel. We spent a week of late summer testing three designs in a village garden: a
homemade cardboard box cooker, a commercial panel cooker that folds flat, and an evacuated-tube
model shaped like a giant test tube.

The cardboard cooker, lined with kitchen foil and painted black inside, reached one hundred and
ten degrees by noon. It cooked rice in two hours and produced a respectable loaf of soda bread,
although the crust never browned. The panel cooker was lighter and quicker to set up but lost
heat whenever clouds drifted across the sun. The tube oven was the star: it passed two hundred
degrees, roasted vegetables in forty minutes and kept working through thin haze.

## What we learned

Orientation is everything. Each design needs turning towards the sun every half hour or so, and a
cooker left untended during the afternoon will drift out of alignment. Dark, thin-walled pots
with tight lids absorb heat far better than shiny stainless steel. Food rarely burns, which makes
solar cooking forgiving for stews and grains, but anything that needs a fierce sear belongs on a
conventional stove.

## Where it matters most

In regions where families spend hours gathering firewood or buying charcoal, solar cookers reduce
smoke inside homes and pressure on forests. Development projects have learned, however, that
cookers only succeed when they suit local dishes and mealtimes; a device that cannot cook the
evening meal after sunset ends up as a storage box. Combining a solar oven with a well-insulated
retained-heat basket, which finishes cooking after the sun goes down, solves much of that
problem.""",
    ),
    Article(
        "chess-openings", "culture", "Learning Chess Openings Without Memorising Them",
        "Sofia Lindgren", "13 June 2024",
        "Club players forget the book by move six; understanding plans and pawn structures lasts longer.",
        ("games", "learning", "strategy"),
        """Every beginner who takes chess seriously eventually buys an opening book and tries to
memorise it. The results are usually disappointing. Opponents at club level leave the book by
move six, the carefully rehearsed lines evaporate, and the student is left staring at an
unfamiliar position with no idea what to do.

Coaches increasingly recommend a different approach: learn the ideas behind a small repertoire
rather than long sequences of moves. Every opening is built around a handful of plans. In the
Queen's Gambit, White offers a pawn to pull Black's centre apart; in the Sicilian Defence, Black
accepts a cramped position in exchange for counterattacking chances on the queenside.
Understanding why a move is played makes it far easier to find a good continuation when the
opponent deviates.

## Principles first

The classical principles still serve novices well. Control the centre with pawns or pieces,
develop knights before bishops, castle early, and avoid moving the same piece twice without a
reason. Hypermodern openings such as the R\u00e9ti or the Gr\u00fcnfeld appear to break these
rules, allowing the opponent to occupy the centre, but only in order to attack it later from the
flanks. They are best studied once the basics feel natural.

## Studying model games

A practical method is to pick one opening for each colour and play through twenty master games
in it, slowly, predicting each move before revealing it. Patterns emerge: typical pawn breaks,
squares where the knights belong, endgames that the structure tends to produce. Databases and
engines are useful for checking tactics afterwards, yet relying on them too early encourages the
very memorisation that fails at the board. Players who practise this way report that they stop
fearing surprises, because they know what the position demands even when they have never seen
it before.""",
    ),
    Article(
        "library-hours", "news", "Central Library Extends Evening Opening",
        "News desk", "20 June 2024",
        "Later opening on Tuesdays and Thursdays from May.",
        ("books", "cities"),
        """From the first of May the central library will open until eight in the evening on
Tuesdays and Thursdays, following a consultation in which readers asked for later hours. Saturday
opening moves to nine o'clock. The children's room keeps its current timetable, and the local
history archive remains available by appointment only while volunteers finish cataloguing the
donated parish records.""",
        folder="briefs",
    ),
    Article(
        "river-cleanup", "news", "Volunteers Clear Ninety Sacks of Rubbish from the River",
        "News desk", "24 June 2024",
        "Two hundred volunteers, three shopping trolleys and one surprisingly intact bicycle.",
        ("cities", "volunteering"),
        """Around two hundred volunteers spent Sunday morning pulling rubbish from the banks of the
Water of Leith. They filled ninety sacks with bottles, crisp packets and fishing line, and
recovered three shopping trolleys, a traffic cone and a surprisingly intact bicycle. Organisers
thanked the rowing club for lending boats and reminded residents that the next cleanup is
planned for September, when lower water exposes more of the riverbed.""",
        folder="briefs",
    ),
    Article(
        "podcast-launch", "news", "Introducing Field Notes Aloud",
        "News desk", "27 June 2024",
        "Our writers revisit their stories with guest experts, every other week.",
        ("podcasts", "learning"),
        """Our new fortnightly podcast, Field Notes Aloud, begins next week. Each episode pairs one
of our writers with a guest expert to revisit a recent article, answer readers' questions and
follow the story further than print allows. The first episode returns to the tide pools of the
Fife coast with a marine biologist from St Andrews.""",
        folder="briefs",
    ),
)

ABOUT = Article(
    "about", "about", "About the Review", "The editors", "1 January 2024",
    "Who we are, how we work, and how we handle your data.", ("magazine",),
    """The Field Notes Review is an independent online magazine publishing long reads on science,
travel, food, history and the things people make with their hands. We were founded in 2019 by a
small group of journalists and researchers who wanted room for careful, unhurried writing, and we
remain funded by readers rather than advertisers.

Every article is commissioned, edited and fact-checked by our editorial team in Edinburgh. We pay
contributors fairly and promptly, and we welcome pitches from new writers; our contributor
guidelines explain how to send one.

## Privacy

We do not sell personal data or use third-party tracking scripts. A single first-party cookie
remembers whether you have dismissed the cookie notice.

## Contact

Write to the editors at the address in the footer, or email letters@fieldnotes.example.""",
    folder="",
)

SOURCES = Article(
    "roman-roads-sources", "history", "Sources: How Roman Roads Were Built to Last",
    "Clara Whitcombe", "18 April 2024", "Further reading on Roman road building.", ("archaeology",),
    """Further reading for our feature on Roman roads: Vitruvius, De Architectura, book seven;
Statius, Silvae, on the building of the Via Domitiana; Raymond Chevallier, Roman Roads; Hugh
Davies, Roads in Roman Britain; the Antonine Itinerary and the Peutinger Table, both available in
facsimile; and the Pleiades gazetteer of ancient places, which maps milestones and road stations
across the empire.""",
    folder="notes",
)

# The mirror replaced this article with another one at the same path (kept: a different body).
MIRROR_REPLACEMENT = Article(
    "night-trains", "travel", "Crossing the Baltic by Ferry in Winter",
    "Jonas Lindqvist", "22 February 2024",
    "Sixteen hours of ice, herring and northern lights between Stockholm and Helsinki.",
    ("ferries", "winter", "europe"),
    """In January the ferry from Stockholm to Helsinki leaves in darkness and arrives in darkness,
and for most of the sixteen-hour crossing the archipelago outside the windows is a study in grey
and white. Ice begins to form around the skerries by Christmas; in hard winters the ship's bow
breaks a channel through plates of it, and the hull booms and shudders like a drum.

These overnight ships are small floating towns. Passengers board with suitcases, skis, shopping
trolleys and, occasionally, dogs. There are cabins on eight decks, a buffet restaurant where
herring appears in a dozen marinades, a duty-free supermarket, a nightclub with a resident band
and a sauna with sea views. Finnish pensioners travel for the tax-free shopping, students for the
parties, lorry drivers because the route is part of their working week.

## Outside on deck

Few people venture onto the open deck after dark, which is a pity. On a clear night, away from
the lights of the mainland, the stars over the \u00c5land Sea are extraordinary, and once or
twice a winter the northern lights flicker green above the horizon. Wrap up properly: the wind
off the ice is brutal, and the railings are slick with frozen spray.

## Arriving

The ship docks at the South Harbour in Helsinki shortly before ten. Breakfast is served from six,
and most passengers linger over coffee as the harbour's old warehouses and the white cathedral on
its hill slide past the windows.""",
)

MIRROR_ABOUT = Article(
    "about", "about", "About this Mirror", "Digital Preservation Unit", "1 March 2024",
    "Who keeps this copy of the magazine, and why.", ("archives",),
    """This site is an archive mirror of The Field Notes Review, maintained by the Digital
Preservation Unit of the Leith Institute library. We copy the magazine's public pages every night
so that researchers can still read them if the original site is unavailable, and we keep older
versions of articles that the editors have since revised.

Mirrored pages may lag behind the original by a day or more. Corrections, comments and
subscriptions are handled only by the magazine itself; please use the original site for those.

## Takedown requests

Authors who would prefer that a piece not be mirrored can write to the preservation team, and we
will remove it within five working days. Our collection policy is published in the institute's
annual report, together with statistics on how often the archive is consulted.""",
    folder="",
)

CONTRIBUTING_TXT = """WRITING FOR THE FIELD NOTES REVIEW
Contributor guidelines, revised January 2024

We publish reported features of 1,500 to 4,000 words about science, travel, food, history, craft
and technology. We are not looking for opinion columns, listicles, product reviews or press
releases.

How to pitch
------------
Send a short email to pitches@fieldnotes.example with a working headline, two or three
paragraphs describing the story, why it matters now, and who you will interview. Tell us briefly
about yourself and link to two published pieces. Please do not send finished drafts unless we
ask for them.

What happens next
-----------------
An editor replies within ten working days. If we commission the piece we agree a deadline, a
length and a fee in writing before you begin. Every feature goes through at least one structural
edit, a line edit and an independent fact check; you will see and approve all changes.

Payment
-------
We pay forty pence per word on acceptance, plus agreed expenses, within thirty days of invoice.

Rights
------
Contributors keep copyright. We license first online publication and the right to include the
piece in our annual print anthology.
"""

ROBOTS_TXT = "User-agent: *\nDisallow: /drafts/\n"

# --------------------------------------------------------------------------------------------
# Paths

INDEX = "/"
ABOUT_PATH = "/about.html"
CONTRIBUTING = "/notes/contributing.txt"
SOURCES_PATH = SOURCES.path
IMAGE = "/images/cover.png"
PDF = "/downloads/spring-edition.pdf"
ROBOTS = "/robots.txt"
SUBSCRIBE = "/subscribe.html"

ARTICLE = {a.slug: a.path for a in ARTICLES}
CP1252_HEADER = ARTICLE["roman-roads"]       # charset=windows-1252 in the HTTP header only
META_CHARSET = ARTICLE["lighthouse-keepers"]  # iso-8859-1 in <meta http-equiv> only
NO_CHARSET = ARTICLE["chess-openings"]        # Latin-1 bytes, no charset anywhere
BROKEN_HTML = ARTICLE["urban-beekeeping"]     # unclosed elements, stray end tags
GZIPPED = ARTICLE["solar-ovens"]              # Content-Encoding: gzip

BINARY_PATHS = frozenset({IMAGE, PDF})
# Pages with fewer content words than CONTENTSEEN_MIN_WORDS (default 5): fingerprinted exactly
# (a hash of their whole text), so only a copy of that text is dropped. (The three news briefs are short too, 50-80 words of prose, but with headline, byline and
# standfirst they reach 48-63 content words and are fingerprinted.)
SHORT_PATHS = frozenset({SUBSCRIBE})
# Linked only from this page (on either host): never requested when that page is dropped.
ONLY_LINKED_FROM = {SOURCES_PATH: CP1252_HEADER, IMAGE: GZIPPED}

# What the mirror changed in each near-copy (all in the page template or markup, not the text).
NEAR_CHANGES: dict[str, str] = {
    ARTICLE["sourdough-winter"]: "site banner line changed",
    ARTICLE["tide-pools"]: "'last updated' timestamp in the byline changed",
    ARTICLE["mechanical-keyboards"]: "footer line changed",
    META_CHARSET: "cookie notice added",
    NO_CHARSET: "whitespace-only reformatting",
}
DIFFERENT_PATHS = frozenset({INDEX, ABOUT_PATH, ARTICLE["night-trains"]})


def _mirror_labels() -> dict[str, str]:
    labels = {p: IDENTICAL for p in build_site(mirror=False) if p != ROBOTS}
    labels.update({p: NEAR for p in NEAR_CHANGES})
    labels.update({p: DIFFERENT for p in DIFFERENT_PATHS})
    return labels


# --------------------------------------------------------------------------------------------
# The template

BANNER = "Spring offer: a year of the print anthology for 25 pounds, delivered anywhere."
MIRROR_BANNER = "Summer reading: our editors pick twelve long reads for the holidays."
FOOTER_NOTE = "Registered in Scotland, company number SC612345."
MIRROR_FOOTER_NOTE = "Snapshot kept by the Leith Institute library, 18 June 2024."
UPDATED = "Updated 2 April 2024, 10:05 GMT"
MIRROR_UPDATED = "Updated 17 June 2024, 16:48 GMT"

NAV = (
    ("/", "Home"), ("/#science", "Science"), ("/#travel", "Travel"), ("/#food", "Food"),
    ("/#technology", "Technology"), ("/#history", "History"), (ABOUT_PATH, "About"),
    (CONTRIBUTING, "Write for us"),
)
SECTIONS = ("science", "travel", "food", "technology", "history", "culture", "news")

COOKIE_NOTICE = """<div class="cookie-notice" id="cookie-notice" role="dialog" aria-label="Cookie consent">
  <p>We use one first-party cookie to remember your choices. No advertising, no tracking.
  <a href="/about.html#privacy">Privacy notice</a></p>
  <button type="button" data-dismiss="cookie-notice">OK</button>
</div>"""


def _tags() -> list[tuple[str, int]]:
    """Every tag with the number of articles that carry it, alphabetically (the tag cloud)."""
    seen: dict[str, int] = {}
    for a in ARTICLES:
        for t in a.tags:
            seen[t] = seen.get(t, 0) + 1
    return sorted(seen.items())


def _body_html(text: str) -> str:
    out = []
    for block in text.strip().split("\n\n"):
        block = " ".join(block.split())
        if block.startswith("## "):
            out.append(f"<h2>{escape(block[3:], quote=False)}</h2>")
        else:
            out.append(f"<p>{escape(block, quote=False)}</p>")
    return "\n".join(out)


def _related(article: Article) -> list[Article]:
    longs = [a for a in ARTICLES if a.folder == "articles"]
    if article not in longs:
        return longs[:3]
    i = longs.index(article)
    return [longs[(i + k) % len(longs)] for k in (1, 2, 4)]


def render(
    title: str,
    main_html: str,
    *,
    description: str,
    section: str,
    related: list[Article],
    banner: str = BANNER,
    footer_note: str = FOOTER_NOTE,
    cookie_notice: bool = True,
    head_charset: str | None = '<meta charset="utf-8">',
) -> str:
    """The shared page template around ``main_html`` (ASCII-only markup: entities for the rest)."""
    nav = "\n".join(f'      <li><a href="{href}">{label}</a></li>' for href, label in NAV)
    rel = "\n".join(f'        <li><a href="{a.path}">{escape(a.title)}</a></li>' for a in related)
    tags = " ".join(
        f'<a href="/#tag-{t}" class="tag tag-{min(n, 3)}">{t}</a>' for t, n in _tags()
    )
    charset = f"\n  {head_charset}" if head_charset else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>{charset}
  <title>{escape(title)} | {SITE_NAME}</title>
  <meta name="description" content="{escape(description)}">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/static/site.css?v=14">
  <link rel="icon" href="/favicon.ico">
  <link rel="alternate" type="application/rss+xml" href="/feed.xml" title="{SITE_NAME}">
</head>
<body class="section-{section}">
  <div class="site-banner"><p>{escape(banner)} <a href="{SUBSCRIBE}">Details</a></p></div>
  <header class="masthead">
    <a class="logo" href="/">{SITE_NAME}</a>
    <p class="tagline">Long reads on science, travel, food and the things people make</p>
  </header>
  <nav class="topnav" aria-label="Main">
    <ul>
{nav}
    </ul>
  </nav>
  <div class="layout">
    <main id="content">
{main_html}
    </main>
    <aside class="sidebar">
      <section class="related">
        <h2>Related articles</h2>
        <ul>
{rel}
        </ul>
      </section>
      <section class="tags">
        <h2>Tags</h2>
        <p class="tag-cloud">{tags}</p>
      </section>
    </aside>
  </div>
  <footer class="site-footer">
    <p>&copy; 2019&ndash;2024 {SITE_NAME}. All rights reserved.</p>
    <address>Field Notes Review Ltd, 14 Harbour Street, Leith, Edinburgh EH6 6QW</address>
    <p><a href="/about.html#privacy">Privacy</a> &middot; <a href="/about.html#contact">Contact</a>
      &middot; <a href="{PDF}">Spring print edition (PDF)</a> &middot; <a href="{CONTRIBUTING}">Write for us</a></p>
    <p class="footer-note">{escape(footer_note)}</p>
  </footer>
{COOKIE_NOTICE if cookie_notice else ""}
</body>
</html>
"""


def _article_main(article: Article, *, updated: str | None = None, extra: str = "") -> str:
    byline = f"By {escape(article.author)} &middot; Published {article.published}"
    if updated:
        byline += f' &middot; <span class="updated">{updated}</span>'
    return f"""      <article class="story">
        <p class="kicker">{article.section.title()}</p>
        <h1>{escape(article.title)}</h1>
        <p class="byline">{byline}</p>
        <p class="standfirst">{escape(article.summary)}</p>
{_body_html(article.text)}
{extra}
      </article>"""


_EXTRAS = {
    "roman-roads": f'<p class="sources"><a href="{SOURCES_PATH}">Sources and further reading</a></p>',
    "solar-ovens": (
        f'<figure><a href="{IMAGE}"><img src="{IMAGE}" alt="Three solar cookers on a lawn" '
        'width="48" height="32"></a><figcaption>The three cookers at noon on day four.</figcaption></figure>'
    ),
}


def article_page(article: Article, **template: object) -> str:
    updated = template.pop("updated", UPDATED if article.slug == "tide-pools" else None)
    main = _article_main(article, updated=updated, extra=_EXTRAS.get(article.slug, ""))  # type: ignore[arg-type]
    return render(
        article.title, main, description=article.summary, section=article.section,
        related=_related(article), **template,  # type: ignore[arg-type]
    )


def _index_main(mirror: bool) -> str:
    if mirror:
        items = "\n".join(f'          <li><a href="{a.path}">{escape(a.title)}</a></li>' for a in ARTICLES)
        return f"""      <section class="mirror-home">
        <h1>Archive mirror</h1>
        <p>You are reading a preservation copy kept by the Leith Institute library. Pages here
        are refreshed overnight from the magazine's own servers and may trail the live edition;
        earlier revisions stay available on request to the reading room staff.</p>
        <p>Subscriptions, letters and corrections belong with the publisher. Researchers citing
        this collection should quote the snapshot date printed at the foot of each page.</p>
        <h2>Holdings</h2>
        <ol class="holdings">
{items}
        </ol>
      </section>"""
    parts = ['      <section class="home">', f"        <h1>{SITE_NAME}</h1>",
             "        <p>Long reads on science, travel, food, history and the things people make. "
             "New articles every fortnight; browse the archive by section below.</p>"]
    for section in SECTIONS:
        arts = [a for a in ARTICLES if a.section == section]
        if not arts:
            continue
        parts.append(f'        <h2 id="{section}">{section.title()}</h2>\n        <ul>')
        for a in arts:
            parts.append(f'          <li><a href="{a.path}">{escape(a.title)}</a> '
                         f"&mdash; {escape(a.summary)}</li>")
        parts.append("        </ul>")
    parts.append("      </section>")
    return "\n".join(parts)


def index_page(mirror: bool = False) -> str:
    return render(
        "Home" if not mirror else "Archive mirror", _index_main(mirror),
        description="Long reads on science, travel, food and history.", section="home",
        related=_related(ARTICLES[0]),
    )


def subscribe_page() -> str:
    """A short page: too few words for a SimHash, fingerprinted exactly."""
    main = """      <section class="subscribe">
        <h1>Subscribe</h1>
        <p>Join us.</p>
        <form action="/subscribe" method="post"><input type="email" name="email"
          placeholder="you@example.org"><button type="submit">Join</button></form>
      </section>"""
    return render("Subscribe", main, description="Subscribe to the Review.", section="subscribe",
                  related=_related(ARTICLES[0]))


def break_html(html: str) -> str:
    """Make well-formed template output into the tag soup an old CMS emits: unclosed ``p``,
    ``li``, ``main`` and ``article``; an unclosed ``b`` and ``div``; stray end tags; unquoted
    attributes; no ``</body></html>``."""
    for tag in ("</p>", "</li>", "</main>", "</article>", "</body>", "</html>"):
        html = html.replace(tag, "")
    html = html.replace('<p class="standfirst">', '<p class=standfirst><b>', 1)
    html = html.replace("<h2>Too many hives?", '</span></em><div class=callout><h2>Too many hives?', 1)
    html = html.replace('class="layout"', "class=layout", 1)
    return html + "<td>\n"


def reformat_whitespace(html: str) -> str:
    """The same markup with different whitespace only (CRLF line ends, other indentation,
    double spaces); the text a browser shows is unchanged."""
    lines = [line.strip() for line in html.splitlines()]
    return "\r\n".join("\t" * (i % 3) + re.sub(r" ", "  ", line) for i, line in enumerate(lines) if line) + "\r\n"


# --------------------------------------------------------------------------------------------
# Binary resources

def png_image(width: int = 48, height: int = 32) -> bytes:
    """A small, valid RGB PNG (a gradient)."""
    raw = b"".join(
        b"\x00" + bytes(c for x in range(width) for c in (x * 5 % 256, y * 8 % 256, 160))
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def pdf_document() -> bytes:
    """A small PDF-like file with a compressed (binary) content stream."""
    stream = zlib.compress(b"BT /F1 18 Tf 72 720 Td (The Field Notes Review - Spring edition) Tj ET")
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    for i, body in enumerate(objs, 1):
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    return out + b"trailer\n<< /Root 1 0 R /Size 5 >>\n%%EOF\n"


# --------------------------------------------------------------------------------------------
# The site

def _html(text: str, charset: str = "utf-8", header: bool = True) -> Page:
    ctype = f"text/html; charset={charset}" if header else "text/html"
    return Page(ctype, text.encode(charset, "xmlcharrefreplace"))


def build_site(mirror: bool = False) -> Site:
    """``{path: Page}`` of the original site, or of its mirror (same paths, see ``MIRROR_LABELS``)."""
    site: Site = {}
    for article in ARTICLES:
        template: dict[str, object] = {}
        if mirror and article.path in NEAR_CHANGES:
            template = {
                "sourdough-winter": {"banner": MIRROR_BANNER},
                "tide-pools": {"updated": MIRROR_UPDATED},
                "mechanical-keyboards": {"footer_note": MIRROR_FOOTER_NOTE},
                "lighthouse-keepers": {"cookie_notice": True},
                "chess-openings": {},
            }[article.slug]
        if article.slug == "roman-roads":
            site[article.path] = _html(article_page(article, head_charset=None, **template), "windows-1252")
        elif article.slug == "lighthouse-keepers":
            template.setdefault("cookie_notice", False)  # this page predates the cookie notice
            meta = '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'
            site[article.path] = _html(article_page(article, head_charset=meta, **template), "iso-8859-1", header=False)
        elif article.slug == "chess-openings":
            html = article_page(article, head_charset=None, **template)
            site[article.path] = _html(reformat_whitespace(html) if mirror else html, "latin-1", header=False)
        elif article.slug == "urban-beekeeping":
            site[article.path] = _html(break_html(article_page(article, **template)))
        elif article.slug == "solar-ovens":
            site[article.path] = _html(article_page(article, **template))._replace(gzip=True)
        elif article.slug == "night-trains" and mirror:
            site[article.path] = _html(article_page(MIRROR_REPLACEMENT))
        else:
            site[article.path] = _html(article_page(article, **template))
    site[INDEX] = _html(index_page(mirror))
    site[ABOUT_PATH] = _html(article_page(MIRROR_ABOUT if mirror else ABOUT))
    site[SOURCES_PATH] = _html(article_page(SOURCES))
    site[SUBSCRIBE] = _html(subscribe_page())
    site[CONTRIBUTING] = Page("text/plain; charset=utf-8", CONTRIBUTING_TXT.encode())
    site[IMAGE] = Page("image/png", png_image())
    site[PDF] = Page("application/pdf", pdf_document())
    site[ROBOTS] = Page("text/plain", ROBOTS_TXT.encode())
    return site


# Every mirror path (robots.txt aside): "identical", "near" or "different" to the original's.
MIRROR_LABELS: dict[str, str] = _mirror_labels()


def expected_mirror_outcome(path: str) -> str:
    """What the middleware does with the mirror's ``path`` when the original site was crawled
    first into the same store: ``dropped``, ``kept``, ``type`` (not HTML/text: untouched) or
    ``unreached`` (only linked from a dropped page)."""
    if path in ONLY_LINKED_FROM and expected_mirror_outcome(ONLY_LINKED_FROM[path]) == "dropped":
        return "unreached"
    if path in BINARY_PATHS:
        return "type"
    return "kept" if MIRROR_LABELS[path] == DIFFERENT else "dropped"


def html_paths(site: Mapping[str, Page]) -> list[str]:
    """Paths of the pages the middleware fingerprints (HTML and plain text, robots.txt aside)."""
    return [p for p, page in site.items() if p != ROBOTS and page.content_type.startswith("text/")]


# --------------------------------------------------------------------------------------------
# The server

class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FieldNotes/1.0"
    pages: Mapping[str, Page] = {}
    requests: list[str] | None = None
    delay: float = 0.0

    def _send(self, head_only: bool) -> None:
        path = urlsplit(self.path).path or "/"
        if self.requests is not None:
            self.requests.append(path)
        if self.delay:
            time.sleep(self.delay)
        page = self.pages.get(path)
        if page is None:
            body = b"<!DOCTYPE html><title>Not found</title><h1>404 Not found</h1>"
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
        else:
            body = gzip.compress(page.body, mtime=0) if page.gzip else page.body
            self.send_response(200)
            self.send_header("Content-Type", page.content_type)
            if page.gzip:
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head_only:
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._send(head_only=False)

    def do_HEAD(self) -> None:  # noqa: N802
        self._send(head_only=True)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@contextmanager
def serve(pages: Mapping[str, Page], *, requests: list[str] | None = None, delay: float = 0.0) -> Iterator[str]:
    """Serve ``pages`` on ``http://127.0.0.1:<free port>`` in background threads; yield the base
    URL (no trailing slash). ``pages`` is read at each request, so a page added to it is served
    from then on. Each requested path is appended to ``requests`` when given; each response
    waits ``delay`` seconds first."""
    handler = type("Handler", (_Handler,), {"pages": pages, "requests": requests, "delay": delay})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="demosite", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
