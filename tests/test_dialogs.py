"""A consent platform's dialog, in the HTML of many unrelated sites, is no page's content.

Six sites shipping the same IAB-style consent dialog (``<div role="dialog">``, its purposes
listed) beside short stories in unmarked ``<div>``s: the dialog held most of each page's text
outside links, the narrowing took it for the content, and different stories of different hosts
were dropped (Jaccard 0.31-0.46, content distance 0, whole pages 3-10 apart). A dialog
(``<dialog>``, ``role=dialog``, ``role=alertdialog``) is boilerplate now, as an ``<aside>`` is;
an element whose class is ``modal``, ``popup`` or ``lightbox`` is never stepped into.
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


def test_a_size_guide_in_a_modal_is_no_products_content():
    # a shop's size guide, a table of numbers in a <div class="modal"> shown by script, larger
    # than each product's description: it was every product page's content (13 of 15 dropped)
    sizes = "".join(f"<tr><td>{s}</td><td>{76 + 5 * i}</td><td>{61 + 5 * i}</td><td>{30 + 2 * i}</td></tr>"
                    for i, s in enumerate(("XXS", "XS", "S", "M", "L", "XL", "XXL", "3XL")))

    def product(i: int) -> tuple[str, str]:
        title = TITLES[i]
        return (f"http://shop.test/p/{i}",
                f"<!DOCTYPE html><html><body><div class='top'><a href='/'>Shop</a></div><div class='product'><h1>{title}"
                f"</h1><p>{STORIES[title][:160]}</p><a href='#size' class='js-open'>Size guide</a></div>"
                f"<div id='size' class='modal js-modal'><h2>Size guide</h2><table><tr><th>Size</th><th>Chest</th>"
                f"<th>Waist</th><th>Inside leg</th></tr>{sizes * 3}</table></div></body></html>")

    assert "Chest" not in Extractor().texts(product(0)[1]).content
    assert "Chest" in Extractor(overlay_names=False).texts(product(0)[1]).content  # the case
    pf = Scheme().build()
    store = open_store("memory://", pf.identity, 64, 3, page_distance=pf.scheme.page_distance)
    engine = Engine(pf, store, templates=HostTemplates())
    assert [engine.decide(u, 200, "text/html", h.encode()).outcome for u, h in map(product, range(8))] == ["kept"] * 8
    # a page whose content's class only ends in "popup" (a section's id, a theme menu) is read as before
    page = f"<body><div class='theme-popup'><p>{STORIES[TITLES[5]]}</p></div><p>Menu</p></body>"
    assert "cycle path" in Extractor().texts(page).content
