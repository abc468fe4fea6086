# ruff: noqa: E501 - the descriptions are prose; one paragraph per line reads best in clients
"""What each MCP tool tells the assistant.

In a fresh session these descriptions are all the assistant knows about
mnemex, so they carry the whole mental model: the lifecycle, how to read a
result line, the ways to search, how to score, and how to keep memory clean.
Every number comes from ``gateway.mcp.facts`` (the rules the memory service
reports over ``GetRules``, its MNEMEX_LIFECYCLE_* overrides included), so the
text cannot drift from what the service does. ``tool_texts(facts)`` renders
the templates.
"""

from __future__ import annotations

from gateway.mcp.facts import DEFAULT_FACTS, Facts

SCORE_TAG = "mnemex-score-required"

SERVER_INSTRUCTIONS = (
    "mnemex is persistent memory that learns from outcomes. Relevant memories arrive before each "
    "prompt in a KNOWN CONTEXT block, each with an [id:...] tag. When a <" + SCORE_TAG + "> block "
    "appears, call score_response first. Use search_memory for more, add_to_memory_bank for durable "
    "facts about the user, record_response for lessons worth keeping. get_context_insights explains "
    "the whole system."
)

READING_RESULTS = """\
READING A RESULT LINE
  1. [patterns] (2d, s:0.72, w:0.68, 8 uses, [YY~N]) [id:patterns_ab12] the memory text
- [patterns]: the collection it lives in.
- 2d: its age (m minutes, h hours, d days, w weeks, mo months).
- s:0.72: outcome score from 0 to 1; scoring moves it.
- w:0.68: Wilson lower bound of its success rate: a cautious estimate that rises only with evidence, so a memory used often and successfully beats one that got lucky once.
- 8 uses: how many times it surfaced and was scored; more means better tested.
- [YY~N]: its last three outcomes, oldest first: {F.history_marks}.
- [id:...]: its id. Pass it to search_memory(id=...) for every field, or score it in score_response.
- memory_bank lines show imp:/conf: (importance, confidence) instead of s/w/uses; books show their title."""

GET_CONTEXT_INSIGHTS = """\
Ask your memory what it knows about this user and topic before you answer. Returns the memories most relevant to `query` (each with an [id:...] tag), the user's key memory_bank facts, fixes that worked and attempts that failed on this problem before, how often tools worked in this project, and which collections helped.

mnemex is memory that persists across sessions and learns from outcomes. The hooks already inject the top memories before every prompt; call this for a deeper look at the start of a task or when the topic changes.

HOW THE MEMORY WORKS
Memories that surface get scored afterwards, and the score decides where a memory lives:
- working: new material (finished exchanges, takeaways). It moves to history at {F.working_to_history}; left unpromoted for {F.working_hours} hours, it expires.
- history: kept {F.history_days} days after its last activity; it becomes a pattern at {F.history_to_patterns}.
- patterns: proven solutions, kept indefinitely. A pattern whose score falls below {F.demote_below} is demoted back to history.
- A working or history memory whose score falls below {F.delete_below} is deleted (a failing pattern is demoted to history first).
- memory_bank: durable facts you store yourself (add_to_memory_bank), per project unless stored as user-wide. Not moved or deleted by scores; ranked by importance x confidence, blended with {F.fixed_quality_wilson}. They stay until archived.
- books: documents the user ingested; never scored, never expire.
Each score moves a memory by {F.deltas}, multiplied by {F.age_weight}, so recent memories learn fastest; {F.unknown_effect}.

{READING_RESULTS}

SEARCHING: search_memory by meaning (query=), by time (days_back=), both, or one memory in full (id=).

YOUR PART
1. get_context_insights(query)  <- this tool
2. Read what comes back; every memory carries an [id:...] tag.
3. search_memory() for details (id= for one memory).
4. Answer the user.
5. record_response(key_takeaway=...) when the exchange taught something worth keeping.
Score honestly whenever a <{SCORE_TAG}> block asks you to: your scores decide which memories survive.
When you learn something durable about the user (name, role, preferences, goals, project context), store it with add_to_memory_bank right away, without being asked. Be selective.

KEEPING MEMORY HEALTHY (your job)
- When the user corrects you, score the memory that misled you "failed", not only the exchange.
- When a memory_bank fact is outdated or wrong, fix it with update_memory or retire it with archive_memory as soon as you notice; do not wait to be told.
- Verify a fact before you store it. If you cannot, store it with confidence=0.5, not 0.9.
- If KNOWN CONTEXT holds something this session has shown to be wrong, say so: "Note: [id:...] looks outdated because ...".
- Never state exact details (ports, paths, versions, numbers) from memory as fact unless they appear verbatim in the context or a tool confirmed them; say "I believe it is X; let me check" and check.

`cwd` (optional): the project directory whose memories to use, when your client does not tell the server (HTTP clients may send the X-Mnemex-Cwd header instead)."""

