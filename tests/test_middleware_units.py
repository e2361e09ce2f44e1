"""Fast checks of the demo site and of the middleware on its pages, in-process (no crawler
process): the same outcomes tests/test_crawl.py asserts through real crawls, in milliseconds."""

from __future__ import annotations

import asyncio
import gzip
import logging
import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse, Request, TextResponse
from scrapy.responsetypes import responsetypes
from scrapy.utils.test import get_crawler

from contentseen import demosite as ds
from contentseen.errors import ContentSeenError
from contentseen.middleware import ContentSeenMiddleware, ContentSeenSpiderMiddleware
from contentseen.fingerprints import Scheme, Weighting
from contentseen.text import Extractor, PageText
from contentseen.tokens import Words

SITE_A = ds.build_site(mirror=False)
SITE_B = ds.build_site(mirror=True)


def test_mirror_has_the_same_paths_and_every_one_is_labelled():
    assert SITE_A.keys() == SITE_B.keys()
    assert set(ds.MIRROR_LABELS) == set(SITE_B) - {ds.ROBOTS}
    for path, label in ds.MIRROR_LABELS.items():
        same = SITE_A[path] == SITE_B[path]
        assert same == (label == ds.IDENTICAL), path


def test_site_is_realistic_enough():
    words = {a.slug: len(a.text.split()) for a in ds.ARTICLES}
    assert len(ds.ARTICLES) == 12
    assert sum(1 for n in words.values() if 50 <= n <= 80) == 3
    assert all(150 <= n <= 500 for n in words.values() if n > 80)
    for a in ds.ARTICLES:
        html = SITE_A[a.path].body
        for part in (b"<title>", b'name="description"', b"stylesheet", b"<nav", b"Related articles",
                     b"tag-cloud", b"&copy;", b"<address>"):
            assert part in html, (a.path, part)
    assert SITE_A[ds.IMAGE].body.startswith(b"\x89PNG\r\n\x1a\n")
    assert SITE_A[ds.PDF].body.startswith(b"%PDF-")


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_server_sends_declared_charsets_and_gzip():
    with ds.serve(SITE_A) as base:
        status, headers, body = _get(base + ds.GZIPPED)
        assert (status, headers["Content-Encoding"]) == (200, "gzip")
        assert gzip.decompress(body) == SITE_A[ds.GZIPPED].body
        assert _get(base + ds.CP1252_HEADER)[1]["Content-Type"] == "text/html; charset=windows-1252"
        assert b"\x92" in SITE_A[ds.CP1252_HEADER].body  # a cp1252 right single quote
        _, headers, body = _get(base + ds.META_CHARSET)
        assert headers["Content-Type"] == "text/html" and b"charset=iso-8859-1" in body
        _, headers, body = _get(base + ds.NO_CHARSET)
        assert headers["Content-Type"] == "text/html" and b"charset" not in body and b"R\xe9ti" in body
        assert _get(base + "/nowhere.html")[0] == 404


def _middleware(tmp_path: Path) -> tuple[ContentSeenMiddleware, object]:
    crawler = get_crawler(settings_dict={"CONTENTSEEN_STORE": f"sqlite:///{tmp_path / 'fp.sqlite'}"})
    return ContentSeenMiddleware.from_crawler(crawler), crawler


def _process(mw: ContentSeenMiddleware, url: str, page: ds.Page) -> str:
    headers = {"Content-Type": page.content_type}
    cls = responsetypes.from_args(headers=headers, url=url, body=page.body)
    request = Request(url)
    response = cls(url, body=page.body, headers=headers, request=request)  # already decompressed
    try:
        asyncio.run(mw.process_response(request, response))
    except IgnoreRequest:
        return "dropped"
    seen = request.meta.get("contentseen")
    if seen is None:
        return "type"
    return "kept" if seen["fingerprint"] else "empty"


