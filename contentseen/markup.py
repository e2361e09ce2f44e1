"""What a page's markup tells before it is parsed, read in one linear walk of its tags: whether
lexbor's tree builder would read it in quadratic time (then it is not parsed: ``flat_text``
reads it), the self-closed raw-text elements to close first, and which elements and attributes
the extraction's queries need to name.

Cost is bounded and linear in the page: lexbor's tree builder is quadratic in the nesting depth
of block elements (50,000 unclosed ``<div>`` take minutes), in the attributes of one element
(100,000 on one tag: 17 s; those of every ``<html>`` tag are one element's, and of every
``<body>`` tag) and in the elements of one ``<select>`` (80,000 options: 24 s), so a page nested
deeper than ``MAX_DEPTH`` (browsers stop nesting at 512), or whose markup would cost more than
``COST_BUDGET`` (``_tag_model``), is read by a linear tag-stripping scan instead of a parse.
"""

from __future__ import annotations

import functools
import html as htmllib
import re
from typing import Callable, NamedTuple

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from ._native import speedups as _speedups  # None: the tags are scanned in numpy and Python

# Never visible, or not text (one query; "head" too when a frameset page has no body). The query
# names only those whose start tags the page holds (named): a selector list costs lexbor a check
# of every element against each selector, and most pages use two or three of these.
INVISIBLE_NAMES = ("script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "select")
# An inline SVG's text is shown (a chart's labels, v15), but not its tooltips, descriptions and
# the shapes it defines for later use: these are left out of a page that holds an <svg>.
SVG_HIDDEN = ("title", "desc", "metadata", "defs", "symbol")
# A formula's MathML is shown (v16: two pages of exercises differing in their formulae only were
# one page), but not its annotations (its TeX source, its content markup), what a <mphantom> holds
# (space, not ink), nor the children of a <semantics> or <maction> after its first (a browser
# renders the first): these are left out of a page that holds a <math>.
MATH_HIDDEN = ("annotation", "annotation-xml", "mphantom", "semantics > * + *", "maction > * + *")
# One query finds both what marks the main content (main, article, role=main) and the
# boilerplate left out when nothing does (nav, header, footer, aside, the navigation, banner,
# contentinfo and complementary landmarks, [hidden], [aria-hidden=true]); Python sorts them.
# (Its elements by name, too, only those whose start tags the page holds.)
MARKED_NAMES = ("main", "article", "nav", "header", "footer", "aside", "dialog")
MARKED_ATTRIBUTE_NAMES = ("role", "hidden", "aria-hidden")

MAX_DEPTH = 512
# What the tree builder's quadratic work (``_tag_model``'s cost) may come to: a tag of
# 2,048 attributes or a <select> of 2,048 options parses in milliseconds (about 7 and 13 ms), and
# beyond that 4 a byte of the page (at most about 0.1 s on the largest page read).
COST_BUDGET, COST_PER_BYTE = 1 << 22, 4
# The tree builder reopens the formatting elements of its list that are not open at the next text
# or tag: after every tag, as many as the list holds (``_StackModel.listed``, when more than
# ``_COSTLY``) cost ``REOPEN_COST`` each (an element costs the parse and the extraction about a
# microsecond; COST_BUDGET is about 10 ms): 500 ``<b id=N>`` closed by a ``</p>``, then 4,000
# ``<p>x</p>``, made 2 million elements of a 37 KB page (2.3 s).
REOPEN_COST = 256


_LT, _SLASH = ord("<"), ord("/")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr "
                  "basefont bgsound frame keygen".split())
_NAME_BYTES = 4  # of a tag name, enough to tell void elements (frameset counts as frame)
_RAW_TEXT = frozenset("script style textarea title xmp iframe noembed noframes plaintext".split())
# Elements that hold the rest of the page when written self-closed, as XHTML allows: HTML does
# not close them there. The raw-text ones read it as their text (a Debian-rewritten page's
# "<iframe .../>" in its menu made the rest of the page invisible, and every page of the site
# its menu alone), and noscript holds it as its children, which are not shown. Closed where
# written so, as the author meant and as an XML-minded spider's parser reads them; not
# plaintext, which no end tag closes.
_SWALLOWERS = sorted((_RAW_TEXT - {"plaintext"}) | {"noscript"})
_SELF_CLOSED_RAW = re.compile(f"<({'|'.join(_SWALLOWERS)})(\\s[^<>]*?)?/>", re.IGNORECASE)
_SELF_CLOSED_RAW_AT = re.compile(_SELF_CLOSED_RAW.pattern.encode(), re.IGNORECASE)  # matched at a tag
_CLOSES_P = frozenset("address article aside blockquote center dd details dialog dir div dl dt fieldset "
                      "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr li listing main menu "
                      "nav ol p plaintext pre search section summary table ul xmp".split())
# Reopened by the tree builder at every block that follows them while they are open: thousands
# left open ('<p><b>x' x 60,000) cost lexbor as much as deep nesting does.
_FORMATTING = frozenset("a b big code em font i nobr s small strike strong tt u".split())
# Where the tree builder puts a marker in its list of formatting elements: those opened inside are
# reopened only there, and forgotten when it closes; those before it are out of reach there.
_MARKERS = frozenset("applet caption marquee object td template th".split())
# SVG's and MathML's elements are named "svg:g", "math:mi" on the model's stack (an HTML element
# of such a name is none of them). Their integration points, where HTML is read again: MathML's
# text ones and SVG's (and MathML's annotation-xml of an HTML encoding, _HTML_ENCODINGS).
_TEXT_POINTS = frozenset("math:mi math:mo math:mn math:ms math:mtext".split())  # (where mglyph is MathML's)
_INTEGRATION = _TEXT_POINTS | frozenset("svg:foreignobject svg:desc svg:title".split())
_HTML_ENCODINGS = frozenset((b"text/html", b"application/xhtml+xml"))
# The tree builder's special elements: an end tag of another name does not look past them for
# its element, nor a list item or term for the one before it (but past address, div and p,
# ``_ITEM_PASSES``).
_SPECIAL = frozenset("""address applet area article aside base basefont bgsound blockquote body br button caption
center col colgroup dd details dialog dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3
h4 h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav noembed
noframes noscript object ol p param plaintext pre script search section select source style summary table tbody
td template textarea tfoot th thead title tr track ul wbr xmp""".split()) | _INTEGRATION | {"math:annotation-xml"}
_ITEM_PASSES = frozenset(("address", "div", "p"))
# The end tags the tree builder reads by closing their element when it is in scope (through other
# special elements too). The end tag of any other special element, as of an ordinary one, closes
# it only through elements that are not special: a </head>, </noscript> or </frameset> lexbor
# ignores (their element long closed, or never opened) closed everything above it in the model,
# which then took a page nested 24,000 deep for a shallow one, and parsed it (0.7 s).
_SCOPED_ENDS = frozenset("""address applet article aside blockquote button center dd details dialog dir div dl dt
fieldset figcaption figure footer header hgroup listing main marquee menu nav object ol pre search section summary
ul""".split())
# ... and those that close only the current element: a <noscript> of the head, closed by the body's
# first content, is not in the tree builder's stack, and a </noscript> closing SVG above it in the
# model made it read the rest of the page as a raw-text <style>, which lexbor parsed in SVG.
_CURRENT_ENDS = frozenset(("noscript", "frameset"))
# Where an element's scope ends (the default scope; a paragraph's also at a button; a list
# item's at a list; a table part's at its table).
_SCOPE_BOUNDARY = frozenset("applet caption html table td th marquee object template".split()) | _INTEGRATION | {
    "math:annotation-xml"}
