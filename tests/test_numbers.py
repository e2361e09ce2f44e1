"""Pages that are their numbers: box scores, timetables, guitar tabs, tables of prices.

Numbers are left out of the content fingerprint so that a changed date, counter or price moves
nothing on a page of words. Two box scores of one team's games have the same words (players,
columns, arena): their content fingerprints were equal and their whole pages, whose numbers
all lie in 0..40, 7 bits apart: the later game was dropped (Jaccard of the pages 0.13). Where
numbers are at least ``NUMBERS_SHARE`` of a text's tokens, they count, and pair, as its words;
from a quarter of them (``NUMBERS_SHARE_FROM``) up to there, they count in part (words v6): two
logs of one logger, the same lines at other times (44% numbers), were the same words and one
page.
"""

from __future__ import annotations

import random

import pytest
from sites import both_clean, path_of, site_then_mirror, with_index

from contentseen.demosite import Page
from contentseen.fingerprints import Scheme, same_page
from contentseen.pure_python import left_out
from contentseen.text import Extractor
from contentseen.tokens import (NUMBERS_MIN, NUMBERS_MIN_FROM, NUMBERS_SHARE, NUMBERS_SHARE_FROM, AsciiWords, Words,
                                mostly_numbers, numbers_weight, token_counts)

CTYPE = "text/html; charset=utf-8"
PLAYERS = ["Avery Brooks", "Jordan Ellis", "Morgan Hale", "Casey Vaughn", "Riley Santos", "Quinn Marsh",
           "Taylor Ford", "Drew Kessler", "Jamie Ortiz", "Sam Whitaker"]
COLUMNS = ["MIN", "FG", "FGA", "3P", "3PA", "FT", "FTA", "OREB", "DREB", "REB", "AST", "STL", "BLK", "TOV", "PF",
           "PTS"]


def box_score(game: int, date: str, banner: str = "") -> str:
    """Game ``game``'s box score of the same two teams (its numbers drawn from ``game``)."""
    rnd = random.Random(game)
    rows = "".join(f"<tr><th><a href='/p/{i}'>{p}</a></th>"
                   + "".join(f"<td>{rnd.randint(0, 40 if c in ('MIN', 'PTS') else 12)}</td>" for c in COLUMNS)
                   + "</tr>" for i, p in enumerate(PLAYERS))
    head = "".join(f"<th>{c}</th>" for c in COLUMNS)
    return (f"<!DOCTYPE html><html><head><title>Harbour City vs Lakeside, {date}</title></head><body>{banner}"
            "<header><a href='/'>Hoops Stats</a><nav><a href='/teams'>Teams</a> <a href='/games'>Games</a></nav>"
            f"</header><div id='content'><h1>Harbour City {rnd.randint(80, 130)}, Lakeside {rnd.randint(80, 130)}</h1>"
            f"<p>{date}, Harbour City Arena</p><table><thead><tr><th>Player</th>{head}</tr></thead><tbody>{rows}"
            "</tbody></table></div><footer><p>Hoops Stats. Data from the league.</p></footer></body></html>")


class WordsOnly(Words):
    """The words stage as it was: numbers never count."""

    name = "words-only"

    def numbers(self, tokens) -> bool:
        return False


def test_two_games_of_one_team_are_two_pages():
    a, b = box_score(1, "December 25, 2025"), box_score(2, "March 11, 2026")
    pf = Scheme().build()
    fa, fb = pf.of_html(a), pf.of_html(b)
    assert not same_page(fa, fb, pf.scheme) and (fa.fingerprint ^ fb.fingerprint).bit_count() > 8
    before = Scheme(words=WordsOnly()).build()  # the case: the words alone, the later game dropped
    assert same_page(before.of_html(a), before.of_html(b), before.scheme)
    # the same numbers in C and in Python
    with left_out():
        python = Scheme().build().of_html(a)
    assert (python.fingerprint, python.page) == (fa.fingerprint, fa.page)


def test_a_copy_of_a_box_score_is_still_dropped():
    pf = Scheme().build()
    page = pf.of_html(box_score(1, "December 25, 2025"))
    copies = [box_score(1, "December 25, 2025", "<div class='mirror'>Mirrored on 2026-11-26 at 10:42</div>"),
              box_score(1, "December 25, 2025").replace("><", ">\n  <"),
              box_score(1, "December 25, 2025").replace("</footer>", "<p>We use 3 cookies.</p></footer>")]
    assert all(same_page(page, pf.of_html(c), pf.scheme) for c in copies)


