"""One module of routes per viewer page."""
