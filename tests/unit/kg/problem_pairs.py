"""Prompt pairs for calibrating the known-problem match (services/kg/episodes.MATCH_THRESHOLD).

``PARAPHRASES``: the same problem told again later, in other words and with
other file, module and service names (what a recurrence looks like).
``NEAR_MISSES``: prompts that share the vocabulary of a problem (the same
tool, error class or subsystem) but are a different problem, where the old
fix would not apply. Written for mnemex; no shared opaque error codes.
"""

from __future__ import annotations

PARAPHRASES: list[tuple[str, str]] = [
    (
        "pytest fails with ModuleNotFoundError: No module named 'billing' when I run the tests from the repo root",
        "running the test suite from the top folder I get ModuleNotFoundError, it can't import the shop package",
    ),
    (
        "the docker build fails because pip can't find a matching distribution for numpy in the slim image",
        "building the container image, the pip install step says no matching distribution found for pandas",
    ),
    (
        "alembic upgrade head fails: Can't locate revision identified by 'a81f2c' after I rebased",
        "after the rebase the database migration won't run, alembic can't find the revision id",
    ),
    (
        "psycopg2 OperationalError connection refused on port 5432 when the api starts locally",
        "the backend can't connect to postgres at startup, connection refused on localhost",
    ),
    (
        "npm install fails with ERESOLVE unable to resolve dependency tree for react 18",
        "yarn add errors out with a peer dependency conflict between react-dom and the router package",
    ),
    (
        "git push is rejected: updates were rejected because the tip of your current branch is behind",
        "can't push my branch, git says the remote contains work that I do not have locally",
    ),
    (
        "the celery worker crashes with a redis ConnectionError: Error 111 connecting to localhost:6379",
        "background jobs die immediately, the queue worker cannot reach the redis broker",
    ),
    (
        "mypy complains Incompatible types in assignment, expression has type None, variable has type str in orders.py",
        "type checker error in invoices.py: assigning an Optional value to a variable declared as plain string",
    ),
    (
        "CORS error in the browser: No 'Access-Control-Allow-Origin' header on the /login fetch",
        "the frontend's request to the auth endpoint is blocked by the browser's cross-origin policy",
    ),
    (
        "jest tests time out: Exceeded timeout of 5000 ms for a test in cart.spec.ts",
        "the checkout.test.js spec hangs until the test runner gives up after five seconds",
    ),
    (
        "SSL: CERTIFICATE_VERIFY_FAILED when requests calls the payments API behind the corporate proxy",
        "https calls to the shipping service fail certificate verification on the office network",
    ),
    (
        "uvicorn won't start: [Errno 98] address already in use on port 8000",
        "starting the dev server fails because something is already listening on the port",
    ),
    (
        "the go build fails: undefined: NewClient in handlers/user.go after moving the package",
        "after I moved the module, compiling says the constructor function is undefined in the orders handler",
    ),
    (
        "cargo build error E0502 cannot borrow `items` as mutable because it is also borrowed as immutable",
        "rust compiler refuses my loop: mutable borrow of the vector while an immutable borrow is still alive",
    ),
    (
        "the GitHub Actions job fails at setup-python: version 3.13 was not found in the local cache",
        "CI workflow breaks on the python setup step, the requested interpreter version isn't available",
    ),
    (
        "kubectl apply says error validating deployment.yaml: unknown field 'replica' in spec",
        "the manifest for the worker deployment is rejected by the cluster, it doesn't recognise a field in spec",
    ),
    (
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff when reading the csv export",
        "loading the spreadsheet file crashes with a decode error about an invalid start byte",
    ),
    (
        "terraform plan fails: Error acquiring the state lock, ConditionalCheckFailedException",
        "infra changes are blocked because the remote state is locked by another run",
    ),
    (
        "django raises ImproperlyConfigured: SECRET_KEY setting must not be empty when running manage.py",
        "the manage command crashes on startup complaining that the secret key setting is empty",
    ),
    (
        "the webpack dev build runs out of memory: JavaScript heap out of memory at 2GB",
        "bundling the frontend crashes node with a heap allocation failure",
    ),
    (
        "permission denied writing to /var/log/app.log when the service starts under systemd",
        "the daemon can't open its log file at boot, access is denied",
    ),
    (
        "pre-commit hook fails: black would reformat 3 files and the commit is aborted",
        "my commit is blocked because the formatter hook wants to rewrite some files",
    ),
    (
        "sqlalchemy DetachedInstanceError: Parent instance is not bound to a Session when accessing user.orders",
        "lazy loading a relationship after the session closed raises an error that the instance is detached",
    ),
    (
        "the react component re-renders forever: Maximum update depth exceeded in useEffect",
        "infinite render loop in my hook, react stops it saying the update depth limit was hit",
    ),
]

