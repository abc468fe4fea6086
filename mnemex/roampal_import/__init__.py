"""Import a Roampal data directory into mnemex (``mnemex import-roampal DIR``).

- ``records``: pure conversion of one Roampal Chroma row into a mnemex import
  record (content, timestamps, scores, tags and ids normalized as Roampal's
  v0.3.5 notes describe), with a reason when a row cannot be used.
- ``reader``: finds the Chroma directory and ``knowledge_graph.json``, copies
  the Chroma directory to a temporary place (so Roampal's files are never
  modified, not even by a Chroma schema migration) and reads the five
  ``roampal_*`` collections page by page, without embeddings.

The CLI sends the records to the gateway's ``/api/import`` like any export
file; vectors are re-made by mnemex's own embedding model.
"""

from mnemex.roampal_import.records import ROAMPAL_COLLECTIONS, ConversionTally, to_record

__all__ = ["ROAMPAL_COLLECTIONS", "ConversionTally", "to_record"]