def test_middleware_on_the_demo_site(tmp_path):
    mw, crawler = _middleware(tmp_path)
    try:
        for path, page in SITE_A.items():
            if path != ds.ROBOTS:
                outcome = _process(mw, "http://a.test" + path, page)
                assert outcome == ("type" if path in ds.BINARY_PATHS else "kept"), path
                if path in ds.SHORT_PATHS:
                    assert crawler.stats.get_value("contentseen/checked/exact"), path
        for path, label in ds.MIRROR_LABELS.items():
            want = ds.expected_mirror_outcome(path)
            if want == "unreached":  # in a crawl; here every page is offered
                want = "type" if path in ds.BINARY_PATHS else "dropped"
            assert _process(mw, "http://b.test" + path, SITE_B[path]) == want, (path, label)
        stats = crawler.stats.get_stats()
        assert stats["contentseen/stored"] == len(ds.html_paths(SITE_A)) + len(ds.DIFFERENT_PATHS)
    finally:
        mw.close()


@pytest.fixture(scope="module")
def pages():
    return Scheme().build()


@pytest.mark.parametrize("path", sorted(ds.NEAR_CHANGES))
def test_near_copies_are_within_the_distance(path, pages):
    a = pages.of_html_bytes(SITE_A[path].body, SITE_A[path].content_type)
    b = pages.of_html_bytes(SITE_B[path].body, SITE_B[path].content_type)
    assert a.fingerprint is not None
    assert (a.fingerprint ^ b.fingerprint).bit_count() <= pages.scheme.distance


@pytest.mark.parametrize("path", sorted(ds.DIFFERENT_PATHS))
def test_different_pages_are_beyond_the_distance(path, pages):
    a = pages.of_html_bytes(SITE_A[path].body, SITE_A[path].content_type)
    b = pages.of_html_bytes(SITE_B[path].body, SITE_B[path].content_type)
    assert (a.fingerprint ^ b.fingerprint).bit_count() > pages.scheme.distance


@pytest.mark.parametrize("settings,message", [
    ({"CONTENTSEEN_DISTANCE": "abc"}, "CONTENTSEEN_DISTANCE: 'abc' is not a whole number"),
    ({"CONTENTSEEN_BITS": "6.5"}, "CONTENTSEEN_BITS: '6.5' is not a whole number"),
    ({"CONTENTSEEN_REVISITS": "maybe"}, "CONTENTSEEN_REVISITS: 'maybe' is not one of ('drop', 'follow')"),
    ({"CONTENTSEEN_REVISITS": "follow"}, "CONTENTSEEN_REVISITS=follow needs SPIDER_MIDDLEWARES"),
    ({"CONTENTSEEN_REVISITS": "follow", "SPIDER_MIDDLEWARES": {"contentseen.middleware.ContentSeenSpiderMiddleware": None}},
     "CONTENTSEEN_REVISITS=follow needs SPIDER_MIDDLEWARES"),  # switched off
    ({"CONTENTSEEN_REVISITS": "follow", "SPIDER_MIDDLEWARES": {
        "contentseen.middleware.ContentSeenSpiderMiddleware": 100, ContentSeenSpiderMiddleware: None}},
     "CONTENTSEEN_REVISITS=follow needs SPIDER_MIDDLEWARES"),  # the later key wins, as in Scrapy
])
def test_bad_settings_are_refused_before_the_store_is_opened(tmp_path, settings, message):
    crawler = get_crawler(settings_dict={"CONTENTSEEN_STORE": f"sqlite:///{tmp_path / 'fp.sqlite'}", **settings})
    with pytest.raises(ContentSeenError, match=re.escape(message)):
        ContentSeenMiddleware.from_crawler(crawler)
    assert not (tmp_path / "fp.sqlite").exists()  # refused before the store is opened


