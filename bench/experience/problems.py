"""The recurring problems of the experience benchmark: how each is first stated, how it comes back, what fixes it.

Every fix has a ``signature``: a command or code fragment that any text about
the fix contains (the assistant's reports, its takeaways). The simulated
assistant recognises a fix in the injected block by that fragment alone.
A fix's ``command`` is the tool call that applies it; ``failure`` is the error
output it produces where it does not help.

Two problems are traps: solved in two projects with different fixes, so the
obvious answer from one project fails in the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

LEDGER = "ledger-api"
STOREFRONT = "storefront-web"
TIDEWATER = "tidewater-etl"
PROJECTS = (LEDGER, STOREFRONT, TIDEWATER)


@dataclass(frozen=True)
class Fix:
    key: str
    signature: str
    command: str
    failure: str  # error output where the fix does not help
    success: str = "exit 0"


@dataclass(frozen=True)
class Problem:
    key: str
    markers: tuple[str, ...]  # words that make a line about this problem (lower case)
    fixes: tuple[Fix, ...]
    right: dict[str, str]  # project -> key of the fix that works there
    default_order: tuple[str, ...]  # the assistant's order without memory: a plausible wrong fix first
    episode_wrong: dict[str, tuple[str, ...]]  # project -> wrong fixes tried when first solving it there
    statement: dict[str, str]  # project -> first statement of the problem
    paraphrases: tuple[str, ...]  # later recurrences, in other words; {a} {b} are name slots
    names: tuple[tuple[str, str], ...]  # fillers for {a} {b}
    takeaway: dict[str, str] = field(default_factory=dict)  # project -> what the assistant records, if anything
    near_misses: tuple[str, ...] = ()

    def fix(self, key: str) -> Fix:
        return next(f for f in self.fixes if f.key == key)


POOL = Problem(
    key="pool-exhaustion",
    markers=("pool", "connection", "queuepool", "too many clients", "pgbouncer", "db.close", "nullpool"),
    fixes=(
        Fix(
            "pool-size",
            "pool_size=50",
            "sed -i 's/pool_size=5/pool_size=50/' app/db.py && pytest tests/load/test_burst.py -q",
            "E   sqlalchemy.exc.TimeoutError: QueuePool limit of size 50 overflow 10 reached, connection timed out, "
            "timeout 30.00\n1 failed in 31.02s",
        ),
        Fix(
            "close-session",
            "finally: db.close()",
            "python scripts/patch_dependency.py --add 'finally: db.close()' && pytest tests/load/test_burst.py -q",
            "E   psycopg2.OperationalError: server closed the connection unexpectedly\n"
            "E   ERROR: no more connections allowed (max_client_conn)\n1 failed in 12.40s",
            "1 passed in 8.91s",
        ),
        Fix(
            "null-pool",
            "poolclass=NullPool",
            "python scripts/patch_engine.py --engine-arg 'poolclass=NullPool' && pytest tests/load/test_burst.py -q",
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
        LEDGER: "Connection pool exhaustion: raising `pool_size=50` did not help; sessions were never returned. "
        "Closing them in the request dependency with `finally: db.close()` fixed it.",
        TIDEWATER: "Running through pgbouncer in transaction mode, closing sessions with `finally: db.close()` did not "
        "help; the engine must not pool at all: `poolclass=NullPool` fixed it.",
    },
    near_misses=(
        "How many connections should the read replica's pool get if we add two more API pods? Just sizing, "
        "nothing is broken.",
        "Can you explain what pool_recycle does in SQLAlchemy and whether we need it for a managed Postgres?",
    ),
)

CORS = Problem(
    key="cors-preflight",
    markers=("cors", "preflight", "access-control", "origin", "options request"),
    fixes=(
        Fix(
            "wildcard",
            'allow_origins=["*"]',
            "python scripts/set_cors.py --allow-origins 'allow_origins=[\"*\"]' && npm run e2e -- checkout.spec.ts",
            "Access to fetch at 'https://api.example.test/v1/cart' from origin 'https://shop.example.test' has been "
            "blocked by CORS policy: The value of the 'Access-Control-Allow-Origin' header in the response must not "
            "be the wildcard '*' when the request's credentials mode is 'include'.\n1 failed",
        ),
        Fix(
            "no-cors",
            'mode: "no-cors"',
            "node scripts/patch_fetch.js --option 'mode: \"no-cors\"' && npm run e2e -- checkout.spec.ts",
            "TypeError: Failed to read the 'json' property: opaque response (status 0)\n1 failed",
        ),
        Fix(
            "origin-regex",
            "allow_origin_regex=",
            "python scripts/set_cors.py --origin-regex 'allow_origin_regex=r\"https://.*\\.example\\.test\"' "
            "&& npm run e2e -- checkout.spec.ts",
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
    takeaway={},
    near_misses=(
        "Should we add a Content-Security-Policy header next to the CORS settings, and what would a sane default be?",
        "What does the SameSite attribute on our session cookie need to be for the new origin?",
    ),
)

UNAWAITED = Problem(
    key="unawaited-coroutine",
    markers=("await", "coroutine", "flaky", "runtimewarning", "asyncio"),
    fixes=(
        Fix(
            "no-randomly",
            "-p no:randomly",
            "pytest -p no:randomly tests/test_notifications.py -q",
            "FAILED tests/test_notifications.py::test_sends_receipt - AssertionError: expected 1 call, got 0\n"
            "RuntimeWarning: coroutine 'Mailer.send' was never awaited\n1 failed, 11 passed",
        ),
        Fix(
            "reruns",
            "--reruns 3",
            "pytest --reruns 3 tests/test_notifications.py -q",
            "FAILED tests/test_notifications.py::test_sends_receipt (rerun 3 of 3)\n"
            "RuntimeWarning: coroutine 'Mailer.send' was never awaited\n1 failed, 11 passed, 3 rerun",
        ),
        Fix(
            "warning-error",
            "-W error::RuntimeWarning",
            "pytest -W error::RuntimeWarning tests/ -q && python scripts/add_missing_await.py",
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
        LEDGER: "Flaky async test: `-p no:randomly` did not help, and `--reruns 3` did not help either. "
        "`-W error::RuntimeWarning` worked: it pointed at the call missing its await.",
    },
    near_misses=(
        "What's the difference between asyncio.gather and a TaskGroup for fanning out the webhook calls?",
        "Is it worth switching our async tests from pytest-asyncio to anyio's plugin?",
    ),
)

ALIAS = Problem(
    key="vite-alias",
    markers=("alias", "resolve import", "vite", "@/", "tsconfig", "failed to resolve"),
    fixes=(
        Fix(
            "base-url",
            '"baseUrl": "./src"',
            'node scripts/edit_tsconfig.js --set \'"baseUrl": "./src"\' && npm run build',
            '[vite]: Rollup failed to resolve import "@/components/Button" from "src/pages/Cart.tsx".\n'
            "error during build",
        ),
        Fix(
            "clear-cache",
            "rm -rf node_modules/.vite",
            "rm -rf node_modules/.vite && npm run build",
            '[vite]: Rollup failed to resolve import "@/components/Button" from "src/pages/Cart.tsx".\n'
            "error during build",
        ),
        Fix(
            "tsconfig-paths",
            "vite-tsconfig-paths",
            "npm install -D vite-tsconfig-paths && node scripts/add_vite_plugin.js tsconfigPaths && npm run build",
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
        STOREFRONT: 'Vite ignores tsconfig paths: setting `"baseUrl": "./src"` did not help. Adding the '
        "`vite-tsconfig-paths` plugin fixed the @/ imports.",
    },
    near_misses=(
        "The Vite dev server takes ages to start and HMR lags a few seconds after every edit. Any idea why?",
        "Should we move the docs site from webpack to vite, and what breaks when we do?",
    ),
)

DOCKER = Problem(
    key="docker-cache",
    markers=("docker", "layer", "cache", "dockerfile", "pip install -r"),
    fixes=(
        Fix(
            "prune",
            "docker builder prune",
            "docker builder prune -f && docker build -t tidewater:dev . && scripts/check_layer_cache.sh",
            "check_layer_cache: cache miss at step 5/9 RUN pip install -r requirements.txt (6m12s)\nexit status 1",
        ),
        Fix(
            "no-cache",
            "--no-cache",
            "docker build --no-cache -t tidewater:dev . && scripts/check_layer_cache.sh",
            "check_layer_cache: cache miss at step 5/9 RUN pip install -r requirements.txt (6m40s)\nexit status 1",
        ),
        Fix(
            "copy-requirements",
            "COPY requirements.txt ./",
            "python scripts/reorder_dockerfile.py --first 'COPY requirements.txt ./' && docker build -t tidewater:dev "
            ". && scripts/check_layer_cache.sh",
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
    takeaway={},
    near_misses=(
        "Can we shrink the image by moving to python:3.12-slim, and what do we lose?",
        "How do I pass the AWS credentials to docker compose without baking them into the image?",
    ),
)

ALEMBIC = Problem(
    key="alembic-heads",
    markers=("alembic", "head", "migration", "revision", "down_revision"),
    fixes=(
        Fix(
            "stamp",
            "alembic stamp head",
            "alembic stamp head && alembic upgrade head",
            "FAILED: Multiple head revisions are present for given argument 'head'; please specify a specific "
            "target revision, '<branchname>@head' to narrow to a specific head, or 'heads' for all heads",
        ),
        Fix(
            "merge",
            "alembic merge heads",
            "alembic merge heads -m 'merge branches' && alembic upgrade head && python scripts/check_linear_history.py",
            "check_linear_history: merge revision 9c41e2 is not allowed here; rebase your migration onto the current "
            "head\nexit status 1",
            "INFO  [alembic.runtime.migration] Running upgrade 4b7d, 8e21 -> 9c41e2, merge branches",
        ),
        Fix(
            "relink",
            "relink_migration.py --onto head",
            "python scripts/relink_migration.py --onto head && alembic upgrade head && "
            "python scripts/check_linear_history.py",
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
    takeaway={},
    near_misses=(
        "Write an alembic migration that adds an index on payments.created_at without locking the table.",
        "How do I make alembic autogenerate ignore the materialized views?",
    ),
)

PROXY_SSL = Problem(
    key="proxy-ssl",
    markers=("certificate", "ssl", "self_signed", "self-signed", "proxy", "ca cert", "tls"),
    fixes=(
        Fix(
            "strict-ssl",
            "npm config set strict-ssl false",
            "npm config set strict-ssl false && npm ci",
            "npm ERR! code SELF_SIGNED_CERT_IN_CHAIN (postinstall: cypress download)\n"
            "Error: self-signed certificate in certificate chain",
        ),
        Fix(
            "http-registry",
            "registry http://registry.npmjs.org/",
            "npm config set registry http://registry.npmjs.org/ && npm ci",
            "npm ERR! 403 Forbidden - plain HTTP is blocked by the corporate proxy",
        ),
        Fix(
            "extra-ca",
            "NODE_EXTRA_CA_CERTS=",
            "export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/corp-root.pem && npm ci",
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
        STOREFRONT: "Behind the corporate proxy `npm config set strict-ssl false` did not help because postinstall "
        "scripts use node's own TLS; `NODE_EXTRA_CA_CERTS=` pointing at the corp root CA fixed it.",
    },
    near_misses=(
        "How do I renew the Let's Encrypt certificate on the staging nginx before it expires?",
        "Do we need to pin the TLS version on the payment provider's webhook endpoint?",
    ),
)

OVERFLOW = Problem(
    key="numpy-overflow",
    markers=("overflow", "dtype", "int32", "numpy", "negative total", "astype"),
    fixes=(
        Fix(
            "seterr",
            'np.seterr(over="ignore")',
            "python scripts/patch_rollup.py --prepend 'np.seterr(over=\"ignore\")' && pytest tests/test_rollup.py -q",
            "E   AssertionError: daily revenue -2147126528 != 2147840768\n1 failed",
        ),
        Fix(
            "float32",
            "astype(np.float32)",
            "python scripts/patch_rollup.py --cast 'astype(np.float32)' && pytest tests/test_rollup.py -q",
            "E   AssertionError: daily revenue 2147840800.0 != 2147840768 (float32 rounding)\n1 failed",
        ),
        Fix(
            "int64",
            "astype(np.int64)",
            "python scripts/patch_rollup.py --cast 'astype(np.int64)' && pytest tests/test_rollup.py -q",
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
    takeaway={},
    near_misses=(
        "Convert the feature matrix to float32 to save memory; do we lose anything for the model?",
        "What's the fastest way to group by day in numpy without pandas?",
    ),
)

PROBLEMS: tuple[Problem, ...] = (POOL, CORS, UNAWAITED, ALIAS, DOCKER, ALEMBIC, PROXY_SSL, OVERFLOW)
