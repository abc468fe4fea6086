"""The duplicate-reports benchmark's parts: the data and its split, the lesson texts and how a block line is
recognised, the client that plays the sessions, the figures.

``bench.bench_duplicate_reports`` runs them against a real stack. The reports come from the GitBugs dataset
(github.com/av9ash/gitbugs, CC BY 4.0; A. Patil, "GitBugs: Bug Reports for Duplicate Detection, Retrieval
Augmented Generation, Triage, and More", arXiv:2504.09651, 2025).
"""
