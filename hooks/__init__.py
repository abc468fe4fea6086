"""Client hook scripts: tiny, standard-library-only, always exit 0.

| script | Claude Code event | Cursor event (``--client cursor``) | gateway endpoint |
|---|---|---|---|
| user_prompt_submit.py | UserPromptSubmit | beforeSubmitPrompt | /api/hooks/get-context (Cursor: turn-start) |
| stop.py | Stop | afterAgentResponse, stop | /api/hooks/stop |
| session_start.py | SessionStart | sessionStart | /api/hooks/session-start |
| pre_compact.py | PreCompact | preCompact | /api/hooks/pre-compact |
| post_tool_use.py | PostToolUse | afterFileEdit, afterShellExecution | /api/hooks/post-tool-use |

Cursor's beforeSubmitPrompt cannot add context, so it only opens the turn with
its prompt. afterAgentResponse stores the answer; stop then stores it from the
transcript only if nothing did: both send the generation id as the turn key,
and the memory service keeps the first report of a key. Claude Code drops
PreCompact output, so its reminder arrives with SessionStart "compact"; Cursor
shows preCompact's ``user_message`` to the user only.

Run each as ``<python> -S <repo>/hooks/<script>.py`` (``-S`` skips site
import: ~20 ms to start). Cursor also runs Claude Code hooks from
``~/.claude/settings.json``; the Claude path ignores Cursor-shaped payloads
(``conversation_id``, ``workspace_roots``, ...) so only the ``--client
cursor`` entries act there, and nothing fires twice.

Environment: MNEMEX_GATEWAY_URL or MNEMEX_GATEWAY_PORT (default
http://127.0.0.1:27300), MNEMEX_TOKEN, MNEMEX_HOOK_TIMEOUT (seconds, 1.8),
MNEMEX_HOOK_FAILURES (3) and MNEMEX_HOOK_COOLDOWN (30 s) for the circuit
breaker, MNEMEX_HOOK_AUTOSTART (1), MNEMEX_HOOK_START_INTERVAL (60 s),
MNEMEX_HOOK_START_CMD, MNEMEX_PYTHON. State lives in $MNEMEX_HOME/run or
$TMPDIR/mnemex-hooks-<uid>.
"""
