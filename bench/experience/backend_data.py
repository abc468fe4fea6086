"""kestrel-api's known problems in its data layer and its tests: migrations, the ORM, the test runner.

kestrel-api is a FastAPI backend on SQLAlchemy 2, alembic and Postgres, with
Redis, Celery, Docker and GitHub Actions around it (backend_ops.py holds
those problems). Each problem here is its own failure with its own error
output and its own right fix, and several come in pairs that share most of
their words but not the fix: two alembic upgrades that fail (forked history
vs a revision that no longer exists), two autogenerate surprises, two
session errors whose right fixes are each other's wrong ones (detached lazy
load vs MissingGreenlet after commit), two IntegrityErrors, two "fixture
not found" errors. In such a pair the other problem's fix is one of the
fixes the assistant may try, so a lesson shown for the wrong problem costs
an attempt.

The recurrences are a different person's reports, written for this file
(none taken from tests/unit/kg/problem_pairs.py): terse chat, pasted error
output, a longer story, some without the identifier that matters.
The near misses are failure reports in the same words where the known fix
would not apply.
"""

from __future__ import annotations

from bench.experience.problems import BACKEND, Fix, Problem, single

HEADS = single(
    BACKEND,
    "alembic-multiple-heads",
    "alembic upgrade head fails in the deploy job:\n\n"
    "  FAILED: Multiple head revisions are present for given argument 'head'; please specify a specific target "
    "revision, '<branchname>@head' to narrow to a specific head, or 'heads' for all heads\n\n"
    "Both the invoices branch and the webhooks branch added a migration last week.",
    (
        Fix(
            "stamp-head",
            "alembic stamp head && alembic upgrade head",
            "stamp the database at head before upgrading",
            "stamped the database as if it were at the newest tip, then upgraded",
            "FAILED: Multiple head revisions are present for given argument 'head'; please specify a specific "
            "target revision",
        ),
        Fix(
            "upgrade-heads",
            "alembic upgrade heads && python scripts/check_single_head.py",
            "upgrade to all heads at once with the plural heads target",
            "applied both branches together by asking for every tip (the plural target)",
            "INFO  [alembic.runtime.migration] Running upgrade 3e9a -> 7c1f, add invoice due_date\n"
            "INFO  [alembic.runtime.migration] Running upgrade 3e9a -> 91bd, webhook retries\n"
            "check_single_head: 2 heads (7c1f, 91bd); the next autogenerate will branch again\nexit status 1",
        ),
        Fix(
            "merge-revision",
            "alembic merge -m 'merge invoices and webhooks' 7c1f 91bd && alembic upgrade head",
            "create a merge revision that joins the two heads 7c1f and 91bd",
            "added a merging migration whose parents are both tips, so history converges again",
            "FAILED: Multiple head revisions are present",
            "INFO  [alembic.runtime.migration] Running upgrade 7c1f, 91bd -> e02a, merge invoices and webhooks",
        ),
    ),
    wrong=("stamp-head", "upgrade-heads"),
    right="merge-revision",
    tried=2,
    paraphrases=(
        "deploy is red again, alembic says multiple head revisions are present",
        "Two people merged migrations on the same day and now `alembic upgrade head` won't pick one:\n\n"
        "FAILED: Multiple head revisions are present for given argument 'head'",
        "Hey, I pulled main this morning and the local db setup script bails out because the migration history "
        "has forked into two tips. What did we do last time?",
    ),
    near_misses=(
        'alembic upgrade head fails on staging with psycopg.errors.DuplicateTable: relation "invoice_reminders" '
        "already exists; somebody ran the CREATE TABLE by hand during the incident.",
    ),
    requests=("How do we stop two branches from both adding migrations? Can CI check that there is one alembic head?",),
    takeaway="Forked migration history: stamping head did not help, and the plural heads upgrade did not help either. "
    "The merge revision joining 7c1f and 91bd fixed it.",
)