_BUTTON_SCOPE = _SCOPE_BOUNDARY | {"button"}
_LIST_SCOPE = _SCOPE_BOUNDARY | {"ol", "ul"}
_HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
_RUBY_PARTS = frozenset(("rb", "rp", "rt", "rtc"))
# A table part opened in a table closes the open parts of these names above the table.
_CELL_ENDS = {"td": frozenset(("td", "th")), "th": frozenset(("td", "th")), "tr": frozenset(("tr", "td", "th")),
              "tbody": frozenset(("tbody", "thead", "tfoot", "tr", "td", "th")),
              "thead": frozenset(("tbody", "thead", "tfoot", "tr", "td", "th")),
              "tfoot": frozenset(("tbody", "thead", "tfoot", "tr", "td", "th"))}
_SCAN = 64  # elements a close looks through; past them it closes nothing
_KEPT_OPEN = frozenset(("body", "html", "br", "form"))  # by their end tags
_FAST_ENDS_NOT = _KEPT_OPEN | _MARKERS  # (_tag_model's current element's end tag, without a call)
_TABLE_CONTEXT = frozenset(("table", "template"))  # where a table part is read
_TABLE_SCOPE = _TABLE_CONTEXT | {"html"}  # where a table part's scope ends
_CELL_OR_CAPTION = frozenset(("td", "th", "caption"))  # in which a table opens one inside another
_TABLE_PARTS = frozenset(_CELL_ENDS) | {"caption", "col", "colgroup"}
_PART_CONTEXT = _CELL_OR_CAPTION | _TABLE_CONTEXT  # what a table part closes, or is read in
# Foreign content, where "/>" does close an element; in it, the start tags that leave it (the
# tree builder then closes the foreign elements).
_FOREIGN = frozenset(("svg", "math"))
_BREAKOUT = frozenset("b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img "
                      "li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var"
                      .split())  # and <font> of a color, face or size attribute (_FONT_BREAKS)
_FONT_BREAKS = frozenset((b"color", b"face", b"size"))


# The sets _StackModel reads, as the bits the C speedups' model reads them by (this module is their
# one source: ``_speedups.tag_names`` takes them at import).
_MODEL_SETS = (_VOID, _RAW_TEXT, _FOREIGN, _INTEGRATION, _BREAKOUT, _SPECIAL, _ITEM_PASSES, _SCOPE_BOUNDARY,
               _BUTTON_SCOPE, _LIST_SCOPE, _HEADINGS, _RUBY_PARTS, _CLOSES_P, _FORMATTING, frozenset(_CELL_ENDS),
               _SCOPED_ENDS, _CURRENT_ENDS, _MARKERS)
_MODEL_NAMES = sorted(frozenset().union(*_MODEL_SETS) | set(
    "li dd dt p option optgroup ruby table template td th tr tbody thead tfoot caption colgroup body html br form select "
    "annotation-xml svg mglyph malignmark head".split()))  # and those it tests one by one
# The names whose start tags _StackModel.start reads by a rule of their own (else it opens the
# element, and counts a formatting one), and those whose only rule is to close an open paragraph.
_OWN_START_RULES = (_VOID | _FOREIGN | _RAW_TEXT | _HEADINGS | _RUBY_PARTS | frozenset(_CELL_ENDS)
                    | _MARKERS | {"li", "dd", "dt", "option", "optgroup", "mglyph", "malignmark", "p", "head", "colgroup",
                                  "table", "html", "body"})
_START_RULED = _OWN_START_RULES | _CLOSES_P
_CLOSES_P_ONLY = _CLOSES_P - _OWN_START_RULES

if _speedups is not None:
    _speedups.tag_names(_MODEL_NAMES, [sum(1 << b for b, names in enumerate(_MODEL_SETS) if n in names)
                                       for n in _MODEL_NAMES], list(MARKED_NAMES), list(MARKED_ATTRIBUTE_NAMES))


class Prepared(NamedTuple):
    """A page made ready for the parse (``prepared``)."""

    html: str  # self-closed raw-text elements closed
    utf8: bytes | None  # the same as UTF-8, what lexbor parses (None: it holds lone surrogates)
    flat: bool  # not to be parsed: read by ``flat_text``
    keys: frozenset[int]  # of the names of its start tags (``named``)
    marks: int | None  # of the marked names and attributes of its start tags (``marked_query``)


