"""Host-level template learning (contentseen.templates) and the engine's second look."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from contentseen.engine import Engine, _host
from contentseen.fingerprints import Scheme
from contentseen.stores.memory import MemoryStore
from contentseen.templates import EDGE, MIN_PAGES, TRIAL, HostTemplates, _kept, page_lines, without
from contentseen.text import PageText, nonblank

WORDS = ("harbour lantern orchard meadow copper violin saddle quarry thimble walnut falcon ember "
         "glacier pepper ribbon anchor candle marble willow hazel cobalt fennel juniper pebble").split()
BANNER = "This copy is served by the Oakridge mirror; the original may be newer."


def article(i: int, words: int = 40) -> str:
    rng = random.Random(i)
    return " ".join(f"{rng.choice(WORDS)}{rng.randrange(40)}" for _ in range(words))


def page(i: int, inside: str = "", words: int = 40) -> bytes:
    # ``inside`` between two paragraphs of the content: not one of its edges (extraction v11
    # leaves those out of a marked main content), so only the host's template can tell it
    return (f"<!DOCTYPE html><html><head><title>Page {i}</title></head><body><nav><a href='/'>Home</a></nav>"
            f"<main><h1>Page {i}</h1><p>{article(i, words)}</p>{inside}<p>End of page {i}.</p></main></body></html>").encode()


def engine(templates: bool = True) -> Engine:
    pages = Scheme().build()
    store = MemoryStore("memory://", {}, 64, 3, page_distance=pages.scheme.page_distance)
    return Engine(pages, store, templates=HostTemplates() if templates else None)


def test_content_lines_are_keyed_with_digits_and_case_folded_and_short_lines_left_out():
    a = page_lines(PageText("  Last updated: 2024-05-01 10:22 \nok", "Home\nLast updated: 2024-05-01 10:22\nok"))
    b = page_lines(PageText("LAST UPDATED: 2019-12-31 23:59", "Last updated: 2019-12-31 23:59"))
    assert a == b and len(a) == 1  # "ok" is too short to count
    assert page_lines(PageText("Home page of the site\n" + BANNER, BANNER)) != a
    assert page_lines(PageText("x" * 40, "x" * 40, flat=True)) == frozenset()
    assert page_lines(PageText("ok", f"ok\n{BANNER}")) == page_lines(PageText(BANNER, BANNER))  # beside the content
    assert page_lines(PageText("ok", "ok")) == frozenset()  # no line long enough: none
    assert page_lines(PageText("Build 1234567890", "Build 1234567890")) == frozenset()  # short once folded
    # a long content's lines are learned at its start and end only, whole lines
    long = "\n".join([BANNER] + [article(i) for i in range(200)] + ["Report problems with this mirror to its staff."])
    keys = page_lines(PageText(long, long))
    assert page_lines(PageText(BANNER, BANNER)) <= keys and len(keys) < 40
    assert page_lines(PageText(article(100), article(100))) & keys == frozenset()


def test_a_line_is_template_once_on_min_pages_pages_of_its_host_only():
    learner = HostTemplates()
    line = page_lines(PageText(BANNER, BANNER))
    got = [learner.learn("mirror.example", line) for _ in range(MIN_PAGES)]
    assert [bool(g) for g in got] == [False] * (MIN_PAGES - 1) + [True]
    assert not learner.learn("other.example", line)  # another host has not seen it yet


def test_a_line_template_on_two_hosts_is_the_sites_own_and_never_left_out():
    learner = HostTemplates()
    site = page_lines(PageText("Return the highest index of each string.", "x"))
    for _ in range(MIN_PAGES):  # the original host: its own repeated line is its template
        got = learner.learn("docs.example", site)
    assert got == site
    banner = page_lines(PageText(BANNER, BANNER))
    for _ in range(MIN_PAGES):  # the mirror shows the site's line and adds its banner
        got = learner.learn("mirror.example", site | banner)
    assert got == banner  # leaving the site's line out would take the page from its original
    # a host forgotten no longer makes a line shared
    small = HostTemplates(hosts=1)
    for host in ("docs.example", "mirror.example"):
        for _ in range(MIN_PAGES):
            got = small.learn(host, site)
    assert got == site and dict(small._hosts_of) == {next(iter(site)): 1}


def test_memory_is_bounded_in_hosts_and_lines():
    learner = HostTemplates(hosts=3, lines=100)
    for h in range(10):
        for i in range(50):
            text = "\n".join(article(i * 7 + j) for j in range(5))
            learner.learn(f"h{h}", page_lines(PageText(text, text)))
    assert len(learner._counts) == 3
    assert all(len(c) <= 100 for c in learner._counts.values())
    # a line on every page survives the forgetting of lines seen once
    learner = HostTemplates(lines=100)
    for i in range(60):
        text = "\n".join([BANNER] + [article(i * 9 + j) for j in range(6)])
        got = learner.learn("h", page_lines(PageText(text, text)))
    assert len(got) == 1
    # a host is noted as serving copies while it is remembered, and only then
    small, line = HostTemplates(hosts=1), page_lines(PageText(BANNER, BANNER))
    small.copies("never.example")
    small.learn("a.example", line)
    small.copies("a.example")
    assert small.copying("a.example") and not small.copying("never.example")
    small.learn("b.example", line)
    assert not small.copying("a.example") and small._copying == set()
    for bad in ({"hosts": 0}, {"lines": 0}, {"min_pages": 0}):
        with pytest.raises(ValueError, match="at least 1"):
            HostTemplates(**bad)


def test_without_leaves_out_lines_but_not_most_of_the_page():
    texts = PageText(f"{BANNER}\n{article(1)}", f"Home\n{BANNER}\n{article(1)}")
    keys = page_lines(PageText(BANNER, BANNER))
    stripped, n = without(texts, keys, 0.2)
    assert n == 1 and BANNER not in stripped.content and BANNER not in stripped.whole
    assert article(1) in stripped.content
    short = PageText(f"{BANNER}\nfew words here", f"{BANNER}\nfew words here")
    assert without(short, keys, 0.2) is None  # the line is most of the page
    assert without(PageText(BANNER, BANNER), keys, 0.2) is None  # nothing of the content left
    assert without(PageText(article(2), article(2)), keys, 0.2) is None  # no such line
    # too little left out to move a fingerprint: no second look
    long = "\n".join([BANNER] + [article(i) for i in range(30)])
    assert without(PageText(long, long), keys, 0.2) is None
    # only the edges are keyed (where lines are learned): a line amid a long text is left out
    # only as the copy of one that left an edge
    half = [article(i, 14) for i in range(12)], [article(i, 14) for i in range(12, 24)]
    middle = "\n".join(half[0] + [BANNER] + half[1])
    assert len(middle) > 2 * EDGE and middle.index(BANNER) > EDGE
    assert without(PageText(middle, middle), keys, 0.2) is None
    stripped, n = without(PageText(f"{BANNER}\n{middle}", f"{BANNER}\n{middle}"), keys, 0.2)
    assert n == 2 and stripped.content == stripped.whole == "\n".join(half[0] + half[1])
    # a line at the content's edge leaves the whole text too, however deep in it the content lies
    menu = "\n".join(f"Menu entry {i} of the Oakridge site" for i in range(100))
    content = f"{BANNER}\n{article(3, 30)}"
    whole = f"{menu}\n{content}\n{menu}"
    assert whole.index(BANNER) > EDGE and len(whole) - whole.index(BANNER) > EDGE
    stripped, n = without(PageText(content, whole, narrowed=True), keys, 0.2)
    assert n == 1 and BANNER not in stripped.whole and stripped.content == article(3, 30)
    assert stripped.whole == f"{menu}\n{article(3, 30)}\n{menu}"


def test_without_keeps_a_marked_main_content_from_being_a_sliver():
    """A page marking its main content is never a sliver (its content fingerprint never counts
    its whole text); its second look is not either, however little of its text is left."""
    pages = Scheme().build()
    menu = "".join(f"<li><a href='/{i}'>Menu entry number {i} of this site</a></li>" for i in range(60))
    html = (f"<html><body><ul>{menu}</ul><main><h1>Title</h1><p class='m'>{BANNER}</p>"
            f"<p>{article(5, 30)}</p></main></body></html>")
    texts = pages.extractor.texts(html)
    assert texts.share < pages.extractor.min_share and not texts.sliver and not texts.narrowed
    stripped, n = without(texts, page_lines(PageText(BANNER, BANNER)), pages.extractor.min_share)
    assert n == 1 and not stripped.sliver
    plain = pages.extractor.texts(html.replace(f"<p class='m'>{BANNER}</p>", ""))
    assert pages.of_texts(stripped).fingerprint == pages.of_texts(plain).fingerprint
    # a page's content block found by weighing its body: a sliver by its share, as extracted
    assert pages.extractor.texts(html.replace("<main>", "<div>").replace("</main>", "</div>")).narrowed
    sliver = PageText(BANNER + "\nshort block", "\n".join(["menu line of the site"] * 40 + [BANNER]), narrowed=True)
    assert without(sliver, page_lines(PageText(BANNER, BANNER)), 0.2)[0].sliver


def test_second_look_drops_a_mirrors_banner_copies_and_stores_nothing_for_them():
    e = engine()
    for i in range(12):
        assert e.decide(f"http://a.example/{i}", 200, "text/html", page(i)).outcome == "kept"
    stored = len(e.store)
    line = f"<p class='mirror'>{BANNER}</p>"
    fates = [e.decide(f"http://b.example/{i}", 200, "text/html", page(i, line)) for i in range(12)]
    dropped = [d for d in fates if d.outcome == "dropped"]
    late = fates[MIN_PAGES - 1:]  # the banner is the host's template from its MIN_PAGES-th page on
    assert all(d.outcome == "dropped" for d in late), [d.outcome for d in late]
    assert all(d.match.url == f"http://a.example/{fates.index(d)}" for d in dropped)
    assert len(e.store) == stored + len(fates) - len(dropped)
    assert e.templates.copying("b.example:")  # its trial looks found copies: it keeps looking
    # without the learning, a 12-word line added to a 40-word page is missed on most of them
    e = engine(templates=False)
    for i in range(12):
        e.decide(f"http://a.example/{i}", 200, "text/html", page(i))
    plain = [e.decide(f"http://b.example/{i}", 200, "text/html", page(i, line)).outcome for i in range(12)]
    assert plain.count("dropped") < len(late)
    # ... and each of those the second look found, its line left out
    assert all(d.match.template_lines == 1 for d, p in zip(fates, plain) if d in late and p == "kept")


def test_a_host_never_seen_to_copy_gets_only_trial_looks():
    """On a crawl of one site, its own repeated lines are its template, and a second look could
    only meet its own pages: after TRIAL looks none is made until a page of it matches another
    host's page."""
    e = engine()
    line = f"<p class='mirror'>{BANNER}</p>"
    looks = [e.fingerprint("text/html", page(i, line), url=f"http://b.example/{i}")[1] for i in range(40)]
    assert sum(s is not None for s in looks) == TRIAL and looks[-1] is None
    e.templates.copies("b.example:")
    assert e.fingerprint("text/html", page(41, line), url="http://b.example/41")[1] is not None
    # a match on another host, answered by the store, is what notes it
    e = engine()
    for i in range(40):
        e.decide(f"http://b.example/{i}", 200, "text/html", page(i, line))
    assert not e.templates.looking("b.example:")
    e.decide("http://a.example/long", 200, "text/html", page(99, words=400))
    assert e.decide("http://b.example/long", 200, "text/html", page(99, words=400)).outcome == "dropped"
    assert e.templates.looking("b.example:") and e.templates.copying("b.example:")


