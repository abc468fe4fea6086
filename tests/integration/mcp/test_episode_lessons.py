"""The kg learns from a whole episode, through the hook endpoints only, and warns on a recurrence.

A problem is solved the hard way: two wrong fixes fail with tool errors (PostToolUseFailure),
the assistant scores them ``failed`` (the exchanges are then demoted and deleted), the third
works. Later, in a new session, the problem comes back in other words with other names:
"What worked before" shows the fix and "What failed before" the failed commands with their
errors, although the exchanges are gone and the assistant wrote no takeaway. Another project
sees the same lessons labelled with their project when the report is plainly the same one (not on
a paraphrase: another project's lesson needs strong evidence); a near-miss sees none.
"""

from __future__ import annotations

import time
from pathlib import Path

from gateway.formatting import FAILURES_TITLE, SOLUTIONS_TITLE
from gateway.mcp.models import InsightsOut
from gateway.reply_models import ContextOut, EpisodeOut, PostToolUseOut, ScoreOut, TeachingOut
from tests.integration.mcp.clients import connect, reply
from tests.support.mcp_stack import McpStack, run_async

PROBLEM = "the nightly invoice export job crashes: UnicodeDecodeError 'utf-8' codec can't decode byte 0xff in the csv"
RECURRENCE = "loading the supplier spreadsheet blows up with a decode error about an invalid start byte"
NEAR_MISS = "export the supplier table to a spreadsheet with a header row"
DECODE_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "/srv/billing/jobs/export.py", line 41, in run\n'
    "    rows = list(csv.reader(handle))\n"
    "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"
)
FIX = "Opened the file with encoding='utf-16' (the export is UTF-16 with a BOM); the job runs clean."


def failed_command(stack: McpStack, cwd: Path, session: str, command: str, output: str = DECODE_ERROR) -> None:
    answer = stack.post(
        "/api/hooks/post-tool-use",
        {
            "session_id": session,
            "cwd": str(cwd),
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"error": "Exit code 1\n" + output, "failed": True},
        },
    )
    observed = PostToolUseOut.model_validate(answer).observation
    assert observed and observed.startswith("Ran ")
    time.sleep(0.3)  # the kg is taught in the background after the reply; let it land before the score


def turn(stack: McpStack, cwd: Path, session: str, prompt: str, answer: str, previous: str = "") -> ScoreOut | None:
    """One turn in the order a client runs it: the prompt's context, the assistant scoring the
    previous exchange (``previous``: its outcome, and the score's reply) while it answers, then Stop."""
    stack.post("/api/hooks/get-context", {"session_id": session, "prompt": prompt, "cwd": str(cwd)})
    scored = None
    if previous:
        outcome = {"session_id": session, "cwd": str(cwd), "outcome": previous}
        scored = ScoreOut.model_validate(stack.post("/api/record-outcome", outcome))
    stack.post("/api/hooks/stop", {"session_id": session, "cwd": str(cwd), "assistant_text": answer})
    return scored


def taught(scored: ScoreOut | None) -> TeachingOut:
    """What a scored turn taught the kg."""
    assert scored is not None
    return scored.kg


def episode_of(scored: ScoreOut | None) -> EpisodeOut:
    """The episode a scored turn filed its exchange under."""
    episode = taught(scored).episode
    assert episode is not None, scored
    return episode


def context(stack: McpStack, cwd: Path, session: str, prompt: str) -> ContextOut:
    reply = stack.post("/api/hooks/get-context", {"session_id": session, "prompt": prompt, "cwd": str(cwd)})
    return ContextOut.model_validate(reply)


