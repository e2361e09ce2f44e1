"""Runs of three neighbouring words are features of the content fingerprint (words v7).

Found on a tree held out until then (js_of_ocaml's API, made by odoc 2.1.0): each class type's
page is narrowed to its list of method signatures, its title left out with the page's header,
and the signatures are mostly the same type names (``Js_of_ocaml__Js.t``, ``...prop``,
``...meth``). Two classes with other methods had content within 2-3 bits and whole pages within
8-10: ``performanceObserver`` was dropped as ``mutationObserver``'s copy, ``altGlyphDefElement``
and ``document`` as ``baseElement``'s (Jaccard 0.24-0.37). Their words and pairs of words are
alike; their runs of three words ("method href js", "observe performanceobserverinit js") are not:
content 8-13 bits apart now. The pages below are the tree's own (``libjs-of-ocaml-doc``
4.0.0-2), rebuilt from their signatures.
"""

from __future__ import annotations

import pytest
from sites import decide_all

from contentseen.evaluate.truth import html_shingles, jaccard
from contentseen.fingerprints import Scheme, same_page
from contentseen.tokens import Words

JS = "Js_of_ocaml__Js"
CLASSES = {
    ("MutationObserver", "mutationObserver"): [
        f"method observe : Js_of_ocaml__Dom.node {JS}.t -> mutationObserverInit {JS}.t -> unit {JS}.meth",
        f"method disconnect : unit {JS}.meth",
        f"method takeRecords : mutationRecord {JS}.t {JS}.js_array {JS}.t {JS}.meth"],
    ("PerformanceObserver", "performanceObserver"): [
        f"method observe : performanceObserverInit {JS}.t -> unit {JS}.meth",
        f"method disconnect : unit {JS}.meth",
        f"method takeRecords : performanceEntry {JS}.t {JS}.js_array {JS}.t {JS}.meth"],
    ("Dom_html", "baseElement"): [
        "inherit element", f"method href : {JS}.js_string {JS}.t {JS}.prop",
        f"method target : {JS}.js_string {JS}.t {JS}.prop"],
    ("Dom_svg", "altGlyphDefElement"): [
        "inherit Js_of_ocaml__Dom.element", f"method id : {JS}.js_string {JS}.t {JS}.prop",
        f"method xmlbase : {JS}.js_string {JS}.t {JS}.prop",
        f"method ownerSVGElement : svgElement {JS}.t {JS}.readonly_prop",
        f"method viewportElement : element {JS}.t {JS}.readonly_prop"],
    ("Dom_svg", "document"): [
        "inherit element Js_of_ocaml__Dom.document", f"method title : {JS}.js_string {JS}.t {JS}.prop",
        f"method referrer : {JS}.js_string {JS}.t {JS}.readonly_prop", f"method domain : {JS}.js_string {JS}.t {JS}.prop",
        f"method _URL : {JS}.js_string {JS}.t {JS}.readonly_prop",
        f"method rootElement : svgElement {JS}.t {JS}.opt {JS}.readonly_prop"],
}
DROPPED_BEFORE = [(("MutationObserver", "mutationObserver"), ("PerformanceObserver", "performanceObserver")),
                  (("Dom_html", "baseElement"), ("Dom_svg", "altGlyphDefElement")),
                  (("Dom_html", "baseElement"), ("Dom_svg", "document"))]


def odoc_page(module: str, name: str) -> str:
    """The odoc page of class type ``module.name``, as js_of_ocaml's API shows it."""
    specs = []
    for spec in CLASSES[module, name]:
        keyword, _, rest = spec.partition(" ")
        types = " ".join(f"<span class='xref-unresolved'>{t}</span>" if "." in t else t for t in rest.split(" "))
        specs.append(f"<div class='odoc-spec'><div class='spec {keyword}'><code><span><span class='keyword'>{keyword}"
                     f"</span> {types}</span></code></div></div>")
    return ("<!DOCTYPE html>\n<html xmlns='http://www.w3.org/1999/xhtml'><head><title>"
            f"{name} (js_of_ocaml.Js_of_ocaml.{module}.{name})</title><meta charset='utf-8'/><meta name='generator' "
            "content='odoc 2.1.0'/></head><body class='odoc'><nav class='odoc-nav'><a href='../index.html'>Up</a> – <a "
            "href='../../../index.html'>js_of_ocaml</a> &#x00BB; <a href='../../index.html'>Js_of_ocaml</a> &#x00BB; "
            f"<a href='../index.html'>{module}</a> &#x00BB; {name}</nav><header class='odoc-preamble'><h1>Class type "
            f"<code><span>{module}.{name}</span></code></h1></header><div class='odoc-content'>{''.join(specs)}</div>"
            "</body></html>")


class PairsOnly(Words):
    """Words v6: words and their pairs, no runs of three."""

    name = "pairs-only"
    run_weight = 0.0


@pytest.mark.parametrize("first, second", DROPPED_BEFORE)
def test_two_class_pages_of_the_same_type_names_are_two_pages(first, second):
    a, b = odoc_page(*first), odoc_page(*second)
    assert jaccard(html_shingles(a), html_shingles(b)) < 0.5
    scheme = Scheme()
    pages = scheme.build()
    pa, pb = pages.of_html(a), pages.of_html(b)
    assert not same_page(pa, pb, scheme) and (pa.fingerprint ^ pb.fingerprint).bit_count() >= 6
    # the case: without the runs their words and pairs put them within 3, whole pages within 10
    before = Scheme(words=PairsOnly())
    assert same_page(*map(before.build().of_html, (a, b)), before)


def test_a_crawl_of_the_class_pages_keeps_each_and_drops_a_mirrors_copies():
    site = [(f"http://ocaml.test/{m}/class-type-{n}/", odoc_page(m, n)) for m, n in CLASSES]
    mirror = [(url.replace("ocaml.test", "mirror.test"), html.replace("\n", "\r\n").replace("</h1>", "</h1>\n"))
              for url, html in site]
    decisions = decide_all(site + mirror)
    assert [d.outcome for d in decisions[:len(site)]] == ["kept"] * len(site)
    assert [d.match.url if d.outcome == "dropped" else d.outcome for d in decisions[len(site):]] == [u for u, _ in site]


def test_a_words_stage_of_ones_own_with_runs_is_another_scheme():
    # its fingerprints changed under the same name with words v7: a store made before says so
    class Mine(Words):
        name = "mine/v1"

    # (and its tokens of unspaced scripts weighed more with words v8: tests/test_unspaced_scripts.py)
    assert Scheme(words=Mine()).build().identity["words"].endswith(":mine/v1+runs1+unspaced1.732")
    assert Scheme(words=PairsOnly()).build().identity["words"].endswith(":pairs-only+unspaced1.414")
    assert Scheme().build().identity["words"] == "any-script/v8"
