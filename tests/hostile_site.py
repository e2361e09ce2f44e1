"""A hostile documentation site and its mirror, for the real crawls of tests/test_hostile_crawl.py.

Host A is *Larchwood*, a plain-text notebook tool: its documentation, blog, shop and a small
multilingual news section. Host B is a mirror of it (``build_site(mirror=True)``): exact copies
of some pages, near copies of others, different pages at some paths. The pages are the ones
issue 10 reported, each case several times:

1. ``LEGACY`` -- DocBook/XSLT output starting ``<!DOCTYPE html SYSTEM "about:legacy-compat">``,
   no ``<main>`` (one served as ``application/xhtml+xml``); ``/guide/install-logs.html`` is
   linked only from ``/guide/install.html``.
2. ``LINK_PAGES`` -- link-dominated pages (a table of contents, an index of functions, a list of
   statements, a release list) in a template whose only other text is a five-word tagline in a
   ``<div>`` header; and link lists (blog archive, tags, projects) beside a cookie notice.
3. ``NEAR`` -- short link-heavy pages to which the mirror adds a notice line or a footer line,
   and a sitemap with one footer line added.
4. ``SCRIPTS`` -- Russian, Japanese and Greek news articles sharing only an English byline;
   ``NO_ASCII`` pages with no ASCII word at all; ``DATES`` pages of only dates and versions.
5. ``SHORT`` -- pages of fewer than 5 content words (an empty basket, an empty wishlist that
   differs from it by one word, a login wall), ``SOFT_404`` -- one "not found" page served with
   status 200 at several URLs, and ``EMPTY`` -- pages with no visible text at all.
6. ``DEEP_PATH`` -- 50,000 unclosed ``<div><span>`` (about 550 KB); only in
   ``build_site(deep=True)``, so that the crawls of the other cases do not wait on it.
7. ``ODD`` -- pages that must simply survive: NUL bytes and invalid UTF-8, HTML 4.01 tag soup,
   and different pages whose menu holds a self-closed ``<iframe .../>`` (which HTML leaves open:
   the rest of each page was its invisible text, and every page the same menu).

Everything is deterministic. Links into ``/ref/``, ``/manual/ch/``, ``/blog/posts/``... are
disallowed by robots.txt, so the long link lists cost no requests. ``MIRROR_EXPECT`` says what
the middleware must do with each mirror page after A was crawled into the same store.
"""

from __future__ import annotations

import datetime
from html import escape

from contentseen.demosite import Page, Site

NAME = "Larchwood"
TAGLINE = "Plain text notes, linked and searchable"  # 5 content words, on every docs page
COOKIE_TEXT = "We use cookies to remember your settings and count visits."
BYLINE = "Posted by admin in News category, 12 comments, share this article."
MIRROR_NOTICE = "Notice: downloads on this mirror are refreshed every six hours from the primary server."
MIRROR_FOOTER = "Mirror hosted by the Oakridge University computing society since 2016."
SITEMAP_FOOTER = "This copy was made on 18 June 2024 and may trail the live site."

HTML = "text/html; charset=utf-8"
XHTML = "application/xhtml+xml; charset=utf-8"

DROPPED, KEPT, EMPTY_KEPT, UNREACHED = "dropped", "kept", "empty", "unreached"

ROBOTS_A = """User-agent: *
Disallow: /ref/
Disallow: /manual/ch/
Disallow: /blog/posts/
Disallow: /releases/notes/
Disallow: /downloads/files/
Disallow: /community/p/
"""
ROBOTS_B = ROBOTS_A + "Disallow: /mirror-status/\n"


# --------------------------------------------------------------------------------------------
# Templates

MENU = (("/manual/contents.html", "Manual"), ("/api/functions.html", "API"), ("/releases/", "Releases"),
        ("/downloads.html", "Download"), ("/support.html", "Support"), ("/blog/archive.html", "Blog"))


def docs_page(title: str, body: str, *, notice: str | None = None, footer_line: str | None = None) -> str:
    """The documentation template: a ``<div>`` header whose only text outside links is the
    tagline, the page body in ``<div id="page">``, a footer ``<div>`` of links."""
    menu = "\n".join(f'    <li><a href="{href}">{label}</a></li>' for href, label in MENU)
    notice_html = f'\n  <p class="notice">{escape(notice)}</p>' if notice else ""
    footer_html = f'\n  <p class="mirror-note">{escape(footer_line)}</p>' if footer_line else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{escape(title)} &middot; {NAME}</title>
<link rel="stylesheet" href="/static/larchwood.css?v=31">
<script src="/static/menu.js" defer></script>
</head>
<body>
<div id="top">
  <div class="brand"><a href="/"><img src="/static/logo.svg" alt="" width="24" height="24"> {NAME}</a>
  <span class="tagline">{TAGLINE}</span></div>
  <ul class="menu">
{menu}
  </ul>
</div>
<div id="page">{notice_html}
{body}
</div>
<div id="bottom">
  <p><a href="/sitemap.html">Sitemap</a> | <a href="/ref/license.html">License</a> |
  <a href="https://git.example.org/larchwood/larchwood">Source code</a> |
  <a href="/support.html">Contact</a></p>{footer_html}
</div>
</body>
</html>
"""


def blog_page(title: str, body: str) -> str:
    """The blog template: a semantic header and footer (left out by extraction), the content in
    a ``<div>`` beside a cookie notice."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{escape(title)} | {NAME} blog</title>
  <link rel="stylesheet" href="/static/blog.css">
  <link rel="alternate" type="application/atom+xml" href="/blog/feed.atom">
</head>
<body class="blog">
  <header class="blog-head">
    <a href="/" class="home">{NAME}</a> <a href="/blog/archive.html">Blog</a>
    <nav><a href="/blog/tags.html">Tags</a> <a href="/community/projects.html">Community</a>
    <a href="/blog/feed.atom">Feed</a></nav>
  </header>
  <div class="content">
{body}
  </div>
  <footer><a href="/ref/license.html">CC BY-SA 4.0</a> <a href="/support.html">Contact</a></footer>
  <div class="cookie-notice" id="cookies">{COOKIE_TEXT}
    <a href="#accept" class="button">Accept</a> <a href="/ref/privacy.html">Details</a></div>
  <script>document.getElementById("cookies").hidden = localStorage.cookiesOk === "1";</script>
</body>
</html>
"""


def news_page(lang: str, title: str, paragraphs: list[str], dateline: str) -> str:
    """A news article in ``lang`` with the site's English chrome and byline."""
    paras = "\n".join(f"      <p>{escape(p)}</p>" for p in paragraphs)
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <title>{escape(title)}</title>
  <link rel="stylesheet" href="/static/news.css">
</head>
<body>
  <nav class="news-nav"><a href="/">{NAME}</a> <a href="/news/">News</a> <a href="/support.html">Contact</a></nav>
  <main>
    <article lang="{lang}">
      <h1>{escape(title)}</h1>
      <p class="byline">{BYLINE}</p>
      <p class="dateline">{dateline}</p>
{paras}
    </article>
  </main>
  <footer><p><a href="/">{NAME}</a> &middot; <a href="/ref/privacy.html">Privacy</a></p></footer>