def prepared(html: str, close: bool = True, utf8: bytes | None = None, shadows: bool = True) -> Prepared:
    """``html`` with its self-closed raw-text elements closed (``_close_raw_text``), the same as
    UTF-8 (what lexbor parses: given it, the parser does not encode the page again; None when
    ``html`` holds lone surrogates, which it drops), whether the tree builder would read it in
    quadratic time (``_tag_model``: nested deeper than ``MAX_DEPTH``, or past ``COST_BUDGET``;
    then it is not parsed), the name keys of its start tags, and the marks of the names and
    attributes its start tags hold (``_tag_model``; None when it was not walked). One scan of the
    tags (``_tag_scan``) counts them and finds the names: a self-closed element is looked for
    only at tags of such a name, so a page without one costs nothing more; a page of at most
    ``MAX_DEPTH`` tags is never that deep, nor one of at most 4 KiB that costly. ``utf8``:
    ``html`` as UTF-8, when the caller has it (not encoded again). Declarative shadow roots are
    read in place first (``_shadow_roots_shown``; ``shadows=False``: they were).
    """
    if utf8 is not None:
        raw = utf8
    else:
        try:
            raw = utf8 = html.encode("utf-8")
        except UnicodeEncodeError:
            raw, utf8 = html.encode("utf-8", "replace"), None
    tags, starts, names = _tag_scan(raw)
    if shadows and _NAME_KEY["template"] in names and _SHADOW_HINT.search(raw):
        shown = _shadow_roots_shown(html)
        if shown != html:
            return prepared(shown, close, shadows=False)
    if tags <= MAX_DEPTH:  # a few tags: too few to nest deeply, few to search
        if close and "/>" in html:
            closed = _close_raw_text(html)
            if closed != html:
                return prepared(closed, close=False, shadows=False)
    elif close and any(_SELF_CLOSED_RAW_AT.match(raw, at) for at in starts):
        return prepared(_close_raw_text(html), close=False, shadows=False)
    # (a tag's attributes take two bytes each: a page of 4 KiB cannot cost COST_BUDGET)
    if tags <= MAX_DEPTH and len(raw) <= 4096:
        return Prepared(html, utf8, False, names, None)
    cost, depth, marks = _tag_model(raw, _NAME_KEY["table"] in names and _quirks(raw))
    # (lone surrogates: lexbor parses the str without them, the walk read "?" in their place)
    return Prepared(html, utf8, depth > MAX_DEPTH or cost > COST_BUDGET + COST_PER_BYTE * len(raw), names,
                    marks if utf8 is not None else None)


# A declarative shadow root (<template shadowrootmode="open">, Chrome's earlier shadowroot="open")
# is shown in place of its host's children, where the parser would keep it as a template's
# content, out of the tree's text: its start tag is read as a <div>'s (v15), the end tag
# </template> then closing nothing (a parser ignores it). A page holding only a host element
# and its shadow root had no text.
_SHADOW_HINT = re.compile(rb"shadowroot", re.I)
_TEMPLATE_TAG = re.compile(r"<(/?)template(?=[\s/>])", re.I | re.A)
_SHADOW_ATTRIBUTE = re.compile(r"[\s/]shadowroot(?:mode)?\s*=", re.I | re.A)


def _shadow_roots_shown(html: str) -> str:
    """``html`` with the start tag of each declarative shadow root read as a ``<div>``'s, but
    inside an ordinary template (whose end tag the shadow root's would then take: the rest of
    it shown). One pass over the template tags, each read to its first ``>`` once."""
    out, pos, end, open_tags, ordinary = [], 0, 0, [], 0
    for m in _TEMPLATE_TAG.finditer(html):
        if m.start() < end:  # within the tag before
            continue
        end = html.find(">", m.end())
        if end < 0:
            break
        if m.group(1):  # an end tag closes the template open last, if any
            if open_tags:
                ordinary -= not open_tags.pop()
            continue
        # (a tag holding "<" is left as it is: read flat, "<div" would be shown as text)
        shadow = not ordinary and _SHADOW_ATTRIBUTE.search(html, m.end(), end) is not None and (
            html.find("<", m.end(), end) < 0)
        open_tags.append(shadow)
        ordinary += not shadow
        if shadow:
            out += (html[pos:m.start()], "<div")
            pos = m.end()
    return "".join(out) + html[pos:] if out else html


def _tag_scan(raw: bytes) -> tuple[int, list[int], frozenset[int]]:
    """The tags of ``raw`` (UTF-8 HTML): how many ``<`` it holds; where the start tags of
    ``_SWALLOWERS`` are; and the names of all its start tags. Names are told apart by their first
    ``_NAME_BYTES`` bytes (``_name_keys``). In C when built (``contentseen/_speedups.c``), else in
    numpy (``_tag_scan_numpy``): the same figures."""
    scanned = None if _speedups is None else _speedups.tag_scan(raw, _SWALLOWER_KEY_BYTES)
    if scanned is None:  # not built, or names crafted to collide in its tables
        return _tag_scan_numpy(raw)
    tags, starts, names = scanned
    return tags, starts, frozenset(np.frombuffer(names, dtype=np.uint32).tolist())


def _tag_scan_numpy(raw: bytes) -> tuple[int, list[int], frozenset[int]]:
    """``_tag_scan`` in numpy."""
    data = np.frombuffer(raw + b"\0" * _NAME_BYTES, dtype=np.uint8)
    lt = np.flatnonzero(data[:-_NAME_BYTES] == _LT)
    if not len(lt):
        return 0, [], frozenset()
    end = data[lt + 1] == _SLASH
    name = data[(lt + 1 + end)[:, None] + np.arange(_NAME_BYTES)] | 0x20  # lower-cased ASCII
    keys = _name_keys(name)
    starts = lt[~end & np.isin(keys, _SWALLOWER_KEYS)].tolist()
    letter = (name[:, 0] >= ord("a")) & (name[:, 0] <= ord("z"))
    return len(lt), starts, frozenset(keys[letter & ~end].tolist())


def marked_query(keys: frozenset[int], marks: int | None) -> str:
    """The selector list of the elements that mark a page's main content or its boilerplate (its
    ``MARKED_NAMES`` and ``MARKED_ATTRIBUTE_NAMES``): those of its ``marks`` (``_tag_model``);
    without them, the names its tag ``keys`` can be (``named``) and every attribute. Empty: the
    page holds none. (An attribute lexbor does not know by heart costs it a comparison of names
    at every element: ``[hidden]`` alone was 0.07 ms of a python-doc page.)"""
    if marks is None:
        return ", ".join(filter(None, (named(MARKED_NAMES, keys), *(f"[{a}]" for a in MARKED_ATTRIBUTE_NAMES))))
    return _marked_by(marks)


@functools.lru_cache(maxsize=1 << (len(MARKED_NAMES) + len(MARKED_ATTRIBUTE_NAMES)))
def _marked_by(marks: int) -> str:
    return ", ".join(n if n in MARKED_NAMES else f"[{n}]"
                     for j, n in enumerate(MARKED_NAMES + MARKED_ATTRIBUTE_NAMES) if marks >> j & 1)


def named(names: tuple[str, ...], keys: frozenset[int]) -> str:
    """A selector list of those of ``names`` whose key (``_NAME_KEY``) is among ``keys``: the
    elements of those names a page can hold (a parser makes none of these without a start tag)."""
    return ", ".join(n for n in names if _NAME_KEY[n] in keys)


