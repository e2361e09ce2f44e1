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


def positive_int(name: str, text: str, prog: str) -> int:
    """Parse a positive integer argument or fail naming it."""
    try:
        value = int(text, 10)
    except ValueError:
        fail(prog, f"argument {name}: {text!r} is not a positive integer")
    if value < 1:
        fail(prog, f"argument {name}: {text!r} is not a positive integer")
    return value
