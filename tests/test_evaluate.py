"""contentseen-mirror and contentseen-evaluate: the corpus builder, hand-computed counts, inputs
(directories, Scrapy HTTP cache, feed exports) and one-line errors on bad input."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import run_cli
from contentseen.cli import evaluate as evaluate_cli, mirror as mirror_cli
from contentseen.evaluate.inputs import pair_crawls
from contentseen.evaluate.mirror import EDITS, apply_edit, build_mirror
from contentseen.evaluate.truth import html_shingles, jaccard, shingles
from contentseen.errors import ContentSeenError
from contentseen.text import visible_text

EVALUATE = "contentseen.cli.evaluate"
MIRROR = "contentseen.cli.mirror"
_MAINS = {EVALUATE: evaluate_cli.main, MIRROR: mirror_cli.main}


@dataclass
class Ran:
    returncode: int
    stdout: bytes
    stderr: bytes


@pytest.fixture
def run(capsys):
    """Run a command's ``main`` in this process (fast); ``run_cli`` starts a real process."""

    def go(module: str, *args: str) -> Ran:
        try:
            code = _MAINS[module](list(args))
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return Ran(code, out.encode(), err.encode())
    return go

_TOPICS = ["harbour", "glacier", "orchard", "railway", "lantern", "violin", "quarry", "meadow",
           "furnace", "compass", "telescope", "granary"]