SEARCH_MEMORY = """\
Search your persistent memory when the injected KNOWN CONTEXT or get_context_insights did not give you enough.

WHEN TO SEARCH
- The user refers to earlier work: "remember", "like last time", "we decided", "I told you".
- You need more detail than the context showed.
- You see an [id:...] tag and want the whole memory: use id=.
- get_context_insights recommended a collection: search it.
WHEN NOT TO: general knowledge questions (use what you know), or when the context already answers.

PARAMETERS (give at least one of query, days_back, id)
- query: what you are looking for, in words; matched by meaning and by its rarer words. Only memories relevant to it come back, so "No memory is relevant" means memory holds nothing on it.
- days_back: only memories created in the last N days (1-3650). Works without a query: days_back=7 lists this week's memories, newest first; days_back=1 with collections=["working"] is today's working memory. Add a query to search within the window: query="auth", days_back=14.
- id: fetch one memory with every field (e.g. id="patterns_ab12"); query and days_back are then ignored.
- collections: any of working (new, {F.working_hours} h), history (scored, {F.history_days} days), patterns (proven, permanent), memory_bank (durable facts), books (documents). Leave it out to search all of them with learned routing; that is usually best.
- sort_by: relevance (default with a query), recency (default without one) or score.
- metadata: filters on stored fields, e.g. {{"created_at": {{"$gte": "2025-06-01"}}}}, {{"tags": {{"$contains": "preference"}}}}, {{"title": "Style Guide"}}. Operators: $eq $ne $gt $gte $lt $lte $in $nin $contains.
- limit: 1-100 distinct results (default 10): a text stored several times shows once, marked "seen N times".

{READING_RESULTS}

USE IT TO VERIFY
- Before you present something from memory as settled fact, search for it.
- If two memories contradict each other, trust the newer one, and score the older one "failed" at the next scoring prompt.
- Before building on an [id:...] from KNOWN CONTEXT, look it up with id= and check it still holds.

Structured output carries every field of each memory (scores, counters, tags, metadata)."""