def test_spider_middleware_drops_only_the_items_of_unchanged_pages():
    crawler = get_crawler(settings_dict={})
    smw = ContentSeenSpiderMiddleware.from_crawler(crawler)
    out = [Request("http://a.test/next"), {"url": "http://a.test/"}]
    for meta, want in [({}, out), ({"contentseen": {"fingerprint": "ab"}}, out),
                       ({"contentseen": {"fingerprint": "ab", "unchanged": 0}}, out[:1])]:
        request = Request("http://a.test/", meta=meta)
        response = HtmlResponse("http://a.test/", body=b"<p>x</p>", request=request)
        assert list(smw.process_spider_output(response, iter(out))) == want

        async def collect(result):
            return [x async for x in smw.process_spider_output_async(response, result)]

        async def agen():
            for x in out:
                yield x

        assert asyncio.run(collect(agen())) == want
    assert crawler.stats.get_value("contentseen/revisit_items_dropped") == 2


class _OwnSpiderMiddleware(ContentSeenSpiderMiddleware):
    pass


@pytest.mark.parametrize("key", ["contentseen.middleware.ContentSeenSpiderMiddleware", ContentSeenSpiderMiddleware,
                                 _OwnSpiderMiddleware])
def test_revisits_follow_starts_with_the_spider_middleware(tmp_path, key):
    crawler = get_crawler(settings_dict={"CONTENTSEEN_STORE": f"sqlite:///{tmp_path / 'fp.sqlite'}",
                                         "CONTENTSEEN_REVISITS": "follow", "SPIDER_MIDDLEWARES": {key: 100}})
    mw = ContentSeenMiddleware.from_crawler(crawler)
    try:
        assert mw.engine.revisits == "follow"
    finally:
        mw.close()


def test_a_mark_copied_into_a_child_request_is_not_taken_for_the_childs(tmp_path):
    """A spider that passes response.meta on to the requests it makes must not pass on the
    'unchanged' mark: the child page, never checked, keeps its items."""
    mw, _ = _middleware(tmp_path)
    try:
        child = Request("http://a.test/data.json", meta={"contentseen": {"fingerprint": "ab", "unchanged": 0}})
        response = TextResponse(child.url, body=b'{"a": 1}', headers={"Content-Type": "application/json"}, request=child)
        assert asyncio.run(mw.process_response(child, response)) is response  # skipped: not a page
        assert "contentseen" not in child.meta
    finally:
        mw.close()


def test_only_the_reported_exception_is_kept_out_of_the_asyncio_log(tmp_path, caplog):
    crawler = get_crawler(settings_dict={"CONTENTSEEN_STORE": f"sqlite:///{tmp_path / 'fp.sqlite'}", "CONTENTSEEN_BITS": 0})
    with pytest.raises(ContentSeenError) as reported:
        ContentSeenMiddleware.from_crawler(crawler)
    log = logging.getLogger("asyncio")
    other = ContentSeenError("another crawler's error")
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        for exc in (reported.value, other):
            log.error("Task exception was never retrieved", exc_info=(type(exc), exc, None))
    assert [r.exc_info[1] for r in caplog.records if r.name == "asyncio"] == [other]


class FaultyExtractor(Extractor):
    """Fault injection through the pluggable extraction stage (CONTENTSEEN_EXTRACTOR): raises on
    pages that ask for it, so the engine's fail-open path runs on a real middleware and store."""

    def texts(self, html: str) -> PageText:
        if "raise-in-extraction" in html:
            raise RuntimeError("extractor failed on purpose")
        return super().texts(html)


