"""Listings made of one small vocabulary: a catalogue's courses, a league's matchweeks.

Each department's page of a university catalogue lists its courses in the catalogue's own words
("Introduction to Databases", "Topics include networks and security"); each matchweek of a
league pairs the same twenty clubs at their own grounds. Two such pages hold nearly the same
words in other orders (Jaccard of the pages 0.19-0.28): with a pair of neighbouring words weighing
half a word in the content fingerprint (words v4), they were within 3 of each other and one was
dropped as the other's copy (2 of 20 department pages, 1 of 20 matchweeks here; across the
searches' listings, homes of one town, a logger's lines and a tournament's pairings too, 34
pages). A pair now weighs as much as a word (words v5): the order of the words tells them apart,
and a copy of a page, with a mirror's banner, is still dropped. Longer listings (30-60 courses a
page) made the pairs alike too: 1-2 of 20 department pages were still dropped, until runs of three
neighbouring words became features as well (words v7).
"""

from __future__ import annotations

import random

import pytest
from sites import both_clean, decide_all, path_of, site_then_mirror, with_index
from test_word_runs import PairsOnly

from contentseen.demosite import Page
from contentseen.evaluate.truth import html_shingles, jaccard
from contentseen.fingerprints import Scheme

CTYPE = "text/html; charset=utf-8"
SUBJECTS = ["Programming", "Data Structures", "Algorithms", "Operating Systems", "Databases", "Networks", "Compilers",
            "Machine Learning", "Computer Graphics", "Software Engineering", "Security", "Distributed Systems",
            "Human-Computer Interaction", "Theory of Computation", "Cryptography", "Robotics"]
LEVELS = ["Introduction to", "Advanced", "Topics in", "Foundations of", "Seminar in", "Principles of", "Applied",
          "Laboratory in"]
DEPARTMENTS = ["COMP", "ELEC", "MATH", "DATA", "INFO", "STAT", "ROBO", "CSEC"]
CLUBS = {"Arsenal": "Emirates Stadium", "Aston Villa": "Villa Park", "Bournemouth": "Vitality Stadium",
         "Brentford": "Gtech Community Stadium", "Brighton": "Amex Stadium", "Burnley": "Turf Moor",
         "Chelsea": "Stamford Bridge", "Crystal Palace": "Selhurst Park", "Everton": "Goodison Park",
         "Fulham": "Craven Cottage", "Liverpool": "Anfield", "Luton Town": "Kenilworth Road",
         "Manchester City": "Etihad Stadium", "Manchester United": "Old Trafford",
         "Newcastle United": "St James Park", "Nottingham Forest": "City Ground", "Sheffield United": "Bramall Lane",
         "Tottenham Hotspur": "Tottenham Hotspur Stadium", "West Ham United": "London Stadium",
         "Wolverhampton Wanderers": "Molineux"}


def catalogue_page(page: int, banner: str = "", courses: int = 10) -> str:
    """Page ``page`` of a university catalogue: one department's ``courses``, in the catalogue's words."""
    rnd = random.Random(12000 + page)
    dept = DEPARTMENTS[page % len(DEPARTMENTS)]

    def subject() -> str:
        return rnd.choice(SUBJECTS).lower()

    items = "".join(
        f"<div class='courseblock'><p class='courseblocktitle'><strong>{dept}&#160;{rnd.randint(100, 499)}. "
        f"{rnd.choice(LEVELS)} {rnd.choice(SUBJECTS)}. {rnd.choice([3, 4])} Units.</strong></p><p class='courseblockdesc'>"
        f"{rnd.choice(LEVELS)} {subject()} and {subject()}. Topics include {subject()}, {subject()} and {subject()}."
        f"</p><p class='courseblockextra'><strong>Prerequisite:</strong> {dept} {rnd.randint(100, 299)} or "
        f"{rnd.choice(['consent of instructor', 'equivalent experience', 'graduate standing'])}.</p><p class='courseblock"
        f"extra'><strong>Offered:</strong> {rnd.choice(['Fall', 'Spring', 'Fall and Spring', 'Summer'])}.</p></div>"
        for _ in range(courses))
    menu = "".join(f"<li><a href='/courses/{d}/'>{d}</a></li>" for d in DEPARTMENTS)
    return (f"<!DOCTYPE html><html lang='en'><head><title>{dept} Courses | University Catalog</title></head><body>"
            f"{banner}<header><a href='/'>Northfield University</a><nav><ul><li><a href='/'>Home</a></li><li>{dept}</li>"
            f"</ul></nav></header><div id='content-wrapper'><div id='col-nav'><nav><ul>{menu}</ul></nav></div><main>"
            f"<h1>{dept} Courses</h1><div class='page_content'>{items}</div></main></div><footer><p>Northfield "
            "University, 1 University Avenue. The university reserves the right to change course offerings.</p>"
            "</footer></body></html>")


