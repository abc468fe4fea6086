"""The recurring problems of the experience benchmark: how each is first stated, how it comes back, what fixes it.

A fix has a ``command`` (the tool call that applies it), a ``description``
(what it does, in a few plain words) and ``said``: how the simulated assistant
reports it in its answers, worded apart from the other two (no three words in
a row in common). The assistant recognises a fix in the injected block only by
the words of its command and description, the way recognise.py says; it never
looks for a string the driver wrote. ``failure`` is the tool output where the
fix does not help, ``success`` where it does.

Three projects here (ledger-api, storefront-web, tidewater-etl) with eight
problems; two are traps, solved in two projects with different fixes, so the
obvious answer from one project fails in the other. backend.py adds a fourth
project with thirty problems in one vocabulary.

``near_misses`` are failure reports in a problem's vocabulary that are another
problem (its fix would not apply); ``requests`` ask for work or an explanation
in that vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.experience.recognise import words

LEDGER = "ledger-api"
STOREFRONT = "storefront-web"
TIDEWATER = "tidewater-etl"
BACKEND = "kestrel-api"  # the thirty-problem project (backend_data.py, backend_ops.py)


@dataclass(frozen=True)
class Fix:
    key: str
    command: str
    description: str  # what the fix does, plainly: with the command, what the assistant knows the fix by
    said: str  # how the assistant reports having applied it ("I ..." follows), in other words
    failure: str  # tool output where the fix does not help
    success: str = "exit 0"

    @property
    def vocabulary(self) -> frozenset[str]:
        return frozenset(words(self.command) | words(self.description))


@dataclass(frozen=True)
class Problem:
    key: str
    fixes: tuple[Fix, ...]
    right: dict[str, str]  # project -> key of the fix that works there
    default_order: tuple[str, ...]  # the assistant's order without memory: a plausible wrong fix first
    episode_wrong: dict[str, tuple[str, ...]]  # project -> wrong fixes tried when first solving it there
    statement: dict[str, str]  # project -> first statement of the problem
    paraphrases: tuple[str, ...]  # later recurrences, in other words; {a} {b} are name slots when names are given
    names: tuple[tuple[str, str], ...] = ()  # fillers for {a} {b}
    takeaway: dict[str, str] = field(default_factory=dict)  # project -> what the assistant records, if anything
    near_misses: tuple[str, ...] = ()  # failure reports that are another problem
    requests: tuple[str, ...] = ()  # asks for work in the same vocabulary
    recurrences: int = 3  # how often it comes back in a run

    def fix(self, key: str) -> Fix:
        return next(f for f in self.fixes if f.key == key)

    def vocabularies(self) -> dict[str, frozenset[str]]:
        return {f.key: f.vocabulary for f in self.fixes}


def single(
    project: str,
    key: str,
    statement: str,
    fixes: tuple[Fix, ...],
    *,
    wrong: tuple[str, ...],
    right: str,
    paraphrases: tuple[str, ...],
    tried: int = 1,
    near_misses: tuple[str, ...] = (),
    requests: tuple[str, ...] = (),
    takeaway: str = "",
    recurrences: int = 2,
) -> Problem:
    """A problem of one project: the assistant's own order tries ``wrong`` first, then ``right``, then any
    other fix; the first episode tries the first ``tried`` wrong fixes before the right one."""
    keys = [f.key for f in fixes]
    default = (*wrong, right, *[k for k in keys if k not in wrong and k != right])
    return Problem(
        key,
        fixes,
        {project: right},
        default,
        {project: wrong[:tried]},
        {project: statement},
        paraphrases,
        takeaway={project: takeaway} if takeaway else {},
        near_misses=near_misses,
        requests=requests,
        recurrences=recurrences,
    )


POOL = Problem(
    key="pool-exhaustion",
    fixes=(
        Fix(
            "pool-size",
            "sed -i 's/pool_size=5/pool_size=50/' app/db.py && pytest tests/load/test_burst.py -q",
            "raise the SQLAlchemy pool_size from 5 to 50",
            "gave the pool room for fifty connections (pool_size is 50 now, it was 5)",
            "E   sqlalchemy.exc.TimeoutError: QueuePool limit of size 50 overflow 10 reached, connection timed out, "
            "timeout 30.00\n1 failed in 31.02s",
        ),
        Fix(
            "close-session",
            "python scripts/patch_dependency.py --add 'finally: db.close()' && pytest tests/load/test_burst.py -q",
            "close the session in a finally block of the get_db request dependency",
            "made get_db hand every session back: db.close() now runs in its finally clause",
            "E   psycopg2.OperationalError: server closed the connection unexpectedly\n"
            "E   ERROR: no more connections allowed (max_client_conn)\n1 failed in 12.40s",
            "1 passed in 8.91s",
        ),
        Fix(
            "null-pool",
            "python scripts/patch_engine.py --engine-arg 'poolclass=NullPool' && pytest tests/load/test_burst.py -q",
            "create the engine with poolclass=NullPool so pgbouncer does the pooling",
            "switched off SQLAlchemy's own pooling (NullPool) and let pgbouncer hold the connections",
            "E   sqlalchemy.exc.TimeoutError: QueuePool limit of size 5 overflow 10 reached\n1 failed in 30.77s",
            "1 passed in 9.35s",
        ),
    ),
    right={LEDGER: "close-session", TIDEWATER: "null-pool"},
    default_order=("pool-size", "close-session", "null-pool"),
    episode_wrong={LEDGER: ("pool-size",), TIDEWATER: ("close-session",)},
    statement={
        LEDGER: "Under load the API stops answering and the logs say: sqlalchemy.exc.TimeoutError: QueuePool limit "
        "of size 5 overflow 10 reached, connection timed out. How do we stop running out of database connections?",
        TIDEWATER: "The nightly loader dies halfway with 'ERROR: no more connections allowed (max_client_conn)' "
        "from pgbouncer. The workers open a session per batch. What is going on with the connections?",
    },
    paraphrases=(
        "{a} hangs for thirty seconds and then errors out: the pool is exhausted, no connection could be checked out.",
        "After a few hundred requests {a} times out; SQLAlchemy says it cannot get a connection from the pool "
        "within 30 s.",
        "We are leaking database connections again, the {b} job now fails because every pooled connection is busy.",
        "Load test on {a} gives TimeoutError waiting for a connection, pool limit reached. Same thing as before?",
    ),
    names=(
        ("the /v1/invoices endpoint", "reconcile_accounts"),
        ("orders_service.list_orders", "settlement_sync"),
        ("the refunds worker", "nightly_rollup"),
        ("api/routes/payouts.py", "ledger_snapshot"),
    ),
    takeaway={
        LEDGER: "Connection pool exhaustion. Raising pool_size to 50 did not help. Sessions were never handed back: "
        "closing each session in the finally block of get_db fixed it.",
        TIDEWATER: "Behind pgbouncer in transaction mode, closing sessions in the get_db finally block did not help. "
        "The engine must not pool at all: poolclass NullPool fixed it.",
    },
    near_misses=(
        "First request after a quiet night fails with 'psycopg2.OperationalError: SSL SYSCALL error: EOF detected', "
        "every request after it is fine.",
    ),
    requests=(
        "How many connections should the read replica's pool get if we add two more API pods? Just sizing, "
        "nothing is broken.",
        "Can you explain what pool_recycle does in SQLAlchemy and whether we need it for a managed Postgres?",
    ),
)

CORS = Problem(
    key="cors-preflight",
    fixes=(
        Fix(
            "wildcard",
            "python scripts/set_cors.py --wildcard 'allow_origins=[\"*\"]' && npm run e2e -- checkout.spec.ts",
            "set allow_origins to the wildcard star in the CORS middleware",
            "opened the CORS settings up to every origin with a '*' wildcard",
            "Access to fetch at 'https://api.example.test/v1/cart' from origin 'https://shop.example.test' has been "
            "blocked by CORS policy: The value of the 'Access-Control-Allow-Origin' header in the response must not "
            "be the wildcard '*' when the request's credentials mode is 'include'.\n1 failed",
        ),
        Fix(
            "no-cors",
            "node scripts/patch_fetch.js --option 'mode: \"no-cors\"' && npm run e2e -- checkout.spec.ts",
            "make the frontend fetch calls use mode no-cors",
            "told the browser's fetch to skip the cross-origin check (opaque mode)",
            "TypeError: Failed to read the 'json' property: opaque response (status 0)\n1 failed",
        ),
        Fix(
            "origin-regex",
            "python scripts/set_cors.py --origin-regex 'allow_origin_regex=r\"https://.*\\.example\\.test\"' "
            "&& npm run e2e -- checkout.spec.ts",
            "allow the shop origins with allow_origin_regex matching example.test subdomains",
            "let CORSMiddleware accept any https subdomain of example.test through a regex on the origin",
            "blocked by CORS policy: Response to preflight request doesn't pass access control check\n1 failed",
            "1 passed (6.2s)",
        ),
    ),
    right={LEDGER: "origin-regex"},
    default_order=("wildcard", "no-cors", "origin-regex"),
    episode_wrong={LEDGER: ("wildcard", "no-cors")},
    statement={
        LEDGER: "The checkout page can't call the API any more: the browser says the preflight OPTIONS request "
        "was blocked by CORS policy, no Access-Control-Allow-Origin header. Cookies are sent with credentials.",
    },
    paraphrases=(
        "The browser refuses the call from {a} to the API: CORS error on the OPTIONS preflight.",
        "{a} in the new preview domain fails with 'blocked by CORS policy' before the request is even sent.",
        "Preflight fails again for {b}: Access-Control-Allow-Origin is missing in the response.",
    ),
    names=(
        ("the cart drawer", "fetchCartTotals"),
        ("the account settings page", "updateBillingAddress"),
        ("the wishlist widget", "syncWishlist"),
        ("the order history tab", "loadOrderHistory"),
    ),
    near_misses=(
        "Only the PUT to /v1/cart/items is blocked by CORS now: the preflight answers 'Method PUT is not allowed by "
        "Access-Control-Allow-Methods'. GET and POST go through.",
    ),
    requests=(
        "Should we add a Content-Security-Policy header next to the CORS settings, and what would a sane default be?",
        "What does the SameSite attribute on our session cookie need to be for the new origin?",
    ),
)

UNAWAITED = Problem(
    key="unawaited-coroutine",
    fixes=(
        Fix(
            "no-randomly",
            "pytest -p no:randomly tests/test_notifications.py -q",
            "turn off pytest-randomly so the tests run in a fixed order",
            "ran the module with the random test ordering plugin disabled",
            "FAILED tests/test_notifications.py::test_sends_receipt - AssertionError: expected 1 call, got 0\n"
            "RuntimeWarning: coroutine 'Mailer.send' was never awaited\n1 failed, 11 passed",
        ),
        Fix(
            "reruns",
            "pytest --reruns 3 tests/test_notifications.py -q",
            "retry the flaky test up to three times with pytest-rerunfailures",
            "let the test retry three times before calling it a failure",
            "FAILED tests/test_notifications.py::test_sends_receipt (rerun 3 of 3)\n"
            "RuntimeWarning: coroutine 'Mailer.send' was never awaited\n1 failed, 11 passed, 3 rerun",
        ),
        Fix(
            "warning-error",
            "pytest -W error::RuntimeWarning tests/ -q && python scripts/add_missing_await.py",
            "turn RuntimeWarning into an error to find the call missing its await, and add the await",
            "made the never-awaited warning fatal, which pointed at Mailer.send; it is awaited now",
            "RuntimeWarning: coroutine was never awaited\n1 failed",
            "12 passed in 2.14s",
        ),
    ),
    right={LEDGER: "warning-error"},
    default_order=("no-randomly", "reruns", "warning-error"),
    episode_wrong={LEDGER: ("no-randomly", "reruns")},
    statement={
        LEDGER: "test_sends_receipt passes locally and fails in CI about one run in three: 'expected 1 call, got 0'. "
        "There is also a RuntimeWarning that a coroutine was never awaited. Why is it flaky?",
    },
    paraphrases=(
        "{a} is flaky: green on my machine, red in CI half the time, and the log has 'coroutine ... was never "
        "awaited'.",
        "Intermittent failure in {a}: the mock for {b} sees zero calls on some runs. Async test, no obvious race.",
        "CI keeps failing {a} randomly; pytest prints a RuntimeWarning about an unawaited coroutine in {b}.",
    ),
    names=(
        ("test_refund_email", "notify_refund"),
        ("test_dunning_reminder", "schedule_reminder"),
        ("test_webhook_retry", "post_webhook"),
        ("test_export_ready", "announce_export"),
    ),
    takeaway={
        LEDGER: "Flaky async test. Disabling the randomly plugin did not help, and reruns did not help either. "
        "Turning the RuntimeWarning into an error worked: it pointed at the call missing its await.",
    },
    near_misses=(
        "test_sends_receipt fails on every CI run since this morning with 'RuntimeError: Event loop is closed' in "
        "the teardown of the mailer fixture; it is not flaky, it never passes.",
    ),
    requests=(
        "What's the difference between asyncio.gather and a TaskGroup for fanning out the webhook calls?",
        "Is it worth switching our async tests from pytest-asyncio to anyio's plugin?",
    ),
)

ALIAS = Problem(
    key="vite-alias",
    fixes=(
        Fix(
            "base-url",
            'node scripts/edit_tsconfig.js --set \'"baseUrl": "./src"\' && npm run build',
            "set baseUrl to ./src in tsconfig.json",
            "pointed the TypeScript base URL at the src folder",
            '[vite]: Rollup failed to resolve import "@/components/Button" from "src/pages/Cart.tsx".\n'
            "error during build",
        ),
        Fix(
            "clear-cache",
            "rm -rf node_modules/.vite && npm run build",
            "delete the vite dependency cache in node_modules",
            "wiped Vite's pre-bundling cache folder and rebuilt",
            '[vite]: Rollup failed to resolve import "@/components/Button" from "src/pages/Cart.tsx".\n'
            "error during build",
        ),
        Fix(
            "tsconfig-paths",
            "npm install -D vite-tsconfig-paths && node scripts/add_vite_plugin.js tsconfigPaths && npm run build",
            "install the vite-tsconfig-paths plugin and add it to vite.config",
            "added the plugin that teaches Vite the tsconfig path aliases (tsconfigPaths)",
            "error during build",
            "✓ built in 4.81s",
        ),
    ),
    right={STOREFRONT: "tsconfig-paths"},
    default_order=("base-url", "clear-cache", "tsconfig-paths"),
    episode_wrong={STOREFRONT: ("base-url", "clear-cache")},
    statement={
        STOREFRONT: 'npm run build fails: [vite]: Rollup failed to resolve import "@/components/Button" from '
        '"src/pages/Cart.tsx". The editor resolves it fine, the tsconfig has the @/* path.',
    },
    paraphrases=(
        "Production build breaks on {a}: Vite cannot resolve the '@/...' import even though TypeScript is happy.",
        "The bundler says it failed to resolve import '@/{b}' in {a}; dev mode works.",
        "Build error again, an @-prefixed import in {a} is not found by vite, the IDE finds it.",
    ),
    names=(
        ("src/features/checkout/Summary.tsx", "hooks/useCart"),
        ("src/pages/Profile.tsx", "lib/formatPrice"),
        ("src/widgets/PromoBanner.tsx", "components/Badge"),
        ("src/routes/Search.tsx", "services/catalog"),
    ),
    takeaway={
        STOREFRONT: "Vite ignores tsconfig paths: a baseUrl of ./src in tsconfig did not help. Installing the "
        "vite-tsconfig-paths plugin fixed the @/ imports.",
    },
    near_misses=(
        "The Vite dev server takes ages to start and HMR lags a few seconds after every edit. Any idea why?",
        'npm run build fails: [vite]: Rollup failed to resolve import "@stripe/stripe-js" from '
        '"src/pages/Checkout.tsx". That one is a package, not one of our aliases.',
    ),
    requests=("Should we move the docs site from webpack to vite, and what breaks when we do?",),
)

DOCKER = Problem(
    key="docker-cache",
    fixes=(
        Fix(
            "prune",
            "docker builder prune -f && docker build -t tidewater:dev . && scripts/check_layer_cache.sh",
            "prune the docker builder cache and build again",
            "cleared out the builder's stored layers, then rebuilt the image",
            "check_layer_cache: cache miss at step 5/9 RUN pip install -r requirements.txt (6m12s)\nexit status 1",
        ),
        Fix(
            "no-cache",
            "docker build --no-cache -t tidewater:dev . && scripts/check_layer_cache.sh",
            "build with --no-cache once to reset the layers",
            "did a clean rebuild, --no-cache, reusing no layer",
            "check_layer_cache: cache miss at step 5/9 RUN pip install -r requirements.txt (6m40s)\nexit status 1",
        ),
        Fix(
            "copy-requirements",
            "python scripts/reorder_dockerfile.py --first 'COPY requirements.txt ./' && docker build -t tidewater:dev "
            ". && scripts/check_layer_cache.sh",
            "reorder the Dockerfile: COPY requirements.txt and pip install before copying the source",
            "moved the dependency install above the line that copies our code, with only the requirements file "
            "copied first",
            "cache miss at step 5/9\nexit status 1",
            "check_layer_cache: all dependency layers cached (build 14s)",
        ),
    ),
    right={TIDEWATER: "copy-requirements"},
    default_order=("prune", "no-cache", "copy-requirements"),
    episode_wrong={TIDEWATER: ("prune",)},
    statement={
        TIDEWATER: "Every docker build reinstalls all Python dependencies, six minutes each time, even when I only "
        "touched a SQL file. The layer cache never hits for the pip install step.",
    },
    paraphrases=(
        "Changing one line in {a} makes the image rebuild from scratch, pip install runs every time.",
        "Our container builds stopped using the cache: the dependency layer is rebuilt after any edit to {a}.",
        "Why does docker redo the requirements install when I only edit {a}? Builds take forever again.",
    ),
    names=(
        ("etl/transforms/fx_rates.py", "fx"),
        ("sql/views/daily_orders.sql", "orders"),
        ("etl/loaders/s3_sink.py", "sink"),
        ("README.md", "docs"),
    ),
    near_misses=(
        'docker build fails at step 4/9: failed to compute cache key: "/requirements-dev.txt" not found: not found. '
        "The file is in the repo.",
    ),
    requests=(
        "Can we shrink the image by moving to python:3.12-slim, and what do we lose?",
        "How do I pass the AWS credentials to docker compose without baking them into the image?",
    ),
)

ALEMBIC = Problem(
    key="alembic-heads",
    fixes=(
        Fix(
            "stamp",
            "alembic stamp head && alembic upgrade head",
            "stamp the database at head before upgrading",
            "marked the database as being at the newest revision, then ran the upgrade",
            "FAILED: Multiple head revisions are present for given argument 'head'; please specify a specific "
            "target revision, '<branchname>@head' to narrow to a specific head, or 'heads' for all heads",
        ),
        Fix(
            "merge",
            "alembic merge heads -m 'merge branches' && alembic upgrade head && python scripts/check_linear_history.py",
            "create an alembic merge revision joining both heads",
            "tied the two branches of the migration tree together with a new merging revision",
            "check_linear_history: merge revision 9c41e2 is not allowed here; rebase your migration onto the current "
            "head\nexit status 1",
            "INFO  [alembic.runtime.migration] Running upgrade 4b7d, 8e21 -> 9c41e2, merge branches",
        ),
        Fix(
            "relink",
            "python scripts/relink_migration.py --onto head && alembic upgrade head && "
            "python scripts/check_linear_history.py",
            "relink our migration's down_revision onto the current head to keep the history linear",
            "rebased the newer migration: its parent is now the latest revision on main, so the history is a single "
            "line",
            "FAILED: Multiple head revisions are present",
            "check_linear_history: ok (linear, 57 revisions)",
        ),
    ),
    right={LEDGER: "merge", TIDEWATER: "relink"},
    default_order=("stamp", "merge", "relink"),
    episode_wrong={LEDGER: ("stamp",), TIDEWATER: ("merge",)},
    statement={
        LEDGER: "alembic upgrade head fails after merging the two feature branches: Multiple head revisions are "
        "present for given argument 'head'. How do I get the migrations deployable again?",
        TIDEWATER: "After pulling main, alembic upgrade head refuses to run: multiple head revisions are present. "
        "Two of us added a migration the same day.",
    },
    paraphrases=(
        "Migrations are stuck: two revisions both claim to be the latest and upgrade won't pick one ({a}).",
        "Deploy step failed: alembic sees more than one head after I rebased {a}.",
        "The migration for {b} collides with someone else's, alembic reports several heads.",
    ),
    names=(
        ("the add_refund_reason migration", "refund_reason"),
        ("the fx_rates table change", "fx_rates"),
        ("the customer_tier column", "customer_tier"),
        ("the partition_by_day migration", "partitions"),
    ),
    near_misses=(
        'alembic upgrade head fails on staging: psycopg2.errors.DuplicateTable: relation "payments_created_at_idx" '
        "already exists. Someone created that index by hand last week.",
    ),
    requests=(
        "Can payments.created_at get an index? Put it in a migration that doesn't lock the table for minutes.",
        "How do I make alembic autogenerate ignore the materialized views?",
    ),
)

PROXY_SSL = Problem(
    key="proxy-ssl",
    fixes=(
        Fix(
            "strict-ssl",
            "npm config set strict-ssl false && npm ci",
            "turn off npm's strict-ssl certificate check",
            "told npm to stop verifying TLS certificates",
            "npm ERR! code SELF_SIGNED_CERT_IN_CHAIN (postinstall: cypress download)\n"
            "Error: self-signed certificate in certificate chain",
        ),
        Fix(
            "http-registry",
            "npm config set registry http://registry.npmjs.org/ && npm ci",
            "point npm at the plain http registry URL",
            "switched the package registry address from https to unencrypted http",
            "npm ERR! 403 Forbidden - plain HTTP is blocked by the corporate proxy",
        ),
        Fix(
            "extra-ca",
            "export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/corp-root.pem && npm ci",
            "export NODE_EXTRA_CA_CERTS with the corporate root CA pem",
            "made node trust the company's root certificate authority through its extra CA variable",
            "Error: self-signed certificate in certificate chain",
            "added 1412 packages in 58s",
        ),
    ),
    right={STOREFRONT: "extra-ca"},
    default_order=("strict-ssl", "http-registry", "extra-ca"),
    episode_wrong={STOREFRONT: ("strict-ssl",)},
    statement={
        STOREFRONT: "npm ci fails on the office network: SELF_SIGNED_CERT_IN_CHAIN while the cypress postinstall "
        "downloads its binary. At home it works. We are behind the corporate proxy.",
    },
    paraphrases=(
        "Installing {a} on the office VPN dies with 'self-signed certificate in certificate chain'.",
        "The corporate proxy breaks {a} again: the TLS check fails on their certificate.",
        "{a} can't download anything from the work network, certificate verify error from node.",
    ),
    names=(
        ("playwright's browsers", "playwright"),
        ("the sharp prebuilt binary", "sharp"),
        ("esbuild", "esbuild"),
        ("the node-sass bindings", "node-sass"),
    ),
    takeaway={
        STOREFRONT: "Behind the corporate proxy, turning off npm strict-ssl did not help because postinstall "
        "scripts use node's own TLS. Exporting NODE_EXTRA_CA_CERTS with the corp root CA pem fixed it.",
    },
    near_misses=(
        "npm ci on the office network now fails with 'npm ERR! code ETIMEDOUT' fetching from registry.npmjs.org; "
        "no certificate error at all, it just never connects.",
    ),
    requests=(
        "How do I renew the Let's Encrypt certificate on the staging nginx before it expires?",
        "Do we need to pin the TLS version on the payment provider's webhook endpoint?",
    ),
)

OVERFLOW = Problem(
    key="numpy-overflow",
    fixes=(
        Fix(
            "seterr",
            "python scripts/patch_rollup.py --prepend 'np.seterr(over=\"ignore\")' && pytest tests/test_rollup.py -q",
            "silence numpy overflow warnings with np.seterr over ignore",
            "told numpy to stay quiet about the wrap-around",
            "E   AssertionError: daily revenue -2147126528 != 2147840768\n1 failed",
        ),
        Fix(
            "float32",
            "python scripts/patch_rollup.py --cast 'astype(np.float32)' && pytest tests/test_rollup.py -q",
            "cast the cents column to float32 before summing",
            "summed the amounts as float32 values instead",
            "E   AssertionError: daily revenue 2147840800.0 != 2147840768 (float32 rounding)\n1 failed",
        ),
        Fix(
            "int64",
            "python scripts/patch_rollup.py --cast 'astype(np.int64)' && pytest tests/test_rollup.py -q",
            "cast the cents column to int64 before summing",
            "widened the amounts to int64 ahead of the aggregation",
            "E   AssertionError\n1 failed",
            "6 passed in 1.77s",
        ),
    ),
    right={TIDEWATER: "int64"},
    default_order=("seterr", "float32", "int64"),
    episode_wrong={TIDEWATER: ("seterr", "float32")},
    statement={
        TIDEWATER: "The daily revenue rollup came out negative for the Black Friday partition, and numpy prints "
        "'RuntimeWarning: overflow encountered in scalar add'. The cents column is int32.",
    },
    paraphrases=(
        "{a} produced a negative sum for a big day; numpy warns about an overflow.",
        "Totals in {a} wrap around to negative numbers once the {b} values get large.",
        "Weird negative aggregate from {a} again, with an overflow RuntimeWarning from numpy.",
    ),
    names=(
        ("the weekly gmv report", "basket_cents"),
        ("the merchant payout summary", "payout_cents"),
        ("the tax rollup", "tax_cents"),
        ("the refunds aggregate", "refund_cents"),
    ),
    near_misses=(
        "The rollup's revenue for the JPY partition comes out a hundred times too big; no warning, no error, the "
        "numbers are just wrong.",
    ),
    requests=(
        "Convert the feature matrix to float32 to save memory; do we lose anything for the model?",
        "What's the fastest way to group by day in numpy without pandas?",
    ),
)

THREE_PROJECT_PROBLEMS: tuple[Problem, ...] = (POOL, CORS, UNAWAITED, ALIAS, DOCKER, ALEMBIC, PROXY_SSL, OVERFLOW)