def test_a_page_that_cannot_be_fingerprinted_goes_on_unchecked(tmp_path, caplog):
    crawler = get_crawler(settings_dict={"CONTENTSEEN_STORE": f"sqlite:///{tmp_path / 'fp.sqlite'}",
                                         "CONTENTSEEN_EXTRACTOR": f"{__name__}.FaultyExtractor"})
    mw = ContentSeenMiddleware.from_crawler(crawler)
    assert "extractor" in mw.engine.pages.identity  # another stage, another scheme
    body = b"<html><body><p>raise-in-extraction: a page the extractor cannot read at all</p></body></html>"
    try:
        for url in ("http://a.test/bad.html", "http://b.test/bad.html"):  # the copy too: never judged
            request = Request(url)
            response = HtmlResponse(url, body=body, headers={"Content-Type": "text/html"}, request=request)
            with caplog.at_level(logging.WARNING, logger="contentseen.middleware"):
                assert asyncio.run(mw.process_response(request, response)) is response
        ok = Request("http://a.test/ok.html")
        page = HtmlResponse(ok.url, body=b"<html><body><p>An ordinary page with words enough to judge it.</p></body></html>",
                            headers={"Content-Type": "text/html"}, request=ok)
        assert asyncio.run(mw.process_response(ok, page)) is page and ok.meta["contentseen"]["fingerprint"]
    finally:
        mw.close()
    stats = crawler.stats.get_stats()
    assert stats["contentseen/skipped/error"] == 2 and stats["contentseen/stored"] == 1
    lines = [r.getMessage() for r in caplog.records if "cannot fingerprint" in r.getMessage()]
    assert lines == [f"ContentSeen: cannot fingerprint http://{h}.test/bad.html (RuntimeError: extractor failed on purpose); "
                     "kept unchecked" for h in "ab"]


@pytest.mark.parametrize("path,message", [
    ("no.such.module.Extractor", "CONTENTSEEN_EXTRACTOR: cannot load 'no.such.module.Extractor'"),
    ("contentseen.engine.Engine", "CONTENTSEEN_EXTRACTOR: 'contentseen.engine.Engine' is not a contentseen.text.Extractor subclass"),
])
def test_a_bad_extractor_setting_is_one_line(tmp_path, path, message):
    crawler = get_crawler(settings_dict={"CONTENTSEEN_STORE": f"sqlite:///{tmp_path / 'fp.sqlite'}",
                                         "CONTENTSEEN_EXTRACTOR": path})
    with pytest.raises(ContentSeenError, match=message.replace(".", r"\.").replace("(", r"\(")):
        ContentSeenMiddleware.from_crawler(crawler)


# ---------------------------------------------------------------- swappable word and weight stages


class StemmedWords(Words):
    """A tokenising stage of one's own: English words with a plural "s" cut off."""

    name = "stemmed/v1"

    def counts(self, text, tokens):
        out: dict[bytes, int] = {}
        for word, n in super().counts(text, tokens).items():
            stem = word[:-1] if word.endswith(b"s") and len(word) > 3 else word
            out[stem] = out.get(stem, 0) + n
        return out


class SquareRootWeighting(Weighting):
    def __init__(self) -> None:
        super().__init__("sqrt")

    def __call__(self, counts):
        import numpy as np

        return np.sqrt(counts.astype(float))


def test_word_and_weighting_stages_swap_in_by_setting_and_enter_the_scheme(tmp_path):
    from scrapy.settings import Settings

    from contentseen.settings import scheme_from_settings

    plain = Scheme().build()
    swapped = scheme_from_settings(Settings({"CONTENTSEEN_WORDS": f"{__name__}.StemmedWords",
                                             "CONTENTSEEN_WEIGHTING": f"{__name__}.SquareRootWeighting"})).build()
    assert swapped.identity["words"] == f"{__name__}.StemmedWords:stemmed/v1"
    assert swapped.identity["weighting"] == f"{__name__}.SquareRootWeighting:sqrt"
    assert (plain.identity["words"], plain.identity["weighting"]) == ("any-script/v8", "log")
    one = "<main><p>" + "harbour lanterns glow over the fishing boats and nets " * 6 + "</p></main>"
    two = one.replace("lanterns", "lantern").replace("boats", "boat")
    # singular and plural are one word to the stemmed stage only
    assert swapped.of_html(one).fingerprint == swapped.of_html(two).fingerprint
    assert plain.of_html(one).fingerprint != plain.of_html(two).fingerprint
    # a store made with one stage refuses the other
    store = f"sqlite:///{tmp_path / 'fp.sqlite'}"
    ContentSeenMiddleware.from_crawler(get_crawler(settings_dict={"CONTENTSEEN_STORE": store})).close()
    with pytest.raises(ContentSeenError, match="words any-script/v8 \\(store\\) vs .*StemmedWords"):
        ContentSeenMiddleware.from_crawler(get_crawler(settings_dict={
            "CONTENTSEEN_STORE": store, "CONTENTSEEN_WORDS": f"{__name__}.StemmedWords"}))