</body>
</html>
"""


def native_page(lang: str, title: str, menu: tuple[str, ...], paragraphs: list[str], footer: str) -> str:
    """A page in which no visible text is ASCII letters: chrome, content and footer in ``lang``."""
    items = "".join(f'<li><a href="#m{i}">{escape(m)}</a></li>' for i, m in enumerate(menu))
    paras = "\n".join(f"    <p>{escape(p)}</p>" for p in paragraphs)
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
  <meta charset="utf-8">
  <title>{escape(title)}</title>
</head>
<body>
  <div class="menu"><ul>{items}</ul></div>
  <div class="text">
    <h1>{escape(title)}</h1>
{paras}
  </div>
  <div class="foot">{escape(footer)}</div>
</body>
</html>
"""


def bare_page(title: str, body: str) -> str:
    """A page with almost no template: what shops and login walls send."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{escape(title)}</title>
<link rel="stylesheet" href="/static/shop.css"></head>
<body>
{body}
</body>
</html>
"""


LEGACY_DOCTYPE = '<!DOCTYPE html SYSTEM "about:legacy-compat">'


def legacy_page(title: str, chapter: str, sections: list[tuple[str, str, list[str]]], *,
                prev: str, next_: str, xhtml: bool = False, extra: str = "") -> str:
    """DocBook XSL output: the legacy-compat doctype, a navigation table, a chapter of
    sections, no ``<main>``."""
    toc = "\n".join(
        f'<dt><span class="section"><a href="#{sid}">{escape(head)}</a></span></dt>' for sid, head, _ in sections)
    body = "\n".join(
        f'<div class="section"><div class="titlepage"><div><div><h3 class="title"><a id="{sid}"></a>'
        f"{escape(head)}</h3></div></div></div>\n" + "\n".join(f"<p>{escape(p)}</p>" for p in paras) + "\n</div>"
        for sid, head, paras in sections)
    html_open = '<html xmlns="http://www.w3.org/1999/xhtml" lang="en">' if xhtml else '<html lang="en">'
    meta = '<meta charset="UTF-8" />' if xhtml else '<meta charset="UTF-8">'
    return f"""{LEGACY_DOCTYPE}
{html_open}<head>{meta}<title>{escape(title)}</title><link rel="stylesheet" type="text/css" href="/static/docbook.css" /><meta name="generator" content="DocBook XSL Stylesheets Vsnapshot" /></head><body><div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="3" align="center">{escape(title)}</th></tr><tr><td width="20%" align="left"><a accesskey="p" href="{prev}">Prev</a> </td><th width="60%" align="center">Part I. Getting started</th><td width="20%" align="right"> <a accesskey="n" href="{next_}">Next</a></td></tr></table><hr /></div><div class="chapter"><div class="titlepage"><div><div><h2 class="title"><a id="chapter"></a>{escape(chapter)}</h2></div></div></div><div class="toc"><p><b>Table of Contents</b></p><dl class="toc">
{toc}
</dl></div>
{body}
{extra}
</div><div class="navfooter"><hr /><table width="100%" summary="Navigation footer"><tr><td width="40%" align="left"><a accesskey="p" href="{prev}">Prev</a> </td><td width="20%" align="center"> </td><td width="40%" align="right"> <a accesskey="n" href="{next_}">Next</a></td></tr><tr><td width="40%" align="left" valign="top"> </td><td width="20%" align="center"><a accesskey="h" href="/">Home</a></td><td width="40%" align="right" valign="top"> </td></tr></table></div></body></html>
"""


def link_list(items: list[tuple[str, str]], cls: str = "links") -> str:
    lines = "\n".join(f'    <li><a href="{href}">{escape(text)}</a></li>' for href, text in items)
    return f'  <ul class="{cls}">\n{lines}\n  </ul>'


def slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split())


# --------------------------------------------------------------------------------------------
# Case 1: the legacy-compat doctype (DocBook XSL output), no <main>

INSTALL = legacy_page(
    "Chapter 1. Installing Larchwood", "Chapter 1. Installing Larchwood",
    [("install-linux", "1.1. On Linux", [
        "Larchwood is packaged for Debian, Ubuntu and Fedora. The packages install the command-line "
        "tool, the desktop application and a man page for every subcommand; they pull in no server "
        "components and change no system settings.",
        "On distributions without a package, unpack the portable archive into your home directory "
        "and add its bin folder to the search path of your shell. The archive bundles its own "
        "copy of the runtime, so it works on systems older than the packaged builds support.",
    ]), ("install-macos", "1.2. On macOS", [
        "Drag the application from the disk image to the Applications folder. The first start "
        "asks whether Larchwood may watch the folder that holds your notebooks; without that "
        "permission, edits made by other programs appear only after a manual refresh.",
    ]), ("install-check", "1.3. Checking the installation", [
        "Run the version subcommand in a terminal. It prints the release number, the location of "
        "the configuration file and the notebooks it found. If the command is not found, open a "
        "new terminal so that the changed search path takes effect, and see the installation "
        "logs for the messages the installer wrote.",
    ])],
    prev="/manual/contents.html", next_="/guide/configure.html",
    extra='<p class="seealso">See also: <a href="/guide/install-logs.html">Reading the installer logs</a>.</p>',
)

CONFIGURE = legacy_page(
    "Chapter 2. Configuring Larchwood", "Chapter 2. Configuring Larchwood",
    [("config-file", "2.1. The configuration file", [
        "Settings live in a single file in the TOML format, created with commented defaults the "
        "first time the program starts. Each notebook may carry its own file, whose values take "
        "precedence over the global ones for that notebook only.",
        "Editors that keep swap files beside the files they edit should be told to put them "
        "elsewhere: otherwise every swap file shows up as a stray note until it is deleted.",
    ]), ("config-editor", "2.2. Choosing an editor", [
        "Larchwood opens notes in its built-in editor unless the editor key names a command. "
        "The command receives the path of the note and, when it supports one, the line to jump "
        "to, so that following a link lands on the heading it points at.",
    ]), ("config-fonts", "2.3. Fonts, colours and line width", [
        "The reading view uses the system serif font at a comfortable measure of about seventy "
        "characters. Themes may override the palette; a high-contrast theme and a theme for "
        "readers with deuteranopia ship with every release.",
    ])],
    prev="/guide/install.html", next_="/guide/upgrade.html", xhtml=True,
)

UPGRADE = legacy_page(
    "Chapter 3. Upgrading from an older release", "Chapter 3. Upgrading from an older release",
    [("upgrade-backup", "3.1. Before you upgrade", [
        "Close the application on every computer that shares the notebooks, wait for the sync "
        "indicator to settle, and make a copy of the notebook folders. The upgrade rewrites the "
        "search index but never touches the text of a note.",
    ]), ("upgrade-index", "3.2. Rebuilding the index", [
        "Release four stores the search index in a new format. On first start it is rebuilt in "
        "the background; searches made meanwhile return results from the notes indexed so far, "
        "marked as partial, and complete themselves once the rebuild finishes.",
        "Large notebooks with tens of thousands of notes take a few minutes. The progress "
        "appears in the status bar and in the log file, one line for every thousand notes.",
    ]), ("upgrade-plugins", "3.3. Plugins written for release three", [
        "The plugin interface changed its event names. Plugins that were not updated are "
        "disabled on start and listed in a dialog with a link to each one's project page, so "
        "that nothing fails silently after the upgrade.",
    ])],
    prev="/guide/configure.html", next_="/manual/contents.html",
)