@functools.lru_cache(maxsize=256)
def invisible_query(keys: frozenset[int]) -> str:
    """The selector list of the elements never shown of a page whose start tags' keys are
    ``keys`` (``named``): ``INVISIBLE_NAMES``, ``SVG_HIDDEN`` inside an ``<svg>`` and
    ``MATH_HIDDEN`` inside a ``<math>``."""
    parts = [named(INVISIBLE_NAMES, keys)]
    for foreign, hidden in (("svg", SVG_HIDDEN), ("math", MATH_HIDDEN)):
        if _NAME_KEY[foreign] in keys:
            parts.extend(f"{foreign} {n}" for n in hidden)
    return ", ".join(filter(None, parts))


_ALNUM_BYTE = np.zeros(256, dtype=bool)
_ALNUM_BYTE[[*range(ord("a"), ord("z") + 1), *range(ord("0"), ord("9") + 1)]] = True


_KEY_MASKS = np.array([0, 0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF], dtype=np.uint32)


def _name_keys(name: np.ndarray) -> np.ndarray:
    """A tag name's first ``_NAME_BYTES`` bytes (lower-cased, after ``<`` or ``</``) up to its
    first byte that is not a letter or digit, as one integer (so names compare as integers)."""
    alnum = np.zeros((len(name), _NAME_BYTES + 1), dtype=bool)
    alnum[:, :_NAME_BYTES] = _ALNUM_BYTE[name]
    length = np.argmin(alnum, axis=1)  # the first byte that is not, or _NAME_BYTES
    return np.ascontiguousarray(name).view("<u4").ravel() & _KEY_MASKS[length]


def _keys_of(names) -> np.ndarray:
    """The sorted name keys of tag ``names``."""
    return np.unique(_name_keys(np.array(
        [list(n.encode()[:_NAME_BYTES].ljust(_NAME_BYTES, b"\0")) for n in names], dtype=np.uint8)))


_SWALLOWER_KEYS = _keys_of(_SWALLOWERS)
_NAME_KEY = {n: int(_keys_of([n])[0]) for n in INVISIBLE_NAMES + MARKED_NAMES + ("table", "svg", "math")}
_SWALLOWER_KEY_BYTES = _SWALLOWER_KEYS.astype(np.uint32).tobytes()


_COSTLY = 16  # attributes of a tag, or elements of a select, that cost nothing worth counting
# A tag as the HTML tokenizer reads it: its name, then attributes, each a name (its first byte
# any but a blank, "/" or ">") and maybe "=" and a value, quoted or not; "/" reads as a blank.
# Possessive, as the tokenizer reads each byte once.
_TAG_BLANK = rb"[\t\n\f\r ]"
_ATTRIBUTE_NAME = rb"[^\t\n\f\r />][^\t\n\f\r />=]*+"
_ATTRIBUTE_VALUE = (rb"(?:" + _TAG_BLANK + rb"*+=" + _TAG_BLANK
                    + rb"""*+(?:"[^"]*+"?|'[^']*+'?|[^\t\n\f\r >]*+))?""")
# What the tokenizer reads at a "<": a tag (its groups: "/" of an end tag, its name, its
# attributes, and its end); else a comment (to the first "-->" or "--!>"; "<!-->" and "<!--->"
# are empty), a doctype or a bogus comment ("<!", "<?", "</" and no letter: to the first ">");
# else the "<" is text.
_MARKUP = re.compile(rb"<(?:(/?)([A-Za-z][^\t\n\f\r />]*+)((?:[\t\n\f\r /]*+" + _ATTRIBUTE_NAME + _ATTRIBUTE_VALUE
                     + rb")*+)([\t\n\f\r /]*+>?)|!--(?:>|->|.*?(?:-->|--!>)|.*)|[!?/][^>]*+>?)", re.DOTALL)
_READ_IN_RAW_TEXT = frozenset(b"html body frame frameset noframes col colgroup template".split())
_START_TAG = re.compile(rb"<([A-Za-z][^\t\n\f\r />]*+)((?:[\t\n\f\r /]*+" + _ATTRIBUTE_NAME + _ATTRIBUTE_VALUE
                        + rb")*+)")  # a start tag's name and attributes, as in _MARKUP
_ATTRIBUTES = re.compile(rb"[\t\n\f\r /]*+(" + _ATTRIBUTE_NAME + rb")" + _ATTRIBUTE_VALUE)  # names, in a tag
_ATTRIBUTE_PAIRS = re.compile(rb"[\t\n\f\r /]*+(" + _ATTRIBUTE_NAME + rb")(?:" + _TAG_BLANK + rb"*+=" + _TAG_BLANK
                              + rb"""*+(?:"([^"]*+)"?|'([^']*+)'?|([^\t\n\f\r >]*+)))?""")  # and values
_COST_CAP = (2**63 - 1) // 4  # as the C function caps its sums
_AFTER_ATTRIBUTE = b"\t\n\f\r /\"'"  # what an attribute but a tag's first follows


def _costly(n: int) -> int:
    return n * n if n > _COSTLY else 0


def _written(area: bytes, tail: bytes) -> bytes:
    """A tag's attributes as written (``_MARKUP``'s area and tail, without the closing ">"),
    without the blanks and "/" before them and the blanks after them: tags of the same attributes
    written alike are the same (the tree builder's "same" is wider)."""
    return (area + (tail[:-1] if tail.endswith(b">") else tail)).lstrip(b"\t\n\f\r /").rstrip(b"\t\n\f\r ")


def _attributes(exact: bool, area: bytes) -> int:
    """The attributes in a tag's ``area``: counted when ``exact``, else only when they could be
    more than ``_COSTLY`` (0 otherwise): each attribute but the first starts after a blank, "/"
    or a quote, and the tag holds no more attributes than those."""
    if exact or (len(area) > 2 * _COSTLY and len(area) - len(area.translate(None, _AFTER_ATTRIBUTE)) >= _COSTLY):
        return len(_ATTRIBUTES.findall(area))
    return 0


def _quirks(raw: bytes) -> bool:
    """Whether lexbor reads ``raw`` in quirks mode, where a ``<table>`` does not close an open
    paragraph: it does a page with text (a byte-order mark too) or a tag before any doctype, as
    the standard says; else lexbor's own reading of the doctype (its public and system
    identifiers) decides, told by where it puts a table after a paragraph there (asked once a
    doctype: a site's pages share theirs)."""
    pos = 0
    while (m := _MARKUP.search(raw, pos)) is not None:
        if m[2] is not None or raw[pos : m.start()].strip(b"\t\n\f\r "):
            return True
        doctype = m[0]
        if doctype[:9].lower() == b"<!doctype":
            quirks = _DOCTYPE_QUIRKS.get(doctype)
            if quirks is None:
                if len(_DOCTYPE_QUIRKS) >= 256:
                    _DOCTYPE_QUIRKS.clear()
                body = LexborHTMLParser(doctype + b"<p><table>").body
                quirks = _DOCTYPE_QUIRKS[doctype] = body is None or body.last_child is None or (
                    body.last_child.tag != "table")
            return quirks
        pos = m.end()
    return True