@pytest.mark.parametrize("name,value,message", [
    ("WORDS", "contentseen.engine.Engine", "CONTENTSEEN_WORDS: 'contentseen.engine.Engine' is not a contentseen.tokens.Words subclass"),
    ("WEIGHTING", "no.such.Weighting", "CONTENTSEEN_WEIGHTING: cannot load 'no.such.Weighting'"),
    ("WEIGHTING", "cubic", "CONTENTSEEN_WEIGHTING: 'cubic' is not one of"),
])
def test_a_bad_stage_setting_is_one_line(name, value, message):
    from scrapy.settings import Settings

    from contentseen.settings import scheme_from_settings

    with pytest.raises(ContentSeenError) as err:
        scheme_from_settings(Settings({f"CONTENTSEEN_{name}": value}))
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


@pytest.mark.parametrize("without, says", [
    ("spider middleware", "enable contentseen.middleware.ContentSeenSpiderMiddleware to mark them on delivery"),
    ("file locks", "no file locks on this platform"),
])
def test_without_what_delivery_needs_pages_count_as_seen_once_checked(tmp_path, monkeypatch, caplog, without, says):
    import contentseen.middleware as middleware

    settings = {"CONTENTSEEN_STORE": f"sqlite:///{tmp_path / 'fp.sqlite'}"}
    if without == "file locks":  # as on Windows
        monkeypatch.setattr(middleware, "fcntl", None)
        settings["SPIDER_MIDDLEWARES"] = {"contentseen.middleware.ContentSeenSpiderMiddleware": 100}
    with caplog.at_level(logging.INFO, logger="contentseen.middleware"):
        mw = ContentSeenMiddleware.from_crawler(get_crawler(settings_dict=settings))
    try:
        assert mw.deliveries is None and not list(tmp_path.glob("*.inflight"))
        assert f"ContentSeen: pages count as seen once checked, not once delivered ({says})" in caplog.text
    finally:
        mw.close()


@pytest.mark.parametrize("built", [True, False])
def test_the_start_says_when_the_c_speedups_are_not_built(tmp_path, monkeypatch, caplog, built):
    from contentseen import _native

    if not built:
        monkeypatch.setattr(_native, "speedups", None)
    elif _native.speedups is None:
        pytest.skip("the C speedups are not built here")
    with caplog.at_level(logging.INFO, logger="contentseen.middleware"):
        mw = ContentSeenMiddleware.from_crawler(get_crawler(settings_dict={
            "CONTENTSEEN_STORE": f"sqlite:///{tmp_path / 'fp.sqlite'}"}))
    mw.close()
    assert ("C speedups are not built" in caplog.text) is not built


def test_blas_is_one_thread_while_a_middleware_runs_and_given_back_after(tmp_path):
    """contentseen.blas: the real BLAS numpy loaded, held by each middleware, given back at the
    last close (twice closed counts once)."""
    import numpy  # noqa: F401  (BLAS is loaded with numpy)

    from contentseen import blas

    before = blas.threads()
    assert before, "numpy's BLAS was not found by threadpoolctl"
    assert blas.holding(blas.threads)() == [1] * len(before) and blas.threads() == before  # a command's main
    first, _ = _middleware(tmp_path / "1")
    second, _ = _middleware(tmp_path / "2")
    try:
        assert blas.threads() == [1] * len(before)
        first.close()
        first.close()
        assert blas.threads() == [1] * len(before)  # the second still runs
    finally:
        second.close()
    assert blas.threads() == before