MISSING_REVISION = single(
    BACKEND,
    "alembic-missing-revision",
    "My local database is broken after switching branches; alembic upgrade head says\n\n"
    "  alembic.util.exc.CommandError: Can't locate revision identified by 'b7e1c09d4f2a'\n\n"
    "That revision was on the refunds branch, which got squashed.",
    (
        Fix(
            "merge-revision",
            "alembic merge -m 'join' heads && alembic upgrade head",
            "create a merge revision over the heads",
            "tried tying the branches together with a joining migration",
            "alembic.util.exc.CommandError: Can't locate revision identified by 'b7e1c09d4f2a'",
        ),
        Fix(
            "downgrade-once",
            "alembic downgrade -1 && alembic upgrade head",
            "downgrade one step and upgrade again",
            "stepped the schema back by one and went forward again",
            "alembic.util.exc.CommandError: Can't locate revision identified by 'b7e1c09d4f2a'",
        ),
        Fix(
            "stamp-purge",
            "alembic stamp --purge 4c1d2e8a9f01 && alembic upgrade head",
            "purge the version table and stamp it at 4c1d2e8a9f01, the last revision main still has",
            "reset the alembic_version row to the newest migration that exists on main, then upgraded from there",
            "alembic.util.exc.CommandError: Can't locate revision identified by '4c1d2e8a9f01'",
            "INFO  [alembic.runtime.migration] Running upgrade 4c1d2e8a9f01 -> 5e3b77a0c2d1, add refund_reason",
        ),
    ),
    wrong=("downgrade-once",),
    right="stamp-purge",
    paraphrases=(
        "alembic: Can't locate revision identified by '0f9c2d7e1b34' after I checked out main",
        "the dev db points at a migration that doesn't exist anymore (the branch got squashed) so upgrade "
        "refuses to do anything",
        "anyone know why `make db-upgrade` dies with CommandError can't locate revision? only on my machine, "
        "CI is fine",
    ),
    near_misses=(
        "alembic downgrade -1 fails on my machine: NotImplementedError raised from the downgrade() of "
        "5e3b77a0c2d1_add_refund_reason, that migration never got a downgrade path.",
    ),
)

ENUM_VALUE = single(
    BACKEND,
    "alembic-enum-value",
    "Inserting an order with the new status blows up in staging:\n\n"
    "  sqlalchemy.exc.DataError: (psycopg.errors.InvalidTextRepresentation) invalid input value for enum "
    'order_status: "partially_refunded"\n\n'
    "I added PARTIALLY_REFUNDED to the OrderStatus enum and ran autogenerate; the migration it made is empty.",
    (
        Fix(
            "autogenerate-again",
            "alembic revision --autogenerate -m 'order status' && alembic upgrade head",
            "run alembic autogenerate again to pick up the model change",
            "ran autogenerate one more time for a fresh revision",
            "INFO  [alembic.autogenerate.compare] No changes in schema detected.\n"
            'E   sqlalchemy.exc.DataError: invalid input value for enum order_status: "partially_refunded"',
        ),
        Fix(
            "varchar-status",
            "python scripts/patch_models.py --column Order.status --set 'native_enum=False' && pytest tests/orders -q",
            "store the status column as varchar with native_enum=False",
            "made status a plain string column rather than the database enum",
            'E   sqlalchemy.exc.ProgrammingError: column "status" is of type order_status but expression is of '
            "type character varying\n1 failed, 41 passed",
        ),
        Fix(
            "alter-type",
            "python scripts/new_migration.py --sql \"ALTER TYPE order_status ADD VALUE 'partially_refunded'\" "
            "&& alembic upgrade head && pytest tests/orders -q",
            "write the migration by hand with ALTER TYPE order_status ADD VALUE",
            "put ALTER TYPE ... ADD VALUE for the new label into a hand-made migration; autogenerate never sees "
            "enum members",
            'E   sqlalchemy.exc.DataError: invalid input value for enum order_status: "partially_refunded"',
            "42 passed in 6.08s",
        ),
    ),
    wrong=("autogenerate-again", "varchar-status"),
    right="alter-type",
    paraphrases=(
        "DataError invalid input value for enum order_status when saving an order as 'on_hold' (new status I just "
        "added)",
        "new enum member isn't in the db. autogenerate produced nothing. again.",
        "So I added a value to one of our status enums in the model, generated the migration like always, "
        "deployed, and the first write with the new value failed with invalid input value for enum. Feels "
        "familiar?",
    ),
    near_misses=(
        "alembic upgrade head fails on the enum migration: psycopg.errors.ActiveSqlTransaction: ALTER TYPE ... "
        "ADD VALUE cannot run inside a transaction block.",
    ),
    takeaway="New order status missing in Postgres. Running autogenerate again did not help. "
    "A hand-written ALTER TYPE order_status ADD VALUE migration fixed it.",
)