INSTALL_LOGS = legacy_page(
    "Appendix A. Reading the installer logs", "Appendix A. Reading the installer logs",
    [("logs-where", "A.1. Where the logs are", [
        "The installer keeps a plain log in the temporary folder of the user who ran it, named "
        "after the date and time of the run. Package managers keep their own records as well: "
        "the journal on most Linux systems and the unified log on macOS.",
    ]), ("logs-errors", "A.2. Common messages", [
        "A line about a missing shared library means the portable archive was unpacked on a "
        "system older than the oldest one supported; install the distribution package instead. "
        "A permission error on the notebook folder usually comes from an earlier installation "
        "that was run with administrator rights and left files owned by another account.",
    ])],
    prev="/guide/install.html", next_="/guide/configure.html",
)

UNINSTALL_B = legacy_page(
    "Chapter 9. Removing Larchwood", "Chapter 9. Removing Larchwood",
    [("remove-packages", "9.1. Removing the packages", [
        "Uninstalling the program leaves your notebooks where they are: they are ordinary "
        "folders of text files and belong to you, not to the application. Remove the package "
        "with the same tool that installed it, or delete the unpacked portable folder.",
    ]), ("remove-settings", "9.2. Removing settings and caches", [
        "The configuration file, the thumbnail cache and the search index stay behind in the "
        "usual per-user folders. Deleting them is safe; a later installation recreates them and "
        "reindexes every notebook it is pointed at.",
        "Browser extensions and the mobile companion are separate programs and are removed "
        "through the browser and the phone respectively.",
    ])],
    prev="/guide/upgrade.html", next_="/manual/contents.html",
)


# --------------------------------------------------------------------------------------------
# Case 2: link-dominated pages sharing a tagline (docs template) or a cookie notice (blog)

TOC = {
    "Getting started": ["Installing Larchwood", "Creating your first notebook", "Writing notes in plain text",
                        "Linking notes together", "Searching a notebook", "Keyboard shortcuts"],
    "Organising notes": ["Folders and notebooks", "Tags and tag hierarchies", "Pinning and archiving",
                         "Templates for recurring notes", "Daily journals", "Renaming without breaking links"],
    "Writing": ["The Markdown dialect", "Tables and lists", "Embedding images", "Footnotes and citations",
                "Mathematics with TeX", "Code blocks and syntax colouring", "Diagrams from text"],
    "Queries": ["The query language at a glance", "Filtering by date", "Saved searches",
                "Sorting and grouping results", "Full-text ranking", "Regular expressions"],
    "Sync and backup": ["Syncing over Git", "Syncing through a shared folder", "Resolving conflicts",
                        "Encrypted backups", "Restoring an older version"],
    "Publishing": ["Exporting to HTML", "Building a static website", "Themes and layouts",
                   "Uploading to a web server", "Generating a printable book", "Slides from an outline"],
    "Extending": ["Writing plugins", "Event hooks", "Entries in the command palette",
                  "Packaging and sharing a plugin", "Scripting from the terminal"],
    "Reference": ["Configuration file format", "Command-line options", "Environment variables",
                  "File layout on disk", "Glossary", "Frequently asked questions"],
    "Appendices": ["Migrating from Evernote", "Migrating from Joplin", "Migrating from org-mode",
                   "Accessibility", "Known limitations", "Credits"],
}


def contents_body() -> str:
    parts = ["  <h1>Contents</h1>", '  <ol class="toc">']
    for ch, (chapter, sections) in enumerate(TOC.items(), 1):
        parts.append(f'    <li><a href="/manual/ch/{ch:02d}.html">{escape(chapter)}</a>\n      <ol>')
        for sec, title in enumerate(sections, 1):
            parts.append(f'        <li><a href="/manual/ch/{ch:02d}.html#s{sec}">{escape(title)}</a></li>')
        parts.append("      </ol></li>")
    parts.append("  </ol>")
    return "\n".join(parts)


API_A = {
    "attachment": ["add", "remove", "list", "path", "thumbnail"],
    "config": ["get", "set", "reset", "path", "validate"],
    "export": ["html", "pdf", "epub", "markdown", "site"],
    "history": ["versions", "diff", "restore", "prune"],
    "index": ["rebuild", "status", "vacuum", "stats"],
    "journal": ["today", "entry_for", "week", "month", "template"],
    "link": ["resolve", "rewrite", "broken", "outgoing", "incoming"],
    "note": ["create", "read", "write", "delete", "move", "copy", "title", "backlinks"],
    "notebook": ["open", "close", "create", "list_notes", "rename", "path", "lock", "unlock"],
    "plugin": ["register", "unregister", "hook", "command", "settings"],
    "query": ["parse", "run", "explain", "save", "load", "compile"],
    "sync": ["push", "pull", "status", "resolve_conflict", "history", "configure"],
    "tag": ["add", "remove", "rename", "merge", "list_all", "children"],
    "template": ["render", "list", "variables", "register"],
    "util": ["slugify", "word_count", "parse_date", "now"],
}

API_B = [  # the mirror's page at the same path: the index of the server's HTTP API
    "List notebooks", "Create a notebook", "Delete a notebook", "Fetch a notebook's settings",
    "Change a notebook's settings", "List the notes of a notebook", "Upload a note", "Download a note",
    "Replace a note's text", "Append to a note", "Move a note between notebooks", "Fetch a note's revisions",
    "Compare two revisions", "Revert to a revision", "List attachments", "Upload an attachment",
    "Stream an attachment", "Remove an attachment", "Search across notebooks", "Explain a search plan",
    "Create an access token", "Revoke an access token", "List active sessions", "End a session",
    "Invite a collaborator", "Accept an invitation", "Change a collaborator's role",
    "Remove a collaborator", "Subscribe to change events", "Unsubscribe from change events",
    "Server health check", "Server version and build", "Rotate the signing key", "Export the audit trail",
    "Schedule a backup", "List backups", "Restore a backup", "Purge deleted notes",
    "Quota and storage usage", "Rate-limit status", "Webhook deliveries", "Retry a webhook delivery",
    "Register an OAuth client", "Update an OAuth client", "Delete an OAuth client", "Well-known metadata",
]


def functions_body_a() -> str:
    entries = sorted((f"{mod}.{fn}()", f"/ref/api/{mod}.html#{fn}") for mod, fns in API_A.items() for fn in fns)
    parts = ["  <h1>Index of functions</h1>"]
    letter = ""
    for name, href in entries:
        if name[0] != letter:
            if letter:
                parts.append("  </ul>")
            letter = name[0]
            parts.append(f'  <h2 id="{letter}">{letter.upper()}</h2>\n  <ul class="index">')
        parts.append(f'    <li><a href="{href}"><code>{escape(name)}</code></a></li>')
    parts.append("  </ul>")
    return "\n".join(parts)


def functions_body_b() -> str:
    items = [(f"/ref/http/{slug(t)}.html", t) for t in API_B]
    return "  <h1>Index of server endpoints</h1>\n" + link_list(items, "index")


STATEMENTS_A = [
    "SELECT NOTES", "FROM NOTEBOOK", "WHERE", "ORDER BY", "GROUP BY", "LIMIT", "OFFSET", "WITH TAG",
    "WITHOUT TAG", "LINKED FROM", "LINKING TO", "CREATED BEFORE", "CREATED AFTER", "MODIFIED SINCE",
    "CONTAINS", "MATCHES", "NEAR", "SAVE AS", "LOAD", "EXPLAIN", "DEFINE MACRO", "DROP MACRO",
    "SET OPTION", "SHOW OPTIONS", "UNION", "INTERSECT", "EXCEPT", "COUNT", "DISTINCT", "TOP",
    "RANDOM SAMPLE", "EXPORT TO", "PIN", "UNPIN", "ARCHIVE", "RESTORE", "TAG WITH", "UNTAG",
    "MOVE TO", "COPY TO",
]

