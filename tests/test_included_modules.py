"""A module's page that includes another module: odoc's API reference.

odoc lists a module's members as a run of ``<div class="odoc-spec">`` items, and shows a module
it includes (``include module type of struct include M end``) as one ``<div class="odoc-include">``
holding M's values, which is also M's own page. On js_of_ocaml's reference the include held 85%
of the parent's text outside links: the narrowing stepped into it, the parent's content was M's,
its whole page 4 bits from M's (M's values repeated, counted twice, outweighed the parent's own
members), and one of the two pages was dropped as the other's copy (Jaccard of the pages 0.44).
Since extraction v19 a child beside two or more items of one kind is one of the list's items
(``Extractor.items_beside``): the parent keeps its list whole.
"""

from __future__ import annotations

import random

import pytest
from sites import decide_all

from contentseen.evaluate.truth import html_shingles, jaccard
from contentseen.fingerprints import Scheme, same_page
from contentseen.text import Extractor

TYPES = ["int", "bool", "string", "float", "char", "unit", "int32", "int64"]
NAMES = ["compare", "equal", "max", "min", "hash", "of_string", "to_string", "succ", "pred", "abs", "neg", "add",
         "sub", "mul", "div", "rem", "logand", "logor", "shift_left", "shift_right", "zero", "one", "to_float",
         "of_float", "is_empty", "length", "concat", "escaped", "lowercase", "uppercase"]


def _spec(kind: str, text: str, anchor: str) -> str:
    return (f'<div class="odoc-spec"><div class="spec {kind}" id="{anchor}" class="anchored"><a href="#{anchor}" '
            f'class="anchor"></a><code>{text}</code></div></div>')


def values(module: str) -> list[str]:
    """The ``val`` lines of ``module`` (a few operators and named functions over one type)."""
    rnd = random.Random(module)
    t = rnd.choice(TYPES)
    names = ["(&lt;)", "(&lt;=)", "(=)", "(&gt;)"] + rnd.sample(NAMES, rnd.randint(6, 8))
    return [_spec("value", f'<span><span class="keyword">val</span> {n} : <span>{t} <span class="arrow">&#45;&gt;'
                  f'</span></span> <span>{t} <span class="arrow">&#45;&gt;</span></span> {rnd.choice([t, "bool"])}</span>',
                  f"val-{n}") for n in names]


def page(path: list[str], members: list[str], include: str | None = None) -> str:
    """The page of the module at ``path``: its submodules ``members``, then the module it
    ``include``s, its values shown in place; a module without members is its values."""
    name = ".".join(path)
    up = "".join(f' &#x00BB; <a href="{"../" * (len(path) - k)}index.html">{p}</a>' for k, p in enumerate(path[:-1]))
    items = [_spec("module", f'<span><span class="keyword">module</span> <a href="{m}/index.html">{m}</a></span><span> '
                   f': <span class="keyword">sig</span> ... <span class="keyword">end</span></span>', f"module-{m}")
             for m in members]
    if include is not None:
        items.append('<div class="odoc-include"><details open="open"><summary class="spec include"><code><span><span '
                     'class="keyword">include</span> <span class="keyword">module</span> <span class="keyword">type'
                     '</span> <span class="keyword">of</span> <span class="keyword">struct</span> <span class="keyword">'
                     f'include</span> <a href="{include}/index.html">{include}</a> <span class="keyword">end</span>'
                     f'</span></code></summary>{"".join(values(include))}</details></div>')
    elif not members:
        items = values(path[-1])
    return (f'<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{path[-1]} (lib.{name})</title>'
            '<meta charset="utf-8"/><meta name="generator" content="odoc 2.1.0"/></head><body class="odoc"><nav '
            f'class="odoc-nav"><a href="../index.html">Up</a> &#x2013; <a href="/index.html">lib</a>{up} &#x00BB; '
            f'{path[-1]}</nav><header class="odoc-preamble"><h1>Module <code><span>{name}</span></code></h1></header>'
            f'<div class="odoc-content">{"".join(items)}</div></body></html>')


PARENTS = {"Json_import": ["Poly", "Int_compare", "String", "Char", "Array"],
           "Dom_import": ["Node", "Float_compare", "Event", "Element", "Attr"],
           "Url_import": ["Scheme", "Host", "Path", "Query", "Int64_compare", "Fragment"]}


def included(members: list[str]) -> str:
    """The one of a parent's ``members`` it includes: its ``*_compare`` submodule."""
    (module,) = [m for m in members if m.endswith("_compare")]
    return module


def site() -> list[tuple[str, str]]:
    """Each parent module, including its ``included`` submodule, and each of its submodules."""
    pages = []
    for parent, members in PARENTS.items():
        pages.append((f"http://odoc.test/{parent}/index.html", page([parent], members, included(members))))
        pages += [(f"http://odoc.test/{parent}/{m}/index.html", page([parent, m], [])) for m in members]
    return pages


def test_the_including_module_keeps_its_members():
    pf = Scheme().build()
    html = page(["Json_import"], PARENTS["Json_import"], "Int_compare")
    content = pf.extractor.texts(html).content
    assert all(m in content for m in PARENTS["Json_import"]) and "compare" in content
    # v18 stepped into the include, one of the list's items however long
    old = Extractor(items_beside=False).texts(html).content
    assert "Poly" not in old and "compare" in old


@pytest.mark.parametrize("order", ["parents first", "submodules first"])
def test_a_module_and_the_one_it_includes_are_both_kept(order: str):
    pages = site()
    if order == "submodules first":
        pages = sorted(pages, key=lambda p: -p[0].count("/"))
    by_url = dict(pages)
    for (url, html), d in zip(pages, decide_all(pages)):
        assert d.outcome == "kept", (url, d.match and d.match.url,
                                     jaccard(html_shingles(html), html_shingles(by_url[d.match.url])))


def test_the_pairs_were_one_page_without_the_rule():
    # the fixture is the case: under v18 each parent and the module it includes were one page
    old, new = Scheme(extractor=Extractor(items_beside=False)).build(), Scheme().build()
    pairs = [(page([p], ms, included(ms)), page([p, included(ms)], [])) for p, ms in PARENTS.items()]
    assert all(jaccard(html_shingles(a), html_shingles(b)) < 0.5 for a, b in pairs)
    assert all(same_page(old.of_html(a), old.of_html(b), old.scheme) for a, b in pairs)
    assert not any(same_page(new.of_html(a), new.of_html(b), new.scheme) for a, b in pairs)


def test_copies_of_the_modules_pages_are_dropped():
    pages = site()
    banner = '<body class="odoc"><p class="mirror">Mirrored by docs.example.org, refreshed nightly.</p>'
    mirror = [(url.replace("odoc.test", "mirror.test"), html.replace('<body class="odoc">', banner)) for url, html in pages]
    decisions = decide_all(pages + mirror)
    assert [d.outcome for d in decisions[:len(pages)]] == ["kept"] * len(pages)
    assert [d.match.url if d.outcome == "dropped" else d.outcome for d in decisions[len(pages):]] == [u for u, _ in pages]