def test_second_look_drops_only_against_another_hosts_page():
    """Two pages of one host both show its template: they are compared as they are. Without it,
    two API pages of a site differing in little but their menus would look alike (pandas'
    Series.iloc and DataFrame.iloc, Jaccard 0.21, were dropped so)."""
    e = engine()
    for host in ("b.example", "m.example"):  # both serve a copy of another site's page: looks are made
        e.decide("http://origin.example/long", 200, "text/html", page(99, words=400))
        assert e.decide(f"http://{host}/long", 200, "text/html", page(99, words=400)).outcome == "dropped"
    line = f"<p class='mirror'>{BANNER}</p>"
    assert e.decide("http://b.example/plain", 200, "text/html", page(1)).outcome == "kept"
    for i in range(2, 2 + MIN_PAGES):  # the line becomes the host's template
        assert e.decide(f"http://b.example/{i}", 200, "text/html", page(i, line)).outcome == "kept"
    assert e.templates.copying("b.example:")
    d = e.decide("http://b.example/again", 200, "text/html", page(1, line))
    assert d.outcome == "kept", d  # its second look matches /plain, of its own host
    # one host however a URL spells it; another port is another server
    assert _host("http://B.Example/again") == _host("http://b.example/plain") != _host("http://b.example:8080/")
    assert _host("http://b.example:99999/") == "b.example:99999"  # never an error
    own = "<p class='mirror'>Served by the Elmwood mirror, which may lag behind the original.</p>"
    for i in range(2, 2 + MIN_PAGES):
        e.decide(f"http://m.example/{i}", 200, "text/html", page(i + 100, own))
    assert e.decide("http://b.example/other", 200, "text/html", page(50)).outcome == "kept"
    d = e.decide("http://m.example/copy", 200, "text/html", page(50, own))  # another host's copy
    assert d.outcome == "dropped" and d.match.url == "http://b.example/other" and d.match.template_lines == 1


