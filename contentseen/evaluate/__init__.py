"""Detection quality: a labelled mirror corpus from real HTML (:mod:`.mirror`), the truth of a
pair (:mod:`.truth`), pairs from mirrors or crawls on disk (:mod:`.inputs`), the evaluation
(:mod:`.core`) and its table, JSON and histogram (:mod:`.render`). Commands:
``contentseen-mirror`` and ``contentseen-evaluate``."""