DIRECTIVES_B = [  # the mirror's page at the same path: the template directives of an older release
    "include", "extends", "block", "macro", "call", "filter", "raw", "date format", "slugify",
    "truncate", "uppercase", "lowercase", "capitalize", "join", "default value", "length", "reverse",
    "sort", "unique", "escape", "markdown", "excerpt", "word count", "reading time",
    "table of contents", "backlinks", "related notes", "breadcrumbs", "parent notebook",
    "child notebooks", "random quote", "weekday name", "month calendar", "image gallery",
    "embed note", "embed query", "footnote list", "citation", "bibliography", "comment",
]


def statements_body(names: list[str], heading: str, kind: str) -> str:
    items = [(f"/ref/{kind}/{slug(n)}.html", f"{n} {kind}") for n in names]
    return f"  <h1>{heading}</h1>\n" + link_list(items, kind)


RELEASES = [
    ("4.2.1", "18 June 2024"), ("4.2.0", "2 May 2024"), ("4.1.3", "19 March 2024"), ("4.1.2", "27 February 2024"),
    ("4.1.1", "30 January 2024"), ("4.1.0", "12 December 2023"), ("4.0.2", "7 November 2023"),
    ("4.0.1", "10 October 2023"), ("4.0.0", "21 September 2023"), ("3.9.4", "15 August 2023"),
    ("3.9.3", "11 July 2023"), ("3.9.2", "6 June 2023"), ("3.9.1", "9 May 2023"), ("3.9.0", "4 April 2023"),
    ("3.8.2", "28 February 2023"), ("3.8.1", "24 January 2023"), ("3.8.0", "13 December 2022"),
    ("3.7.1", "8 November 2022"), ("3.7.0", "4 October 2022"), ("3.6.0", "23 August 2022"),
    ("3.5.1", "19 July 2022"), ("3.5.0", "14 June 2022"), ("3.4.0", "3 May 2022"), ("3.3.0", "22 March 2022"),
    ("3.2.0", "8 February 2022"), ("3.1.0", "14 December 2021"), ("3.0.0", "2 November 2021"),
    ("2.9.0", "21 September 2021"), ("2.8.0", "10 August 2021"), ("2.7.0", "29 June 2021"),
]


def releases_body() -> str:
    items = [(f"/releases/notes/{v}.html", f"{NAME} {v} ({d})") for v, d in RELEASES]
    return "  <h1>Releases</h1>\n" + link_list(items, "releases")


POSTS = [
    "Why we store every note as a plain file", "A year of Larchwood on the desktop",
    "Faster search in release four", "How the sync engine resolves conflicts", "Designing the command palette",
    "What we learned from a hundred bug reports", "Interview: a historian's research notebook",
    "Notes from the writers' meetup in Ghent", "Keyboard-first editing, revisited", "Backups you can read without us",
    "The new Markdown tables", "Translating the interface into eleven languages",
    "An accessibility audit and what it changed", "Plugins we liked this spring", "Diagrams as text, finally",
    "Why the index format changed", "Encrypting notebooks at rest", "Journaling every day for a year",
    "Teaching with shared notebooks", "The road to release four", "Funding update for the autumn",
    "Packaging for Flatpak and Snap", "A tour of the configuration file", "Reading mode and typography",
    "Importing twenty thousand notes from Evernote", "A small change to how links are resolved",
    "Our roadmap for the next twelve months", "Ten tips for tidy tags", "Making the mobile companion feel native",
    "Citations for students and academics", "How we test on three operating systems",
    "Dark themes without eye strain", "The story behind the logo", "Lessons from our first conference talk",
    "Searching with regular expressions", "Daily notes with templates", "Publishing a garden of notes",
    "Writing a book in Larchwood", "Security review results", "Community call recordings are online",
    "A faster start on older laptops", "Thank you to our translators", "Moving the forum to a new home",
    "Sync over your own Git server", "Saved searches as a dashboard", "The plugin interface in release four",
    "Release candidates and how to test them", "Exporting slides from outlines", "Two maintainers join the team",
    "Ten years of plain text notes",
]

TAGS_A = [
    "backup", "encryption", "git", "markdown", "plugins", "release", "roadmap", "community", "accessibility",
    "performance", "search", "sync", "mobile", "design", "themes", "tutorial", "interview", "conference",
    "translation", "security", "privacy", "packaging", "windows", "macos", "linux", "android", "keyboard",
    "journaling", "research", "students", "writers", "teams", "import", "export", "printing", "latex",
    "diagrams", "tables", "bugs", "funding",
]

TAGS_B = [  # the mirror's page at the same path: the mirror operators' own blog tags
    "mirrors", "bandwidth", "rsync", "uptime", "ipv6", "datacentre", "outage", "maintenance", "hardware",
    "storage", "disks", "raid", "cooling", "power", "monitoring", "alerts", "volunteers", "students",
    "budget", "donations", "university", "network", "peering", "routing", "firewall", "certificates",
    "dns", "caching", "load", "statistics", "traffic", "archive", "retention", "checksums", "signatures",
    "torrents", "scheduling", "cron", "documentation", "history",
]

PROJECTS = [
    "Larchwood mode for Emacs", "Vim bindings for the editor", "A Zotero citation bridge",
    "Calendar sidebar plugin", "Spaced repetition flashcards", "Kanban boards from tagged notes",
    "Pandoc export filters", "Sync through WebDAV", "Reading list importer", "Recipe collection template",
    "Habit tracker for daily notes", "Map view for notes with places", "Graph of linked notes in 3D",
    "Voice memo transcription", "Grammar checker integration", "Word count goals", "Pomodoro timer",
    "Outline to mind map", "Bibliography formatter", "Photo journal template", "Reading time estimates",
    "Quick capture from the browser", "Email to notebook gateway", "Printable index cards",
    "Typewriter scrolling mode", "Focus mode for long drafts", "Notebook statistics dashboard",
    "Latin text utilities", "Chess game notation viewer", "Gardening journal", "Birdwatching log",
    "Reading group minutes", "Lab notebook for chemists", "Screenplay formatting", "Poetry metre checker",
]


def archive_body() -> str:
    items = [(f"/blog/posts/{slug(t)}.html", t) for t in POSTS]
    return "    <h1>Archive</h1>\n" + link_list(items, "archive")


def tags_body(tags: list[str]) -> str:
    links = "\n".join(f'      <a class="tag" href="/blog/posts/tag-{t}.html">{t}</a>' for t in tags)
    return f'    <h1>Tags</h1>\n    <p class="cloud">\n{links}\n    </p>'


def projects_body() -> str:
    items = [(f"/community/p/{slug(t)}.html", t) for t in PROJECTS]
    return "    <h1>Community projects</h1>\n" + link_list(items, "projects")


# --------------------------------------------------------------------------------------------
# Case 3: short link-heavy pages and a sitemap (their mirror copies add a line)

DOWNLOADS = [
    "Debian and Ubuntu package (64-bit)", "Debian and Ubuntu package (ARM)", "Fedora package (64-bit)",
    "Fedora package (ARM)", "Arch Linux package", "Flatpak bundle", "Snap package", "Portable Linux archive",
    "macOS disk image (Apple silicon)", "macOS disk image (Intel)", "Windows installer (64-bit)",
    "Windows portable zip", "Android companion app", "Source tarball", "Detached signatures",
    "SHA-256 checksums", "Release signing key", "Older releases",
]

