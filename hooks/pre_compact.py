"""mnemex hook for PreCompact (Cursor: preCompact, whose user_message only the user sees).

Run as `python -S hooks/pre_compact.py` (add `--client cursor` from Cursor's hooks.json).
Standard library only; always exits 0.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hook_main import main

if __name__ == "__main__":
    main("pre_compact")