_DOCTYPE_QUIRKS: dict[bytes, bool] = {}


def _tag_model(raw: bytes, quirks: bool = False) -> tuple[int, int, int | None]:
    """What lexbor's tree builder does on ``raw`` (UTF-8 HTML) in time quadratic in its length, as
    ``(cost, depth, marks)``; the markup read as the tokenizer reads it (``_MARKUP``: a
    tag inside another's quoted value is none; comments, doctypes, bogus comments and raw text
    skipped where it skips them). In C when built (``_speedups.tag_model``: the same figures).

    *depth*: of its stack of open elements, of which only the rules that close elements in every
    case they apply are followed (``_StackModel``: any other start tag opens one), so it is never
    below the tree builder's; or the number of formatting elements left open when larger. The
    walk stops once it passes ``MAX_DEPTH``.

    *cost*: the sum of the squares of the attributes of each tag (start or end), of all
    ``<html>`` tags' attributes together and of all ``<body>`` tags' (merged into one element
    each), and of the start tags in each ``<select>`` (up to its end tag or the next
    ``<select>``), each counted only past ``_COSTLY``.

    *marks*, in C only (None in Python, where reading every tag's attributes would cost more than
    the query it spares): bit j is set when a start tag the walk read is named the j-th of
    ``MARKED_NAMES``, or (j past those) holds an attribute named the next of
    ``MARKED_ATTRIBUTE_NAMES``. The walk reads every tag the tokenizer reads, and more: for the
    marks, the tags in what it takes for raw text too (the tree builder reads markup there where
    it ignores the start tag, or is in SVG or MathML still), so a page without a bit holds no
    such element or attribute.
    """
    limit = COST_BUDGET + COST_PER_BYTE * len(raw)  # past it the walk stops: the page is read flat
    if _speedups is not None:
        return _speedups.tag_model(raw, MAX_DEPTH, REOPEN_COST, quirks, limit)
    model, pos, size = _StackModel(quirks), 0, len(raw)
    names, spaces, points = model.names, model.spaces, model.points
    cost = html_attributes = body_attributes = select_tags = 0
    in_select = False
    lower_names: dict[bytes, str] = {}
    search = _MARKUP.search
    while len(names) <= MAX_DEPTH and model.unclosed <= MAX_DEPTH and cost <= limit and (
            m := search(raw, pos)) is not None:
        pos = m.end()
        closing, written, area, tail = m.groups()
        if written is None:  # a comment, a doctype or a bogus comment; in SVG or MathML, CDATA
            if spaces and spaces[-1] and raw.startswith(b"<![CDATA[", m.start()):
                end = raw.find(b"]]>", m.start() + 9)
                pos = size if end < 0 else end + 3
            continue
        if model.listed > _COSTLY:
            cost += REOPEN_COST * model.listed
        name = lower_names.get(written)
        if name is None:
            name = lower_names[written] = written.lower().decode("latin-1")
        # (a call only where it may count: this loop is the walk without the C speedups)
        attributes = _attributes(name in ("html", "body"), area) if len(area) > 2 * _COSTLY or name in (
            "html", "body") else 0
        if name == "select":
            cost += _costly(select_tags) if in_select else 0
            in_select, select_tags = not closing, 0
        elif in_select and not closing:
            select_tags += 1
        if name == "html":
            html_attributes += attributes
        elif name == "body":
            body_attributes += attributes
        elif attributes > _COSTLY:
            cost += attributes * attributes
        # The most frequent tags, as _StackModel reads them, without its calls: the current HTML
        # element's end tag, and a start tag of no rule of its own outside SVG and MathML.
        if closing:
            if names and names[-1] == name and not spaces[-1] and name not in _FAST_ENDS_NOT:
                if name in _FORMATTING:
                    model.closed(name)
                del names[-1], spaces[-1], points[-1]
                model.paragraphs -= name == "p"
            else:
                model.end(name)
            continue
        if (name not in _START_RULED or (name in _CLOSES_P_ONLY and not model.paragraphs)) and not (
                spaces and spaces[-1] and not points[-1]) and model.fresh_template < 0:
            names.append(name)
            spaces.append("")
            points.append(False)
            if name in _FORMATTING:
                model.opened(name, _written(area, tail))
            continue
        breaks = name == "font" and any(a.lower() in _FONT_BREAKS for a in _ATTRIBUTES.findall(area))
        html = name == "annotation-xml" and _html_encoding(area)
        if model.start(name, tail.endswith(b"/>"), breaks, html,
                       _written(area, tail) if name in _FORMATTING else b""):  # raw text: up to its end tag
            end = re.compile(rb"</" + re.escape(written) + rb"[\t\n\f\r />]", re.IGNORECASE).search(raw, pos)
            stop = end.start() if end is not None else size
            # The attributes of the start tags there the tree builder reads where it ignores the
            # raw-text element's start tag (in a frameset, a template's column group) count all the
            # same: only those, as a script's "a<b" reads as a tag.
            for tag in _START_TAG.finditer(raw, pos, stop):
                inner = tag[1].lower()
                if inner not in _READ_IN_RAW_TEXT:
                    continue
                attributes = _attributes(inner in (b"html", b"body"), tag[2])
                if inner == b"html":
                    html_attributes += attributes
                elif inner == b"body":
                    body_attributes += attributes
                elif attributes > _COSTLY:
                    cost += attributes * attributes
            pos = stop
    cost += _costly(html_attributes) + _costly(body_attributes) + (_costly(select_tags) if in_select else 0)
    return min(cost, _COST_CAP), model.depth(), None


def _html_encoding(area: bytes) -> bool:
    """Whether a tag's attributes (``area``) name an HTML encoding: the first ``encoding``
    attribute's value is one of ``_HTML_ENCODINGS``, ASCII case folded."""
    for name, *values in _ATTRIBUTE_PAIRS.findall(area):
        if name.lower() == b"encoding":
            return b"".join(values).lower() in _HTML_ENCODINGS
    return False


