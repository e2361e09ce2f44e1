"""Text a browser shows outside the ordinary tree: declarative shadow roots, inline SVG labels and
MathML formulae.

A web component's page may hold its text in a declarative shadow root (``<template
shadowrootmode="open">``): the parser keeps a template's content out of the tree, and every
``<template>`` was left out, so two product pages whose only own text was there were the same
shell (Jaccard 0.21, dropped). An inline chart's labels are ``<text>`` elements of an ``<svg>``,
which was left out whole: two chart pages were one (Jaccard 0.35, dropped). Now a shadow root's
start tag is read as a ``<div>``'s, and an ``<svg>`` is left out but for its text (its titles,
descriptions and definitions still are). A formula's MathML was left out whole: two worksheets
differing in their formulae only were one page (Jaccard 0.41, dropped); now it is read, but not
its annotations (its TeX source), a ``<mphantom>``, nor the children of a ``<semantics>`` or
``<maction>`` after its first (extraction v16). The truth
(``evaluate.truth``) reads all three too.
"""

from __future__ import annotations

import time

from contentseen.evaluate.truth import html_shingles, jaccard
from contentseen.fingerprints import Scheme, same_page
from contentseen.text import Extractor, html_title

PRODUCTS = {
    "Chef's knife": "A hand forged carbon steel chef's knife with a walnut handle, twenty centimetres long and "
    "sharpened to fifteen degrees, made for slicing vegetables, fish and boneless meat. Wash by hand and dry at "
    "once to keep rust from the blade.",
    "Cast iron pan": "A heavy cast iron frying pan seasoned with flaxseed oil, ready to sear steaks, bake cornbread "
    "and roast vegetables in the oven. It holds heat for a long time and works on induction, gas and open fires "
    "alike; never leave it to soak in water.",
}
NAV = "".join(f"<li><a href='/c/{i}'>Category {c}</a></li>" for i, c in enumerate(
    ("Knives", "Pans", "Boards", "Bowls", "Linen", "Gifts", "Sale", "New")))


def component_page(name: str, mode: str = "shadowrootmode") -> str:
    """A shop page whose product text is in a web component's declarative shadow root."""
    return (f"<!DOCTYPE html><html><head><title>Kitchen Shop</title></head><body><header><a href='/'>Kitchen "
            f"Shop</a><nav><ul>{NAV}</ul></nav></header><main><product-card><template {mode}='open'><style>h1 "
            f"{{color: red}}</style><h1>{name}</h1><p>{PRODUCTS[name]}</p><slot></slot></template></product-card>"
            "<p>Add to basket to check stock in your local store.</p></main><footer>Kitchen Shop Ltd, free "
            "delivery over fifty pounds.</footer></body></html>")


CHARTS = {
    "Cycling to work": ["Netherlands: most commuters ride on dedicated lanes", "Denmark: cycle superhighways into "
                        "Copenhagen", "Germany: Munster leads the cities", "Japan: shopping bikes for short trips"],
    "Working from home": ["Ireland: a third of office staff stay home on Fridays", "Finland: remote work was common "
                          "long before", "Spain: hybrid contracts spread after the law changed",
                          "Canada: long winters keep people at their desks at home"],
}


def chart_page(title: str) -> str:
    """A page whose content is an inline SVG chart: its labels are its text."""
    labels = "".join(f"<text x='10' y='{20 * (i + 2)}'>{label}</text>" for i, label in enumerate(CHARTS[title]))
    return (f"<!DOCTYPE html><html><head><title>Charts</title></head><body><header><a href='/'>Charts</a><nav><ul>"
            f"{NAV}</ul></nav></header><main><h1>Chart of the week</h1><figure><svg width='600' height='400'>"
            f"<title>Tooltip of the chart</title><desc>An accessible description</desc><defs><text id='d'>Defined, "
            f"never shown</text></defs><text x='10' y='20'>{title}</text>{labels}</svg></figure><p>Read our notes on "
            "how these figures are compiled.</p></main><footer>Charts Ltd.</footer></body></html>")


def mi(*parts: str) -> str:
    """A formula's MathML: names and functions as ``<mi>``, numbers as ``<mn>``, the rest ``<mo>``."""
    return "".join(f"<mi>{p}</mi>" if p.isalpha() else f"<mn>{p}</mn>" if p.isdigit() else f"<mo>{p}</mo>"
                   for p in parts)


WORKSHEETS = {
    "Worksheet 1": [mi("f", "(", "x", ")", "=", "sin", "(", "x", ")", "+", "cos", "(", "x", ")"),
                    mi("g", "(", "x", ")", "=", "x", "^", "3", "-", "tan", "x"),
                    mi("h", "(", "t", ")", "=", "exp", "(", "t", ")", "*", "log", "t"),
                    mi("p", "(", "u", ")", "=", "sqrt", "u", "+", "arcsin", "u")],
    "Worksheet 2": [mi("q", "(", "y", ")", "=", "sinh", "y", "*", "cosh", "y"),
                    mi("r", "(", "s", ")", "=", "arctan", "(", "s", "/", "2", ")"),
                    mi("k", "(", "z", ")", "=", "z", "^", "5", "+", "sec", "z"),
                    mi("m", "(", "v", ")", "=", "cot", "v", "-", "ln", "v")],
}


