"""Online (middleware scheme) and offline (contentseen-report) fingerprints agree when the
middleware is given the report's corpus, stopwords and hash file (made-up files in the course
format, and the course's own when present)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from contentseen.corpus import read_pages
from contentseen.demosite import Page, serve
from contentseen.features import Vocabulary
from contentseen.projection import load_hashtable
from contentseen.fingerprints import Scheme
from contentseen.simhash import SimHasher, to_int
from contentseen.tokens import load_stopwords, tokenize

N, M = 1000, 16


def _offline(course: Path) -> tuple[list, list[int], list, list[int]]:
    """Article and sample pages with their fingerprints, computed as contentseen-report does."""
    article, sample = read_pages(course / "article.txt"), read_pages(course / "sample.txt")
    stop = load_stopwords(course / "stopwords.txt")
    words = [tokenize(p.text) for p in article]
    fp = SimHasher(Vocabulary.fit(words, N, stop), load_hashtable(course / "hashvalue.txt", N, M))
    return (
        article, [to_int(r) for r in fp.fingerprint_many(words)],
        sample, [to_int(r) for r in fp.fingerprint_many([tokenize(p.text) for p in sample])],
    )


def _scheme(course: Path) -> Scheme:
    return Scheme(
        bits=M, features=N, min_words=1,
        stopwords=str(course / "stopwords.txt"),
        hashvalues=str(course / "hashvalue.txt"),
        corpus=str(course / "article.txt"),
    )


def test_text_pages_fingerprint_as_in_the_report(input_dir: Path):
    pages = _scheme(input_dir).build()
    article, afp, sample, sfp = _offline(input_dir)
    for page, expected in list(zip(article, afp))[:200] + list(zip(sample, sfp)):
        assert pages.of_text(page.text).fingerprint == expected, page.id


def test_crawl_with_course_settings_drops_samples_as_the_report_predicts(input_dir: Path, tmp_path: Path):
    article, afp, sample, sfp = _offline(input_dir)
    # Each sample's exact (distance-0) article twins: the report's "0:" line for it.
    twins = {p.id: [a.id for a, f in zip(article, afp) if f == s] for p, s in zip(sample, sfp)}
    served = {a.id for ids in twins.values() for a in article if a.id in ids}
    site = {f"/{p.id}.txt": Page("text/plain; charset=latin-1", p.text.encode("latin-1"))
            for p in article if p.id in served}
    site.update({f"/{p.id}.txt": Page("text/plain; charset=latin-1", p.text.encode("latin-1")) for p in sample})
    settings = [
        "-s", f"CONTENTSEEN_BITS={M}", "-s", f"CONTENTSEEN_FEATURES={N}", "-s", "CONTENTSEEN_MIN_WORDS=1",
        "-s", f"CONTENTSEEN_STOPWORDS={input_dir / 'stopwords.txt'}",
        "-s", f"CONTENTSEEN_HASHVALUES={input_dir / 'hashvalue.txt'}",
        "-s", f"CONTENTSEEN_CORPUS={input_dir / 'article.txt'}",
        "-s", f"CONTENTSEEN_STORE=sqlite:///{tmp_path / 'fp.sqlite'}",
        "-s", "ROBOTSTXT_OBEY=False",
    ]
    env = dict(os.environ, SCRAPY_SETTINGS_MODULE="crawler_project.settings")

    def crawl(urls: list[str], out: str) -> list[dict]:
        r = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "site", "-a", "start_urls=" + ",".join(urls),
             "-O", out, *settings],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        return [json.loads(line) for line in (tmp_path / out).read_text().splitlines()]

    def near(f: int, others) -> bool:
        return any((f ^ g).bit_count() <= 3 for g in others)

    with serve(site) as base:
        first = crawl([f"{base}/{i}.txt" for i in sorted(served)], "articles.jsonl")
        second = crawl([f"{base}/{p.id}.txt" for p in sample], "samples.jsonl")
    fps = {p.id: f for p, f in zip(article, afp)} | {p.id: f for p, f in zip(sample, sfp)}
    got = {it["url"].rsplit("/", 1)[1][:-4]: it["fingerprint"] for it in first + second}
    # Every kept page's online fingerprint is its offline one, as hex.
    assert got == {i: format(fps[i], "04x") for i in got}
    kept_articles = [fps[i] for i in served if i in got]
    kept_samples = [fps[p.id] for p in sample if p.id in got]
    # A page was dropped only for a kept page within distance 3 ...
    for i in list(served) + [p.id for p in sample]:
        if i not in got:
            assert near(fps[i], kept_articles + kept_samples), i
    # ... and a kept sample is near no stored article; a sample with an exact twin is dropped.
    for p in sample:
        if p.id in got:
            assert not near(fps[p.id], kept_articles), p.id
            assert not twins[p.id], p.id
    assert len(got) >= 2
