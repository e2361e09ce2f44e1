"""Command-line tools: argument parsing and output only; the work is in the library."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        fail(self.prog, message)


def fail(prog: str, message: str) -> NoReturn:
    """Print ``prog: error: message`` on one line and exit with status 2."""
    message = " ".join(str(message).split())
    sys.stderr.write(f"{prog}: error: {message}\n")
    raise SystemExit(2)


def int_in_range(name: str, text: str, lo: int, hi: int, prog: str) -> int:
    """Parse an integer argument within ``lo..hi`` or fail naming it and the range."""
    try:
        value = int(text, 10)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        fail(prog, f"argument {name}: {text!r} is not a whole number in {lo}..{hi}")
    return value


# Larger than anything a command can use, small enough that no input allocates without bound.
MAX_COUNT = 10**9


def positive_int(name: str, text: str, prog: str) -> int:
    """Parse a positive integer argument or fail naming it."""
    return int_in_range(name, text, 1, MAX_COUNT, prog)