EMPTY_METADATA = single(
    BACKEND,
    "alembic-empty-metadata",
    "alembic revision --autogenerate wants to drop every table:\n\n"
    "  INFO  [alembic.autogenerate.compare] Detected removed table 'invoices'\n"
    "  INFO  [alembic.autogenerate.compare] Detected removed table 'customers'\n  ...\n\n"
    "I only added one column to Customer. Something is off with env.py since the models package was split.",
    (
        Fix(
            "autogenerate-again",
            "rm migrations/versions/*_customer_tier.py && alembic revision --autogenerate -m 'customer tier'",
            "delete the generated revision and autogenerate it again",
            "threw the generated file away and had alembic write it once more",
            "INFO  [alembic.autogenerate.compare] Detected removed table 'invoices'\n"
            "INFO  [alembic.autogenerate.compare] Detected removed table 'customers'",
        ),
        Fix(
            "include-schemas",
            "python scripts/patch_env.py --context-option 'include_schemas=True' "
            "&& alembic revision --autogenerate -m 'customer tier'",
            "turn on include_schemas in the migration context",
            "let the migration environment look at every schema, not just public",
            "INFO  [alembic.autogenerate.compare] Detected removed table 'invoices'\n"
            "INFO  [alembic.autogenerate.compare] Detected removed table 'public.customers'",
        ),
        Fix(
            "import-models",
            "python scripts/patch_env.py --prepend 'import app.models  # noqa: F401' "
            "&& alembic revision --autogenerate -m 'customer tier'",
            "import app.models in migrations/env.py so target_metadata knows the tables",
            "made env.py load the models package before it reads Base.metadata; the split had left that metadata empty",
            "INFO  [alembic.autogenerate.compare] Detected removed table 'invoices'",
            "INFO  [alembic.autogenerate.compare] Detected added column 'customers.tier'\n"
            "  Generating migrations/versions/8a2c51f0e7d3_customer_tier.py ...  done",
        ),
    ),
    wrong=("include-schemas", "autogenerate-again"),
    right="import-models",
    paraphrases=(
        "autogenerate thinks all our tables were deleted ('Detected removed table' for every one of them)",
        "generated migration is full of op.drop_table, I only touched one model",
        "When I run alembic revision --autogenerate the script it writes would drop the whole schema. I didn't "
        "change anything in migrations/, just moved some models around. What's going on?",
    ),
    near_misses=(
        "alembic revision --autogenerate is wrong every single time: it emits a bogus server_default change for "
        "created_at on every table, even right after upgrading.",
    ),
)