def test_second_look_never_drops_a_different_page_that_shares_the_line():
    e = engine()
    line = f"<p class='mirror'>{BANNER}</p>"
    for i in range(20):  # every page of one host carries the line, all different
        d = e.decide(f"http://b.example/{i}", 200, "text/html", page(i, line))
        assert d.outcome == "kept", (i, d)
    for i in range(20, 30):  # other pages without the line: nothing of theirs stored, kept
        assert e.decide(f"http://b.example/{i}", 200, "text/html", page(i)).outcome == "kept"


@pytest.mark.parametrize("body", [b"", b"<html>", b"\xff\xfe<p>x</p>", page(1)[:57]])
def test_broken_pages_go_through_the_learning_without_error(body):
    e = engine()
    for i in range(MIN_PAGES + 1):
        d = e.decide(f"http://b.example/{i}", 200, "text/html", body)
        assert d.outcome in ("kept", "skipped", "refetched", "dropped") and not d.reason.startswith("error"), d


def test_evaluation_takes_second_looks_as_the_engine_does(tmp_path, monkeypatch):
    """contentseen.evaluate simulates the learning in crawl order (host A, then B): a B page that
    matches as it is is answered so, its second look never asked -- as ``Engine.check`` does."""
    import contentseen.evaluate.core as core
    from contentseen.evaluate.inputs import pair_crawls

    line = f"<p class='mirror'>{BANNER}</p>"
    # host A: pages with the host's line, one of them twice under two names; host B: the same bytes
    bodies = {f"p{i}.html": page(i, line, words=12) for i in range(8)}
    bodies["p8.html"] = bodies["p3.html"]
    for host in ("a", "b"):
        (tmp_path / host).mkdir()
        for name, body in bodies.items():
            (tmp_path / host / name).write_bytes(body)
    looks = {}
    second_looks = core.second_looks
    monkeypatch.setattr(core, "second_looks", lambda *args: looks.setdefault("all", second_looks(*args)))
    ev = core.evaluate(pair_crawls(tmp_path / "a", tmp_path / "b"), Scheme())
    assert looks["all"] == {}  # every B page matches as it is; A's never meet another host's
    e = engine()
    fates = [e.decide(f"http://{host}.example/{name}", 200, "text/html", bodies[name])
             for host in ("a", "b") for name in sorted(bodies)]
    template_drops = sum(d.outcome == "dropped" and d.match.template_lines > 0 for d in fates)
    assert ev.within["template_dropped"] == template_drops
    assert ev.within["false"] == 0
    assert all(d.outcome == "dropped" for d in fates[len(bodies):])  # B: every page a copy


