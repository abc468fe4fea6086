"""mnemex: outcome-learning memory for AI coding assistants."""

__version__ = "0.1.0"
