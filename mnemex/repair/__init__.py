"""``mnemex repair``: salvage what a broken store still holds into a fresh one, setting the original aside.

- ``sqlite_salvage``: every readable row of a damaged SQLite file into a new
  file (the ``sqlite3`` tool's ``.recover`` when it is installed, else a
  row-by-row copy that steps over unreadable pages).
- ``chroma_salvage``: a damaged Chroma folder's collections and rows, read
  from its (recovered) SQLite tables, into a fresh ``PersistentClient``;
  vectors come from the old index when it still reads, else the documents are
  embedded again with the local model.
- ``stores``: which stores are broken, the set-aside naming
  (``<name>.corrupt-<UTC time>``; nothing is ever deleted) and the report.
"""
