"""Settings of the bundled crawler project (``scrapy crawl site -a start_urls=URL[,URL...]``)."""

BOT_NAME = "crawler_project"
SPIDER_MODULES = ["crawler_project.spiders"]
NEWSPIDER_MODULE = "crawler_project.spiders"

ROBOTSTXT_OBEY = True
CONCURRENT_REQUESTS_PER_DOMAIN = 8
DOWNLOAD_DELAY = 0
FEED_EXPORT_ENCODING = "utf-8"

# Below 580: ContentSeen sees decompressed bodies and final pages after redirects.
DOWNLOADER_MIDDLEWARES = {"contentseen.middleware.ContentSeenMiddleware": 560}
# Drops the items of pages found unchanged when CONTENTSEEN_REVISITS is "follow".
SPIDER_MIDDLEWARES = {"contentseen.middleware.ContentSeenSpiderMiddleware": 100}

# ContentSeen defaults, spelled out (see README, "Settings").
CONTENTSEEN_ENABLED = True
CONTENTSEEN_DISTANCE = 3
CONTENTSEEN_BITS = 64
# CONTENTSEEN_STORE: by default .scrapy/contentseen/<spider>.sqlite in the project, JOBDIR/contentseen.sqlite with a JOBDIR