DETACHED = single(
    BACKEND,
    "orm-detached-lazy-load",
    "The invoice email task crashes:\n\n"
    "  sqlalchemy.orm.exc.DetachedInstanceError: Parent instance <Invoice at 0x7f3a2c1d5e50> is not bound to a "
    "Session; lazy load operation of attribute 'lines' cannot proceed\n\n"
    "The task loads the invoice in a `with Session() as s:` block and renders the email after it.",
    (
        Fix(
            "expire-on-commit",
            "python scripts/patch_session.py --sessionmaker 'expire_on_commit=False' "
            "&& pytest tests/tasks/test_invoice_email.py -q",
            "create sessions with expire_on_commit=False so loaded attributes survive the commit",
            "kept attribute values alive after commit by changing the session factory's expiry setting",
            "E   sqlalchemy.orm.exc.DetachedInstanceError: Parent instance <Invoice at 0x7f3a2c1d5e50> is not bound "
            "to a Session; lazy load operation of attribute 'lines' cannot proceed\n1 failed",
        ),
        Fix(
            "merge-into-session",
            "python scripts/patch_task.py --wrap 'session.merge(invoice)' && pytest tests/tasks/test_invoice_email.py -q",
            "re-attach the invoice with session.merge before rendering",
            "merged the invoice back into a new session right before rendering",
            "E   sqlalchemy.exc.InvalidRequestError: Object '<Invoice at 0x7f3a2c1d5e50>' is already attached to "
            "session '3' (this is '4')\n1 failed",
        ),
        Fix(
            "selectinload",
            "python scripts/patch_query.py --options 'selectinload(Invoice.lines)' "
            "&& pytest tests/tasks/test_invoice_email.py -q",
            "eager-load the invoice lines with selectinload in the task's query",
            "had the query fetch the line items up front, while the session is open",
            "E   sqlalchemy.orm.exc.DetachedInstanceError: Parent instance <Invoice at 0x7f3a2c1d5e50> is not bound "
            "to a Session\n1 failed",
            "3 passed in 1.92s",
        ),
    ),
    wrong=("expire-on-commit", "merge-into-session"),
    right="selectinload",
    paraphrases=(
        "DetachedInstanceError: lazy load operation of attribute 'items' cannot proceed, in the order "
        "confirmation job this time",
        "the statement pdf task can't get at statement.entries once the session block has exited, 'is not bound "
        "to a Session'",
        "another background job died with the parent instance not bound thing. it reads a relationship after "
        "the with block.",
    ),
    near_misses=(
        "sqlalchemy.orm.exc.StaleDataError: UPDATE statement on table 'invoices' expected to update 1 row(s); 0 "
        "were matched. Happens when two workers settle the same invoice.",
    ),
)

GREENLET = single(
    BACKEND,
    "orm-missing-greenlet",
    "POST /customers returns 500 right after the commit:\n\n"
    "  sqlalchemy.exc.MissingGreenlet: greenlet_spawn has not been called; can't call await_only() here. Was IO "
    "attempted in an unexpected place?\n\n"
    "It happens on `return CustomerOut.model_validate(customer)` after `await session.commit()`.",
    (
        Fix(
            "selectinload",
            "python scripts/patch_query.py --options 'selectinload(Customer.addresses)' "
            "&& pytest tests/api/test_customers.py -q",
            "eager-load the customer's addresses with selectinload",
            "made the customer query bring its addresses along eagerly",
            "E   sqlalchemy.exc.MissingGreenlet: greenlet_spawn has not been called; can't call await_only() here."
            "\n1 failed, 17 passed",
        ),
        Fix(
            "run-sync",
            "python scripts/patch_route.py --wrap 'await session.run_sync(build_response)' "
            "&& pytest tests/api/test_customers.py -q",
            "build the response inside session.run_sync",
            "moved the response building into a synchronous callback that the session runs",
            "E   sqlalchemy.exc.MissingGreenlet: greenlet_spawn has not been called\n1 failed, 17 passed",
        ),
        Fix(
            "expire-on-commit",
            "python scripts/patch_session.py --sessionmaker 'expire_on_commit=False' "
            "&& pytest tests/api/test_customers.py -q",
            "create sessions with expire_on_commit=False so attributes are not reloaded after commit",
            "stopped the async session factory from expiring everything on commit, so reading customer.id no "
            "longer triggers a lazy refresh",
            "E   sqlalchemy.exc.MissingGreenlet: greenlet_spawn has not been called\n1 failed, 17 passed",
            "18 passed in 3.40s",
        ),
    ),
    wrong=("selectinload", "run-sync"),
    right="expire-on-commit",
    paraphrases=(
        "MissingGreenlet: greenlet_spawn has not been called; can't call await_only() here, on the create "
        "invoice endpoint after commit",
        "returning the freshly created object from an async route fails with the greenlet error",
        "Every time I return a model right after committing it in an async endpoint I get 'was IO attempted in an "
        "unexpected place'. PUT /addresses now.",
    ),
    near_misses=(
        "asyncpg.exceptions.InterfaceError: cannot perform operation: another operation is in progress, only in "
        "the report endpoint that gathers three queries on one session.",
    ),
    takeaway="MissingGreenlet after commit: eager loading with selectinload did not help. The async session "
    "factory with expire_on_commit=False fixed it.",
)