def test_a_paraphrased_recurrence_is_warned_with_the_episodes_fix_and_failures(
    mcp_stack: McpStack, project: Path, tmp_path: Path
) -> None:
    session = "episode-1"
    turn(mcp_stack, project, session, PROBLEM, "Retried the export with errors='ignore' in the reader.")
    failed_command(mcp_stack, project, session, "python -m jobs.export --errors ignore")
    first = turn(
        mcp_stack, project, session, "still broken, same traceback", "Converted it with iconv -f latin1.", "failed"
    )
    assert episode_of(first).problem.startswith("the nightly invoice export job crashes")
    failed_command(mcp_stack, project, session, "iconv -f latin1 -t utf-8 exports/invoices.csv")
    second = turn(mcp_stack, project, session, "nope, the same decode error", FIX, "failed")
    # The complaint is not the problem: the episode still teaches on its first prompt.
    assert episode_of(second).problem == episode_of(first).problem
    # Before: the scored turn's own prompt, the complaint, gave the concepts taught.
    assert {"invoice", "unicodedecodeerror"} <= set(taught(second).concepts)
    solved = turn(mcp_stack, project, session, "that fixed it, thanks", "Glad it works.", "worked")
    assert episode_of(solved).status == "solved"

    block = context(mcp_stack, project, "later", RECURRENCE).known_context
    assert SOLUTIONS_TITLE in block and FAILURES_TITLE in block
    assert "encoding='utf-16'" in block.split(FAILURES_TITLE)[0]
    warned = block.split(FAILURES_TITLE)[1]
    assert "python -m jobs.export --errors ignore -> UnicodeDecodeError" in warned
    assert "iconv -f latin1" in warned

    other = tmp_path / "other-project"
    (other / ".git").mkdir(parents=True)
    # Another project's lessons need strong evidence (issue 35): the paraphrase alone is not enough there,
    # the same report told again is.
    weak = context(mcp_stack, other, "o0", RECURRENCE)
    assert not [x for x in weak.lessons if not x.id]
    elsewhere = context(mcp_stack, other, "o1", PROBLEM)
    labels = [x.project for x in elsewhere.lessons]
    assert labels and all(label and label != "" for label in labels)
    assert "[project " in elsewhere.known_context

    miss = context(mcp_stack, project, "m1", NEAR_MISS)
    assert not [x for x in miss.lessons if not x.id]

    async def insights() -> InsightsOut:
        async with connect(mcp_stack, "http", project) as client:
            return reply(await client.call_tool("get_context_insights", {"query": RECURRENCE}), InsightsOut)

    data = run_async(insights)
    assert any("utf-16" in s.content for s in data.solutions)
    assert any("iconv" in f.content for f in data.failures)


MAIL_PROBLEM = (
    "Customers got no invoices from last night's billing run, although the job log looks normal at first glance."
)
MAIL_ERROR = (
    "Traceback (most recent call last):\n"
    '  File "/srv/billing/mailer.py", line 88, in send\n'
    "smtplib.SMTPDataError: (554, b'5.7.1 Message rejected: the sender domain has no SPF record')"
)
MAIL_RECURRENCE = "statement emails bounce, the relay says our domain has no SPF entry"
MAIL_FIX = "Published the SPF TXT record for billing.example.test; the run delivers again."


def test_a_recurrence_told_by_the_error_a_failed_attempt_printed_recalls_the_fix(
    mcp_stack: McpStack, project: Path
) -> None:
    """The recurrence shares no words with the first statement (cosine 0.14), only with the error
    line a failed attempt printed (0.63): the gateway embeds that line with the tool failure, and
    the kg keeps it among the problem's vectors. Before, the recurrence recalled nothing."""
    session = "mail-1"
    turn(mcp_stack, project, session, MAIL_PROBLEM, "Resent the invoices with the retry script.")
    failed_command(mcp_stack, project, session, "python -m billing.resend --since yesterday", MAIL_ERROR)
    turn(mcp_stack, project, session, "still nothing arrives", MAIL_FIX, "failed")
    solved = turn(mcp_stack, project, session, "that fixed it, thanks", "Glad it works.", "worked")
    assert episode_of(solved).status == "solved"

    block = context(mcp_stack, project, "mail-later", MAIL_RECURRENCE).known_context
    assert SOLUTIONS_TITLE in block, block
    assert "SPF TXT record" in block.split(SOLUTIONS_TITLE)[1].split(FAILURES_TITLE)[0]
    assert "billing.resend" in block.split(FAILURES_TITLE)[1]