SCORE_RESPONSE = """\
Score the previous exchange and the memories it used. Call this ONLY when a <{SCORE_TAG}> block appears, and call it before you reply. To save a lesson at any other time, use record_response instead.

WHERE THE IDS COME FROM
The scoring block lists memory ids. Each one matches an [id:...] tag in the KNOWN CONTEXT block of the previous turn; look there to see what the memory said, then judge whether it helped your answer.

outcome: the exchange as a whole, judged from the user's reaction:
- worked: the user is satisfied, thanks you, or moves on to something new
- failed: the user corrects you, says it is wrong, or asks the same thing again
- partial: the user takes some of it ("sort of", "that helps a bit")
- unknown: no clear signal

memory_scores: {{id: outcome}} for EVERY id in the scoring block:
- worked: the memory helped
- partial: it helped somewhat
- unknown: you did not use it
- failed: it MISLED you (wrong, outdated, sent you in the wrong direction)
You may add ids of other memories you saw (KNOWN CONTEXT, search results, earlier turns).
"failed" means misleading, never just unused: an unused memory is "unknown". Only "worked" proves a memory: KNOWN CONTEXT labels it "worked 4 of 4" (a proven fix), "failed 2 of 3", or "unproven" (never judged; being shown and unused proves nothing).

related (optional): which memories the exchange outcome also applies to.
- leave it out: every memory shown last turn (injected, or returned by search_memory or get_context_insights)
- []: none of them; only the exchange itself and memory_scores are scored
- ["id1", "id2"]: exactly those ids, even if you searched in between
An entry in memory_scores always wins for its own id.

EFFECT: {F.deltas}, times {F.age_weight}; {F.unknown_effect}. Scores then drive promotion, demotion (below {F.demote_below}) and deletion (below {F.delete_below}).

PRUNING IS PART OF THE JOB
- "failed" is not a punishment, it is how wrong memories leave: {F.failures_to_delete_top} failed scores take even a perfect memory below the deletion line. Use it.
- If a memory made you say something wrong, score it "failed" even if the exchange ended well.
- A memory that keeps surfacing and keeps going unused is noise; one "failed" helps mnemex stop spending context on it.
You tend the garden: pull the weeds."""

ADD_TO_MEMORY_BANK = """\
Store a durable fact in memory_bank: who the user is (name, role, background), their preferences (style, tools, workflow), their goals and projects, what has worked or failed for them, and context worth carrying into future sessions. memory_bank is not outcome-scored and keeps a fact until you archive it.

SCOPE: a fact belongs to the project you are working in (it holds there, and only a newer fact of that project replaces it). Pass user_wide=true only for what holds everywhere: who the user is, their preferences, their tools. A fact from another project is shown below local ones, labelled with its project.

DO NOT STORE
- the conversation itself (finished exchanges are captured in working memory automatically);
- details of the current task only;
- everything you hear. Be selective: this is permanent.
Rule of thumb: store it if it keeps continuity across sessions or helps you improve; skip it if it only matters today.

PARAMETERS
- content: one fact, one or two sentences. One fact per call; do not bundle unrelated things.
- tags: a few short labels, e.g. ["identity"], ["preference"], ["goal"], ["project"].
- importance (0-1, default 0.7): how much it matters when it is relevant.
- confidence (0-1, default 0.7), calibrated:
  - 0.9 or more only for facts you checked against a source (code, docs, tool output), not for things you merely believe;
  - 0.7 is the normal case;
  - 0.5 for unverified claims, approximate numbers, or things the user said that you could not confirm.
Before storing, ask: will this still be true next week? If not, it does not belong here; working memory handles the short term.
A near-duplicate of an existing fact refreshes that fact instead of adding a copy (the result says so). A fact that gives a new value for the same thing as an older one ("the staging port is 6543" after "... is 5432") archives the older fact of the same scope as superseded, also when said in other words ("Staging DB now listens on port 6543"); conversation memories that state the old value are then shown below it, marked "superseded by [id:...]". The result names the archived fact, and consolidate_memories(undo=...) reverses it. Ranking uses importance x confidence, blended with {F.fixed_quality_wilson}."""

UPDATE_MEMORY = """\
Correct or refine a memory, usually a memory_bank fact that is outdated, wrong or imprecise. Pass its id (from an [id:...] tag or search_memory) and only the fields to change: content (replaces the text), tags (replace the old tags), importance, confidence (0-1). Fix wrong facts as soon as you notice them; do not wait to be asked. To retire a fact that is no longer true at all, use archive_memory."""

ARCHIVE_MEMORY = """\
Retire a memory that is no longer true, superseded or redundant: it stops appearing in context and search. It is archived, not erased. Pass its id and a short reason ("user moved to Rust", "duplicate of memory_bank_..."). Prefer update_memory when the fact only needs correcting."""

