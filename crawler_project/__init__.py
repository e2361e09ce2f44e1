"""A ready Scrapy project: the ``site`` spider with ContentSeen enabled."""