UNIQUE_EMAIL = single(
    BACKEND,
    "orm-unique-email-fixtures",
    "Half the API tests error out since I added a second user to the fixtures:\n\n"
    "  sqlalchemy.exc.IntegrityError: (psycopg.errors.UniqueViolation) duplicate key value violates unique "
    'constraint "users_email_key"\n  DETAIL:  Key (email)=(test@example.com) already exists.\n\n'
    "The users come from UserFactory.",
    (
        Fix(
            "truncate-tables",
            "python scripts/patch_conftest.py --fixture truncate_tables --autouse && pytest tests/api -q",
            "truncate all tables before each test with an autouse fixture",
            "wiped every table at the start of each test",
            'E   sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint "users_email_key"\n'
            "E   DETAIL:  Key (email)=(test@example.com) already exists.\n12 errors, 188 passed",
        ),
        Fix(
            "tenant-from-context",
            "python scripts/patch_repository.py --set 'tenant_id=current_tenant.get()' && pytest tests/api -q",
            "set tenant_id from the current_tenant context in the repository",
            "filled in the tenant from the request context when rows are created",
            'E   sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint "users_email_key"\n'
            "12 errors, 188 passed",
        ),
        Fix(
            "factory-sequence",
            "python scripts/patch_factory.py --field email "
            "--set 'factory.Sequence(lambda n: f\"user{n}@example.com\")' && pytest tests/api -q",
            "give UserFactory a factory.Sequence for email so each user is unique",
            "made the user factory number its addresses (user0@, user1@ and so on)",
            'E   sqlalchemy.exc.IntegrityError: duplicate key value violates unique constraint "users_email_key"',
            "200 passed in 41.7s",
        ),
    ),
    wrong=("truncate-tables",),
    right="factory-sequence",
    paraphrases=(
        "IntegrityError duplicate key value violates unique constraint users_email_key in test_invoices setup",
        "tests blow up when a test makes two users, same email every time from the factory",
        "Getting UniqueViolation on (email)=(test@example.com) in the fixtures again whenever a test needs an admin "
        "and a customer.",
    ),
    near_misses=(
        'IntegrityError: duplicate key value violates unique constraint "orders_pkey" DETAIL: Key (id)=(1042) '
        "already exists, on staging after we restored last night's dump; inserts through the API fail.",
    ),
)

TENANT = single(
    BACKEND,
    "orm-null-tenant",
    "Creating an invoice through the API fails since the multi-tenant migration:\n\n"
    '  sqlalchemy.exc.IntegrityError: (psycopg.errors.NotNullViolation) null value in column "tenant_id" of '
    'relation "invoices" violates not-null constraint\n\n'
    "The middleware sets current_tenant; the tests pass because the factories set it.",
    (
        Fix(
            "server-default",
            "python scripts/new_migration.py --sql 'ALTER TABLE invoices ALTER COLUMN tenant_id SET DEFAULT 1' "
            "&& pytest tests/api -q",
            "give invoices.tenant_id a server default",
            "let Postgres fill the tenant in with a default of 1 when it's missing",
            "E   AssertionError: invoice.tenant_id == 1, expected 7 (tenant of the caller)\n1 failed, 63 passed",
        ),
        Fix(
            "nullable-tenant",
            "python scripts/patch_models.py --column Invoice.tenant_id --set 'nullable=True' && pytest tests/api -q",
            "make tenant_id nullable",
            "made the tenant column nullable",
            "E   AssertionError: GET /invoices as tenant 7 returned 0 invoices, expected 1\n1 failed, 63 passed",
        ),
        Fix(
            "tenant-from-context",
            "python scripts/patch_repository.py --set 'tenant_id=current_tenant.get()' && pytest tests/api -q",
            "set tenant_id from the current_tenant context in InvoiceRepository.create",
            "made the invoice repository stamp each new row with the tenant the middleware put in the request context",
            'E   psycopg.errors.NotNullViolation: null value in column "tenant_id"\n1 failed, 63 passed',
            "64 passed in 12.3s",
        ),
    ),
    wrong=("server-default", "nullable-tenant"),
    right="tenant-from-context",
    paraphrases=(
        'null value in column "tenant_id" of relation "credit_notes" violates not-null constraint',
        "NotNullViolation tenant_id when posting a payment, factories hide it in tests",
        "creating things through the real API (not the tests) fails with a not-null error on the tenant column, "
        "the one we added for multi-tenancy",
    ),
    near_misses=(
        'IntegrityError: insert or update on table "invoices" violates foreign key constraint '
        '"invoices_customer_id_fkey" when the sales team deletes a customer and creates it again.',
    ),
)