class _StackModel:
    """The tree builder's stack of open elements as ``_tag_model`` follows it: elements close only
    where the tree builder closes them whatever else holds (the end tags it reads in scope,
    ``_SCOPED_ENDS``, close an element in its scope; any other closes one only through elements
    that are not special, or, ``_CURRENT_ENDS``, the current one only; a list item, term or cell
    closes the one before it; a block, a paragraph in button scope), each search looking through
    at most ``_SCAN`` elements; start tags it ignores in a body open none (a head; a caption or
    column group outside a table); SVG and MathML elements (named "svg:..." and "math:...")
    close at ``/>``, except in their integration points, and the tags that leave them close
    them, as the tree builder does. (An element the model keeps open that the tree builder does
    not is sound for the depth only as long as no end tag closes real elements above it.)"""

    def __init__(self, quirks: bool = False) -> None:
        self.quirks = quirks  # (lexbor's mode: a <table> then closes no paragraph)
        self.names: list[str] = []
        self.spaces: list[str] = []  # per open element: "svg", "math", or "" (HTML)
        self.points: list[bool] = []  # per open element: whether it is an integration point
        # The tree builder's list of formatting elements, which it reopens where they are not open:
        # an element's entry is its (name, attributes as written), a marker's a list of its
        # element's index in ``names`` and whether it surely is the tree builder's (the list keeps
        # a marker whose element closed until it is cleared). An entry leaves it only where the
        # tree builder's surely leaves, so ``listed``, its elements, is never below its list's.
        # ``unclosed`` counts them too, and those left out as a fourth of their kind, which may
        # stay open (each reopened copy of a <b> a stray </i> left open nests the next one
        # deeper): with the stack, the depth.
        self.formatting: list = []
        self.markers: list[list[int]] = []  # those whose element is open, in order
        self.listed = self.unclosed = 0
        self.body_templates: set[int] = set()  # the indices of templates whose content is a body
        self.fresh_template = -1  # the index of a template no start tag has followed yet
        self.paragraphs = 0  # HTML <p> elements open (none: no paragraph to close)

    def depth(self) -> int:
        return max(len(self.names), self.unclosed)

    def _push(self, name: str, space: str = "", html: bool = False) -> None:
        named = f"{space}:{name}" if space else name
        self.names.append(named)
        self.spaces.append(space)
        self.points.append(bool(space) and (named in _INTEGRATION or (named == "math:annotation-xml" and html)))
        self.paragraphs += named == "p"
        if named == "template":
            self.fresh_template = len(self.names) - 1
        if named in _MARKERS:
            marker = [len(self.names) - 1, True]
            self.formatting.append(marker)
            self.markers.append(marker)

    def _pop_to(self, i: int, own: bool = False) -> None:
        """Close the elements from ``i`` up; a cell or caption among them clears the list up to
        its last marker, as does an object, applet, marquee or template closed by its own end tag
        (``own``: the one at ``i``); a cell's marker that may be none of the tree builder's clears
        nothing (its entries, left in the list, are counted)."""
        names = self.names
        if self.paragraphs:
            self.paragraphs -= names[i:].count("p")
        if self.body_templates:
            self.body_templates = {j for j in self.body_templates if j < i}
        while self.markers and self.markers[-1][0] >= i:
            marker = self.markers.pop()
            if marker[1] and (names[marker[0]] in _CELL_OR_CAPTION or (own and marker[0] == i)):
                self._clear()
        del names[i:], self.spaces[i:], self.points[i:]

    def _clear(self) -> None:
        formatting = self.formatting
        while formatting and type(formatting[-1]) is not list:
            self._take_out(len(formatting) - 1)
        if formatting:
            formatting.pop()  # the marker

    def _last_marker(self) -> int:
        formatting = self.formatting
        for j in range(len(formatting) - 1, -1, -1):
            if type(formatting[j]) is list:
                return j
        return -1

    def _last_of(self, name: str) -> int:
        """The index of the last entry of ``name`` since the last marker, else -1."""
        formatting = self.formatting
        for j in range(len(formatting) - 1, -1, -1):
            if type(formatting[j]) is list:
                return -1
            if formatting[j][0] == name:
                return j
        return -1

    def _take_out(self, j: int, closed: bool = True) -> None:
        """Entry ``j`` out of the list; ``closed``: its element too (not one left out as a fourth
        of its kind, which may stay open)."""
        del self.formatting[j]
        self.listed -= 1
        self.unclosed -= closed

    def opened(self, name: str, attributes: bytes, html: bool = True) -> None:
        """A formatting element's start tag (``attributes`` as written, ends stripped of blanks):
        one more entry, as the tree builder adds (counted in SVG and MathML too, where the model
        may be and it not). As it does, an <a> read as HTML first takes out the <a> the list holds,
        and a fourth entry of the same name and attributes since the last marker the first."""
        formatting, entry = self.formatting, (name, attributes)
        if not formatting or type(formatting[-1]) is list:  # none since the last marker (most tags)
            formatting.append(entry)
            self.listed += 1
            self.unclosed += 1
            return
        if html and name == "a" and (j := self._last_of("a")) >= 0:
            self._take_out(j)
        start = self._last_marker() + 1
        same = [j for j in range(start, len(formatting)) if formatting[j] == entry]
        if len(same) >= 3:
            self._take_out(same[0], closed=False)
        formatting.append(entry)
        self.listed += 1
        self.unclosed += 1

    def _foreign_closed(self, name: str) -> None:
        """An SVG or MathML element of a formatting element's name closed by its end tag, under
        nothing named as a scope boundary: its entry goes (counted as a formatting element's where
        the model may be in SVG and the tree builder not: graphviz's SVG links are <a>)."""
        if (j := self._last_of(name)) >= 0:
            self._take_out(j)

    def closed(self, name: str) -> None:
        """A formatting element's end tag, read as HTML (before the stack is changed): the tree
        builder takes the last entry of its name out of its list unless none is there (past the
        last marker) or its element is open but out of scope, or under 8 special elements, or in a
        select; where the model cannot tell (a scope boundary above an element of that name; past
        ``_SCAN``; 7 special elements), the entry stays. (Its element, opened after the last
        marker, is above the marker's element if that is open.)"""
        formatting, names = self.formatting, self.names
        if formatting and names and names[-1] == name and type(formatting[-1]) is tuple and formatting[-1][0] == name:
            self._take_out(len(formatting) - 1)  # the last entry's, its element the current one (most end tags)
            return
        j = self._last_of(name)
        if j < 0:
            return
        last = self._last_marker()
        top = len(names) - 1
        bottom = formatting[last][0] if last >= 0 and self.markers and self.markers[-1] is formatting[last] else -1
        special = 0  # above it: the adoption agency gives up after 8 of them, the entry kept
        for i in range(top, bottom, -1):
            if top - i >= _SCAN or names[i] == "select":  # (in a select, the end tag is ignored)
                return
            if names[i] == name:
                if special >= 7:
                    return
                break
            if names[i] in _SCOPE_BOUNDARY and names[i] != "html":
                return
            special += names[i] in _SPECIAL
        self._take_out(j)

    def _table(self, stop: Callable[[str], bool] | None = None) -> int:
        """``_find`` of the nearest table or template, where table parts are read: none past a
        template whose content the tree builder reads as a body (its first start tag was no
        table part), where it ignores them."""
        names = self.names
        for i in range(len(names) - 1, max(-1, len(names) - 1 - _SCAN), -1):
            if names[i] == "table":
                return i
            if names[i] == "template":
                return -1 if i in self.body_templates else i
            if stop is not None and stop(names[i]):
                return -1
        return -1

    def _find(self, match: Callable[[str], bool], stop: Callable[[str], bool]) -> int:
        """The index of the topmost element ``match`` is true of, looking down from the top and
        stopping at one ``stop`` is true of (-1 then, or past ``_SCAN`` elements)."""
        names = self.names
        for i in range(len(names) - 1, max(-1, len(names) - 1 - _SCAN), -1):
            if match(names[i]):
                return i
            if stop(names[i]):
                return -1
        return -1

    def _close(self, match: Callable[[str], bool], stop: Callable[[str], bool], own: bool = False) -> None:
        i = self._find(match, stop)
        if i >= 0:
            self._pop_to(i, own)

    def _in_foreign(self) -> bool:
        return bool(self.names) and bool(self.spaces[-1]) and not self.points[-1]

    def _leave_foreign(self) -> None:
        while self._in_foreign():  # the tree builder closes the foreign elements it leaves
            self._pop_to(len(self.names) - 1)

    def start(self, name: str, self_closed: bool, breaks: bool = False, html: bool = False,
              written: bytes = b"") -> bool:
        """A start tag (``breaks``: one that leaves SVG and MathML whatever its name; ``html``: of
        an HTML encoding; ``written``: its attributes, ``_written``); whether it is of a raw-text
        element (its text to be skipped)."""
        if self.fresh_template >= 0:  # a template's first start tag: whether it reads a table or a body
            if self.fresh_template == len(self.names) - 1 and self.names[-1] == "template" and name not in _TABLE_PARTS:
                self.body_templates.add(self.fresh_template)
            self.fresh_template = -1
        if name in _FORMATTING:
            self.opened(name, written, not self._in_foreign() or name in _BREAKOUT or breaks)
        if self.points and self.points[-1] and name in ("mglyph", "malignmark") and self.names[-1] in _TEXT_POINTS:
            self._push(name, "math")  # MathML's own, in its text integration points
            return False
        if self._in_foreign():
            if name not in _BREAKOUT and not breaks:
                if not self_closed:  # SVG in MathML's annotation-xml is SVG
                    self._push(name, "svg" if name == "svg" and self.names[-1] == "math:annotation-xml"
                               else self.spaces[-1], html)
                return False
            self._leave_foreign()
        if name in _TABLE_PARTS:
            # A caption, and a cell at a caption or column, closes first (and clears its part of
            # the list of formatting elements): a model keeping it open cleared, at its table's
            # end, what the tree builder had added since.
            part = self._find(_PART_CONTEXT.__contains__, lambda n: False)
            if part >= 0 and (self.names[part] == "caption" or (
                    self.names[part] in ("td", "th") and name in ("caption", "col", "colgroup"))):
                self._pop_to(part)
            if name in ("caption", "col", "colgroup"):  # in a table, after all its open parts
                table = self._table()
                if table >= 0 and self.names[table] == "table":
                    self._pop_to(table + 1)
        if name in _VOID or name in ("html", "body"):  # (the tree builder merges their attributes)
            return False
        if name in _FOREIGN:
            if not self_closed:
                self._push(name, name)
            return False
        if name in _RAW_TEXT:
            if name in _CLOSES_P and self.paragraphs:  # xmp, plaintext
                self._close(lambda n: n == "p", _BUTTON_SCOPE.__contains__)
            return True
        # A <head> opens one before the body only, which the body's first content closes; a caption
        # or column group, in a table only.
        if name == "head" or (name in ("caption", "colgroup") and self._table() < 0):
            return False
        if name == "li":
            self._close(lambda n: n == "li", lambda n: n in _SPECIAL and n not in _ITEM_PASSES)
        elif name in ("dd", "dt"):
            self._close(lambda n: n in ("dd", "dt"), lambda n: n in _SPECIAL and n not in _ITEM_PASSES)
        if name in _CLOSES_P and self.paragraphs and not (self.quirks and name == "table"):
            self._close(lambda n: n == "p", _BUTTON_SCOPE.__contains__)
        names = self.names
        if name in _HEADINGS and names and names[-1] in _HEADINGS:
            self._pop_to(len(names) - 1)
        elif name in ("option", "optgroup") and names and names[-1] == "option":
            self._pop_to(len(names) - 1)
        elif name in _RUBY_PARTS and self._find(lambda n: n == "ruby", _SCOPE_BOUNDARY.__contains__) >= 0:
            while names and names[-1] in _RUBY_PARTS:
                self._pop_to(len(names) - 1)
        elif name in _CELL_ENDS:
            table = self._table()
            if table < 0:
                return False  # outside a table: ignored
            if names[table] == "table":
                self._close_part(name, table)
        elif name == "table":
            # a table in a table, not in a cell or caption of it: the tree builder closes the
            # first (a model keeping it open let a later </table> close what lexbor keeps)
            table = self._table(_CELL_OR_CAPTION.__contains__)
            if table >= 0 and names[table] == "table":
                self._pop_to(table)
        self._push(name)
        if name in _CELL_OR_CAPTION and names[self._table()] != "table":
            self.formatting[-1][1] = False  # in a template: the tree builder may have ignored it
        return False

    def _close_part(self, name: str, table: int) -> None:
        """A table part opened inside the table at ``table`` closes the open parts it ends (a
        cell, a row, a row group) above it; else the row group and row it implies are opened."""
        ends, names = _CELL_ENDS[name], self.names
        for i in range(table + 1, len(names)):  # the outermost: a row closes the cell in it too
            if names[i] in ends:
                self._pop_to(i)
                return
        # (a row or row group open: only what is missing below it)
        implied = {"td": ["tbody", "tr"], "th": ["tbody", "tr"], "tr": ["tbody"]}.get(name, [])
        for i in range(len(names) - 1, table, -1):
            if names[i] == "tr" or names[i] in ("tbody", "thead", "tfoot"):
                del implied[: 2 if names[i] == "tr" else 1]
                break
        for part in implied:
            self._push(part)

    def end(self, name: str) -> None:
        """An end tag."""
        names, spaces = self.names, self.spaces
        if names and names[-1] == (f"{spaces[-1]}:{name}" if spaces[-1] else name) and name not in _KEPT_OPEN:
            if name in _FORMATTING:
                self._foreign_closed(name) if spaces[-1] else self.closed(name)
            self._pop_to(len(names) - 1, not spaces[-1])  # the current element's end tag: every rule closes it
            return
        if names and spaces[-1]:
            if name in ("br", "p"):  # they leave SVG and MathML too
                self._leave_foreign()
            else:
                # SVG or MathML: its topmost element of that name, through foreign elements only
                for i in range(len(names) - 1, max(-1, len(names) - 1 - _SCAN), -1):
                    if names[i] == f"{spaces[i]}:{name}":
                        if name in _FORMATTING and not any(n.partition(":")[2] in _SCOPE_BOUNDARY for n in names[i + 1 :]):
                            self._foreign_closed(name)
                        self._pop_to(i)
                        return
                    if i == 0 or not spaces[i - 1]:
                        break
                else:
                    return  # past _SCAN: nothing closes
        if name in _KEPT_OPEN or name in _CURRENT_ENDS:
            return
        if name == "p":
            if self.paragraphs:
                self._close(lambda n: n == "p", _BUTTON_SCOPE.__contains__)
        elif name == "li":
            self._close(lambda n: n == "li", _LIST_SCOPE.__contains__)
        elif name in _HEADINGS:
            self._close(_HEADINGS.__contains__, _SCOPE_BOUNDARY.__contains__)
        elif name in _FORMATTING:
            self.closed(name)
            self._close(lambda n: n == name, lambda n: n in _SPECIAL or n in _SCOPE_BOUNDARY)
        elif name == "select":
            self._close(lambda n: n == "select", lambda n: n not in ("option", "optgroup"))
        elif name in _CELL_ENDS or name in ("table", "caption", "colgroup"):
            self._close(lambda n: n == name, _TABLE_SCOPE.__contains__)
        elif name == "template":
            self._close(lambda n: n == "template", lambda n: False, True)
        elif name in _SCOPED_ENDS:
            self._close(lambda n: n == name, _SCOPE_BOUNDARY.__contains__, True)
        else:
            self._close(lambda n: n == name, _SPECIAL.__contains__)


