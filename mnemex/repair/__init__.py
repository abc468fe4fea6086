"""``mnemex repair``: salvage what a broken store still holds into a fresh one, setting the original aside.

- ``access``: a store this user may not open is not broken; it is named with
  the ``chmod``/``chown`` that fixes it, and nothing is moved aside.
- ``sqlite_salvage``: every readable row of a damaged SQLite file into a new
  file, row by row (an unreadable page or overflow chain costs only its own
  rows, which are named), with the ``sqlite3`` tool's ``.recover`` as a last try.
- ``chroma_rows``: each memory put together from every Chroma table that holds
  a part of it (ids, metadata, full-text content, the write log).
- ``chroma_salvage``: those collections and rows into a fresh
  ``PersistentClient``; vectors from the old index or the write log, else the
  documents are embedded again with the local model.
- ``kg_check``: each kg snapshot and event kept only when its JSON reads;
  the lost ones named by scope and seq.
- ``stores``: which stores are broken, the set-aside naming
  (``<name>.corrupt-<UTC time>``; nothing is ever deleted) and the report,
  with what could not be kept.
"""