def _site_page(i: int) -> str:
    """A page of a small documentation site: shared header/nav/sidebar/footer, own content."""
    t = _TOPICS[i]
    body = " ".join(f"The {t} chapter {w} explains how the {t} {v} was built and kept."
                    for w, v in zip(("first", "second", "third", "fourth"), ("keeper", "tower", "engine", "ledger")))
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{t.title()} guide</title></head>
<body>
<header><h1 class="brand">Field Manual</h1></header>
<nav><a href="index.html">Home</a> <a href="search.html">Search</a> <a href="about.html">About us</a></nav>
<div class="wrap">
<aside><h3>Chapters</h3><ul>{''.join(f'<li><a href="p{j}.html">{_TOPICS[j]}</a></li>' for j in range(len(_TOPICS)))}</ul></aside>
<main>
<h1>The {t} guide</h1>
<p>{body}</p>
<p>Readers of the {t} guide also consult the appendix on {t} maintenance and {t} history.</p>
</main>
</div>
<footer>Copyright the Field Manual authors. Last updated on March 01, 2021.</footer>
</body></html>
"""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    for i in range(len(_TOPICS)):
        where = root / "sub" if i % 3 == 0 else root
        (where / f"p{i}.html").write_text(_site_page(i), encoding="utf-8")
    (root / "style.css").write_text("body { color: black }")
    return root


# ----------------------------------------------------------------------------- the builder

def test_mirror_builder_on_a_small_tree(tree: Path, tmp_path: Path):
    out = tmp_path / "mirror"
    doc = build_mirror(tree, out, pages=10, seed=3)
    assert doc["counts"] == {"identical": 5, "near": 3, "different": 2}
    pairs = {p["path"]: p for p in doc["pairs"]}
    assert len(pairs) == 10 and all(p.endswith(".html") for p in pairs)
    assert json.loads((out / "labels.json").read_text()) == doc
    for path, rec in pairs.items():
        src = (tree / path).read_bytes()
        a, b = (out / "a" / path).read_bytes(), (out / "b" / path).read_bytes()
        assert a == src  # host A: the tree's bytes
        if rec["label"] == "identical":
            assert b == a and rec["jaccard"] == 1.0
        elif rec["label"] == "near":
            assert b != a and 1 <= len(rec["edits"]) <= 2 and set(rec["edits"]) <= set(EDITS)
            assert 0.5 < rec["jaccard"] <= 1.0
        else:
            donor = (tree / rec["content_from"]).read_text()
            b_text = b.decode()
            assert rec["template_kept"] is True
            # the page's own template (title, sidebar, footer) around the donor's main content
            assert f"<title>{_TOPICS[int(Path(path).stem[1:])].title()} guide</title>" in b_text
            assert visible_text(b_text, "main").split() == visible_text(donor, "main").split()
            assert "Field Manual" in b_text and "Chapters" in b_text
            assert rec["jaccard"] < 0.5
        assert rec["jaccard"] == round(jaccard(html_shingles(a.decode()), html_shingles(b.decode())), 6)


def test_mirror_copies_of_a_utf8_page_declared_latin1_keep_its_bytes(tree: Path, tmp_path: Path):
    # Vim's help pages declare ISO-8859-1 and hold UTF-8. Read as Windows-1252 and written back
    # so, a copy lost the bytes that code page lacks (0x81 of "Ё", 0x9D of "ѝ"): the copy was
    # no longer UTF-8, read as Latin-1 unlike its page, and missed as a near copy.
    for page in tree.rglob("p*.html"):
        html = page.read_text("utf-8").replace("<head>", '<head><meta charset="iso-8859-1">', 1)
        page.write_bytes(html.replace("</main>", "<p>Ёлка ѝ</p></main>", 1).encode("utf-8"))
    doc = build_mirror(tree, tmp_path / "m", pages=10, seed=3)
    for rec in doc["pairs"]:
        a, b = ((tmp_path / "m" / host / rec["path"]).read_bytes() for host in ("a", "b"))
        if rec["label"] != "different":
            assert "Ёлка ѝ".encode() in b, rec
            assert rec["label"] == "identical" or rec["jaccard"] > 0.5


def test_mirror_is_deterministic_for_a_seed(tree: Path, tmp_path: Path):
    build_mirror(tree, tmp_path / "m1", pages=10, seed=7)
    build_mirror(tree, tmp_path / "m2", pages=10, seed=7)
    build_mirror(tree, tmp_path / "m3", pages=10, seed=8)

    def snapshot(root: Path) -> dict[str, bytes]:
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    assert snapshot(tmp_path / "m1") == snapshot(tmp_path / "m2")
    assert snapshot(tmp_path / "m1") != snapshot(tmp_path / "m3")
    build_mirror(tree, tmp_path / "m1", pages=10, seed=7)  # an earlier mirror is replaced
    assert snapshot(tmp_path / "m1") == snapshot(tmp_path / "m2")


def test_mirror_host_edits_word_each_edit_once_for_the_host(tree: Path, tmp_path: Path):
    per_page = build_mirror(tree, tmp_path / "m1", pages=12, seed=4)
    host = build_mirror(tree, tmp_path / "m2", pages=12, seed=4, host_edits=True)
    assert per_page["host_edits"] is None and set(host["host_edits"]) == {"banner", "notice", "footer"}
    # the same pages, labels and edits; only the wording differs
    assert [(p["path"], p["label"], p.get("edits")) for p in host["pairs"]] == \
        [(p["path"], p["label"], p.get("edits")) for p in per_page["pairs"]]
    carried = 0
    for rec in host["pairs"]:
        b = visible_text((tmp_path / "m2" / "b" / rec["path"]).read_text(), "body")
        for edit in set(rec.get("edits", ())) & {"banner", "notice", "footer"}:
            assert " ".join(host["host_edits"][edit].split()) in " ".join(b.split()), (rec["path"], edit)
            carried += 1
    assert carried >= 2
    # a seed's mirror without host edits is the one it always was
    again = build_mirror(tree, tmp_path / "m3", pages=12, seed=4)
    assert again == {**per_page}


def test_mirror_edits_are_the_ones_mirrors_make():
    import random

    html = _site_page(0)
    rng = random.Random(1)
    ts = apply_edit(html, "timestamp", rng)
    assert "Last updated on March 01, 2021" not in ts and "Last updated on " in ts  # the date changed
    ws = apply_edit(html, "whitespace", rng)
    assert ws != html and "\r\n" in ws
    assert visible_text(ws, "body").split() == visible_text(html, "body").split()  # words unchanged
    for edit in ("banner", "notice", "footer"):
        edited = apply_edit(html, edit, rng)
        added = set(visible_text(edited, "body").split()) - set(visible_text(html, "body").split())
        assert 3 <= len(added) <= 30, (edit, added)


def test_mirror_refuses_a_foreign_directory_and_bad_sources(tree: Path, tmp_path: Path):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("precious")
    with pytest.raises(ContentSeenError, match="refusing to overwrite"):
        build_mirror(tree, foreign, pages=5)
    assert (foreign / "thesis.tex").read_text() == "precious"
    with pytest.raises(ContentSeenError, match="not a directory"):
        build_mirror(tmp_path / "nope", tmp_path / "m", pages=5)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ContentSeenError, match="at least 2 HTML files"):
        build_mirror(empty, tmp_path / "m", pages=5)


def test_mirror_of_a_tree_of_identical_pages_still_builds(tmp_path: Path):
    tree = tmp_path / "same"
    tree.mkdir()
    for i in range(4):
        (tree / f"{i}.html").write_text(_site_page(0))
    doc = build_mirror(tree, tmp_path / "m", pages=4, seed=0)
    assert doc["counts"] == {"identical": 2, "near": 1, "different": 1}


def _unknown_template_page(i: int) -> str:
    """A page of a generator the content selectors do not know: no landmarks, no content id or
    class; a header bar, a sidebar with text of its own, the content in a plain <div> of
    sections, a footer shared by every page."""
    t = _TOPICS[i]
    sections = "".join(
        f'<div class="sect"><h3>{t.title()} {part}</h3><p>The {t} {part} describes how the {t} {noun} '
        f'is inspected, repaired and recorded by the {t} crew every {when}.</p></div>'
        for part, noun, when in (("basics", "keeper", "morning"), ("practice", "engine", "week"),
                                 ("history", "ledger", "season")))
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{t} | Almanac</title></head>
<body>
<div class="topbar"><span class="site">Harbour Almanac, edition {i}</span> <a href="index.html">Index</a></div>
<div class="wrap">
<div class="leftcol"><b>On this page:</b> {t} basics, {t} practice, {t} history
<ul>{''.join(f'<li><a href="p{j}.html">{_TOPICS[j]}</a></li>' for j in range(len(_TOPICS)))}</ul></div>
<div class="pagetext"><h2>All about the {t}</h2>{sections}</div>
</div>
<div class="bottom">Generated by almanac-tool 2.1 for the Harbour Almanac, all rights reserved.</div>
</body></html>
"""


