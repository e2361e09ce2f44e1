"""A block of text a site shows on many pages is no page's content: a shop's product pages.

Each product page holds the product's own description beside the shop's "Delivery & returns"
panel, longer than it and the same on every page, in markup that marks no main content. The
narrowing takes the block holding most of the text outside links, the panel, for the content of
every page, and the whole-page fingerprints of two products, each counting the panel twice,
were 4-10 bits apart: different products were dropped as copies of the first (Jaccard of their
visible text 0.42-0.48). A page whose content block is on another page of its host too
(``HostTemplates.shared``) is now dropped against a page of its own host only within
``SHARED_PAGE_DISTANCE`` of a whole page (``PageFingerprints.shared``), whatever its block's
size: its content fingerprint is its host's, no evidence of a copy. (A tag's archive of posts,
each an ``<article>``, is narrowed as a page marking none: extraction v13.)

A copy of a product page at another URL of the shop, or on its mirror, is still dropped.
"""

from __future__ import annotations

import pytest
from sites import both_clean, decide_all, path_of, site_then_mirror, with_index

from contentseen.demosite import Page
from contentseen.engine import Engine
from contentseen.fingerprints import SHARED_PAGE_DISTANCE, Scheme, same_page
from contentseen.stores import open_store
from contentseen.templates import HostTemplates
from contentseen.text import Extractor

CTYPE = "text/html; charset=utf-8"
DELIVERY = """<h3>Delivery &amp; returns</h3>
<p>We dispatch every order from our workshop in Devon within two working days. Standard delivery
within the United Kingdom is free on orders over fifty pounds and otherwise costs four pounds
ninety five; next day delivery is available at checkout for orders placed before noon.</p>
<p>We ship to most countries in Europe with a tracked courier. Customs duties and import taxes
are the responsibility of the recipient and are not included in our prices.</p>
<p>If you are not completely happy with your purchase you may return it within thirty days for a
full refund. Items must be unused and in their original packaging. Please email us before sending
anything back so that we can give you a returns reference; we cannot accept parcels without one.
Personalised and made to order pieces cannot be returned unless faulty.</p>"""
PRODUCTS = {
    "Stoneware mixing bowl": "Thrown by hand on the wheel and finished in a speckled oatmeal glaze, this generous bowl "
    "is made for bread dough, cake batter and big summer salads. A rolled rim makes it easy to grip with floury hands, "
    "and the unglazed foot keeps it steady on the worktop. Dishwasher, oven and microwave safe; each bowl is unique, "
    "and small variations in colour and shape are part of its charm.",
    "Linen tea towel": "Woven from heavy Lithuanian flax and stonewashed for softness, our tea towel dries glasses "
    "without leaving lint and only gets better with every wash. Finished with a cotton hanging loop and a woven label, "
    "it comes in sage, clay, ochre and natural stripes. Machine wash warm and tumble dry low; expect a little shrinkage "
    "after the first wash.",
    "Brass reading lamp": "A slim adjustable desk lamp turned from solid brass, with a weighted base and a swivelling "
    "shade that directs a warm pool of light exactly where you need it. The brass will develop a soft patina over time; "
    "polish it if you prefer a bright finish. Supplied with a braided fabric flex, an inline switch and a low energy "
    "bulb.",
    "Oak chopping board": "Cut from a single piece of English oak and oiled with food safe linseed, this thick board is "
    "heavy enough to stay put while you carve a Sunday roast. A juice groove runs around the edge and a hand hole at one "
    "end makes it easy to hang on the wall. Wash by hand and rub in a little oil whenever the wood looks dry.",
    "Wool throw blanket": "Knitted in Yorkshire from the undyed fleece of Jacob sheep, this throw keeps its natural "
    "shades of cream, fawn and chocolate brown. It is warm enough for a cold bedroom yet light enough to drape over the "
    "arm of the sofa in spring. Dry clean only, or hand wash cold with a wool detergent and dry flat away from the sun.",
    "Enamel camping mug": "A sturdy steel mug coated in glossy white enamel with a navy rim, made for tea by the "
    "campfire and coffee at the desk alike. It holds a generous mug of tea, will not shatter when dropped on rocks, and "
    "stacks neatly inside a rucksack. Not suitable for the microwave; the enamel may chip if treated roughly.",
    "Copper watering can": "Hand beaten from copper sheet by a family of metalworkers in Birmingham, this elegant can "
    "has a long spout for reaching house plants at the back of a shelf. It holds just over a litre and balances "
    "comfortably in the hand when full. The copper darkens over time; a little lemon juice and salt will bring back the "
    "shine.",
    "Rattan log basket": "Woven from natural rattan around a strong steel frame, this deep basket holds a week of logs "
    "for the wood burner and looks good beside the hearth. Two sturdy handles make it easy to carry in from the shed, "
    "and a removable cotton liner catches bark and dust. Keep it indoors and away from damp to stop the cane from "
    "softening.",
}
NAMES = list(PRODUCTS)
NAV = "".join(f"<li><a href='/c/{c}'>{c}</a></li>" for c in ("New in", "Kitchen", "Tableware", "Textiles", "Lighting",
                                                              "Garden", "Gifts", "Sale"))