TOO_MANY_CLIENTS = single(
    BACKEND,
    "db-too-many-clients",
    "CI got slow so I turned on pytest-xdist with -n auto, and now the suite errors out:\n\n"
    "  psycopg.OperationalError: connection failed: FATAL:  sorry, too many clients already\n\n"
    "Locally with -n 4 it's fine; the CI runner has 16 cores.",
    (
        Fix(
            "bigger-pool",
            "python scripts/patch_engine.py --engine-arg 'pool_size=20' && pytest -n auto -q",
            "raise the test engine's pool_size to 20",
            "made the engine's pool bigger (twenty instead of five)",
            "E   psycopg.OperationalError: connection failed: FATAL:  sorry, too many clients already\n"
            "37 errors, 612 passed",
        ),
        Fix(
            "dispose-engine",
            "python scripts/patch_conftest.py --teardown 'engine.dispose()' && pytest -n auto -q",
            "dispose the engine at the end of the session",
            "disposed of the engine when the test session ends",
            "E   psycopg.OperationalError: connection failed: FATAL:  sorry, too many clients already\n"
            "29 errors, 620 passed",
        ),
        Fix(
            "null-pool",
            "python scripts/patch_engine.py --only tests --engine-arg 'poolclass=NullPool' && pytest -n auto -q",
            "use poolclass=NullPool for the test engine so each worker holds one connection at a time",
            "stopped tests from keeping idle connections around (NullPool): every checkout opens one and closes "
            "it right after",
            "E   psycopg.OperationalError: FATAL:  sorry, too many clients already\n3 errors",
            "649 passed in 3m12s",
        ),
    ),
    wrong=("bigger-pool", "dispose-engine"),
    right="null-pool",
    paraphrases=(
        "FATAL: sorry, too many clients already when the tests run in parallel on CI",
        "xdist + postgres = too many clients. again.",
        "The nightly full-suite job with all the workers keeps hitting Postgres' connection limit halfway through; "
        "we saw this before when we turned parallel tests on.",
    ),
    near_misses=(
        'psycopg.OperationalError: connection failed: FATAL:  password authentication failed for user "kestrel", '
        "only on the new GitHub runner image; the tests never get a connection.",
    ),
)

DB_SESSION_FIXTURE = single(
    BACKEND,
    "pytest-fixture-db-session",
    "After moving the API tests into tests/api/ they all error at setup:\n\n"
    "  E       fixture 'db_session' not found\n"
    "  >       available fixtures: anyio_backend, cache, capfd, capsys, client, settings\n\n"
    "The fixture is defined in tests/db/conftest.py.",
    (
        Fix(
            "plugins-list",
            "python scripts/patch_conftest.py --file tests/api/conftest.py "
            "--add 'pytest_plugins = [\"tests.db.conftest\"]' && pytest tests/api -q",
            "declare pytest_plugins with tests.db.conftest in tests/api/conftest.py",
            "made the api conftest load the db fixtures as a plugin via pytest_plugins",
            "Defining 'pytest_plugins' in a non-top-level conftest is no longer supported:\n"
            "It affects the entire test suite instead of just below the conftest as expected.\n"
            "  tests/api/conftest.py\nPlease move it to a top level conftest file at the rootdir",
        ),
        Fix(
            "install-plugin",
            "pip install pytest-httpx && echo pytest-httpx >> requirements-dev.txt && pytest tests/api -q",
            "install the pytest plugin that provides the fixture and add it to requirements-dev.txt",
            "added the missing pytest plugin to the dev requirements and installed it",
            "E       fixture 'db_session' not found\n48 errors",
        ),
        Fix(
            "root-conftest",
            "git mv tests/db/conftest.py tests/conftest.py && pytest tests/api -q",
            "move the db_session fixture up into tests/conftest.py at the root",
            "moved the db fixtures' conftest up to the top of tests/ so every folder sees them",
            "E       fixture 'db_session' not found\n48 errors",
            "48 passed in 9.8s",
        ),
    ),
    wrong=("plugins-list",),
    right="root-conftest",
    paraphrases=(
        "fixture 'db_session' not found in tests/billing after I created the folder",
        "new test package can't see our db fixture ('fixture not found'), the old ones can",
        "E       fixture 'db_session' not found\n>       available fixtures: anyio_backend, cache, capfd, capsys, "
        "client\n\nwhy is it missing for the webhooks tests?",
    ),
    near_misses=(
        "pytest: error: unrecognized arguments: --cov=app --cov-report=xml, on the new CI image the test step stops "
        "before collecting anything.",
    ),
    requests=("Write a fixture that wraps each test in a transaction and rolls it back at the end.",),
)

