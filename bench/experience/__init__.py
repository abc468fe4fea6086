"""The experience benchmark's parts: scenario text, the simulated assistant, block reading, metrics, the driver.

``bench.bench_experience`` runs them against a real stack; everything the
assistant learns comes from the KNOWN CONTEXT text the gateway returns.
"""
