"""Baseline for benchmarks/report.py: the assignment as a student would write it.

Plain Python, no numpy, no code shared with the package: a Counter per page, for each page a
loop over the vocabulary words and, for each word present, over the M bits, and Hamming
distances by comparing bit lists. Run it in the folder holding the course files:

    python3 benchmarks/baseline_report.py N M

It writes result.txt there (the same bytes as ``contentseen-report N M``) and prints the first
sample's block.
"""

import re
import sys
from collections import Counter


def read_pages(name):
    """(ID, body) of each page: pages are split by form feeds, the first non-blank line is the ID."""
    with open(name, encoding="latin-1") as f:
        text = f.read().replace("\r\n", "\n")
    pages = []
    for chunk in text.split("\f"):
        lines = chunk.split("\n")
        while lines and not lines[0].strip():
            lines.pop(0)
        if lines:
            pages.append((lines[0].strip(), "\n".join(lines[1:])))
    return pages


def words(text, stopwords):
    return [w for w in re.findall("[a-z]+", text.lower()) if w not in stopwords]


def main():
    n, m = int(sys.argv[1]), int(sys.argv[2])
    with open("stopwords.txt", encoding="latin-1") as f:
        stopwords = set(f.read().lower().split())
    articles = read_pages("article.txt")
    samples = read_pages("sample.txt")

    article_counts = [Counter(words(body, stopwords)) for _, body in articles]
    total = Counter()
    for counts in article_counts:
        total.update(counts)
    vocabulary = sorted(total, key=lambda w: (-total[w], w))[:n]

    with open("hashvalue.txt", encoding="latin-1") as f:
        hashes = [line.strip() for line in f][:n]

    def fingerprint(counts):
        v = [0] * m
        for i, word in enumerate(vocabulary):
            c = counts.get(word, 0)
            if c:
                for j in range(m):
                    if hashes[i][j] == "1":
                        v[j] += c
                    else:
                        v[j] -= c
        return [1 if x > 0 else 0 for x in v]

    article_fps = [fingerprint(c) for c in article_counts]

    out = []
    for sample_id, body in samples:
        fp = fingerprint(Counter(words(body, stopwords)))
        distances = []
        for afp in article_fps:
            d = 0
            for a, b in zip(fp, afp):
                if a != b:
                    d += 1
            distances.append(d)
        block = sample_id + "\n"
        for k in range(4):
            ids = [articles[i][0] for i in range(len(articles)) if distances[i] == k]
            if ids:
                block += str(k) + ":" + "".join(x + " " for x in ids) + "\n"
        out.append(block)

    with open("result.txt", "w", encoding="latin-1", newline="") as f:
        f.write("".join(out))
    sys.stdout.write(out[0])


if __name__ == "__main__":
    main()