HTTPX_FIXTURE = single(
    BACKEND,
    "pytest-fixture-httpx-mock",
    "test_payment_webhooks errors on CI but passes on my laptop:\n\n"
    "  E       fixture 'httpx_mock' not found\n"
    "  >       available fixtures: anyio_backend, cache, capfd, capsys, client, db_session\n\n"
    "Nothing in our conftest defines httpx_mock.",
    (
        Fix(
            "root-conftest",
            "git mv tests/db/conftest.py tests/conftest.py && pytest tests/api -q",
            "move the conftest fixtures up into tests/conftest.py at the root",
            "moved the conftest up to the top of tests/",
            "E       fixture 'httpx_mock' not found\n6 errors, 42 passed",
        ),
        Fix(
            "plugins-list",
            "python scripts/patch_conftest.py --file tests/conftest.py --add 'pytest_plugins = [\"pytest_httpx\"]' "
            "&& pytest tests/api -q",
            "declare pytest_plugins = pytest_httpx in the root conftest",
            "registered pytest_httpx through pytest_plugins at the top level",
            "ImportError while loading conftest '/builds/kestrel/tests/conftest.py'.\n"
            "E   ModuleNotFoundError: No module named 'pytest_httpx'",
        ),
        Fix(
            "install-plugin",
            "pip install pytest-httpx && echo pytest-httpx >> requirements-dev.txt && pytest tests/api -q",
            "install pytest-httpx, which provides the httpx_mock fixture, and add it to requirements-dev.txt",
            "put the HTTP mocking plugin in the dev requirements; it was only installed on my laptop",
            "E       fixture 'httpx_mock' not found",
            "48 passed in 10.2s",
        ),
    ),
    wrong=("root-conftest", "plugins-list"),
    right="install-plugin",
    paraphrases=(
        "fixture 'httpx_mock' not found on the CI runner, fine locally",
        "CI can't find the httpx mock fixture for the shipping client tests",
        "tests that mock outgoing HTTP error at setup in the pipeline only (fixture not found). I have a feeling "
        "we had this",
    ),
    near_misses=(
        "test_payment_webhooks fails at teardown: AssertionError: The following responses are mocked but not "
        "requested: POST https://api.stripe.test/v1/refunds. httpx_mock is there, the test just never calls it.",
    ),
    takeaway="CI lacked the httpx_mock fixture. Moving the conftest to the top of tests did not help. "
    "Installing pytest-httpx from requirements-dev.txt fixed it.",
)