RECORD_RESPONSE = """\
Save the key lesson of this exchange as a working memory, when the transcript alone would lose it. Optional: most turns need nothing, because finished exchanges are stored automatically.
Worth recording: a decision and its reason, a solution that worked after effort, a correction (what you got wrong and why), context that would otherwise be lost.
- key_takeaway: one or two sentences that will make sense out of context.
- initial_score (optional), judged from this exchange: worked starts it at {F.initial[worked]}, partial at {F.initial[partial]}, failed at {F.initial[failed]} (kept as a what-not-to-do); left out, it starts at {F.initial[none]}.
Like any working memory it is promoted at {F.working_to_history} and expires after {F.working_hours} hours otherwise. Not for scoring: use score_response when a <{SCORE_TAG}> block asks."""

QUERY_KG = """\
Look into mnemex's knowledge graph: the entities it has seen (files, identifiers, libraries, tools, names), how they connect, which memory_bank facts mention them, and routing facts (which collections helped for which concepts, with success rates). Use it to see what mnemex associates with a name before searching, or to explain why some collections are preferred.
- entities (optional): restrict the graph to these names and their neighbours; leave out for the strongest nodes overall.
- limit: at most this many nodes (1-500, default 50)."""

FIND_CONSOLIDATION_CANDIDATES = """\
List groups of memories that need your judgement to keep memory clean. mnemex runs no model of its own: it finds the groups, you decide, and consolidate_memories applies your decision.

Three kinds of group:
- contradiction: memory_bank facts of one scope (one project, or user-wide) that give different values for the same thing, in the same or other words ("the staging port is 5432" / "staging DB now listens on port 6543"), or two very similar memories where one was last scored failed. Usually one is outdated.
- duplicate: memories that say nearly the same thing in different words (too different to have been merged automatically when stored).
- stale: history, patterns or memory_bank entries with no activity (neither created nor used) for a long time; high-scoring stale ones come first, because they still get injected.
Each memory shows its id, collection, score, Wilson bound, uses, age and last outcomes, so you can see which one has proven itself.

WHEN TO CALL IT
- The user asks you to tidy, clean up or review memory.
- KNOWN CONTEXT or a search showed two memories that disagree or repeat each other.
- At a natural pause in a long session (not in the middle of a task), at most once per session.
Not on every turn: it is a maintenance step.

WHAT TO DO WITH THE RESULT
- contradiction: find out which is true (ask the user or check the code when unsure), then merge them into one correct memory with consolidate_memories, or archive the wrong one with archive_memory.
- duplicate: merge them into one clear memory with consolidate_memories.
- stale: if it is still true, leave it; if not, archive_memory (or update_memory to correct it).
- When in doubt, leave things as they are: nothing is lost by waiting.

PARAMETERS
- kinds (optional): any of contradiction, duplicate, stale; leave out for all three.
- limit: at most this many groups (1-50, default 10)."""

CONSOLIDATE_MEMORIES = """\
Apply a consolidation decision: replace several memories with one merged memory that you write, or undo an earlier merge.

MERGE: pass source_ids (the ids to replace, 1-20, usually from find_consolidation_candidates) and merged_content (the single, correct text).
- The merged memory records the ids it came from (metadata consolidated_from); every source is archived, not deleted, with superseded_by pointing to the merged memory.
- Where it lives: collection if you give one; otherwise memory_bank when any source is a fact, else the highest tier among the sources (patterns over history over working). It keeps the outcome record of its best source, so proven knowledge keeps its standing.
- Write merged_content as one self-contained statement that keeps every detail that is still true. For a contradiction, state only the correct value (and, if useful, what changed: "moved from 5432 to 6543 in May").
- Optional: tags, importance and confidence (memory_bank only), and reason (why you merged, kept with the merged memory).

UNDO: pass undo=<id of the merged memory>. Its sources become active again and the merged memory is archived. Use it when the user disagrees with a merge or you realise it lost something. The same undo works on a memory_bank fact that automatically superseded an older one (its metadata lists supersedes): the older fact is restored and both stay.

Automatic supersede, for reference: when you store a memory_bank fact that gives a new value for the same thing as an older fact (same subject and attribute, e.g. "X is Y", "X's A is Y", "A: Y"), mnemex archives the older fact right away and links the two; add_to_memory_bank reports it. Facts that might both be true ("uses vim" / "uses Python") are left for you to judge here.

Only merge memories you have read and understood; never merge to save space alone."""