# (an SVG's and a formula's text is read, as in the tree, but not the elements left out there by
# name: those of ``SVG_HIDDEN`` and ``MATH_HIDDEN`` that are names, not selectors)
_FLAT_HIDDEN = {"script", "style", "noscript", "template", "textarea", "title", "head", "iframe"} | {
    n for n in SVG_HIDDEN + MATH_HIDDEN if re.fullmatch(r"[a-z-]+", n)}
_FLAT_SKIP = re.compile(r"<(?:(!--)|(%s)\b)" % "|".join(sorted(_FLAT_HIDDEN, key=lambda n: (-len(n), n))), re.I)
_ANY_TAG = re.compile(r"<[^<>]*>")


def flat_text(html: str) -> str:
    """The text of ``html`` without its tags, comments and the elements never shown it names
    (``_FLAT_SKIP``), in one linear scan (no tree): for pages too deeply nested to parse. An element or comment left open
    hides the rest of the page, as in a browser."""
    lower, parts, pos = html.lower(), [], 0
    while True:
        m = _FLAT_SKIP.search(html, pos)
        if m is None:
            parts.append(html[pos:])
            break
        parts.append(html[pos:m.start()])
        close = "-->" if m.group(1) else "</" + m.group(2).lower()
        end = lower.find(close, m.end())
        if end < 0:
            break
        pos = end + 3 if m.group(1) else lower.find(">", end) + 1 or len(html)
    return htmllib.unescape(_ANY_TAG.sub(" ", " ".join(parts)))