LOOP_CLOSED = single(
    BACKEND,
    "pytest-event-loop-closed",
    "The async API tests pass one by one but the full run fails from the second test on:\n\n"
    "  RuntimeError: Event loop is closed\n  ...\n"
    "  sqlalchemy/dialects/postgresql/asyncpg.py in _handle_exception\n\n"
    "The async engine is created once in tests/conftest.py.",
    (
        Fix(
            "asyncio-marker",
            "python scripts/add_marker.py --marker 'pytest.mark.asyncio' tests/api && pytest tests/api -q",
            "mark every async test with pytest.mark.asyncio",
            "decorated the coroutine tests with the asyncio marker explicitly",
            "E   RuntimeError: Event loop is closed\n23 failed, 1 passed",
        ),
        Fix(
            "dispose-engine",
            "python scripts/patch_conftest.py --teardown 'await engine.dispose()' && pytest tests/api -q",
            "await engine.dispose() after each test",
            "closed the engine's connections after every test",
            "E   RuntimeError: Task <Task pending> got Future <Future pending> attached to a different loop\n"
            "22 failed, 2 passed",
        ),
        Fix(
            "session-loop",
            "python scripts/set_ini.py asyncio_default_fixture_loop_scope=session && pytest tests/api -q",
            "run fixtures and tests on one session-scoped event loop with asyncio_default_fixture_loop_scope",
            "made pytest-asyncio keep a single loop for the whole run, so the engine's connections belong to the "
            "loop the tests use",
            "E   RuntimeError: Event loop is closed",
            "24 passed in 5.1s",
        ),
    ),
    wrong=("asyncio-marker", "dispose-engine"),
    right="session-loop",
    paraphrases=(
        "RuntimeError: Event loop is closed from asyncpg on every test after the first one",
        "async tests: first passes, rest fail with event loop closed. engine is module level in conftest",
        "Full test run dies with 'Event loop is closed' (and sometimes 'attached to a different loop') in the "
        "repository tests, each test alone is fine.",
    ),
    near_misses=(
        "PytestUnhandledCoroutineWarning: async def functions are not natively supported and have been skipped; "
        "the new tests under tests/jobs never actually run, they show up as skipped.",
    ),
)

SCOPE_MISMATCH = single(
    BACKEND,
    "pytest-scope-mismatch",
    "The seeded database fixture I made session-scoped to speed things up fails:\n\n"
    "  ScopeMismatch: You tried to access the function scoped fixture tmp_path with a session scoped request "
    "object, involved factories:\n  tests/conftest.py:41:  def seeded_db(tmp_path)",
    (
        Fix(
            "function-scope",
            "python scripts/patch_fixture.py seeded_db --scope function && pytest -q",
            "make seeded_db function scoped again",
            "went back to a per-test function scope",
            "Timeout: the test job exceeded the 20 minute limit (seeding ran 640 times)\nexit status 124",
        ),
        Fix(
            "autouse",
            "python scripts/patch_fixture.py seeded_db --autouse && pytest -q",
            "make seeded_db autouse",
            "turned on autouse for it",
            "ScopeMismatch: You tried to access the function scoped fixture tmp_path with a session scoped request "
            "object",
        ),
        Fix(
            "tmp-path-factory",
            "python scripts/patch_fixture.py seeded_db --replace tmp_path 'tmp_path_factory.mktemp(\"seed\")' "
            "&& pytest -q",
            "use tmp_path_factory.mktemp in the session fixture instead of tmp_path",
            "had it take its directory from the factory fixture that lives as long as the session",
            "ScopeMismatch: You tried to access the function scoped fixture tmp_path",
            "640 passed in 2m41s",
        ),
    ),
    wrong=("function-scope",),
    right="tmp-path-factory",
    paraphrases=(
        "ScopeMismatch: function scoped fixture tmp_path with a session scoped request object in the warm_cache "
        "fixture",
        "made a fixture session-wide and pytest complains it can't use a per-test fixture from it",
        "pytest ScopeMismatch again, on a module scoped fixture that needs a temp dir",
    ),
    near_misses=(
        "pytest errors at setup: recursive dependency involving fixture 'client' detected, after I made client "
        "depend on settings and settings on the client's app.",
    ),
)

PROBLEMS: tuple[Problem, ...] = (
    HEADS,
    MISSING_REVISION,
    ENUM_VALUE,
    EMPTY_METADATA,
    DETACHED,
    GREENLET,
    UNIQUE_EMAIL,
    TENANT,
    TOO_MANY_CLIENTS,
    DB_SESSION_FIXTURE,
    HTTPX_FIXTURE,
    LOOP_CLOSED,
    SCOPE_MISMATCH,
)
