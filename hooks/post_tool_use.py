"""mnemex hook for PostToolUse and PostToolUseFailure (Cursor: afterFileEdit, afterShellExecution,
postToolUseFailure): the adapter tells a failed call by the payload's hook_event_name.

Run as `python -S hooks/post_tool_use.py` (add `--client cursor` from Cursor's hooks.json).
Standard library only; always exits 0.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from hook_main import main

if __name__ == "__main__":
    main("post_tool_use")