def matchweek_page(week: int, banner: str = "") -> str:
    """Matchweek ``week`` of a league: the same twenty clubs, paired anew, at the home club's ground."""
    rnd = random.Random(week)
    clubs = list(CLUBS)
    rnd.shuffle(clubs)
    rows = []
    for home, away in zip(clubs[::2], clubs[1::2]):
        day, _kickoff = rnd.choice(["Sat", "Sun", "Mon"]), rnd.choice(["12:30", "15:00", "17:30", "20:00"])
        score = f"{rnd.randint(0, 4)} - {rnd.randint(0, 3)}"
        rows.append(f"<tr><td>{day} {rnd.randint(1, 28)} Oct</td><td><a href='/club/{home}'>{home}</a></td><td>{score}"
                    f"</td><td><a href='/club/{away}'>{away}</a></td><td>{CLUBS[home]}</td></tr>")
    return (f"<!DOCTYPE html><html><head><title>Matchweek {week} fixtures and results</title></head><body>{banner}"
            "<header><a href='/'>League Hub</a><nav><a href='/news'>News</a> <a href='/fixtures'>Fixtures</a> <a "
            "href='/tables'>Tables</a> <a href='/stats'>Stats</a></nav></header><div class='wrap'><h1>Matchweek "
            f"{week}</h1><p class='intro'>All fixtures and results of matchweek {week}.</p><table><thead><tr><th>Date"
            f"</th><th>Home</th><th>Score</th><th>Away</th><th>Venue</th></tr></thead><tbody>{''.join(rows)}</tbody>"
            f"</table><p><a href='/fixtures/{week - 1}'>Previous matchweek</a> | <a href='/fixtures/{week + 1}'>Next "
            "matchweek</a></p></div><footer>League Hub 2024. All rights reserved. <a href='/privacy'>Privacy</a>"
            "</footer></body></html>")


LISTINGS = {"catalogue": catalogue_page, "matchweeks": matchweek_page,
            "long catalogue": lambda n: catalogue_page(n, courses=40)}


@pytest.mark.parametrize("kind", list(LISTINGS))
def test_every_page_of_a_listing_in_one_vocabulary_is_kept(kind: str):
    pages = [(f"http://{kind.replace(' ', '-')}.test/{n}.html", LISTINGS[kind](n)) for n in range(1, 21)]
    shingles = [html_shingles(html) for _, html in pages]
    assert max(jaccard(a, b) for i, a in enumerate(shingles) for b in shingles[i + 1:]) < 0.5
    assert [d.outcome for d in decide_all(pages)] == ["kept"] * len(pages)
    if kind == "long catalogue":  # the case: with pairs alone two of them were dropped
        assert sum(d.outcome == "dropped" for d in decide_all(pages, scheme=Scheme(words=PairsOnly()))) == 2


@pytest.mark.parametrize("kind", ["catalogue", "matchweeks"])
def test_a_copy_of_a_listing_page_is_still_dropped(kind: str):
    make = catalogue_page if kind == "catalogue" else matchweek_page
    banner = "<p class='mirror'>An archived copy, kept for reference.</p>"
    pages = [(f"http://{kind}.test/{n}.html", make(n)) for n in range(1, 6)]
    copies = [(url.replace(".test", ".example"), make(n, banner)) for n, (url, _) in enumerate(pages, 1)]
    decisions = decide_all(pages + copies)[len(pages):]
    assert [d.match.url if d.outcome == "dropped" else d.outcome for d in decisions] == [u for u, _ in pages]


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory):
    def site(banner: str, intro: str) -> dict[str, Page]:
        departments = {f"/c/{n}.html": Page(CTYPE, catalogue_page(n, banner).encode()) for n in range(1, 13)}
        return with_index(departments, "Courses A-Z", intro, [f"Department {n}" for n in range(1, 13)])

    return site_then_mirror(tmp_path_factory.mktemp("listings"),
                            site("", "Every course the university offers, by department."),
                            site("<p class='mirror'>An archived copy of the catalogue.</p>",
                                 "The library keeps each year's catalogue for students who started under it."),
                            "catalogue")


def test_a_crawl_keeps_every_department_and_drops_the_mirrors_copies(crawls):
    catalogue, first, second = crawls
    both_clean(first, second, 13)
    assert sorted(path_of(d.url) for d in second.drops) == sorted(f"/c/{n}.html" for n in range(1, 13))
    assert all(d.duplicates == catalogue + path_of(d.url) for d in second.drops)