def test_mirror_swaps_content_on_an_unknown_template(tmp_path: Path):
    root = tmp_path / "almanac"
    root.mkdir()
    for i in range(len(_TOPICS)):
        (root / f"p{i}.html").write_text(_unknown_template_page(i), encoding="utf-8")
    # a redirect stub, as rustdoc writes for moved items: never a page to a crawler
    (root / "old.html").write_text('<html><head><meta http-equiv="refresh" content="0;URL=p1.html">'
                                   '</head><body><a href="p1.html">moved</a></body></html>')
    doc = build_mirror(root, tmp_path / "m", pages=12, seed=5)
    assert doc["counts"] == {"identical": 6, "near": 4, "different": 2}
    assert doc["redirects_left_out"] == 1 and "old.html" not in {p["path"] for p in doc["pairs"]}
    different = [p for p in doc["pairs"] if p["label"] == "different"]
    for rec in different:
        i, d = int(rec["path"][1:-5]), int(rec["content_from"][1:-5])
        assert i != d and rec["template_kept"] is True
        b_text = " ".join(visible_text((tmp_path / "m" / "b" / rec["path"]).read_text(), "body").split())
        t, donor = _TOPICS[i], _TOPICS[d]
        # the page's own template: title, header bar, sidebar (text of its own too), footer ...
        assert f"<title>{t} | Almanac</title>" in (tmp_path / "m" / "b" / rec["path"]).read_text()
        assert f"Harbour Almanac, edition {i}" in b_text and f"On this page: {t} basics" in b_text
        assert b_text.endswith("Generated by almanac-tool 2.1 for the Harbour Almanac, all rights reserved.")
        # ... around all of the donor's content and none of its own
        assert f"All about the {donor}" in b_text and f"the {donor} crew every season" in b_text
        assert f"All about the {t}" not in b_text and f"the {t} crew" not in b_text
        assert rec["jaccard"] < 0.5
    again = build_mirror(root, tmp_path / "m2", pages=12, seed=5)
    assert again["pairs"] == doc["pairs"]