# Recurrences told as a symptom, without "error" or "fails": a leak, an overflow, something that
# stopped happening, a collision, an exception class named in CamelCase. The failure gate must
# let every one through (their cosines are printed; the threshold is calibrated on PARAPHRASES).
SYMPTOM_PARAPHRASES: list[tuple[str, str]] = [
    (
        "the image worker's memory grows by a gigabyte an hour until the container gets OOM-killed",
        "the thumbnail service is leaking memory again, its RSS climbs all night",
    ),
    (
        "webpack watch mode no longer rebuilds the bundle when I save a component",
        "the dev bundler stopped picking up my edits, I have to restart it after every change",
    ),
    (
        "the nightly import's row counter wraps to a negative value on the biggest customer table",
        "the counter in the sync job overflows once a table has more than two billion rows",
    ),
    (
        "uploading the quarterly report to the bucket hangs and then raises a ReadTimeout from boto",
        "the export step to object storage gives ConnectTimeoutError after a minute",
    ),
    (
        "two feature branches both claim schema version 42 and the migrator refuses to continue",
        "my schema change collides with a colleague's, both use the same version number",
    ),
    (
        "pandas SettingWithCopyWarning in the cleaning step and the discount column is never updated",
        "the dataframe assignment in clean_orders warns about a copy of a slice and the values stay the same",
    ),
]

