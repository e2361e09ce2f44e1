"""A consent platform's dialog, in the HTML of many unrelated sites, is no page's content.

Six sites shipping the same IAB-style consent dialog (``<div role="dialog">``, its purposes
listed) beside short stories in unmarked ``<div>``s: the dialog held most of each page's text
outside links, the narrowing took it for the content, and different stories of different hosts
were dropped (Jaccard 0.31-0.46, content distance 0, whole pages 3-10 apart). A dialog
(``<dialog>``, ``role=dialog``, ``role=alertdialog``) is boilerplate now, as an ``<aside>`` is.
"""

from __future__ import annotations

import pytest
from test_featured_articles import STORIES, TITLES

from contentseen.engine import Engine
from contentseen.fingerprints import Scheme
from contentseen.stores import open_store
from contentseen.templates import HostTemplates
from contentseen.text import Extractor

PURPOSES = "".join(f"<div class='purpose'><h3>{t}</h3><p>{d}</p></div>" for t, d in (
    ("Store and access information on a device", "Cookies, device or similar online identifiers together with other "
     "information can be stored or read on your device to recognise it each time it connects to a website."),
    ("Create profiles for personalised advertising", "Information about your activity on this service can be stored "
     "and combined with other information about you to build or improve a profile about you."),
    ("Measure advertising performance", "Information regarding which advertising is presented to you and how you "
     "interact with it can be used to determine how well an advert has worked for you or other users.")))
CONSENT = ("<h2>We value your privacy</h2><p>We and our partners store and access information on a device, such as "
           "cookies, and process personal data, such as unique identifiers and standard information sent by a device, "
           "for personalised advertising and content, advertising and content measurement, and audience insights, as "
           "well as to develop and improve products. You may click to consent to our and our partners' processing as "
           "described above, or access more detailed information and change your preferences before consenting.</p>"
           f"<button>More options</button><button>Agree</button>{PURPOSES}")
DIALOGS = {"role": f"<div id='cmp' role='dialog' aria-modal='true'>{CONSENT}</div>",
           "alert": f"<div id='cmp' role='alertdialog'>{CONSENT}</div>",
           "element": f"<dialog id='cmp' open>{CONSENT}</dialog>"}


def site_page(site: int, story: int, dialog: str) -> tuple[str, str]:
    """(URL, HTML) of ``story`` on site ``site``, the consent ``dialog`` at the body's end."""
    title = TITLES[story]
    return (f"http://site{site}.test/{story}",
            f"<!DOCTYPE html><html><head><title>{title}</title></head><body><div id='page'><div class='top'>"
            f"<a href='/'>Site {site}</a> <a href='/news'>News</a></div><div class='story'><h1>{title}</h1>"
            f"<p>{STORIES[title]}</p></div></div>{DIALOGS[dialog]}</body></html>")


@pytest.mark.parametrize("dialog", list(DIALOGS))
def test_the_same_consent_dialog_on_many_sites_drops_none_of_their_stories(dialog: str):
    url, html = site_page(0, 0, dialog)
    assert "stone bridge" in Extractor().texts(html).content and "privacy" not in Extractor().texts(html).content
    pf = Scheme().build()
    store = open_store("memory://", pf.identity, 64, 3, page_distance=pf.scheme.page_distance)
    engine = Engine(pf, store, templates=HostTemplates())
    pages = [site_page(i, i, dialog) for i in range(len(TITLES))]
    assert [engine.decide(u, 200, "text/html", h.encode()).outcome for u, h in pages] == ["kept"] * len(TITLES)
    # a story's copy on another site, its dialog and all, is still one
    copy = site_page(1, 0, dialog)
    decision = engine.decide(copy[0], 200, "text/html", copy[1].encode())
    assert decision.outcome == "dropped" and decision.match.url == "http://site0.test/0"