def test_numbers_count_only_where_they_are_most_of_the_text():
    assert (NUMBERS_SHARE, NUMBERS_MIN) == (0.5, 50)
    numbers = " ".join(map(str, range(50)))
    assert mostly_numbers(token_counts(f"{numbers} {'word ' * 50}"))
    assert not mostly_numbers(token_counts(f"{numbers} {'word ' * 51}"))  # less than half
    assert not mostly_numbers(token_counts(" ".join(map(str, range(49)))))  # too few: a contents' sections
    assert not mostly_numbers(token_counts(""))
    # a story whose date and counts changed is the same story
    story = ("<html><body><main><h1>Harbour City win again</h1><p>{} Harbour City beat Lakeside by {} points on a "
             "night when their captain scored {} and the crowd of {} sang until the final whistle. The coach said "
             "the defence had been the difference, and that the team would rest before the next game.</p></main>"
             "</body></html>")
    pf = Scheme().build()
    a, b = pf.of_html(story.format("December 25, 2025:", 12, 31, 8000)), pf.of_html(story.format("December 26, 2026:", 9, 28, 7500))
    assert a.fingerprint == b.fingerprint
    # a subclass counting its own words is left as it was
    assert not AsciiWords().numbers(token_counts(numbers))


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory):
    def site(banner: str, intro: str) -> dict[str, Page]:
        games = {f"/g/{g}.html": Page(CTYPE, box_score(g, f"Game {g}", banner).encode()) for g in range(1, 7)}
        return with_index(games, "Games", intro, [f"Game {g}" for g in range(1, 7)])

    return site_then_mirror(tmp_path_factory.mktemp("numbers"),
                            site("", "Every game of the season, with each player's numbers."),
                            site("<p class='mirror'>A mirror of Hoops Stats.</p>",
                                 "The league archive keeps a copy of these statistics for researchers."), "stats")


def test_a_crawl_keeps_every_game_and_drops_the_mirrors_copies(crawls):
    stats, first, second = crawls
    both_clean(first, second, 7)
    assert sorted(path_of(d.url) for d in second.drops) == sorted(f"/g/{g}.html" for g in range(1, 7))
    assert all(d.duplicates == stats + path_of(d.url) for d in second.drops)


def test_numbers_count_in_part_between_a_quarter_and_half_of_the_text():
    assert (NUMBERS_SHARE_FROM, NUMBERS_MIN_FROM) == (0.25, 25)
    numbers = " ".join(map(str, range(100)))
    assert numbers_weight(token_counts(f"{numbers} {'word ' * 100}")) == 1.0  # half
    assert numbers_weight(token_counts(f"{numbers} {'word ' * 300}")) == 0.0  # a quarter
    assert numbers_weight(token_counts(f"{numbers} {'word ' * 150}")) == pytest.approx(0.6)  # 40%
    assert numbers_weight(token_counts(" ".join(map(str, range(25))))) == 0.0  # all numbers, too few
    assert numbers_weight(token_counts(" ".join(map(str, range(40))))) == pytest.approx(0.6)
    assert numbers_weight(token_counts("")) == 0.0


LOGGERS = [("INFO", "http-nio-8080-exec-3", "o.a.c.c.StandardService", "Request served for order"),
           ("WARN", "scheduler", "c.k.shop.OrderSync", "Retrying order sync after timeout of"),
           ("ERROR", "scheduler", "o.h.engine.jdbc.spi.SqlExceptionHelper", "Failed to process order"),
           ("DEBUG", "main", "c.k.shop.Cache", "Evicted cache entries for order")]


def log_page(paste: int, banner: str = "") -> str:
    """A paste of 30 lines of one shop's log: the same loggers and messages, other times and orders."""
    rnd = random.Random(paste)
    lines = "\n".join(f"2024-08-{rnd.randint(10, 28)} {rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:"
                      f"{rnd.randint(0, 59):02d},{rnd.randint(0, 999):03d} {level} [{thread}] {logger} - {message} "
                      f"{rnd.randint(1000, 9999)}" for level, thread, logger, message in
                      (rnd.choice(LOGGERS) for _ in range(30)))
    return (f"<!DOCTYPE html><html><head><title>Paste {paste}</title></head><body>{banner}<header><a href='/'>Pastes"
            f"</a></header><main><h1>Untitled paste</h1><pre>{lines}</pre></main><footer>Pastes</footer></body></html>")


def test_two_logs_of_one_logger_are_two_pages_and_a_copy_is_one():
    pf = Scheme().build()
    pages = [pf.of_html(log_page(i)) for i in range(1, 9)]
    assert 0 < Scheme().build().words.numbers(token_counts(Extractor().texts(log_page(1)).content)) < 1
    assert not any(same_page(a, b, pf.scheme) for k, b in enumerate(pages) for a in pages[:k])
    before = Scheme(words=WordsOnly()).build()  # the numbers left out: the logs were one page
    old = [before.of_html(log_page(i)) for i in range(1, 9)]
    assert sum(same_page(a, b, before.scheme) for k, b in enumerate(old) for a in old[:k]) >= 5
    copy = pf.of_html(log_page(3, "<p class='mirror'>Mirrored on 2026-11-27 at 10:42 by the archive.</p>"))
    assert same_page(pages[2], copy, pf.scheme)
    with left_out():
        python = Scheme().build().of_html(log_page(3))
    assert (python.fingerprint, python.page) == (pages[2].fingerprint, pages[2].page)

