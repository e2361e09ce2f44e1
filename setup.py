"""The optional C token scan (contentseen/_speedups.c); everything else is in pyproject.toml.

optional=True: where no C compiler or Python headers are at hand the install goes on without
it, and contentseen.tokens counts tokens in Python (the same fingerprints, slower)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("contentseen._speedups", ["contentseen/_speedups.c"], optional=True)])