def worksheet(title: str, annotation: str = "") -> str:
    """A page of exercises whose own text is its formulae (MathML); each formula's ``annotation``
    (its TeX source, never shown) in a ``<semantics>`` beside it."""
    items = "".join(f"<li><math display='block'><semantics><mrow>{f}<mphantom><mi>phantom</mi></mphantom></mrow>"
                    f"<annotation encoding='application/x-tex'>{annotation}</annotation><mtext>{annotation}</mtext>"
                    f"</semantics><maction actiontype='tooltip'><mi>a</mi><mtext>{annotation}</mtext></maction></math>"
                    "</li>" for f in WORKSHEETS[title])
    return (f"<!DOCTYPE html><html><head><title>{title}</title></head><body><header><a href='/'>Calculus</a><nav><ul>"
            f"{NAV}</ul></nav></header><main><h1>Worksheet</h1><p>Differentiate each of the following functions "
            f"with respect to x and simplify your answers.</p><ol>{items}</ol></main></body></html>")


def test_a_formulas_mathml_is_the_pages():
    one, two = (worksheet(t) for t in WORKSHEETS)
    texts = Extractor().texts(one)
    assert "arcsin" in texts.content
    assert "phantom" not in texts.whole
    pf = Scheme().build()
    assert not same_page(pf.of_html(one), pf.of_html(two), pf.scheme)
    assert jaccard(html_shingles(one), html_shingles(two)) < 0.5  # the truth reads it too
    # a formula's annotation, nor a tooltip, is ever shown: another TeX source is the same page
    other = worksheet("Worksheet 1", r"\frac{d}{dx} \sum_{n} a_n x^n  totally different words here")
    assert "totally" not in Extractor().texts(other).whole and "totally" not in " ".join(
        Extractor(mode="body").texts(other).whole.split())
    assert same_page(pf.of_html(one), pf.of_html(other), pf.scheme)
    assert jaccard(html_shingles(one), html_shingles(other)) == 1.0
    # nor on a page read without a tree (too deep to parse): its formulae are read there too
    deep = "<div>" * 5_000
    flat_one, flat_two = (Extractor().texts(deep + worksheet(t)) for t in WORKSHEETS)
    assert flat_one.flat and "arcsin" in flat_one.whole and "phantom" not in flat_one.whole
    assert flat_one.whole != flat_two.whole


def test_a_shadow_roots_text_is_the_pages():
    knife, pan = (component_page(n) for n in PRODUCTS)
    content = Extractor().texts(knife).content
    assert "carbon steel" in content and "color" not in content
    pf = Scheme().build()
    assert not same_page(pf.of_html(knife), pf.of_html(pan), pf.scheme)
    assert jaccard(html_shingles(knife), html_shingles(pan)) < 0.5  # the truth reads it too
    # Chrome's first attribute, and any case; a copy is still dropped
    legacy = component_page("Chef's knife", "ShadowRoot")
    assert "carbon steel" in Extractor().texts(legacy).content
    assert same_page(pf.of_html(knife), pf.of_html(legacy), pf.scheme)
    # an ordinary template is never shown, nor is one whose attribute is another's value
    for hidden in ("<template><p>carbon steel</p></template>", "<template data-x='shadowroot'><p>carbon steel</p>"
                   "</template>", "<template title='a > shadowrootmode=open'><p>carbon steel</p></template>"):
        assert "carbon" not in Extractor().texts(f"<body><p>Shop</p>{hidden}</body>").whole
    assert html_title(knife) == "Kitchen Shop"
    # a shadow root inside an ordinary template is that template's, hidden with it; characters
    # whose lower case is longer ("İ") before one leave it as it is
    nested = ("<body><p>Shop</p><template><p>carbon</p><template shadowrootmode=open><p>steel</p></template><p>knife"
              "</p></template></body>")
    assert " ".join(Extractor().texts(nested).whole.split()) == "Shop"
    turkish = "<body><p>" + "İ" * 10 + "</p><x-a><template shadowrootmode=open><p>carbon steel</p></template></x-a>"
    assert "carbon steel" in Extractor().texts(turkish).whole


def test_an_svg_charts_labels_are_the_pages():
    cycling, working = (chart_page(t) for t in CHARTS)
    texts = Extractor().texts(cycling)
    assert "Copenhagen" in texts.content
    assert not any(w in texts.whole for w in ("Tooltip", "accessible", "Defined"))
    pf = Scheme().build()
    assert not same_page(pf.of_html(cycling), pf.of_html(working), pf.scheme)
    assert jaccard(html_shingles(cycling), html_shingles(working)) < 0.5
    assert "Tooltip" not in " ".join(Extractor(mode="body").texts(cycling).whole.split())


def test_shadow_roots_cost_a_linear_read():
    pages = ["<body>" + "<x-a><template shadowrootmode=open><p>w</p></template></x-a>" * 100_000,
             "<body><template>x</template>" + "<template shadowroot=x " * 100_000,
             "<body><template shadowroot=x " + "<template " * 100_000 + ">Shown</template>",
             "<body><template></template>" + "<p a shadowroot=1>" * 100_000,
             # each rewrite read once: a page reread for each shadow root inside the tag before
             # took 3 s at 1.2 MB, and 2,000 of them overflowed the stack
             "<body>" + "<p>filler text</p>" * 60_000 + "<template shadowrootmode=open " * 2_000 + ">x"]
    for page in pages:
        start = time.process_time()
        Extractor().texts(page)
        assert time.process_time() - start < 0.5 * max(1.0, len(page) / (1 << 20)), page[:60]