SUPPORT = [
    ("https://lists.example.org/larchwood-users", "Users' mailing list"),
    ("https://lists.example.org/larchwood-dev", "Developers' mailing list"),
    ("https://chat.example.org/#larchwood", "Chat room"),
    ("https://forum.example.org/c/larchwood", "Community forum"),
    ("https://git.example.org/larchwood/larchwood/issues", "Bug tracker"),
    ("https://git.example.org/larchwood/larchwood/security", "Reporting a security problem"),
    ("/manual/ch/08.html#s6", "Frequently asked questions"), ("/manual/ch/05.html#s3", "Sync conflicts"),
    ("/manual/ch/01.html#s1", "Installation problems"), ("/manual/ch/09.html#s5", "Known limitations"),
    ("https://translate.example.org/projects/larchwood", "Translation platform"),
    ("https://example.org/larchwood/donate", "Supporting the project"),
    ("https://example.org/larchwood/consulting", "Commercial support"),
    ("https://social.example.org/@larchwood", "Announcements"),
    ("/blog/archive.html", "Blog"),
]


def downloads_body() -> str:
    items = [(f"/downloads/files/{slug(t)}", t) for t in DOWNLOADS]
    return ("  <h1>Download Larchwood 4.2.1</h1>\n  <p>Pick the build for your system; every file is signed.</p>\n"
            + link_list(items, "downloads"))


SCREENSHOTS = [(f"#{slug(t)}", t) for t in (
    "Library view on a wide desktop", "Library view on a tablet", "Reader in the dark theme", "Reader in the light theme",
    "Search results with filters", "Import dialog with progress", "Settings: storage and backups",
    "Settings: accounts and sharing", "Phone: the library", "Phone: reading a chapter", "Phone: downloads",
    "Annotations side panel", "Statistics of reading time", "Keyboard shortcuts overlay", "The command palette",
    "Two books side by side", "Export to an e-reader", "Sync status after a conflict", "Plugin manager",
    "First start: choosing a folder")]


SLIVER_PAGE = "/screenshots.html"


def screenshots_body() -> str:
    # No heading: the one sentence is the page's only text outside links, a sliver of its text.
    return ("  <p>Screenshots of Larchwood on desktops, tablets and phones, in the light and dark themes.</p>\n"
            + link_list(SCREENSHOTS, "gallery"))


def support_body() -> str:
    return ("  <h1>Getting help</h1>\n  <p>Volunteers answer questions in these places, usually within a day.</p>\n"
            + link_list(SUPPORT, "support"))


# --------------------------------------------------------------------------------------------
# Case 4: other scripts

NEWS: dict[str, tuple[str, str, list[str], str]] = {
    # path: (lang, title, paragraphs, dateline)
    "/news/ru/tram-depot.html": ("ru", "Трамвайное депо на Садовой улице откроется после ремонта", [
        "После двух лет реконструкции трамвайное депо на Садовой улице снова принимает вагоны. Строители "
        "заменили кровлю, восстановили кирпичный фасад начала прошлого века и проложили новые пути к "
        "ремонтным канавам.",
        "По словам директора депо, теперь здесь одновременно могут обслуживаться до двенадцати вагонов. "
        "Раньше мастерам приходилось работать под открытым небом, а зимой осмотр тележек занимал почти "
        "вдвое больше времени.",
        "Жители соседних домов жаловались на шум во время работ, поэтому городская администрация обещает "
        "высадить вдоль забора липы и установить шумозащитные экраны. Первые трамваи выйдут на линию из "
        "обновлённого депо уже в понедельник.",
    ], "14.03.2024"),
    "/news/ru/embankment.html": ("ru", "Набережную откроют для велосипедистов", [
        "Городской совет утвердил проект новой велосипедной дорожки вдоль набережной. Дорожка длиной около "
        "четырёх километров соединит речной вокзал с парком Победы.",
        "Пешеходную часть расширят, а между ней и велосипедной полосой посадят кустарник. На спусках к воде "
        "появятся пандусы для детских колясок и инвалидных кресел.",
        "Работы начнутся весной и должны завершиться к концу сентября. На время строительства движение по "
        "набережной будет частично ограничено, объезд обозначат временными знаками.",
    ], "02.02.2024"),
    "/news/ja/library-hours.html": ("ja", "市立図書館、平日の開館時間を午後九時まで延長", [
        "市立中央図書館は来月から、平日の開館時間を午後九時まで延長すると発表した。仕事や学校の帰りに"
        "立ち寄りたいという利用者の声に応えたもので、土日の開館時間はこれまでどおり午後六時までとなる。",
        "延長に合わせて、二階の自習室には電源付きの座席が四十席増設される。また、夜間は貸し出しカウンターを"
        "一か所にまとめ、返却は正面入口横の返却ポストでも受け付ける。",
        "図書館の担当者は「夜の時間帯にも安心して本を選べる場所にしたい」と話している。",
    ], "2024年3月8日"),
    "/news/ja/summer-festival.html": ("ja", "駅前商店街で三年ぶりに夏祭り", [
        "駅前商店街では今週末、三年ぶりに夏祭りが開かれる。通りには焼きそばやかき氷の屋台が並び、夕方から"
        "は地元の小学生による太鼓の演奏が予定されている。",
        "商店街振興組合によると、今年は会場のごみを減らすため、屋台の容器をすべて紙製に切り替えた。また、"
        "混雑を避けるため、盆踊りの会場を駅の北側にある公園へ移す。",
        "当日は午後三時から午後九時まで、商店街の車両の通行が止められる。",
    ], "2024年7月19日"),
    "/news/el/olive-press.html": ("el", "Ο συνεταιρισμός του χωριού ανοίγει νέο ελαιοτριβείο", [
        "Ο αγροτικός συνεταιρισμός του χωριού εγκαινιάζει τον Νοέμβριο ένα σύγχρονο ελαιοτριβείο, λίγο έξω "
        "από την πλατεία. Οι παραγωγοί δεν θα χρειάζεται πια να μεταφέρουν τις ελιές τους σε άλλο νομό.",
        "Το νέο συγκρότημα μπορεί να επεξεργάζεται περίπου δέκα τόνους καρπού την ημέρα. Τα νερά της "
        "έκθλιψης θα συλλέγονται σε δεξαμενές και θα καθαρίζονται πριν επιστρέψουν στο έδαφος.",
        "Ο πρόεδρος του συνεταιρισμού ευχαρίστησε τους κατοίκους για την υπομονή τους κατά τη διάρκεια "
        "των εργασιών.",
    ], "21.10.2023"),
    "/news/el/ferries.html": ("el", "Νέα δρομολόγια πλοίων για τα μικρά νησιά το καλοκαίρι", [
        "Από τον Ιούνιο θα εκτελούνται τρία επιπλέον δρομολόγια την εβδομάδα προς τα μικρά νησιά του "
        "συμπλέγματος. Η απόφαση ελήφθη μετά από αίτημα των δήμων, που διαμαρτύρονταν για την απομόνωση "
        "των κατοίκων τον χειμώνα.",
        "Τα εισιτήρια θα διατίθενται ηλεκτρονικά και στα πρακτορεία του λιμανιού. Οι μόνιμοι κάτοικοι και "
        "οι φοιτητές θα δικαιούνται έκπτωση μισού εισιτηρίου.",
        "Το λιμενικό σώμα συνιστά στους επιβάτες να βρίσκονται στην προβλήτα τουλάχιστον μισή ώρα πριν από "
        "την αναχώρηση.",
    ], "30.04.2024"),
}

