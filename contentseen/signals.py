"""Scrapy signals ContentSeen sends, for extensions, tools and tests that want each decision
(not log text): ``crawler.signals.connect(handler, signal=contentseen.signals.page_decided)``.

``page_decided(request, response, decision, spider)``: sent once for every text response the
middleware hands to its engine (all but those exempted by ``contentseen_skip`` and Scrapy's own
requests, such as robots.txt); ``decision`` is a ``contentseen.engine.Decision``. For a dropped
page it is sent before ``IgnoreRequest`` is raised.
"""

page_decided = object()