def test_second_look_keeps_the_content_fingerprint_only_where_the_content_is_the_same():
    """Engine.fingerprint passes the page's own fingerprints to ``second_look``, which then makes
    only the whole-page fingerprint when no line left the content: the same as made in full."""
    from contentseen.engine import second_look

    pages = Scheme().build()
    menu = "".join(f"<li><a href='/t/{j}'>Orchard survey topic number {j}</a></li>" for j in range(60))
    notice = f"<div id='notice'>{BANNER}</div>"
    bodies = []
    for i in range(8):
        bodies += [
            page(i, f"<p>{BANNER}</p>"),  # a line inside the content
            page(i).replace(b"</body>", notice.encode() + b"</body>"),  # beside a marked content
            f"<html><body><ul>{menu}</ul><div><p>{article(i, 30)}</p></div>{notice}</body></html>".encode(),  # a sliver
            f"<html><body><p>few words {i}</p>{notice}</body></html>".encode(),  # short: exact
        ]
    learner, looks, kept = HostTemplates(), 0, 0
    for body in bodies:
        texts = pages.extractor.texts(body.decode())
        own = pages.of_texts(texts)
        template = learner.learn("h", page_lines(texts))
        full, quick = second_look(pages, texts, template), second_look(pages, texts, template, own)
        assert full == quick, body[:200]
        looks += full is not None
        kept += full is not None and full.page.fingerprint == own.fingerprint
    assert looks > 8 and kept > 0