NEWS_B = {  # different articles the mirror serves at some of the same paths (same byline)
    "/news/ru/embankment.html": ("ru", "Весенняя ярмарка мёда в городском парке", [
        "В субботу в городском парке откроется традиционная весенняя ярмарка мёда. Пчеловоды из двадцати "
        "районов области привезут липовый, гречишный и цветочный мёд, а также воск, пергу и свечи ручной "
        "работы.",
        "Организаторы подготовили для детей мастер-классы: можно будет слепить свечу, рассмотреть устройство "
        "улья и узнать, как пчёлы зимуют. Вход на ярмарку свободный, торговые ряды будут работать с десяти "
        "утра до семи вечера.",
        "Из-за ярмарки центральная аллея парка будет закрыта для самокатов и велосипедов.",
    ], "11.04.2024"),
    "/news/ja/summer-festival.html": ("ja", "川沿いの桜並木、樹木医が健康診断", [
        "川沿いに続く桜並木で、樹木医による健康診断が始まった。植えられてから六十年以上がたち、幹の内部が"
        "空洞になっている木も少なくないという。",
        "診断では、音の響き方や専用の器具で幹の硬さを調べ、倒れるおそれのある木には支柱を立てる。枯れた枝"
        "は花見の季節の前に切り落とされる予定だ。",
        "市は今後十年をかけて、弱った木を若い苗木に少しずつ植え替えていく方針を示している。",
    ], "2024年2月27日"),
    "/news/el/olive-press.html": ("el", "Έκθεση παλιών φωτογραφιών στο λαογραφικό μουσείο", [
        "Το λαογραφικό μουσείο της πόλης παρουσιάζει μια έκθεση με φωτογραφίες από τη δεκαετία του πενήντα. "
        "Οι εικόνες δείχνουν ψαράδες στο λιμάνι, γυναίκες στον αργαλειό και παιδιά που παίζουν στα "
        "καλντερίμια.",
        "Πολλές φωτογραφίες δωρίστηκαν από οικογένειες της περιοχής, οι οποίες τις φύλαγαν σε συρτάρια και "
        "παλιά μπαούλα.",
        "Η έκθεση θα διαρκέσει ως το τέλος Σεπτεμβρίου και η είσοδος είναι ελεύθερη για όλους.",
    ], "05.06.2024"),
}

NATIVE = {
    # path: (lang, title, menu, paragraphs, footer) -- no ASCII letter anywhere in the visible text
    "/ru/ogorod.html": ("ru", "Общественный огород во дворе", ("Главная", "Новости", "Огород", "Контакты"), [
        "Жильцы нашего двора договорились превратить пустующий газон за котельной в общий огород. "
        "Управляющая компания разрешила поставить шесть высоких грядок и бочку для дождевой воды.",
        "Каждая семья отвечает за одну грядку, а поливают по очереди, по графику на двери подъезда. В "
        "прошлом году мы собрали кабачки, укроп, редис и несколько вёдер картошки.",
        "Если вы хотите присоединиться, напишите старшему по дому или приходите в субботу к десяти часам: "
        "будем перекапывать землю и делить семена.",
    ], "© Совет дома, 2024"),
    "/ja/oshirase.html": ("ja", "町内会からのお知らせ：資源ごみの回収日が変わります", ("ホーム", "お知らせ", "行事予定", "連絡先"), [
        "来月から、資源ごみの回収日が毎週水曜日から木曜日に変わります。缶と瓶は朝八時までに、集会所前の"
        "回収箱に出してください。",
        "古紙と段ボールは、ひもで十字にしばってから出してください。雨の日は、ぬれないように袋に入れて"
        "いただけると助かります。",
        "ご不明な点は、町内会の役員までお問い合わせください。",
    ], "桜ヶ丘町内会　２０２４年"),
}


def dates_page(rows: list[str], title: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{title}</title></head>
<body>
<pre>
{chr(10).join(rows)}
</pre>
</body>
</html>
"""


def release_dates() -> list[str]:
    """Release dates and version numbers: 4.2.1 back to 0.1.0, one release a fortnight."""
    rows = []
    major, minor, patch = 4, 2, 1
    day = datetime.date(2024, 6, 18).toordinal()  # stepped back 14 days a row
    while major >= 0 and len(rows) < 180:
        d = datetime.date.fromordinal(day)
        rows.append(f"{d.isoformat()}  {major}.{minor}.{patch}  {major}.{minor}  {d.year}/{d.month:02d}/{d.day:02d}")
        day -= 14
        if patch:
            patch -= 1
        elif minor:
            minor, patch = minor - 1, 3
        else:
            major, minor, patch = major - 1, 9, 2
    return rows


def build_numbers(seed_day: int, count: int, base: int) -> list[str]:
    """Nightly build stamps: date, time, build number, size in bytes (digits only)."""
    rows = []
    for i in range(count):
        d = datetime.date.fromordinal(seed_day - i)
        minutes = (i * 37 + base) % 1440
        rows.append(f"{d.isoformat()} {minutes // 60:02d}:{minutes % 60:02d}  #{base + 3 * i}  "
                    f"{18_000_000 + (i * 7919 + base) % 900_000} {(i * 104729 + base) % 10_000:04d}")
    return rows


# --------------------------------------------------------------------------------------------
# Case 5: short pages, soft 404s and pages with no visible text

SOFT_404_HTML = bare_page("Not found", '<div class="box">\n<h1>Not found</h1>\n<p>Sorry, this page is gone.</p>\n</div>')
SHORT_HTML = {
    "/shop/basket.html": bare_page("Basket", '<div class="box"><p>Your basket is empty.</p></div>'),
    "/shop/wishlist.html": bare_page("Wishlist", '<div class="box"><p>Your wishlist is empty.</p></div>'),
    "/account/": bare_page("Sign in", '<form class="box" method="post" action="/account/login">\n'
                           '<p>Sign in to continue.</p>\n<input type="email" name="email" placeholder="Email">\n'
                           '<input type="password" name="password" placeholder="Password">\n'
                           '<input type="submit" value="&#8594;">\n</form>'),
}

EMPTY_HTML: dict[str, Page] = {
    "/app/": Page(HTML, b"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Larchwood web</title>
<script type="module" src="/static/app.js"></script>
<style>#root{min-height:100vh}</style></head>
<body><div id="root"></div><script>window.__BOOT__ = {"route": "/app/", "notebooks": []};</script></body></html>
"""),
    "/blank.html": Page(HTML, b""),
    "/spacer.html": Page(HTML, b"<!DOCTYPE html><html><head><title>Spacer</title></head><body>"
                               b"<img src=\"/static/spacer.gif\" alt=\"\" width=\"1\" height=\"1\">&nbsp;\n&#160; </body></html>"),
    "/odd/doctype-only.html": Page(HTML, b"<!DOCTYPE html>\n"),
    "/odd/head-only.html": Page(HTML, b"<html><head><title>Moved</title>"
                                      b"<link rel=\"canonical\" href=\"/\"></head></html>"),
    "/odd/frames.html": Page(HTML, b"""<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Frameset//EN" "http://www.w3.org/TR/html4/frameset.dtd">
<HTML><HEAD><TITLE>Larchwood API (frames)</TITLE></HEAD>
<FRAMESET cols="25%,75%"><FRAME src="/ref/api/overview.html" name="list"><FRAME src="/ref/api/note.html" name="main"></FRAMESET>
</HTML>
"""),
}


# --------------------------------------------------------------------------------------------
# Case 6 and 7: the 50,000-deep page and other odd pages

DEEP_PATH = "/stress/deep.html"
DEEP_LEVELS = 50_000