NEAR_MISSES: list[tuple[str, str]] = [
    (
        "pytest fails with ModuleNotFoundError: No module named 'billing' when I run the tests from the repo root",
        "how do I run only the slow pytest tests from the repo root with a marker",
    ),
    (
        "the docker build fails because pip can't find a matching distribution for numpy in the slim image",
        "how can I make the docker image smaller, the slim image is still 900 MB",
    ),
    (
        "alembic upgrade head fails: Can't locate revision identified by 'a81f2c' after I rebased",
        "write an alembic migration that adds an index on orders.created_at",
    ),
    (
        "psycopg2 OperationalError connection refused on port 5432 when the api starts locally",
        "how do I tune the postgres connection pool size for the api",
    ),
    (
        "npm install fails with ERESOLVE unable to resolve dependency tree for react 18",
        "upgrade the project from react 17 to react 18 and list what changes",
    ),
    (
        "git push is rejected: updates were rejected because the tip of your current branch is behind",
        "how do I squash the last three commits on my branch before pushing",
    ),
    (
        "the celery worker crashes with a redis ConnectionError: Error 111 connecting to localhost:6379",
        "add a celery periodic task that cleans expired sessions every night",
    ),
    (
        "mypy complains Incompatible types in assignment, expression has type None, variable has type str in orders.py",
        "add type hints to the functions in orders.py",
    ),
    (
        "CORS error in the browser: No 'Access-Control-Allow-Origin' header on the /login fetch",
        "add rate limiting to the /login endpoint",
    ),
    (
        "jest tests time out: Exceeded timeout of 5000 ms for a test in cart.spec.ts",
        "write jest tests for the cart discount calculation",
    ),
    (
        "SSL: CERTIFICATE_VERIFY_FAILED when requests calls the payments API behind the corporate proxy",
        "add retries with backoff to the requests calls to the payments API",
    ),
    (
        "uvicorn won't start: [Errno 98] address already in use on port 8000",
        "run uvicorn with four workers behind nginx in production",
    ),
    (
        "the go build fails: undefined: NewClient in handlers/user.go after moving the package",
        "refactor handlers/user.go to use dependency injection for the client",
    ),
    (
        "cargo build error E0502 cannot borrow `items` as mutable because it is also borrowed as immutable",
        "speed up cargo build times in CI with caching",
    ),
    (
        "the GitHub Actions job fails at setup-python: version 3.13 was not found in the local cache",
        "add a GitHub Actions job that publishes the package to PyPI on tags",
    ),
    (
        "kubectl apply says error validating deployment.yaml: unknown field 'replica' in spec",
        "scale the worker deployment to five replicas with kubectl",
    ),
    (
        "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff when reading the csv export",
        "export the orders table to csv with a header row",
    ),
    (
        "terraform plan fails: Error acquiring the state lock, ConditionalCheckFailedException",
        "add a terraform module for the new S3 bucket",
    ),
    (
        "django raises ImproperlyConfigured: SECRET_KEY setting must not be empty when running manage.py",
        "add a django management command that imports users from a csv",
    ),
    (
        "the webpack dev build runs out of memory: JavaScript heap out of memory at 2GB",
        "configure webpack code splitting for the admin pages",
    ),
    (
        "permission denied writing to /var/log/app.log when the service starts under systemd",
        "set up log rotation for /var/log/app.log",
    ),
    (
        "pre-commit hook fails: black would reformat 3 files and the commit is aborted",
        "add ruff and isort to the pre-commit config",
    ),
    (
        "sqlalchemy DetachedInstanceError: Parent instance is not bound to a Session when accessing user.orders",
        "add a sqlalchemy relationship between users and orders with cascade delete",
    ),
    (
        "the react component re-renders forever: Maximum update depth exceeded in useEffect",
        "convert the class component to a function component with hooks",
    ),
    # The same tool failing in a different way: the fix of the first does not apply.
    (
        "pytest fails with ModuleNotFoundError: No module named 'billing' when I run the tests from the repo root",
        "pytest fails with an AssertionError in test_totals: expected 10 but got 12",
    ),
    (
        "the docker build fails because pip can't find a matching distribution for numpy in the slim image",
        "docker build fails at the COPY step: file not found in the build context",
    ),
    (
        "psycopg2 OperationalError connection refused on port 5432 when the api starts locally",
        "postgres error: relation 'orders' does not exist when the api queries the table",
    ),
    (
        "git push is rejected: updates were rejected because the tip of your current branch is behind",
        "git push fails with permission denied (publickey) on the new laptop",
    ),
    (
        "npm install fails with ERESOLVE unable to resolve dependency tree for react 18",
        "npm run build fails: Module not found, can't resolve './styles.css' in the header component",
    ),
    (
        "uvicorn won't start: [Errno 98] address already in use on port 8000",
        "uvicorn fails to start: ImportError cannot import name 'app' from 'main'",
    ),
    (
        "jest tests time out: Exceeded timeout of 5000 ms for a test in cart.spec.ts",
        "jest fails with ReferenceError: document is not defined in the header test",
    ),
    (
        "alembic upgrade head fails: Can't locate revision identified by 'a81f2c' after I rebased",
        "alembic autogenerate produces an empty migration even though I added a column",
    ),
    (
        "the celery worker crashes with a redis ConnectionError: Error 111 connecting to localhost:6379",
        "a celery task fails with a PicklingError: can't pickle a lambda function",
    ),
    (
        "kubectl apply says error validating deployment.yaml: unknown field 'replica' in spec",
        "the pod is stuck in CrashLoopBackOff right after kubectl apply",
    ),
    # Tasks that use a symptom word without reporting a failure.
    (
        "the image worker's memory grows by a gigabyte an hour until the container gets OOM-killed",
        "add a warning log to the image worker when a job takes longer than a minute",
    ),
    (
        "the nightly import's row counter wraps to a negative value on the biggest customer table",
        "explain how python ints avoid overflow and whether numpy int64 does the same",
    ),
    (
        "uploading the quarterly report to the bucket hangs and then raises a ReadTimeout from boto",
        "write a custom UploadError exception class for the report exporter",
    ),
]

