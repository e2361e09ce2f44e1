"""A blog's listing pages, where its theme puts the sidebar inside ``<main>``.

Hexo's Butterfly theme (a Chinese security blog built with it is one of ``benchmarks/trees.py``'s
web sites) marks ``<main>`` around two blocks: the page's own (a post, or a listing: the archive's
pages, a month's, a category's, a tag's) and the site's sidebar (the author's card, an
announcement, the latest posts, the categories, a tag cloud), the same on every page. On a
listing the only text outside links is the posts' dates, so the list of ten posts was taken for
an edge of the marked content, a line like a mirror's banner, and left out: every listing page's
content was the sidebar, and 122 of 250 pages of the site were dropped as copies of the first
listing crawled, their links never followed (Jaccard of the whole pages mostly 0.57-0.74: the sidebar is
most of each page's text, so not counted as false drops there). Since extraction v21 a list of
links longer than a line is never such an edge (``Extractor.link_lists``).
"""

from __future__ import annotations

import random

from sites import decide_all

from contentseen.fingerprints import Scheme
from contentseen.text import Extractor

TOPICS = ("heap exploitation", "kernel modules", "packed binaries", "format strings", "race conditions",
          "shellcode encoders", "TLS handshakes", "page tables", "JIT spraying", "sandbox escapes",
          "ROP chains", "symbolic execution", "fuzzing harnesses", "hypervisor bugs", "DNS rebinding")
VERBS = ("Notes on", "A walk through", "Reversing", "Debugging", "Understanding", "Writing up", "Exploiting")
WORDS = ("angr ghidra qemu glibc musl tcache fastbin kprobe ebpf seccomp ptrace mmap brk vtable canary pie relro "
         "nx aslr gadget stack heap arena chunk bin unlink overlap leak oracle padding cipher nonce hash collision "
         "prng seed lattice curve pairing signature firmware uart jtag bootloader baseband modem router camera "
         "printer driver ioctl syscall futex pipe socket netlink iptables container namespace cgroup overlay "
         "snapshot wasm v8 spidermonkey jsc turbofan ignition sparkplug maglev liftoff").split()
POSTS = [f"{rnd.choice(VERBS)} {' '.join(rnd.sample(WORDS, 3))} ({rnd.choice(TOPICS)})"
         for rnd in map(random.Random, range(120))]


def sidebar() -> str:
    """The theme's sidebar: the same on every page of the site, more text outside links than a
    listing holds."""
    latest = "".join(f'<div class="aside-list-item"><a href="/p/{k}/">{POSTS[k]}</a><time>2024-04-{k + 10:02d}</time>'
                     '</div>' for k in range(5))
    cloud = " ".join(f'<a href="/tags/{t.split()[0]}/">{t}</a>' for t in TOPICS)
    return ('<div id="aside-content" class="aside-content"><div class="card-widget card-info"><div class="author-info'
            '__name">xia0</div><div class="author-info__description">Security notes from a student team: reverse '
            'engineering, binary exploitation and the contests we played this year.</div></div><div class="card-widget '
            'card-announcement"><div class="announcement_content">Old age should burn and rave at close of day; '
            'the harder the road, the firmer the will to climb it.</div></div><div class="card-widget card-recent-post">'
            f'<div class="item-headline">Latest posts</div>{latest}</div><div class="card-widget card-tags">'
            f'<div class="card-tag-cloud">{cloud}</div></div><div class="card-widget card-webinfo">Posts: 120. '
            'Running for 1,024 days. Last updated: 2024-04-22. Visitors counted by a self-hosted counter.</div></div>')


def listing(title: str, posts: list[int], banner: str = "") -> str:
    """A listing page: ``posts`` by date and linked title beside the sidebar, both in ``<main>``."""
    items = "".join(f'<div class="article-sort-item"><time>2023-{k % 12 + 1:02d}-{k % 28 + 1:02d}</time>'
                    f'<a class="article-sort-item-title" href="/p/{k}/">{POSTS[k]}</a></div>' for k in posts)
    return ('<!DOCTYPE html><html lang="en"><head><title>' + title + '</title></head><body><header id="page-header">'
            '<nav id="nav"><a href="/">xia0\'s blog</a> <a href="/archives/">Archives</a> <a href="/tags/">Tags</a>'
            f'</nav></header>{banner}<main id="content-inner" class="layout"><div id="archive"><div class="article-sort-'
            f'title">{title} - {len(posts)}</div><div class="article-sort">{items}</div><nav id="pagination"><a href="'
            f'/archives/page/2/">2</a></nav></div>{sidebar()}</main><footer id="footer">&copy; 2024 xia0. Built with Hexo'
            '</footer></body></html>')


# twelve listings of ten posts each, no post on two of them: archive pages, months, categories, tags
LISTINGS = [(f"Archives page {k + 1}" if k < 4 else f"Category {TOPICS[k]}", list(range(10 * k, 10 * k + 10)))
            for k in range(12)]
BANNER = '<div class="mirror-banner">You are reading a copy hosted by Tailspin Hosting; the original may be newer.</div>'


def test_a_listing_keeps_its_posts_in_its_content():
    pf = Scheme().build()
    text = pf.extractor.texts(listing(*LISTINGS[0]))
    assert all(POSTS[k] in text.content for k in LISTINGS[0][1])


def test_every_listing_page_is_kept_and_the_mirrors_copies_dropped():
    site = [(f"http://blog.test/list/{k}/", listing(title, posts)) for k, (title, posts) in enumerate(LISTINGS)]
    mirror = [(url.replace("blog.test", "mirror.test"), listing(title, posts, BANNER))
              for (url, _), (title, posts) in zip(site, LISTINGS)]
    decisions = decide_all(site + mirror)
    assert [d.outcome for d in decisions[:len(site)]] == ["kept"] * len(site)
    assert [d.match.url if d.outcome == "dropped" else d.outcome for d in decisions[len(site):]] == [u for u, _ in site]


def test_the_listings_were_one_page_without_the_rule():
    # the fixture is the case: under v20 the lists were edges and every listing's content the sidebar
    old = Scheme(extractor=Extractor(link_lists=False))
    pages = [(f"http://blog.test/list/{k}/", listing(title, posts)) for k, (title, posts) in enumerate(LISTINGS)]
    assert len({old.build().extractor.texts(html).content for _, html in pages}) == 1
    assert [d.outcome for d in decide_all(pages, scheme=old)].count("dropped") > len(pages) // 2


def test_a_mirror_line_holding_a_link_is_still_an_edge():
    # a banner naming the original by a link, longer than a line in all, is a sentence with a
    # link, not a list of links: it stays out of the content, as a line without one does
    pf = Scheme().build()
    story = ('<html><body><main>{}<article><h1>Harbour works</h1><p>' + " ".join(POSTS[:30]) + '.</p></article>'
             '</main></body></html>')
    linked = ("<div class='mirror-banner'>This is an unofficial mirror of the project's manual, refreshed every night by "
              "Tailspin Hosting from the project's own servers; the original may be newer, so check it before reporting "
              "a problem: <a href='https://docs.example.org/'>the documentation of the project at "
              "docs.example.org/en/latest/index</a>.</div>")
    assert pf.extractor.texts(story.format(linked)).content == pf.extractor.texts(story.format("")).content
