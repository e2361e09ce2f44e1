"""The one exception type the library raises for bad input or configuration."""


class ContentSeenError(Exception):
    """Bad input, configuration or store: the message names the file, setting or argument."""