# Whole episodes: (how the problem was first stated, the error output of a failed attempt during
# the episode, a later recurrence told by its symptom with other names). A recurrence often reads
# more like the error the user saw than like the question first asked; these calibrate matching
# a prompt against the error text of a problem's failed attempts (services/kg/problem_match.py).
EPISODE_SYMPTOMS: list[tuple[str, str, str]] = [
    (
        "Our reporting endpoint gets slower each week and now the load balancer drops requests. Where do we start?",
        "ERROR: canceling statement due to statement timeout\nCONTEXT: SQL statement SELECT ... FROM line_items",
        "the monthly report query gets cancelled by postgres because it runs past the statement timeout",
    ),
    (
        "Deploys to staging began failing this morning, nothing changed on our side as far as I know.",
        "Error: ImagePullBackOff: failed to pull image registry.internal/api:3f2a: unauthorized: authentication required",
        "the cluster can't pull our container image, the registry answers unauthorized",
    ),
    (
        "The mobile app shows an empty feed for some users after the last release.",
        "TypeError: Cannot read properties of undefined (reading 'items') at FeedScreen.render",
        "the timeline view crashes reading items of undefined when the payload is missing a field",
    ),
    (
        "Since the upgrade the scheduled export job does nothing at night, the bucket has no new files.",
        "botocore.exceptions.ClientError: An error occurred (AccessDenied) when calling the PutObject operation",
        "writing the nightly dump to S3 is refused with AccessDenied on PutObject",
    ),
    (
        "Local setup is broken for the new hire, the service will not come up on their laptop.",
        "django.core.exceptions.ImproperlyConfigured: The SECRET_KEY setting must not be empty.",
        "starting the web app on a fresh checkout complains the secret key setting is empty",
    ),
    (
        "The search page is unusably slow for queries with accents, everything else is fine.",
        "elasticsearch.exceptions.RequestError: illegal_argument_exception: Fielddata is disabled on text fields",
        "sorting the product search by title raises an illegal argument error about fielddata on a text field",
    ),
    (
        "Builds on the CI runners stopped working after we pinned the base image.",
        "error: externally-managed-environment\n× This environment is externally managed",
        "pip refuses to install into the system python in the runner image, it says the environment is "
        "externally managed",
    ),
    (
        "The payments webhook handler misses events whenever the provider retries.",
        "stripe.error.SignatureVerificationError: No signatures found matching the expected signature for payload",
        "the webhook from the payment provider is rejected because its signature does not verify",
    ),
    (
        "Our Go service eats all the memory on the box by the end of the day.",
        "fatal error: runtime: out of memory\ngoroutine 1 [running]: runtime.throw",
        "the go binary keeps growing and finally the runtime aborts with out of memory",
    ),
    (
        "The frontend tests have been flaky ever since we added the date picker.",
        'expect(received).toBe(expected)\nExpected: "2024-03-01"\nReceived: "2024-02-29"',
        "a calendar spec gets the day before the expected date on the CI machine in another timezone",
    ),
    (
        "The data pipeline produces duplicate rows in the warehouse after every rerun.",
        'IntegrityError: duplicate key value violates unique constraint "fact_sales_pkey"',
        "reloading the sales batch into the warehouse hits a unique constraint violation on its primary key",
    ),
    (
        "Emails stopped going out from the app on the new server.",
        "smtplib.SMTPAuthenticationError: (535, b'5.7.8 Username and Password not accepted')",
        "sending mail from the notifier is refused, the mail server does not accept the login",
    ),
    (
        "The rust crate compiles on my machine but not for the release target.",
        "error: linking with `cc` failed: exit status: 1\nnote: /usr/bin/ld: cannot find -lssl",
        "cross compiling the cli, the linker cannot find the openssl library",
    ),
    (
        "Users in the EU region keep getting logged out every few minutes.",
        "jwt.exceptions.ExpiredSignatureError: Signature has expired",
        "sessions end early because the access token is already expired when the api checks it",
    ),
    (
        "The notebook that trains the churn model crashes the kernel on the full dataset.",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "training on the gpu runs out of memory as soon as the batch size goes up",
    ),
    (
        "Terraform plan for the network module hangs our pipeline for an hour.",
        "Error: Error acquiring the state lock: ConditionalCheckFailedException: The conditional request failed",
        "the infra apply cannot get the state lock, another run seems to hold it",
    ),
]

# Near-misses of those episodes: the same subsystem or vocabulary, another problem or a plain task.
EPISODE_NEAR_MISSES: list[tuple[int, str]] = [
    (0, "add an index so the report query can filter on the invoice date"),
    (1, "the pod starts but its readiness probe fails on /healthz"),
    (3, "list the files the nightly export wrote to the bucket yesterday"),
    (6, "pip install is slow on the runners, can we cache the wheels?"),
    (7, "the payment provider's webhook arrives twice and we charge the customer twice"),
    (10, "the warehouse load is missing the rows from the last day of the month"),
    (11, "the emails go out but land in the spam folder of most recipients"),
    (13, "users in the EU region see prices in dollars instead of euros"),
    (14, "training loss goes to NaN after a few epochs on the gpu"),
    (15, "terraform plan wants to recreate the subnet every time even though nothing changed"),
]