def product(i: int, paragraphs: int = 1) -> str:
    """Product ``i``'s page: its description (``paragraphs`` products' texts) beside the panel."""
    description = "".join(f"<p>{PRODUCTS[NAMES[(i + k) % len(NAMES)]]}</p>" for k in range(paragraphs))
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{NAMES[i]} | Hollow Oak Home</title>"
            f"</head><body><header class='site-header'><a class='logo' href='/'>Hollow Oak Home</a><nav><ul>{NAV}</ul>"
            f"</nav></header><div class='page-title'><ol class='breadcrumb'><li><a href='/'>Home</a></li><li>"
            f"<a href='/shop'>Shop</a></li></ol><h1>{NAMES[i]}</h1></div><div class='container'><div class='row'>"
            f"<div class='col-md-7 product-description'><p class='price'>£{30 + i}.00</p>{description}</div>"
            f"<div class='col-md-5 product-info-panel'>{DELIVERY}</div></div></div><footer class='site-footer'>"
            f"<p>Hollow Oak Home, Unit 4, Mill Lane, Totnes. Registered in England.</p></footer></body></html>")


def test_a_product_page_whose_block_is_the_shops_panel_is_dropped_only_as_a_whole_page():
    shop = [(f"http://shop.test/p/{i}", product(i)) for i in range(len(NAMES))]
    # the panel, twice the description, is every page's content block
    contents = [Extractor().texts(html).content for _, html in shop]
    assert all("dispatch every order" in c and PRODUCTS[NAMES[i]][:40] not in c for i, c in enumerate(contents))
    blind = decide_all(shop, templates=False)
    assert [d.outcome for d in blind].count("dropped") >= 3  # the case: products lost without the rule
    decisions = decide_all(shop + [("http://shop.test/p/3?ref=mail", product(3)),
                                   ("http://shop.test/p/5?sort=new", product(5).replace("</h1>", "</h1>\r\n"))])
    assert [d.outcome for d in decisions[:len(NAMES)]] == ["kept"] * len(NAMES)
    assert [d.page.shared for d in decisions[:len(NAMES)]] == [False] + [True] * (len(NAMES) - 1)
    # the shop's own copies of a page, at other URLs, are still dropped: the whole page agrees
    for d, own in zip(decisions[len(NAMES):], ("http://shop.test/p/3", "http://shop.test/p/5")):
        assert d.outcome == "dropped" and d.match.url == own and d.match.page_distance <= SHARED_PAGE_DISTANCE


def test_what_the_rule_leaves_as_it_was():
    shop = [(f"http://shop.test/p/{i}", product(i)) for i in range(3)]
    # the same URL fetched again is its own page, whatever moved around it (here, its price)
    again = decide_all(shop + [("http://shop.test/p/2", product(2).replace("£32.00", "£29.00 (sale)"))])
    assert again[2].page.shared and again[3].outcome == "refetched" and again[3].match.url == "http://shop.test/p/2"
    pf = Scheme().build()
    store = open_store("memory://", pf.identity, 64, 3, page_distance=10)
    engine = Engine(pf, store, templates=HostTemplates())
    page, _ = engine.fingerprint("text/html", product(1).encode(), CTYPE, "http://shop.test/p/1")
    page, _ = engine.fingerprint("text/html", product(2).encode(), CTYPE, "http://shop.test/p/2")
    assert page.shared and engine.query("http://shop.test/p/2", page) is None  # checked unbatched
    # content alone deciding (a page distance of 64) asks no whole page, nor does a store that
    # takes no page distance per check: the rule is not applied, and never said to be
    for engine in (Engine(Scheme(page_distance=64).build(), store, templates=HostTemplates()),
                   Engine(pf, _NoPageDistance(store), templates=HostTemplates())):
        marks = [engine.fingerprint("text/html", product(i).encode(), CTYPE, f"http://shop.test/p/{i}")[0].shared
                 for i in range(3)]
        assert marks == [False] * 3
    # a page whose markup marks its content is its own page at another URL of its host, a
    # sidebar of the latest posts changed beside it
    post = "<p>" + " ".join(PRODUCTS.values()) + "</p>"

    def news(latest: str) -> str:
        return (f"<!DOCTYPE html><html><body><nav><a href='/'>Home</a></nav><main><h1>Our new workshop</h1>{post}"
                f"</main><aside><h3>Latest</h3><ul><li><a href='/n/{latest}'>{latest}</a></li></ul></aside></body>"
                f"</html>")

    news_pages = [("http://news.test/n/1", news("Opening hours")), ("http://news.test/n/1?utm=mail", news("A new kiln")),
                  ("http://news.test/n/1?utm=feed", news("Summer courses in throwing pots on the wheel"))]
    decisions = decide_all(news_pages)
    assert [d.outcome for d in decisions] == ["kept", "dropped", "dropped"] and not any(d.page.shared for d in decisions)