def deep_page() -> bytes:
    head = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Layout regression "
            "report</title></head><body>\n<p>Nightly layout regression report for the export themes. "
            "Every nested block below is one rendering step that the broken theme failed to close; "
            "the generator has been fixed since and this report is kept for reference.</p>\n")
    tail = ("<p>End of report: fifty thousand unclosed blocks, generated by the nightly job on "
            "the build server.</p>\n")
    return (head + "<div><span>" * DEEP_LEVELS + tail).encode()


# Markup lexbor's tree builder reads in time quadratic in another count than depth (each page
# took 5 to 25 s of the reactor's time before ``markup._tag_model`` and the depth scan's reading of
# HTML inside MathML): served beside the deep page, each with text of its own.
STRESS = {
    "/stress/attributes.html": ("Export settings", '<div class="settings" {}>'.format(
        " ".join(f"data-opt{i}=1" for i in range(30_000))), "</div>"),
    "/stress/select.html": ("Choose a mirror", "<select name=mirror>" + "<option>mirror" * 80_000, "</select>"),
    "/stress/mathml.html": ("Formula rendering notes", '<math><annotation-xml encoding="text/html">' + "<div>x" * 50_000,
                            ""),
    # end tags the tree builder ignores (no caption is open outside a table): 60,000 nested divs
    "/stress/ignored-ends.html": ("Release archive", ("<caption>" + "<div>release" * 60 + "</caption>") * 1_000, ""),
    # copies of a <b> lexbor reopens, closed with what they hold: the walk reads the page as shallow,
    # and lexbor nests a <desc> deeper at each repeat; the watched parse stops it (contentseen/parse.py)
    "/stress/reopened.html": ("Style guide", "<g></b><desc><b></g>" * 20_000, ""),
}


def stress_page(title: str, markup: str, close: str) -> bytes:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title></head><body>\n"
            f"<h1>{title}</h1><p>{title}: a page generated by the export job, kept for reference; its markup "
            f"was written by a broken template.</p>\n" + markup + close + "</body></html>").encode()


def self_closed_iframe_page(title: str, paragraphs: list[str]) -> bytes:
    """A page as Debian's rewrite of ImageMagick's web site ships them: XHTML written by an XML
    serializer, so the menu's sponsor button is ``<iframe .../>``, which HTML does not close."""
    paras = "\n".join(f"<p>{escape(p)}</p>" for p in paragraphs)
    return f"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd">
