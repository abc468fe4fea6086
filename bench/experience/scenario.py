"""The experience benchmark's script: ordinary coding chat, episodes, recurrences, near misses and changing facts.

``build(seed, noise_turns)`` lays out one run. The seed shuffles the order,
picks which paraphrases come back (each at most once per run while there are
unused ones) and the names filled into them; the texts are the same for every
configuration of that seed, so kg on and off see the same conversation.
Near misses (failure reports of another problem) and requests (asks for work
in a problem's words) are events of their own kinds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from bench.experience.catalogue import PROBLEMS, PROJECTS
from bench.experience.problems import BACKEND, LEDGER, STOREFRONT, TIDEWATER, Problem

# ordinary chat per project: (prompt template, answer template); {x} {y} come from NAMES
CHAT: dict[str, tuple[tuple[str, str], ...]] = {
    LEDGER: (
        ("Rename {x} to {y} in the invoices module and update the callers.", "Renamed {x} to {y}; 6 call sites."),
        ("Add a docstring to {x} explaining the rounding rule.", "Added a docstring to {x}: half-even to cents."),
        ("Can you write a unit test for {x} with a zero amount?", "Added test_{x}_zero_amount; it passes."),
        ("What does {x} return when the account is frozen?", "{x} returns None and logs a warning for frozen ones."),
        ("Split {x} into two functions, it does parsing and saving.", "Split it into parse_{x} and save_{x}."),
        ("Add type hints to {x} and {y}.", "Annotated both; mypy is clean on the module."),
        ("Make {x} accept an optional currency argument.", "{x} now takes currency='EUR' by default."),
        ("Where is {x} called from?", "{x} is called from the settlement router and the nightly report."),
        ("Reformat the pydantic models around {x} to one field per line.", "Reformatted; no behaviour change."),
        ("Explain the difference between {x} and {y}.", "{x} books the entry, {y} only previews it."),
        ("Add a log line when {x} skips an entry.", "Added logger.info with the entry id in {x}."),
        ("Replace the magic number 86400 in {x} with a named constant.", "Introduced SECONDS_PER_DAY in {x}."),
    ),
    STOREFRONT: (
        ("Make the {x} component accept a size prop.", "{x} now takes size: 'sm' | 'md' | 'lg'."),
        ("Add an aria-label to the {x} button.", "Added aria-label to {x}; axe reports no issues."),
        ("Write a story for {x} in the empty state.", "Added {x}.stories.tsx with an Empty story."),
        ("The {x} text is cut off on small screens, fix the wrapping.", "Set overflow-wrap: anywhere on {x}."),
        ("Move {x} into its own file under components.", "Moved {x} to components/{x}.tsx and updated imports."),
        ("Translate the labels in {x} to German.", "Added de.json keys for {x}."),
        ("Convert {x} from a class component to a function component.", "Converted {x}; uses useState now."),
        ("Add a loading skeleton to {x} while {y} fetches.", "{x} shows a skeleton until {y} resolves."),
        (
            "Why does {x} re-render on every keystroke?",
            "The parent recreates the {y} callback; wrapped in useCallback.",
        ),
        ("Use the design token for the {x} border colour.", "{x} now uses var(--border-muted)."),
        ("Sort the products in {x} by price descending.", "{x} sorts by price, highest first."),
        ("Write a test that {x} shows the discount badge.", "Added a testing-library test for {x}'s badge."),
    ),
    TIDEWATER: (
        ("Add a --dry-run flag to the {x} command.", "{x} now accepts --dry-run and prints the plan."),
        ("Document the columns produced by {x}.", "Added a table of {x}'s output columns to docs/."),
        ("Make {x} skip files older than thirty days.", "{x} filters by mtime now."),
        ("Add a metric for rows written by {x}.", "{x} reports rows_written to statsd."),
        ("Rename the {x} step to {y} in the DAG.", "Renamed the task id to {y}; backfill unaffected."),
        ("Parallelise {x} over the partitions.", "{x} uses a process pool of four workers."),
        ("What does the {x} transform do with null currencies?", "{x} drops them and counts them in a metric."),
        ("Add retries with backoff to {x}'s S3 upload.", "{x} retries five times with exponential backoff."),
        ("Write a fixture with three days of sample data for {x}.", "Added tests/fixtures/{x}_sample.parquet."),
        ("Make the {x} log lines JSON.", "{x} logs through the JSON formatter now."),
        ("Read the {x} bucket name from the environment.", "{x} reads SINK_BUCKET with a sane default."),
        ("Explain why {x} runs after {y}.", "{x} needs the deduplicated rows that {y} writes."),
    ),
    BACKEND: (
        ("Add a docstring to {x} about how its pagination works.", "Documented {x}: cursor based, 50 per page."),
        ("Rename {x} to {y} and update the routes.", "Renamed {x} to {y}; four routes updated."),
        ("Write a unit test for {x} with an empty cart.", "Added test_{x}_empty_cart; it passes."),
        ("Add type hints to {x}.", "Annotated {x}; mypy is clean on the module."),
        ("Move {x} into app/services and keep the old import path working.", "Moved {x}; the old path re-exports it."),
        ("What does {x} return for a customer without orders?", "{x} returns an empty list and a total of zero."),
        ("Add a structured log line when {x} starts.", "{x} logs event=start with the customer id."),
        ("Make {x} accept an optional page_size argument.", "{x} takes page_size=50 by default."),
        ("Explain the difference between {x} and {y}.", "{x} reads from the replica, {y} from the primary."),
        ("Sort the fields of the response model of {x} alphabetically.", "Sorted them; no behaviour change."),
        ("Add an OpenAPI example to the {x} endpoint.", "{x} shows an example request body in /docs now."),
        ("Replace the hard-coded 30 in {x} with a settings value.", "{x} reads PAGE_SECONDS from Settings now."),
    ),
}
NAMES: dict[str, tuple[str, ...]] = {
    LEDGER: (
        "post_entry",
        "preview_entry",
        "apply_fee",
        "book_transfer",
        "close_period",
        "round_amount",
        "ledger_view",
    ),
    STOREFRONT: ("ProductCard", "PriceTag", "MiniCart", "SearchBox", "PromoStrip", "ReviewList", "SizePicker"),
    TIDEWATER: ("load_fx", "dedupe_orders", "export_daily", "sync_catalog", "compact_parquet", "score_risk"),
    BACKEND: ("list_invoices", "create_customer", "refund_order", "export_orders", "get_statement", "apply_coupon"),
}
STILL_BROKEN = (
    "Still failing, same error as before.",
    "No luck, it breaks exactly the same way.",
    "That didn't change anything, same output.",
    "Nope, still the same failure in CI.",
)
THANKS = ("That did it, thanks!", "Works now, thank you.", "Great, fixed. Moving on.", "Perfect, that solved it.")


@dataclass(frozen=True)
class Fact:
    attribute: str
    project: str
    content: str
    role: str  # first | same-wording | other-wording | other-project
    stale: tuple[str, ...] = ()  # values no longer true once this fact is stated


FACTS_FIRST = (
    Fact("staging-postgres", LEDGER, "The staging database for this service runs PostgreSQL 14.", "first"),
    Fact("web-port", STOREFRONT, "We deploy the web server behind nginx on port 8080.", "first"),
    Fact("release-branch", LEDGER, "The release branch is main.", "first"),
)
FACTS_LATER = (
    Fact(
        "staging-postgres",
        LEDGER,
        "The staging database for this service runs PostgreSQL 16.",
        "same-wording",
        ("PostgreSQL 14",),
    ),
    Fact(
        "web-port",
        STOREFRONT,
        "After the ingress change the web server now listens on 9090.",
        "other-wording",
        ("8080",),
    ),
    Fact("release-branch", TIDEWATER, "The release branch is develop.", "other-project"),
    Fact("release-branch", BACKEND, "We cut releases of this service from the trunk branch.", "other-project"),
)
# conversation turns that state a value which a later fact replaces
OLD_VALUE_TURNS = (
    (
        LEDGER,
        "Pin the CI Postgres service container to PostgreSQL 14 so it matches staging.",
        "Done: ci.yml now uses the PostgreSQL 14 image, same as staging.",
    ),
    (
        STOREFRONT,
        "Point the uptime check at port 8080, where nginx serves the site.",
        "The uptime check now probes port 8080 on the web server.",
    ),
)
# (project, prompt, attribute, values that must not appear there)
PROBES = (
    (LEDGER, "Which Postgres major version does staging run? I want pg_dump to match.", "staging-postgres"),
    (LEDGER, "Remind me what version of Postgres the staging box has.", "staging-postgres"),
    (STOREFRONT, "What port should the load balancer health check use for the web server?", "web-port"),
    (STOREFRONT, "Which port is the site listening on these days?", "web-port"),
    (LEDGER, "Which branch do I tag the release from?", "release-branch"),
    (TIDEWATER, "Which branch do I tag the release from?", "release-branch"),
    (BACKEND, "Which branch do releases get cut from here?", "release-branch"),
)


@dataclass
class Event:
    kind: str  # chat | episode | recurrence | near_miss | request | fact | probe
    project: str
    prompts: list[tuple[str, str]] = field(default_factory=list)  # chat: (prompt, answer) per turn
    problem: Problem | None = None
    trap: bool = False  # recurrence of a problem whose fix differs in another project
    fact: Fact | None = None
    attribute: str = ""


def chat_turns(project: str, rng: random.Random, count: int) -> list[tuple[str, str]]:
    turns = []
    for _ in range(count):
        prompt, answer = rng.choice(CHAT[project])
        x, y = rng.sample(NAMES[project], 2)
        turns.append((prompt.format(x=x, y=y), answer.format(x=x, y=y)))
    return turns


def chat_sessions(rng: random.Random, total: int) -> list[Event]:
    out: list[Event] = []
    left = total
    while left > 0:
        size = min(left, rng.randint(3, 5))
        project = rng.choice(PROJECTS)
        out.append(Event("chat", project, chat_turns(project, rng, size)))
        left -= size
    return out


def recurrence_prompts(problem: Problem, rng: random.Random, count: int) -> list[str]:
    """``count`` recurrences in other words: the paraphrases in a shuffled order (again once all are used),
    with names filled into their slots when the problem has names."""
    order: list[str] = []
    while len(order) < count:
        order.extend(rng.sample(problem.paraphrases, len(problem.paraphrases)))
    if not problem.names:
        return order[:count]
    return [text.format(a=a, b=b) for text in order[:count] for a, b in [rng.choice(problem.names)]]


def interleave(rng: random.Random, main: list[Event], noise: list[Event]) -> list[Event]:
    """``main`` keeps its order; ``noise`` sessions are spread between its events at random."""
    slots: list[list[Event]] = [[] for _ in range(len(main) + 1)]
    for event in noise:
        slots[rng.randrange(len(slots))].append(event)
    out = list(slots[0])
    for event, after in zip(main, slots[1:], strict=True):
        out.append(event)
        out.extend(after)
    return out


def build(
    seed: int, noise_turns: int = 300, recurrences: int | None = None, problems: tuple[Problem, ...] = PROBLEMS
) -> list[Event]:
    """The whole run: learning phase (episodes, first facts), then the later phase (recurrences, probes).

    Each problem comes back ``problem.recurrences`` times (``recurrences`` when given), a trap at least
    twice per project it is solved in."""
    rng = random.Random(seed)
    noise = chat_sessions(rng, noise_turns)
    rng.shuffle(noise)
    half = len(noise) // 2
    learning: list[Event] = []
    for problem in problems:
        for project in problem.statement:
            learning.append(Event("episode", project, problem=problem))
    rng.shuffle(learning)
    for fact in FACTS_FIRST:
        learning.insert(rng.randrange(len(learning) + 1), Event("fact", fact.project, fact=fact))
    for project, prompt, answer in OLD_VALUE_TURNS:
        learning.append(Event("chat", project, [(prompt, answer)]))
    later: list[Event] = []
    for problem in problems:
        homes = list(problem.right)
        trap = len(homes) > 1
        wanted = recurrences if recurrences is not None else problem.recurrences
        count = max(wanted, 2 * len(homes)) if trap else wanted
        for i, text in enumerate(recurrence_prompts(problem, rng, count)):
            later.append(Event("recurrence", homes[i % len(homes)], [(text, "")], problem, trap))
        for kind, prompts in (("near_miss", problem.near_misses), ("request", problem.requests)):
            for prompt in prompts:
                project = rng.choice(homes)
                later.append(Event(kind, project, [(prompt, "Here is how I would approach it.")], problem))
    rng.shuffle(later)
    updates = [Event("fact", f.project, fact=f) for f in FACTS_LATER]
    probes = [Event("probe", p, [(prompt, "")], attribute=a) for p, prompt, a in PROBES]
    # facts change early in the later phase; every probe comes after all updates
    later = updates + later[: len(later) // 2] + probes[:3] + later[len(later) // 2 :] + probes[3:]
    return interleave(rng, learning, noise[:half]) + interleave(rng, later, noise[half:])


def describe(events: list[Event]) -> dict[str, int]:
    turns = sum(len(e.prompts) for e in events if e.kind == "chat")
    return {
        "chat_turns": turns,
        "episodes": sum(e.kind == "episode" for e in events),
        "recurrences": sum(e.kind == "recurrence" for e in events),
        "trap_recurrences": sum(e.kind == "recurrence" and e.trap for e in events),
        "near_misses": sum(e.kind == "near_miss" for e in events),
        "requests": sum(e.kind == "request" for e in events),
        "problems": len({e.problem.key for e in events if e.kind == "episode" and e.problem}),
        "backend_problems": len(
            {e.problem.key for e in events if e.kind == "episode" and e.project == BACKEND and e.problem}
        ),
        "facts": sum(e.kind == "fact" for e in events),
        "probes": sum(e.kind == "probe" for e in events),
    }


__all__ = ["BACKEND", "PROJECTS", "STOREFRONT", "TIDEWATER", "Event", "Fact", "build", "describe"]