LIST_PROBLEMS = """\
List the known problems of this project: the problems mnemex learned from past sessions (a problem, the attempts that failed, the fix that worked), which it recognises when they come back and answers with their fixes. Each shows its id, its statement (the first prompt that told it), and how many fixes, failed attempts and episodes it holds; merges that hold are listed with the call that undoes each.

mnemex files a new episode under a known problem only on clear evidence (a shared error, rare shared terms, a clear lead in wording), never by one similarity score, so one problem told two different ways can end up as two known problems, each with half the fixes. Call this when the user asks what mnemex knows about recurring problems, or when a lesson seems to miss a fix you know was found before; then merge_problems makes two into one.
- limit: at most this many problems, most recently seen first (1-200, default 50)."""

MERGE_PROBLEMS = """\
Merge two known problems of this project that are really one: `merge` is folded into `keep`. `keep` keeps its id and statement and takes the other's wordings, error signatures, fixes and failed attempts; `merge` is no longer recognised on its own, so a recurrence of either is answered with all their fixes.

Only merge problems you are sure are the same (the same cause, the same fix would do): check the statements from list_problems, and ask the user when unsure. Problems that merely share words stay apart on purpose.
- keep: the id of the problem that stays (e.g. p3). merge: the id of the one folded into it (e.g. p7). Both from list_problems, both of this project.
The reply gives the merge's id and the exact unmerge_problems call that undoes it."""

UNMERGE_PROBLEMS = """\
Undo a merge of two known problems (merge_problems): the merged problem comes back exactly as it was, with its own fixes, and the kept one loses what it got from it. Whatever the kept problem learned after the merge (a new fix, another failed attempt) stays with it.
- merge_id: the merge's id (e.g. m2), from merge_problems' reply or list_problems.
Use it when the user disagrees with a merge or the merged fixes turn out to belong to different problems."""

SELF_AUDIT = """\
SELF-AUDIT: look over the memory_bank facts above. If any is outdated, wrong or redundant, fix it with update_memory or retire it with archive_memory now; for facts that contradict or repeat each other, find_consolidation_candidates lists them and consolidate_memories merges them. Keeping your memory accurate is part of the job."""

TEMPLATES = {
    "get_context_insights": GET_CONTEXT_INSIGHTS,
    "search_memory": SEARCH_MEMORY,
    "add_to_memory_bank": ADD_TO_MEMORY_BANK,
    "update_memory": UPDATE_MEMORY,
    "archive_memory": ARCHIVE_MEMORY,
    "score_response": SCORE_RESPONSE,
    "record_response": RECORD_RESPONSE,
    "query_kg": QUERY_KG,
    "find_consolidation_candidates": FIND_CONSOLIDATION_CANDIDATES,
    "consolidate_memories": CONSOLIDATE_MEMORIES,
    "list_problems": LIST_PROBLEMS,
    "merge_problems": MERGE_PROBLEMS,
    "unmerge_problems": UNMERGE_PROBLEMS,
}


def tool_texts(facts: Facts = DEFAULT_FACTS) -> dict[str, str]:
    """Tool name -> description, with the numbers of ``facts`` (default: those of a default memory service)."""
    reading = READING_RESULTS.format(F=facts)
    values = {"F": facts, "READING_RESULTS": reading, "SCORE_TAG": SCORE_TAG}
    return {name: template.format(**values) for name, template in TEMPLATES.items()}