class _NoPageDistance:
    """A store whose checks take no page distance (a third-party one written before them)."""

    def __init__(self, store):
        self._store = store

    def check_and_add(self, fingerprint, url, page=None):
        return self._store.check_and_add(fingerprint, url, page=page)

    def lookup(self, fingerprint, page=None):
        return self._store.lookup(fingerprint, page=page)


def test_a_block_is_shared_once_another_page_of_its_host_showed_it():
    learner = HostTemplates()
    learner.learn("a", frozenset({1, 2, 3}))
    assert not learner.shared("a", frozenset({1, 2}))  # one page: its own
    learner.learn("a", frozenset({1, 2, 4}))
    assert learner.shared("a", frozenset({1, 2})) and not learner.shared("a", frozenset({1, 4}))
    assert not learner.shared("b", frozenset({1, 2})) and not learner.shared("a", frozenset())


def test_several_articles_beside_the_page_title_are_the_items_of_a_list():
    post = "<article class='post'><h2><a href='/p/{0}'>Post {0}</a></h2><p>{1}</p></article>"
    long_post = post.format(77, " ".join(PRODUCTS.values()))  # one long post shown on both tags

    def tag_page(tag: str, first: int) -> str:
        posts = [post.format(first, PRODUCTS[NAMES[first]]), long_post, post.format(first + 1, PRODUCTS[NAMES[first + 1]])]
        return (f"<!DOCTYPE html><html><head><title>Tag {tag}</title></head><body><header><a href='/'>Notes</a>"
                f"</header><h1>Posts tagged {tag}</h1>{''.join(posts)}<footer>Built with Hugo.</footer></body></html>")

    a, b = tag_page("python", 0), tag_page("django", 3)
    # a post's own page, its title in its article's header, comments as articles after it, the
    # site's name an <h1> before it: the post is the content, as before v13
    post_page = (f"<!DOCTYPE html><html><body><div id='masthead'><h1>Notes</h1></div><article><header><h1>Post 77"
                 f"</h1><p>May 1</p></header><p>{' '.join(PRODUCTS.values())}</p></article><article><p>A comment.</p>"
                 f"</article><article><p>Another comment.</p></article></body></html>")
    assert not Extractor().texts(post_page).narrowed and "Post 77" in Extractor().texts(post_page).content
    assert NAMES[0] and "oatmeal" in Extractor().texts(a).content and "hearth" in Extractor().texts(a).content
    before = Extractor(titled_articles=False)
    assert before.texts(a).content == before.texts(b).content  # the long post, as before v13
    pages = Scheme().build()
    assert not same_page(pages.of_html(a), pages.of_html(b), pages.scheme)


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory):
    def site(intro: str) -> dict[str, Page]:
        return with_index({f"/p/{i}.html": Page(CTYPE, product(i).encode()) for i in range(len(NAMES))}, "Shop", intro,
                          NAMES)

    return site_then_mirror(tmp_path_factory.mktemp("shared"),
                            site("Things for the kitchen and the home, made by hand in our workshop in Devon."),
                            site("A copy of the Hollow Oak Home catalogue, kept by the Totnes library for its readers."),
                            "shop")


def test_a_crawl_of_the_shop_keeps_every_product_and_its_mirror_is_dropped(crawls):
    shop, first, second = crawls
    both_clean(first, second, len(NAMES) + 1)
    assert first.stats.get("contentseen/checked/shared") == len(NAMES) - 1
    # every product but the first crawled: the panel was on a page of the shop before
    assert sorted(i["shared"] for i in first.items if path_of(i["url"]) != "/") == [False] + [True] * (len(NAMES) - 1)
    # the mirror's copies, as pages of another host: as usual, each its own product's copy (of the
    # pages equally near by content, the stores answer the one whose whole page is closest)
    assert sorted(path_of(d.url) for d in second.drops) == sorted(f"/p/{i}.html" for i in range(len(NAMES)))
    assert all(d.duplicates == shop + path_of(d.url) for d in second.drops)
