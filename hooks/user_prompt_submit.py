"""mnemex hook for UserPromptSubmit (Cursor: beforeSubmitPrompt, which cannot add context: it opens the turn).

Run as `python -S hooks/user_prompt_submit.py` (add `--client cursor` from Cursor's hooks.json).
Standard library only; always exits 0.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hook_main import main

if __name__ == "__main__":
    main("prompt")