<html lang="en"><head><meta charset="utf-8"/><title>{escape(title)}</title></head>
<body>
<nav class="navbar"><ul>
<li><a href="/">Home</a></li><li><a href="/downloads.html">Download</a></li><li><a href="/support.html">Help</a></li>
<li><iframe src="https://sponsors.example.org/button" title="Sponsor Larchwood" height="35" width="107"/></li>
</ul></nav>
<main class="container"><h1>{escape(title)}</h1>
{paras}
</main>
</body></html>
""".encode("utf-8")


ODD_HTML = {
    "/odd/tools-export.html": Page(HTML, self_closed_iframe_page("Exporting notes", [
        "The export tool writes a notebook as a single archive that any other installation imports again.",
        "Attachments are copied beside the notes, and links between notes keep pointing at the right files."])),
    "/odd/tools-merge.html": Page(HTML, self_closed_iframe_page("Merging notebooks", [
        "Two notebooks edited on different machines are merged note by note, the newer edit winning.",
        "Conflicting edits of one paragraph are both kept and marked, so nothing typed offline is lost."])),
    "/odd/nul.html": Page(HTML, (
        b"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Changelog 0.9</title></head><body>\n"
        b"<h1>Changes in 0.9\x00</h1>\n<p>The importer no longer stops at the first note whose title holds "
        b"an emoji \xf0\x9f\x93\x9d or a stray byte \xff\xfe from an old Windows export.\x00</p>\n"
        b"<p>Notes written with \xc3 truncated accents, overlong \xc0\xaf slashes and encoded surrogates "
        b"\xed\xa0\x80 are read with replacement characters instead of failing the whole notebook.</p>\n"
        b"<p>Line endings are normalised on save\x00\x00, tabs inside tables are kept, and the search "
        b"index skips binary attachments that were mistakenly named as text files.</p>\n</body></html>\n")),
    "/odd/html4.html": Page("text/html; charset=iso-8859-1", (
        "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\" \"http://www.w3.org/TR/html4/loose.dtd\">\n"
        "<HTML><HEAD><TITLE>Mailing list etiquette</TITLE>\n"
        "<META http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\"></HEAD>\n"
        "<BODY BGCOLOR=#ffffff><TABLE WIDTH=100% BORDER=0><TR><TD VALIGN=top WIDTH=150>\n"
        "<A HREF=\"/\">Home</A><BR><A HREF=\"/support.html\">Support</A><BR>\n"
        "<TD VALIGN=top><FONT FACE=\"Verdana\" SIZE=2><H2>Mailing list etiquette</H2>\n"
        "<P>Write plain text, quote only the lines you answer, and reply below them.\n"
        "<P>Start a new thread for a new question instead of replying to an old one; the archive "
        "is read by people who search for answers years later.\n"
        "<P>Attach logs as files rather than pasting them, and say which release and operating "
        "system you run. Be patient: everyone here is a volunteer, from Zürich to Montréal.\n"
        "</FONT></TABLE>\n").encode("iso-8859-1")),
}


# --------------------------------------------------------------------------------------------
# The index pages and the sitemap

TITLES = {
    "/guide/install.html": "Installing Larchwood", "/guide/configure.html": "Configuring Larchwood",
    "/guide/upgrade.html": "Upgrading from an older release", "/manual/contents.html": "Manual: contents",
    "/api/functions.html": "Index of functions", "/manual/statements.html": "Query statements",
    "/releases/": "Releases", "/releases/dates.html": "Release dates", "/releases/builds.html": "Nightly builds",
    "/blog/archive.html": "Blog archive", "/blog/tags.html": "Blog tags", "/community/projects.html": "Community projects",
    "/downloads.html": "Download", "/support.html": "Getting help", "/sitemap.html": "Sitemap",
    SLIVER_PAGE: "Screenshots",
}

LEGACY = ("/guide/install.html", "/guide/configure.html", "/guide/upgrade.html", "/guide/install-logs.html")
TAGLINE_LINK_PAGES = ("/manual/contents.html", "/api/functions.html", "/manual/statements.html", "/releases/")
COOKIE_LINK_PAGES = ("/blog/archive.html", "/blog/tags.html", "/community/projects.html")
LINK_PAGES = TAGLINE_LINK_PAGES + COOKIE_LINK_PAGES
NEAR = ("/downloads.html", "/support.html", "/sitemap.html")
SCRIPTS = tuple(NEWS)
NO_ASCII = tuple(NATIVE)
DATES = ("/releases/dates.html", "/releases/builds.html")
SHORT = tuple(SHORT_HTML)
SOFT_404 = ("/wiki/Main_Page", "/wiki/Installation", "/forum/index.php", "/docs/old/faq.html")
EMPTY = tuple(EMPTY_HTML)
ODD = tuple(ODD_HTML)
ONLY_LINKED_FROM = {"/guide/install-logs.html": "/guide/install.html"}

# Pages every crawl of A must fingerprint (a real fingerprint in the item): enough content words.
JUDGED = LEGACY + LINK_PAGES + NEAR + SCRIPTS + NO_ASCII + ODD

INDEX_PROSE_A = (
    "Larchwood keeps your notes as plain text files in folders you choose, links them to each other "
    "and finds any of them in a moment. There is no account to create and no server to trust: a "
    "notebook is a folder, and every program that reads text can read it.",
    "This site holds the manual, the reference of the scripting interface, the release history and "
    "the project blog. The community news section carries announcements from user groups in several "
    "languages.",
)
INDEX_PROSE_B = (
    "This is the Oakridge University mirror of the Larchwood documentation, refreshed from the "
    "project's servers several times a day. Students and staff on the campus network download "
    "from here without leaving the university's own connection.",
    "Some pages of the mirror are local: the operators' notes about the service, an older edition "
    "of a few chapters, and the news items of regional user groups that asked to be carried here.",
)


def _index(paths: list[str], mirror: bool) -> str:
    def label(p: str) -> str:
        if p in TITLES:
            return TITLES[p]
        return p.strip("/").replace("/", " / ") or "Home"

    sections = {
        "Guides": [p for p in paths if p.startswith("/guide/")],
        "Reference": [p for p in paths if p in LINK_PAGES or p in DATES],
        "Download and help": [p for p in paths if p in NEAR or p == SLIVER_PAGE],
        "Community news": [p for p in paths if p in SCRIPTS or p in NO_ASCII],
        "Shop, account and other pages": [p for p in paths if p in SHORT or p in EMPTY or p in ODD or p == DEEP_PATH
                                          or p in STRESS],
        "Old wiki and forum links (moved)": [p for p in paths if p in SOFT_404],
    }
    prose = INDEX_PROSE_B if mirror else INDEX_PROSE_A
    parts = [f"  <h1>{'Larchwood mirror at Oakridge' if mirror else 'Welcome to Larchwood'}</h1>"]
    parts += [f"  <p>{escape(p)}</p>" for p in prose]
    for heading, ps in sections.items():
        if ps:
            parts.append(f"  <h2>{escape(heading)}</h2>")
            parts.append(link_list([(p, label(p)) for p in ps]))
    return docs_page("Mirror" if mirror else "Home", "\n".join(parts))


def _sitemap(paths: list[str]) -> list[tuple[str, str]]:
    items = [(p, TITLES.get(p, p)) for p in paths if p in TITLES and p != "/sitemap.html"]
    items += [(f"/manual/ch/{ch:02d}.html", f"Manual chapter {ch}: {title}") for ch, title in enumerate(TOC, 1)]
    items += [(f"/ref/api/{mod}.html", f"API reference: the {mod} module") for mod in API_A]
    items += [(f"/releases/notes/{v}.html", f"Release notes {v}") for v, _ in RELEASES[:20]]
    return items


def sitemap_body(paths: list[str]) -> str:
    return "  <h1>Sitemap</h1>\n" + link_list(_sitemap(paths), "sitemap")


# --------------------------------------------------------------------------------------------
# The sites

def _page(html: str, ctype: str = HTML) -> Page:
    return Page(ctype, html.encode("utf-8"))


def build_site(mirror: bool = False, deep: bool = False) -> Site:
    """``{path: Page}`` of host A, or of its mirror B (``mirror=True``; see ``MIRROR_EXPECT``).
    ``deep=True`` adds the 50,000-deep page and the ``STRESS`` pages to A, linked from the index."""
    site: Site = {}
    site["/guide/install.html"] = _page(INSTALL)
    site["/guide/configure.html"] = _page(CONFIGURE, XHTML)
    site["/guide/upgrade.html"] = _page(UNINSTALL_B if mirror else UPGRADE)
    site["/guide/install-logs.html"] = _page(INSTALL_LOGS)

    site["/manual/contents.html"] = _page(docs_page("Manual: contents", contents_body()))
    site["/api/functions.html"] = _page(docs_page(
        "Index of server endpoints" if mirror else "Index of functions",
        functions_body_b() if mirror else functions_body_a()))
    site["/manual/statements.html"] = _page(docs_page(
        "Template directives" if mirror else "Query statements",
        statements_body(DIRECTIVES_B, "Template directives", "directive") if mirror
        else statements_body(STATEMENTS_A, "Query statements", "statement")))
    site["/releases/"] = _page(docs_page("Releases", releases_body()))
    site["/blog/archive.html"] = _page(blog_page("Archive", archive_body()))
    site["/blog/tags.html"] = _page(blog_page("Tags", tags_body(TAGS_B if mirror else TAGS_A)))
    site["/community/projects.html"] = _page(blog_page("Community projects", projects_body()))

    site["/downloads.html"] = _page(docs_page("Download", downloads_body(), notice=MIRROR_NOTICE if mirror else None))
    site["/support.html"] = _page(docs_page("Getting help", support_body(), footer_line=MIRROR_FOOTER if mirror else None))
    site[SLIVER_PAGE] = _page(docs_page("Screenshots", screenshots_body()))

    for path, (lang, title, paras, dateline) in NEWS.items():
        if mirror and path in NEWS_B:
            lang, title, paras, dateline = NEWS_B[path]
        site[path] = _page(news_page(lang, title, paras, dateline))
    for path, (lang, title, menu, paras, footer) in NATIVE.items():
        site[path] = _page(native_page(lang, title, menu, paras, footer))
    site["/releases/dates.html"] = _page(dates_page(release_dates(), "Release dates"))
    site["/releases/builds.html"] = _page(dates_page(
        build_numbers(datetime.date(2024, 6, 18).toordinal(), 120, 5000 if mirror else 8100), "Nightly builds"))

    for path, html in SHORT_HTML.items():
        site[path] = _page(html)
    for path in SOFT_404:
        site[path] = _page(SOFT_404_HTML)
    site.update(EMPTY_HTML)
    if not mirror:
        site.update(ODD_HTML)
        if deep:
            site[DEEP_PATH] = Page(HTML, deep_page())
            site.update({path: Page(HTML, stress_page(*parts)) for path, parts in STRESS.items()})

    pages = sorted(site) + ["/sitemap.html"]
    site["/sitemap.html"] = _page(docs_page("Sitemap", sitemap_body(pages), footer_line=SITEMAP_FOOTER if mirror else None))
    site["/"] = _page(_index([p for p in sorted(site) if p not in ONLY_LINKED_FROM and p != "/"], mirror))
    site["/robots.txt"] = Page("text/plain", (ROBOTS_B if mirror else ROBOTS_A).encode())
    return site


def _mirror_expect() -> dict[str, str]:
    """What the middleware must do with each mirror page when A was crawled first into the same
    store: ``dropped`` (as a copy of A's page), ``kept`` (fingerprinted and stored), ``empty``
    (no visible text: skipped, an item without a fingerprint, never dropped) or ``unreached``
    (linked only from a dropped page)."""
    different = {"/", "/guide/upgrade.html", "/api/functions.html", "/manual/statements.html", "/blog/tags.html",
                 "/releases/builds.html"} | set(NEWS_B)
    expect = {}
    for path in build_site(mirror=True):
        if path == "/robots.txt":
            continue
        if path in ONLY_LINKED_FROM:
            expect[path] = UNREACHED
        elif path in EMPTY:
            expect[path] = EMPTY_KEPT
        elif path in different:
            expect[path] = KEPT
        else:
            expect[path] = DROPPED
    return expect


MIRROR_EXPECT: dict[str, str] = _mirror_expect()
# Mirror pages that are byte-identical to A's (so dropped at distance 0) and near copies of A's.
IDENTICAL = frozenset(p for p, e in MIRROR_EXPECT.items() if e == DROPPED and p not in NEAR)