SAMPLE_LINES = [BANNER, "  Last updated: 2024-05-01  ", "Report problems with this mirror to its staff.", "short",
         "", "\t", "harbour lantern orchard meadow copper violin", "Last updated: 2019-12-31"]


_LINE = st.sampled_from(SAMPLE_LINES) | st.text(max_size=60).map(lambda t: t.replace("\n", " "))


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, max_size=8), st.lists(_LINE, max_size=8), st.lists(_LINE, max_size=8),
       st.integers(0, 40), st.lists(st.sampled_from(SAMPLE_LINES[:3])))
def test_kept_leaves_out_whole_lines_and_counts_what_it_left_out(head, middle, tail, filler, template):
    """``_kept`` on any text, short or long (template lines at its edges and amid it): the lines
    left are the text's own, in order; the characters and lines it says it left out are those
    missing; no kept line is one it left out; no kept line of a short text is a template line."""
    rows = (head + [article(i, 12) for i in range(filler)] + middle
            + [article(i, 12) for i in range(filler, 2 * filler)] + tail)
    text = "\n".join(rows)
    keys = frozenset().union(*(page_lines(PageText(t, t)) for t in template)) if template else frozenset()
    out, chars, lines, gone = _kept(text, keys)
    assert nonblank(text) - nonblank(out) == chars
    kept_rows = out.split("\n")
    # each line left out is one line fewer (a last line left out of the middle leaves its line end)
    assert len(rows or [""]) - len(kept_rows) in (lines, lines - 1)
    it = iter(rows)
    assert all(any(r == k for r in it) for k in kept_rows if k)  # a subsequence of the text's lines
    assert not any(k.strip() in gone for k in kept_rows)
    if len(text) <= 2 * EDGE:
        assert not any(page_lines(PageText(k, k)) & keys for k in kept_rows)