def test_mirror_command(tree: Path, tmp_path: Path, run):
    r = run_cli(MIRROR, str(tree), str(tmp_path / "m"), "--pages", "6", "--seed", "2")
    assert r.returncode == 0, r.stderr
    assert b"6 pairs" in r.stdout and b"3 identical, 2 near, 1 different" in r.stdout
    assert json.loads((tmp_path / "m" / "labels.json").read_text())["host_edits"] is None
    r = run_cli(MIRROR, str(tree), str(tmp_path / "m"), "--pages", "6", "--seed", "2", "--host-edits")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "m" / "labels.json").read_text())["host_edits"]["banner"]
    for args in ([str(tmp_path / "missing"), str(tmp_path / "m2")], [str(tree), str(tmp_path / "m3"), "--pages", "x"],
                 [str(tmp_path / "m4")]):
        r = run(MIRROR, *args)
        assert r.returncode == 2 and r.stdout == b""
        assert r.stderr.count(b"\n") == 1 and r.stderr.startswith(b"contentseen-mirror: error: "), r.stderr


# ----------------------------------------------------------------------------- truth

def test_jaccard_of_word_3_shingles():
    a = shingles("alpha echo foxtrot golf".split())
    b = shingles("alpha bravo echo foxtrot golf".split())
    assert len(a) == 2 and len(b) == 3
    assert jaccard(a, b) == pytest.approx(1 / 4)
    assert jaccard(a, a) == 1.0
    assert jaccard(shingles(["alpha", "kilo"]), shingles(["alpha"])) == 0.0  # short pages: one shingle
    assert jaccard(shingles([]), shingles([])) == 1.0


# ----------------------------------------------------------------------------- hand-computed case

def _page(words: str) -> str:
    return f"<!DOCTYPE html><html><head><title>t</title></head><body><p>{words}</p></body></html>"