# Where a <script> or <style> element's body starts, or text where "<script" is no tag: a
# comment, or an element whose text is read raw (a title, a text area...: ``_RAW_TEXT``).
_LEFT_OUT = ("script", "style")
_SCRIPT_OR_TEXT = re.compile(f"<(?:({'|'.join(sorted(_RAW_TEXT))})(?=[\\s/>])|!--)", re.I | re.A)
_RAW_ENDS = {name: re.compile(f"</{name}", re.I | re.A) for name in _RAW_TEXT}


def scripts_left_out(html: str, limit: int) -> str:
    """The first ``limit`` characters of ``html`` once the bodies of its ``<script>`` and
    ``<style>`` elements, which no browser shows, are left out (their tags stay): a page whose
    text starts after megabytes of inlined script (a notebook's plotting library) is read by its
    text, not by the script its site's pages share. One linear scan, stopped at ``limit``; a
    comment or another raw-text element (a title, a text area) is skipped whole, a self-closed
    ``<script/>`` closes itself (as ``_close_raw_text`` reads it), and one left open hides the
    rest of the page."""
    parts, size, pos, at = [], 0, 0, 0
    while size < limit:
        m = _SCRIPT_OR_TEXT.search(html, at)
        if m is None:
            break
        if m.group(1) is None:  # a comment
            end = html.find("-->", m.end())
            if end < 0:
                break
            at = end + 3
            continue
        start = html.find(">", m.end()) + 1
        name = m.group(1).lower()
        if not start or name == "plaintext":  # a tag left open, or plaintext (even "<plaintext/>",
            break  # which the parse does not close: ``_SWALLOWERS``): the rest is in it
        if html[start - 2] == "/":  # self-closed
            at = start
            continue
        end = _RAW_ENDS[name].search(html, start)
        if name in _LEFT_OUT:
            parts.append(html[pos:min(start, pos + limit - size)])
            size += len(parts[-1])
            pos = at = end.start() if end else len(html)
        elif end is None:  # left open: the rest is its text
            break
        else:
            at = end.start()
    parts.append(html[pos:pos + max(limit - size, 0)])
    return "".join(parts)


def _close_raw_text(html: str) -> str:
    """``html`` with its self-closed raw-text elements (``<iframe .../>``, ``<title/>``) closed by
    an end tag: see ``_SWALLOWERS``."""
    return _SELF_CLOSED_RAW.sub(r"<\1\2></\1>", html)


