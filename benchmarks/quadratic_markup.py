"""Markup that costs the reactor thread more than linear time: pages made by repeating one to
three tags (a start tag, an end tag, a self-closed one, text between), alone or after an opening
that changes how the tree builder reads them (a table, a select, SVG, MathML, a list...), each
timed through the middleware's whole way (``Engine.prepare``) at two sizes. A pattern whose time
grows more than ``--ratio`` times when the page grows 4 times, and that then costs more than
50 ms, is listed: linear work grows 4 times.

    python3 benchmarks/quadratic_markup.py [--kinds 1500] [--seed 11]    # a few minutes

README ("Fail open") gives what it found before the depth scan followed the tree builder's rules.
"""

from __future__ import annotations

import argparse
import random
import time

from contentseen.engine import Engine
from contentseen.fingerprints import Scheme

TAGS = """div p b a\\ href=x table tr td th li ul ol dl dt dd select option optgroup svg math mi mtext
annotation-xml\\ encoding=text/html annotation-xml foreignObject desc title textarea template form button font
font\\ color=x nobr frameset frame head body html caption colgroup col tbody thead ruby rt rp rb rtc object applet
marquee noscript iframe xmp plaintext h1 h3 pre listing image input menu dialog details summary hr br img embed
span g path x-y address center section main nav search em code big s u i strong small""".replace("\\ ", "\0").split()
OPENINGS = ["", "<table>", "<select>", "<svg>", "<math><mi>", "<ul>", "<table><tr><td>", "<svg><foreignObject>",
            "<template>", "<ruby>", "<dl>", "<p>"]
FORMS = ["<{}>", "<{}>x", "</{}>", "<{}/>", "</{}>x", "<{}/>x"]


def kinds(count: int, rnd: random.Random) -> list[str]:
    """``count`` distinct units of one to three tags."""
    units: set[str] = set()
    while len(units) < count:
        parts = []
        for _ in range(rnd.randint(1, 3)):
            tag, form = rnd.choice(TAGS).replace("\0", " "), rnd.choice(FORMS)
            parts.append(form.format(tag.split()[0] if form.startswith("</") else tag))
        units.add("".join(parts))
    return sorted(units)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kinds", type=int, default=1500, help="units tried (default %(default)s)")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--repeats", type=int, default=4000, help="repeats of the smaller page; the larger 4 times more")
    ap.add_argument("--ratio", type=float, default=10.0, help="growth that counts as superlinear (default 10)")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    engine = Engine(Scheme().build(), None)

    def cost(body: bytes) -> float:
        started = time.perf_counter()
        engine.prepare("http://host/", 200, "text/html", body)
        return time.perf_counter() - started

    found = 0
    units = kinds(args.kinds, rnd)
    for unit in units:
        opening = rnd.choice(OPENINGS)
        small = cost((opening + unit * args.repeats).encode())
        if small < 0.003:  # too cheap to time the growth of
            continue
        large = cost((opening + unit * 4 * args.repeats).encode())
        if large > args.ratio * small and large > 0.05:
            found += 1
            print(f"{large / small:5.1f}x  {large * 1e3:7.1f} ms  {opening!r} + {unit!r} x {4 * args.repeats}", flush=True)
    print(f"{found} of {len(units)} kinds grew more than {args.ratio:g} times (seed {args.seed})")


if __name__ == "__main__":
    main()