@pytest.fixture
def hand_case(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """Features alpha, bravo, charlie, delta (a corpus ranks them), an 8-bit table:

        alpha 11110000   bravo 11001100   charlie 10101010   delta 00000001

    p1  alpha echo foxtrot golf   | same                          -> 11110000 vs 11110000: d 0, J 1
    p2  alpha echo foxtrot golf   | alpha bravo echo foxtrot golf -> 11110000 vs 11000000 (a+b has
        zero sums in bits 2..5, which give 0): d 2; J = 1 shared of 4 shingles = 0.25
    p3  bravo hotel india juliet  | charlie hotel india juliet    -> 11001100 vs 10101010: d 4, J 1/3
    p4  alpha kilo                | alpha                         -> B has 1 word < min 2:
        fingerprinted exactly; J 0 ("alpha kilo" vs "alpha", each one shingle)
    p5  binary data named .html: left out.   notes.txt: not HTML by name, ignored.

    Host A in key order: p1 11110000, p2 11110000, p3 11001100, p4 11110000 -> p2 is dropped
    against p1 (J 1, a true drop). On content fingerprints alone p4 would be dropped against
    p1/p2 (J 0) and B's p2 against A's (J 0.25): their whole-page fingerprints (64-bit, every
    word) are far apart, so neither is.
    """
    files = tmp_path / "files"
    files.mkdir()
    (files / "corpus.txt").write_text("1\nalpha alpha alpha alpha bravo bravo bravo charlie charlie delta\n")
    (files / "hash.txt").write_text("11110000\n11001100\n10101010\n00000001\n")
    (files / "stop.txt").write_text("the\n")
    a, b = tmp_path / "a", tmp_path / "b"
    for host, pages in ((a, ["alpha echo foxtrot golf", "alpha echo foxtrot golf", "bravo hotel india juliet", "alpha kilo"]),
                        (b, ["alpha echo foxtrot golf", "alpha bravo echo foxtrot golf", "charlie hotel india juliet", "alpha"])):
        host.mkdir()
        for i, words in enumerate(pages, 1):
            (host / f"p{i}.html").write_text(_page(words))
        (host / "p5.html").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
        (host / "notes.txt").write_text("not a page")
    opts = ["--corpus", str(files / "corpus.txt"), "--hashvalues", str(files / "hash.txt"),
            "--stopwords", str(files / "stop.txt"), "--features", "4", "--bits", "8", "--distance", "3",
            "--min-words", "2", "--jobs", "1"]
    return a, b, opts


def test_evaluate_counts_match_the_hand_computed_case(hand_case):
    a, b, opts = hand_case
    r = run_cli(EVALUATE, str(a), str(b), *opts, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    groups = {g["truth"]: g for g in doc["groups"]}
    assert set(groups) == {"J=1", "J 0.2-0.5", "J 0-0.2"}
    one, mid, low = groups["J=1"], groups["J 0.2-0.5"], groups["J 0-0.2"]
    assert (one["pairs"], one["dropped"], one["no_fingerprint"], one["distances"]["0"]) == (1, 1, 0, 1)
    assert (mid["pairs"], mid["dropped"], mid["no_fingerprint"]) == (2, 0, 0)
    assert mid["distances"]["2"] == 1 and mid["distances"]["4"] == 1 and sum(mid["distances"].values()) == 2
    assert (low["pairs"], low["dropped"], low["no_fingerprint"]) == (1, 0, 0)
    assert doc["confusion"] == {"tp": 1, "fp": 0, "fn": 0, "tn": 3}
    assert doc["precision"] == 1.0 and doc["recall"] == 1.0
    w = doc["within_host_a"]
    assert (w["pages"], w["fingerprinted"], w["dropped"], w["false"]) == (4, 4, 1, 0)
    assert w["cases"] == []
    assert [x["path"] for x in doc["left_out"]] == ["p5.html"]
    assert doc["worst"]["false"] == []
    assert doc["worst"]["missed"] == []
    assert doc["scheme"]["bits"] == 8 and doc["targets"] == []


def test_evaluate_table_is_readable(hand_case, run):
    a, b, opts = hand_case
    r = run(EVALUATE, str(a), str(b), *opts)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    lines = out.splitlines()
    assert "8 bits, distance 3, page distance 10, 4 features" in lines[0]
    row = next(line for line in lines if line.startswith("J 0.2-0.5"))
    assert row.split()[2:6] == ["2", "0", "0", "0.0%"]
    assert "dropped (content within 3 and whole page within 10)" in out
    assert "precision 1.000, recall 1.000" in out
    assert "within host a: 1 of 4 pages dropped" in out and "0 of them false drops" in out
    assert "left out: 1 pairs (e.g. p5.html: not HTML" in out
    assert "pages fingerprinted exactly (fewer than 2 words): 1; pages that could not be fingerprinted (errors): 0" in out
    assert "no worst cases" in out


def test_evaluate_labels_and_targets(tree: Path, tmp_path: Path, run):
    build_mirror(tree, tmp_path / "m", pages=12, seed=1)
    r = run(EVALUATE, str(tmp_path / "m"), "--json", "--min-words", "5")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [g["truth"] for g in doc["groups"]] == ["identical", "near", "different"]
    assert [g["pairs"] for g in doc["groups"]] == [6, 4, 2]
    assert {t["name"] for t in doc["targets"]} == {"identical dropped", "near dropped", "different dropped",
                                                  "host a false drops"}
    r2 = run(EVALUATE, str(tmp_path / "m" / "labels.json"), "--bands", "--json", "--min-words", "5")
    assert json.loads(r2.stdout)["groups"][0]["truth"] == "J=1"
    # --check: exit 1 when a target is missed (here: nothing can be dropped at 100 min words)
    r3 = run(EVALUATE, str(tmp_path / "m"), "--min-words", "1000", "--check")
    assert r3.returncode == 1 and b"MISSED" in r3.stdout


# ----------------------------------------------------------------------------- other inputs

def _cache(root: Path, host: str, pages: dict[str, tuple[str, bytes]]) -> None:
    from scrapy import Request, Spider
    from scrapy.extensions.httpcache import FilesystemCacheStorage
    from scrapy.http import Response
    from scrapy.utils.test import get_crawler

    crawler = get_crawler(Spider, {"HTTPCACHE_DIR": str(root)})
    spider = Spider.from_crawler(crawler, name="site")
    storage = FilesystemCacheStorage(crawler.settings)
    storage.open_spider(spider)
    for path, (ctype, body) in pages.items():
        url = f"https://{host}/{path}"
        storage.store_response(spider, Request(url), Response(url, body=body, headers={"Content-Type": ctype}))
    storage.close_spider(spider)


def test_scrapy_http_cache_directories_pair_by_url_path(tmp_path: Path, run):
    page = _site_page(1).encode()
    other = _site_page(2).encode()
    _cache(tmp_path / "ca", "docs.example.org", {"guide/a.html": ("text/html; charset=utf-8", page),
                                                 "logo.png": ("image/png", b"\x89PNG\x00\x00"),
                                                 "guide/b.html": ("text/html", other)})
    _cache(tmp_path / "cb", "mirror.example.net", {"guide/a.html": ("text/html", page),
                                                   "guide/b.html": ("text/html", page)})
    ps = pair_crawls(tmp_path / "ca", tmp_path / "cb")
    assert ps.a.kind == "scrapy-httpcache"
    assert [p.key for p in ps.pairs] == ["guide/a.html", "guide/b.html"]
    assert ps.a.not_html == ["https://docs.example.org/logo.png"]
    r = run(EVALUATE, str(tmp_path / "ca"), str(tmp_path / "cb"), "--json", "--min-words", "5")
    assert r.returncode == 0, r.stderr
    groups = {g["truth"]: g for g in json.loads(r.stdout)["groups"]}
    assert groups["J=1"]["dropped"] == 1 and sum(g["dropped"] for g in groups.values()) == 1


def test_feed_exports_with_bodies(tmp_path: Path, run):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join(json.dumps({"url": f"https://x.org/p{i}", "body": _site_page(i)}) for i in range(4)) + "\n")
    b.write_text(json.dumps([{"url": f"https://y.org/p{i}", "body": _site_page(i)} for i in range(3)]))
    r = run(EVALUATE, str(a), str(b), "--json", "--min-words", "5")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["groups"][0] == {**doc["groups"][0], "truth": "J=1", "pairs": 3, "dropped": 3}
    assert doc["unpaired"] == {"a": 1, "b": 0}


# ----------------------------------------------------------------------------- bad input

def _one_line_error(r) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    err = r.stderr.decode()
    assert err.startswith("contentseen-evaluate: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and r.stdout == b""
    return err


def test_bad_input_gives_one_line_errors(tmp_path: Path, hand_case, run):
    a, b, _ = hand_case
    assert "no such file or directory" in _one_line_error(run(EVALUATE, str(tmp_path / "nope"), str(b)))
    assert "no such file or directory" in _one_line_error(run(EVALUATE, str(tmp_path / "nope")))
    other = tmp_path / "other"
    other.mkdir()
    (other / "q.html").write_text(_page("alpha"))
    assert "no pairs" in _one_line_error(run(EVALUATE, str(a), str(other)))
    binary = tmp_path / "bin"
    binary.mkdir()
    (binary / "img.png").write_bytes(b"\x89PNG\x00")
    assert "no HTML pages" in _one_line_error(run(EVALUATE, str(binary), str(a)))
    bin_a, bin_b = tmp_path / "ba", tmp_path / "bb"
    for d in (bin_a, bin_b):
        d.mkdir()
        (d / "x.html").write_bytes(b"\x00\x01\x02binary")
    assert "left out" in _one_line_error(run(EVALUATE, str(bin_a), str(bin_b)))
    bad_labels = tmp_path / "labels.json"
    bad_labels.write_bytes(b"\xff\xfe\x00{not json")
    assert "labels file" in _one_line_error(run(EVALUATE, str(bad_labels)))
    bad_labels.write_text('{"format": "something else"}')
    assert "not a labels file" in _one_line_error(run(EVALUATE, str(bad_labels)))
    export = tmp_path / "x.jsonl"
    export.write_bytes(b'{"url": "https://x/\xff", "body": "<p>x</p>"}\n')
    assert "UTF-8" in _one_line_error(run(EVALUATE, str(export), str(export)))
    assert "--bits" in _one_line_error(run(EVALUATE, str(a), str(b), "--bits", "many"))
    assert "CONTENTSEEN_DISTANCE" in _one_line_error(run(EVALUATE, str(a), str(b), "--distance", "99"))
    assert "stopword file" in _one_line_error(run(EVALUATE, str(a), str(b), "--stopwords", str(tmp_path / "none")))
    assert "expected a labels file or two crawls" in _one_line_error(run(EVALUATE, str(a), str(b), str(a)))


def test_undecodable_bytes_are_read_as_browsers_do(tmp_path: Path, run):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
    words = " ".join(f"{t} keeper tower" for t in _TOPICS)
    raw = f'<html><head><meta charset="utf-8"></head><body><p>{words} \xff\xfe caf\xe9</p></body></html>'.encode("latin-1")
    (a / "x.html").write_bytes(raw)
    (b / "x.html").write_bytes(raw)
    r = run(EVALUATE, str(a), str(b), "--json", "--min-words", "5")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["groups"][0]["dropped"] == 1


def test_plot_needs_matplotlib_or_says_so(hand_case, tmp_path: Path, run):
    a, b, opts = hand_case
    png = tmp_path / "h.png"
    r = run(EVALUATE, str(a), str(b), *opts, "--plot", str(png))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert r.returncode == 2 and r.stdout == b""
        assert r.stderr.decode().splitlines() == [
            "contentseen-evaluate: error: --plot needs matplotlib (pip install 'contentseen[plot]')"]
        assert not png.exists()
    else:
        assert r.returncode == 0, r.stderr
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and b"histogram:" in r.stdout


def test_progress_is_shown_on_a_terminal_only(hand_case):
    import os
    import pty
    import subprocess
    import sys

    a, b, opts = hand_case
    quiet = subprocess.run([sys.executable, "-m", EVALUATE, str(a), str(b), *opts], capture_output=True)
    assert quiet.returncode == 0 and quiet.stderr == b""
    leader, follower = pty.openpty()
    try:
        shown = subprocess.run([sys.executable, "-m", EVALUATE, str(a), str(b), *opts],
                               stdout=subprocess.PIPE, stderr=follower)
        os.close(follower)
        follower = -1
        out = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert shown.returncode == 0
    assert b"[" + b"#" * 30 + b"] 5/5 pairs" in out  # five pairs, p5.html (binary) among them

def test_a_manual_on_one_page_gets_a_different_page_not_itself_with_one_section_swapped(tmp_path: Path):
    """Found on maxima's manual (makeinfo), which ships beside its chapters one page holding
    them all: any donor's content swapped for one of its sections (the largest element of the class
    a chapter's page has one of) left the page 99.99% the same,
    yet the pair was labelled "different" (and its drop counted against the scheme). The donor
    page whole is the different page then."""
    root = tmp_path / "manual"
    root.mkdir()
    chapters = [f"<div class='content'><h2>{t}</h2><p>" + f"The {t} needs care in every season, and the {t} crew "
                f"checks it at dawn. " * 6 + "</p></div>" for t in _TOPICS]
    for i, chapter in enumerate(chapters):
        (root / f"c{i}.html").write_text(f"<html><body><div class='nav'><a href='all.html'>All</a></div>{chapter}"
                                         "</body></html>", encoding="utf-8")
    (root / "all.html").write_text(f"<html><body>{''.join(chapters)}</body></html>", encoding="utf-8")
    for seed in range(40):
        out = tmp_path / f"m{seed}"
        doc = build_mirror(root, out, pages=len(chapters) + 1, seed=seed)
        rec = next(p for p in doc["pairs"] if p["path"] == "all.html")
        if rec["label"] == "different":
            break
    else:
        raise AssertionError("no seed labels the one-page manual different")
    assert rec["jaccard"] < 0.5 and rec["template_kept"] is False
    assert (out / "b" / "all.html").read_bytes() == (root / rec["content_from"]).read_bytes()


def test_the_truth_reads_pages_with_another_parser_and_counts_words_of_any_script():
    """The truth must not share the extraction's blind spots: with lexbor's reading, the pages of a
    site whose menu held an ``<iframe .../>`` were their menu alone and the truth called them
    copies; with ASCII words only, two Russian pages sharing an English byline were copies too."""
    from contentseen.evaluate.truth import visible_words

    def page(body: str) -> str:
        return (f"<html><head><title>News</title><script>var x = '<p>not text</p>';</script></head><body>"
                f"<nav><a href='/'>Home</a> <iframe src='/button' title='Sponsor'/></nav>{body}"
                "<p>Posted by admin in News category, 12 comments, share this article.</p></body></html>")

    a = page("<p>Городской совет утвердил бюджет на следующий год после долгого обсуждения.</p>")
    b = page("<p>Футбольная команда выиграла финал кубка в дополнительное время вчера вечером.</p>")
    assert "бюджет" in visible_words(a) and "not" not in visible_words(a) and "news" not in visible_words(a)[:1]
    assert jaccard(html_shingles(a), html_shingles(b)) < 0.5
    assert visible_words("<p>東京都</p>") == ["東", "京", "都"]
    assert visible_words("") == [] and visible_words("<!-- nothing -->") == []
