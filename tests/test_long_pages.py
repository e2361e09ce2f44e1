"""Pages longer than ``text.MAX_HTML_CHARS`` (8 Mi characters) are read by their text.

Only a page's first 8 Mi characters are read (a bound on the parse). A notebook export whose
first cell inlines a plotting library holds 8 MB of script before its own text: every page of
such a site was read as the header they share, and different pages were dropped as copies. On
a page that long, the bodies of its scripts and style sheets are left out before it is cut
(``markup.scripts_left_out``); pages within the limit are read as before. A crawl of such a
site keeps each notebook, and one of its mirror drops each copy.
"""

from __future__ import annotations

import random

import pytest
from sites import both_clean, decide_all, path_of, site_then_mirror, with_index

from contentseen.demosite import Page
from contentseen.markup import scripts_left_out
from contentseen.text import MAX_HTML_CHARS, Extractor, html_title

WORDS = ("kettle boils water tea leaves steep minutes cup milk sugar pour spout handle lid steam whistle "
         "stove copper enamel porcelain brew pot strainer biscuit morning afternoon").split()
SCRIPT = "var plotly = {data: [1, 2, 3], layout: {title: 'x < y'}};\n" * (MAX_HTML_CHARS // 50)


def notebook(i: int, script: str = SCRIPT) -> str:
    """A lab notebook of the site: its header, a setup cell's inlined library, then its own cells."""
    rng = random.Random(i)
    cells = "".join(f"<div class=cell><p>{' '.join(rng.choice(WORDS) for _ in range(40))}</p></div>"
                    for _ in range(4))
    return (f"<!DOCTYPE html><html><head><title>Lab {i}</title><style>{'p {margin: 0}' * 1000}</style></head>"
            "<body><div class=top><a href='/'>Kettle Labs</a> <a href='/notes'>Notes</a><p>Notes and notebooks "
            f"from the Kettle data team.</p></div><div class=cell><script>{script}</script></div>"
            f"<h1>Lab notebook {i}</h1>{cells}</body></html>")


def test_a_notebooks_own_text_after_8_mib_of_script_is_read():
    page = notebook(1)
    assert len(page) > MAX_HTML_CHARS
    text = Extractor().texts(page)
    assert "Lab notebook 1" in text.whole and len(text.content.split()) > 150
    assert html_title(page) == "Lab 1"


def test_a_site_of_such_notebooks_keeps_each_and_drops_a_copy():
    pages = [(f"https://labs.test/n/{i}", notebook(i)) for i in range(1, 5)]
    pages.append(("https://mirror.labs.test/n/2", notebook(2).replace("Kettle data team", "Kettle data team (mirror)")))
    decisions = decide_all(pages)
    assert [d.outcome for d in decisions] == ["kept"] * 4 + ["dropped"], [d.reason for d in decisions]
    assert decisions[-1].match.url == "https://labs.test/n/2"


def test_scripts_left_out_keeps_what_a_browser_shows():
    html = ("<p>a</p><!-- <script> --><p>b</p><SCRIPT type=x>hidden <p>no</p></script ><style>s</style>"
            "<script src=x.js/><p>c</p><script>d</script>")
    assert scripts_left_out(html, 1000) == ("<p>a</p><!-- <script> --><p>b</p><SCRIPT type=x></script >"
                                            "<style></style><script src=x.js/><p>c</p><script></script>")
    # cut at the limit, counted after the scripts' bodies are out
    assert scripts_left_out("<script>xxxx</script>abcdef", 20) == "<script></script>abc"
    # an element or comment left open hides the rest, as in a browser
    assert scripts_left_out("<p>a</p><script>b<p>c", 100) == "<p>a</p><script>"
    assert scripts_left_out("<p>a</p><!-- <script>b", 100) == "<p>a</p><!-- <script>b"
    assert scripts_left_out("<p>a</p><script", 100) == "<p>a</p><script"
    # names that only begin like one are no script
    assert scripts_left_out("<scripts>x</scripts><styles>y", 100) == "<scripts>x</scripts><styles>y"
    # nor is "<script" in a title, a text area or after <plaintext>, whose text is read raw
    for raw in ("<title>The <script> tag</title>", "<TEXTAREA rows=2><script></TEXTAREA>", "<plaintext><script>",
                "<plaintext/><script>"):
        assert scripts_left_out(raw + "<p>a</p><script>b</script>", 100).startswith(raw + "<p>a</p><script>")


def test_a_page_within_the_limit_is_read_as_it_is():
    short = notebook(1, script="var x = 1;\n" * 1000)
    assert len(short) < MAX_HTML_CHARS
    assert Extractor().texts(short) == Extractor().texts(scripts_left_out(short, MAX_HTML_CHARS))


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory):
    def site(intro: str, banner: str = "") -> dict[str, Page]:
        notebooks = {f"/n/{i}.html": Page("text/html; charset=utf-8", notebook(i).replace("<body>", "<body>" + banner)
                                          .encode()) for i in range(1, 4)}
        return with_index(notebooks, "Kettle Labs notebooks", intro, [f"Lab {i}" for i in range(1, 4)])

    return site_then_mirror(tmp_path_factory.mktemp("long"), site("The data team's lab notebooks, newest first."),
                            site("An archive of the Kettle Labs notebooks, kept by the university library.",
                                 "<p class='mirror'>Archived copy.</p>"), "notebooks")


def test_a_crawl_keeps_every_notebook_and_drops_the_mirrors_copies(crawls):
    labs, first, second = crawls
    both_clean(first, second, 4)
    assert sorted(path_of(d.url) for d in second.drops) == [f"/n/{i}.html" for i in range(1, 4)]
    assert all(d.duplicates == labs + path_of(d.url) for d in second.drops)
