"""kestrel-api's known problems around the code: images, compose, CI, auth, the cache, workers, dependencies, settings.

The same backend as backend_data.py. Pairs here that share most of their
words but not the fix: "connection refused on 5432" in compose (the api
starts before postgres is ready) vs in GitHub Actions (the service port is not
mapped to the runner); two PyJWT errors; two pip-audit findings (jinja2,
pinned by us, vs urllib3, pinned by botocore); two "Field required" settings
errors (a variable renamed in CI vs a compose service without the env file);
two images that will not start (built for the wrong CPU vs CRLF scripts).
"""

from __future__ import annotations

from bench.experience.problems import BACKEND, Fix, Problem, single

DOCKERIGNORE = single(
    BACKEND,
    "docker-dockerignore",
    "The image build broke after someone tidied the .dockerignore:\n\n"
    "  => ERROR [app 6/9] COPY alembic.ini ./\n"
    '  failed to compute cache key: failed to calculate checksum of ref: "/alembic.ini": not found\n\n'
    "alembic.ini is right there in the repo root.",
    (
        Fix(
            "no-cache",
            "docker build --no-cache -t kestrel-api:dev .",
            "rebuild without the layer cache",
            "did a clean rebuild that reuses no layer (--no-cache)",
            '=> ERROR [app 6/9] COPY alembic.ini ./\nfailed to calculate checksum of ref: "/alembic.ini": not found',
        ),
        Fix(
            "parent-context",
            "docker build -f Dockerfile -t kestrel-api:dev ..",
            "build from the parent directory as the context",
            "ran the build with the folder above as its context",
            '=> ERROR [app 4/9] COPY requirements.txt ./\nfailed to calculate checksum of ref: "/requirements.txt": '
            "not found",
        ),
        Fix(
            "unignore",
            "echo '!alembic.ini' >> .dockerignore && docker build -t kestrel-api:dev .",
            "re-include alembic.ini in .dockerignore with a !alembic.ini exception after the *.ini rule",
            "added an exception for the migration config to the ignore file; the new *.ini pattern had been hiding "
            "it from the build",
            '=> ERROR [app 6/9] COPY alembic.ini ./\nfailed to calculate checksum of ref: "/alembic.ini": not found',
            "=> exporting to image\n=> => naming to docker.io/library/kestrel-api:dev",
        ),
    ),
    wrong=("no-cache", "parent-context"),
    right="unignore",
    paraphrases=(
        'docker build: failed to calculate checksum of ref "/alembic.ini": not found, the file exists though',
        "COPY of alembic.ini fails in the image build since the ignore file cleanup",
        "build can't find a file that's definitely in the repo (the alembic config), something about the build context",
    ),
    near_misses=(
        "docker build fails: COPY failed: forbidden path outside the build context: ../shared/logging.yaml, we "
        "moved the logging config to the monorepo root.",
    ),
)

EXEC_FORMAT = single(
    BACKEND,
    "docker-exec-format",
    "The new api image crashes on the staging cluster (the Graviton nodes) straight away:\n\n"
    "  exec /usr/local/bin/docker-entrypoint.sh: exec format error\n\n"
    "It runs fine on my laptop. I built and pushed it from my machine.",
    (
        Fix(
            "chmod-entrypoint",
            "git update-index --chmod=+x docker-entrypoint.sh && docker build -t ghcr.io/acme/kestrel-api:1.14.0 . "
            "&& docker push ghcr.io/acme/kestrel-api:1.14.0",
            "mark the entrypoint executable in git",
            "flipped the executable bit on the start file through git",
            "kubectl logs api-7d9c: exec /usr/local/bin/docker-entrypoint.sh: exec format error",
        ),
        Fix(
            "lf-endings",
            "sed -i 's/\\r$//' docker-entrypoint.sh && echo '*.sh text eol=lf' >> .gitattributes "
            "&& docker build -t ghcr.io/acme/kestrel-api:1.14.0 .",
            "convert the shell scripts to LF line endings with a .gitattributes rule",
            "stripped the Windows carriage returns and added a line-ending rule so scripts stay unix-style",
            "kubectl logs api-7d9c: exec /usr/local/bin/docker-entrypoint.sh: exec format error",
        ),
        Fix(
            "multi-arch",
            "docker buildx build --platform linux/amd64,linux/arm64 -t ghcr.io/acme/kestrel-api:1.14.0 --push .",
            "build a multi-platform image for linux/amd64 and linux/arm64 with docker buildx",
            "published the image for both CPU architectures, x86 and ARM, as one manifest",
            "kubectl logs api-7d9c: exec /usr/local/bin/docker-entrypoint.sh: exec format error",
            "=> pushing manifest for ghcr.io/acme/kestrel-api:1.14.0@sha256:3f1c9e0a",
        ),
    ),
    wrong=("chmod-entrypoint",),
    right="multi-arch",
    paraphrases=(
        "exec format error on the arm nodes for the worker image",
        "staging pods crashloop: exec /usr/local/bin/docker-entrypoint.sh: exec format error",
        "Image I built locally won't start on the new cluster, just 'exec format error' and a restart loop",
    ),
    near_misses=(
        "the api pod won't start: exec /usr/local/bin/docker-entrypoint.sh: permission denied, while the same "
        "image works in compose.",
    ),
    requests=("Can you add a multi-stage Dockerfile for the worker so the image gets smaller?",),
)

CRLF = single(
    BACKEND,
    "docker-crlf-script",
    "The worker container exits immediately since Priya's commit from her Windows machine:\n\n"
    "  /usr/bin/env: 'bash\\r': No such file or directory\n\n"
    "The entrypoint script starts with #!/usr/bin/env bash.",
    (
        Fix(
            "chmod-entrypoint",
            "git update-index --chmod=+x docker/worker-entrypoint.sh && docker compose up --build worker",
            "mark the entrypoint executable in git",
            "flipped the executable bit on the worker's start file through git",
            "worker-1  | /usr/bin/env: 'bash\\r': No such file or directory\nworker-1 exited with code 127",
        ),
        Fix(
            "multi-arch",
            "docker buildx build --platform linux/amd64,linux/arm64 -t kestrel-worker:dev --load .",
            "build a multi-platform image for linux/amd64 and linux/arm64 with docker buildx",
            "built the worker image for both CPU architectures",
            "ERROR: docker exporter does not currently support exporting manifest lists",
        ),
        Fix(
            "lf-endings",
            "sed -i 's/\\r$//' docker/*.sh && echo '*.sh text eol=lf' >> .gitattributes "
            "&& docker compose up --build worker",
            "convert the shell scripts to LF line endings with a .gitattributes rule",
            "stripped the Windows carriage returns and added a line-ending rule so scripts stay unix-style",
            "worker-1  | /usr/bin/env: 'bash\\r': No such file or directory",
            "worker-1  | [2025-03-02 10:14:07,113: INFO/MainProcess] celery@worker ready.",
        ),
    ),
    wrong=("chmod-entrypoint",),
    right="lf-endings",
    paraphrases=(
        "/usr/bin/env: 'bash\\r': No such file or directory in the migrate container",
        "container won't start, complains about bash with a weird \\r after it",
        "Another script edited on Windows? The beat container exits with 'No such file or directory' for bash even "
        "though bash is in the image.",
    ),
    near_misses=(
        "/app/docker/worker-entrypoint.sh: line 9: exec: celery: not found, after switching the worker to the "
        "multi-stage Dockerfile.",
    ),
)

COMPOSE_DB = single(
    BACKEND,
    "compose-db-not-ready",
    "docker compose up: the api container dies on startup about half the time:\n\n"
    "  api-1  | sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection failed: connection to "
    'server at "172.18.0.2", port 5432 failed: Connection refused\n  api-1 exited with code 1\n\n'
    "If I start it again a few seconds later it works.",
    (
        Fix(
            "sleep-first",
            "python scripts/patch_entrypoint.py --prepend 'sleep 5' && docker compose up -d "
            "&& scripts/compose_smoke.sh 10",
            "sleep five seconds in the api entrypoint before starting",
            "had the api wait a few seconds before it boots",
            "compose_smoke: run 4/10: api-1 exited with code 1 (Connection refused on port 5432)\nexit status 1",
        ),
        Fix(
            "publish-port",
            "python scripts/patch_compose.py --service db --add 'ports: [\"5432:5432\"]' && docker compose up -d "
            "&& scripts/compose_smoke.sh 10",
            "publish the postgres port 5432:5432",
            "exposed the database container's port on the host",
            "compose_smoke: run 2/10: api-1 exited with code 1 (Connection refused on port 5432)\nexit status 1",
        ),
        Fix(
            "healthcheck",
            "python scripts/patch_compose.py --service db --healthcheck 'pg_isready -U kestrel' "
            "--service api --depends-on 'db: service_healthy' && docker compose up -d && scripts/compose_smoke.sh 10",
            "add a pg_isready healthcheck to db and make api depend on it with condition service_healthy",
            "had compose start the api only once db is healthy per pg_isready",
            "compose_smoke: run 7/10: api-1 exited with code 1 (Connection refused on port 5432)\nexit status 1",
            "compose_smoke: 10/10 clean starts",
        ),
    ),
    wrong=("sleep-first",),
    right="healthcheck",
    paraphrases=(
        "api exits with Connection refused on 5432 when the whole compose stack starts, second start works",
        "race on compose up: api boots before postgres is ready",
        "docker compose up from scratch -> api-1 exited with code 1, psycopg connection refused. restart = fine. "
        "didn't we solve this?",
    ),
    near_misses=(
        'api-1 | psycopg.OperationalError: could not translate host name "postgres" to address: Name or service '
        "not known, in the new compose file the database service is called db.",
    ),
)

CI_PORTS = single(
    BACKEND,
    "ci-postgres-ports",
    "The integration job in GitHub Actions can't reach the database service:\n\n"
    '  E   psycopg.OperationalError: connection failed: connection to server at "127.0.0.1", port 5432 failed: '
    "Connection refused\n\n"
    "The workflow has a postgres:16 service with a pg_isready health check; the tests run directly on the runner.",
    (
        Fix(
            "healthcheck",
            "python scripts/patch_workflow.py --service postgres "
            "--options '--health-cmd pg_isready --health-interval 5s --health-retries 10' && gh workflow run ci.yml",
            "add a pg_isready healthcheck to the postgres service and wait for it",
            "made the job wait until postgres reports it is accepting connections",
            'E   psycopg.OperationalError: connection to server at "127.0.0.1", port 5432 failed: Connection '
            "refused\nError: Process completed with exit code 1.",
        ),
        Fix(
            "service-host",
            "python scripts/patch_workflow.py --env 'DATABASE_URL=postgresql+psycopg://kestrel@postgres:5432/kestrel' "
            "&& gh workflow run ci.yml",
            "use the service name postgres as the database host in DATABASE_URL",
            "addressed the database by its service name instead of localhost",
            'E   psycopg.OperationalError: could not translate host name "postgres" to address: Temporary failure '
            "in name resolution\nError: Process completed with exit code 1.",
        ),
        Fix(
            "publish-port",
            "python scripts/patch_workflow.py --service postgres --add 'ports: [\"5432:5432\"]' "
            "&& gh workflow run ci.yml",
            "publish the postgres port 5432:5432 to the runner",
            "exposed the container's port on the runner; the test steps run outside any container",
            'E   psycopg.OperationalError: connection to server at "127.0.0.1", port 5432 failed: Connection refused',
            "===== 412 passed in 96.33s =====\n✓ integration in 2m31s",
        ),
    ),
    wrong=("healthcheck", "service-host"),
    right="publish-port",
    paraphrases=(
        "CI integration tests: connection refused 127.0.0.1:5432, the postgres service is healthy",
        "github actions can't talk to the postgres service container from the test step (refused on localhost)",
        "The new workflow I wrote for the reporting service has the same problem the main one had: tests can't "
        "connect to postgres on localhost in Actions.",
    ),
    near_misses=(
        "CI backup test: pg_dump: error: aborting because of server version mismatch (server version: 16.2; "
        "pg_dump version: 14.11).",
    ),
    takeaway="Actions job refused on 127.0.0.1:5432: waiting for the pg_isready healthcheck did not help. "
    "Publishing the postgres port 5432:5432 to the runner fixed it.",
)

EXIT_137 = single(
    BACKEND,
    "ci-exit-137",
    "The test job on GitHub Actions dies without a traceback:\n\n"
    "  [gw3] node down: Not properly terminated\n  replacing crashed worker gw3\n"
    "  Error: Process completed with exit code 137.\n\n"
    "The suite runs with pytest -n auto on ubuntu-latest.",
    (
        Fix(
            "longer-timeout",
            "python scripts/patch_workflow.py --job test --set 'timeout-minutes: 60' && gh workflow run ci.yml",
            "raise the job's timeout-minutes to 60",
            "gave the job an hour before it gets cancelled",
            "[gw1] node down: Not properly terminated\nError: Process completed with exit code 137.",
        ),
        Fix(
            "dist-loadfile",
            "python scripts/patch_workflow.py --pytest-args '-n auto --dist loadfile' && gh workflow run ci.yml",
            "distribute tests by file with --dist loadfile",
            "kept each test file together on a single worker via loadfile",
            "[gw2] node down: Not properly terminated\nError: Process completed with exit code 137.",
        ),
        Fix(
            "two-workers",
            "python scripts/patch_workflow.py --env PYTEST_XDIST_AUTO_NUM_WORKERS=2 && gh workflow run ci.yml",
            "limit pytest-xdist to 2 workers with PYTEST_XDIST_AUTO_NUM_WORKERS so the runner's 7 GB of memory is "
            "enough",
            "cut the parallel test processes down to two; with one per core each loaded the whole app and the "
            "runner ran out of memory",
            "[gw1] node down: Not properly terminated\nError: Process completed with exit code 137.",
            "===== 1204 passed in 6m02s =====\n✓ test in 6m40s",
        ),
    ),
    wrong=("longer-timeout", "dist-loadfile"),
    right="two-workers",
    tried=2,
    paraphrases=(
        "exit code 137 in the test job, workers get killed",
        "Error: Process completed with exit code 137.\n[gw3] node down: Not properly terminated\n\nnow on the "
        "combined lint+test job",
        "the CI tests just die halfway with no error message, only exit code 137 at the end",
    ),
    near_misses=(
        "The test job got cancelled: 'The job running on runner GitHub Actions 7 has exceeded the maximum "
        "execution time of 360 minutes.' One test hangs forever waiting on a socket.",
    ),
    requests=("Set up a nightly GitHub Actions job that runs the full suite with coverage.",),
)

GHCR = single(
    BACKEND,
    "ci-ghcr-denied",
    "The release workflow can't push the image:\n\n"
    "  ERROR: failed to push ghcr.io/acme/kestrel-api:1.15.0: denied: installation not allowed to Create "
    "organization package\n\n"
    "docker/login-action logs in fine with GITHUB_TOKEN.",
    (
        Fix(
            "relogin",
            "python scripts/patch_workflow.py --step login --set 'username: ${{ github.actor }}' "
            "&& gh workflow run release.yml",
            "log in to ghcr again with github.actor as the username",
            "redid the registry login step with the actor name as user",
            "ERROR: failed to push ghcr.io/acme/kestrel-api:1.15.0: denied: installation not allowed to Create "
            "organization package",
        ),
        Fix(
            "personal-token",
            "gh secret set GHCR_PAT < token.txt && python scripts/patch_workflow.py --step login "
            "--set 'password: ${{ secrets.GHCR_PAT }}' && gh workflow run release.yml",
            "log in with a personal access token stored as the GHCR_PAT secret",
            "used my own token, saved as a repository secret, for the registry",
            "ERROR: failed to push ghcr.io/acme/kestrel-api:1.15.0: denied: permission_denied: The token provided "
            "does not match expected scopes.",
        ),
        Fix(
            "packages-write",
            "python scripts/patch_workflow.py --file release.yml --set 'permissions: {contents: read, packages: "
            "write}' && gh workflow run release.yml",
            "grant the workflow permissions packages: write",
            "granted write access to packages in the release workflow's permissions",
            "ERROR: failed to push ghcr.io/acme/kestrel-api:1.15.0: denied",
            "1.15.0: digest: sha256:9b0e41c2 size: 2417\n✓ release in 4m12s",
        ),
    ),
    wrong=("relogin", "personal-token"),
    right="packages-write",
    paraphrases=(
        "release workflow: denied: installation not allowed to Create organization package on docker push",
        "can't push the worker image to ghcr from actions, login ok, push denied",
        "The new repo's release pipeline fails on the push step with a denied error from the GitHub container "
        "registry. Same thing we had on kestrel-api I think.",
    ),
    near_misses=(
        "docker push to ghcr fails with 'unauthorized: authentication required', only for pull requests opened "
        "from forks.",
    ),
)

EXPIRED = single(
    BACKEND,
    "jwt-expired-fixture",
    "The last third of the integration suite fails with 401s:\n\n"
    "  jwt.exceptions.ExpiredSignatureError: Signature has expired\n\n"
    "The suite takes about 9 minutes, ACCESS_TOKEN_TTL is 5 minutes, and the headers come from the auth_headers "
    "fixture in tests/conftest.py.",
    (
        Fix(
            "leeway",
            "python scripts/patch_auth.py --decode-arg 'leeway=30' && pytest tests/integration -q",
            "decode tokens with leeway=30 seconds",
            "allowed thirty seconds of clock slack (leeway) when tokens are checked",
            "E   jwt.exceptions.ExpiredSignatureError: Signature has expired\n61 failed, 148 passed",
        ),
        Fix(
            "both-audiences",
            'python scripts/patch_auth.py --decode-arg \'audience=["kestrel-api", "api://kestrel"]\' '
            "&& pytest tests/integration -q",
            "accept both audiences kestrel-api and api://kestrel when decoding",
            "let the decoder accept the old and the new audience",
            "E   jwt.exceptions.ExpiredSignatureError: Signature has expired\n61 failed, 148 passed",
        ),
        Fix(
            "token-per-test",
            "python scripts/patch_fixture.py auth_headers --scope function && pytest tests/integration -q",
            "make the auth_headers fixture function scoped so each test mints a fresh token",
            "minted a new token for every test instead of reusing one from the start of the session",
            "E   jwt.exceptions.ExpiredSignatureError: Signature has expired",
            "209 passed in 9m12s",
        ),
    ),
    wrong=("leeway",),
    right="token-per-test",
    paraphrases=(
        "ExpiredSignatureError: Signature has expired in the later integration tests",
        "tests start returning 401 about 5 min into the run, token expired",
        "the e2e suite got longer and now everything after the halfway mark fails auth with an expired token error",
    ),
    near_misses=(
        "jwt.exceptions.InvalidSignatureError: Signature verification failed, for every token issued before we "
        "rotated JWT_SECRET this morning.",
    ),
)

AUDIENCE = single(
    BACKEND,
    "jwt-invalid-audience",
    "Since the identity provider migration every request from the mobile app gets 401:\n\n"
    "  jwt.exceptions.InvalidAudienceError: Audience doesn't match\n\n"
    'We decode with audience="kestrel-api"; the new tokens carry aud "api://kestrel".',
    (
        Fix(
            "leeway",
            "python scripts/patch_auth.py --decode-arg 'leeway=30' && pytest tests/auth -q",
            "decode tokens with leeway=30 seconds",
            "allowed thirty seconds of clock slack (leeway) when tokens are checked",
            "E   jwt.exceptions.InvalidAudienceError: Audience doesn't match\n4 failed, 58 passed",
        ),
        Fix(
            "jwks-refresh",
            "python scripts/flush_cache.py --key jwks && pytest tests/auth -q",
            "refresh the cached JWKS signing keys",
            "threw away the cached signing keys so they are fetched anew",
            "E   jwt.exceptions.InvalidAudienceError: Audience doesn't match\n4 failed, 58 passed",
        ),
        Fix(
            "both-audiences",
            'python scripts/patch_auth.py --decode-arg \'audience=["kestrel-api", "api://kestrel"]\' '
            "&& pytest tests/auth -q",
            "accept both audiences kestrel-api and api://kestrel when decoding",
            "let the decoder accept the old and the new audience while both kinds are in circulation",
            "E   jwt.exceptions.InvalidAudienceError: Audience doesn't match",
            "62 passed in 3.9s",
        ),
    ),
    wrong=("jwks-refresh", "leeway"),
    right="both-audiences",
    paraphrases=(
        "InvalidAudienceError: Audience doesn't match for tokens from the new login service",
        "401 for all tokens issued by the new IdP, the aud claim is different",
        "jwt says Audience doesn't match on the partner API now that they moved to the new identity provider",
    ),
    near_misses=(
        "jwt.exceptions.DecodeError: Not enough segments, the mobile client sends 'Authorization: Bearer Bearer "
        "eyJ...'.",
    ),
    requests=("What's the right way to rotate the JWT signing key without logging everybody out?",),
)

BCRYPT = single(
    BACKEND,
    "passlib-bcrypt-version",
    "Login crashes on the fresh image:\n\n"
    "  (trapped) error reading bcrypt version\n"
    "  AttributeError: module 'bcrypt' has no attribute '__about__'\n  ...\n"
    "  ValueError: password cannot be longer than 72 bytes, truncate manually if necessary\n\n"
    "The image picked up bcrypt 4.2 with the rebuild; passlib is 1.7.4.",
    (
        Fix(
            "upgrade-passlib",
            "pip install --upgrade passlib && pytest tests/auth -q",
            "upgrade passlib to the latest release",
            "upgraded passlib as far as it goes",
            "Requirement already satisfied: passlib in /usr/local/lib/python3.12/site-packages (1.7.4)\n"
            "E   ValueError: password cannot be longer than 72 bytes, truncate manually if necessary\n"
            "9 failed, 53 passed",
        ),
        Fix(
            "truncate-password",
            "python scripts/patch_auth.py --hash-input 'password[:72]' && pytest tests/auth -q",
            "truncate passwords to 72 bytes before hashing",
            "cut every password down to its first 72 bytes",
            "E   ValueError: password cannot be longer than 72 bytes, truncate manually if necessary\n"
            "(raised from passlib.handlers.bcrypt detect_wrap_bug)\n9 failed, 53 passed",
        ),
        Fix(
            "pin-bcrypt",
            "echo 'bcrypt==4.0.1' >> requirements.in && pip-compile requirements.in "
            "&& pip install -r requirements.txt && pytest tests/auth -q",
            "pin bcrypt==4.0.1, the last release passlib 1.7.4 works with",
            "held bcrypt back at 4.0.1 in the requirements; passlib can't read the version of newer ones",
            "E   AttributeError: module 'bcrypt' has no attribute '__about__'",
            "62 passed in 4.4s",
        ),
    ),
    wrong=("upgrade-passlib",),
    right="pin-bcrypt",
    paraphrases=(
        "AttributeError: module 'bcrypt' has no attribute '__about__' on login after the rebuild",
        "password hashing broke in the new image, passlib + bcrypt error about 72 bytes",
        "signup returns 500 after we rebuilt the base image: error reading bcrypt version, then a ValueError about "
        "password length",
    ),
    near_misses=(
        "passlib: ValueError: hash could not be identified, for the users imported from the old PHP system last week.",
    ),
)

WRONGTYPE = single(
    BACKEND,
    "redis-wrongtype",
    "After deploying the new cache layout some profile requests 500:\n\n"
    "  redis.exceptions.ResponseError: WRONGTYPE Operation against a key holding the wrong kind of value\n\n"
    "We changed user:{id} from a JSON string to a hash (HSET). The old pods were still running during the rollout.",
    (
        Fix(
            "flushall",
            "redis-cli -h cache FLUSHALL && scripts/rollout_check.sh profile",
            "flush the whole redis cache",
            "flushed the whole cache",
            "rollout_check: 37 errors in 10 min: WRONGTYPE Operation against a key holding the wrong kind of "
            "value (old pods wrote user:1881 as a string again)\nexit status 1",
        ),
        Fix(
            "delete-keys",
            "redis-cli -h cache --scan --pattern 'user:*' | xargs redis-cli -h cache DEL "
            "&& scripts/rollout_check.sh profile",
            "delete the user:* keys",
            "removed every cached profile entry by scanning for them",
            "rollout_check: 12 errors in 10 min: WRONGTYPE Operation against a key holding the wrong kind of value"
            "\nexit status 1",
        ),
        Fix(
            "versioned-keys",
            "python scripts/patch_cache.py --key-template 'user:v2:{id}' && scripts/rollout_check.sh profile",
            "version the key prefix to user:v2:{id} so the hash layout never meets old string keys",
            "gave the new layout its own v2 namespace; old and new pods no longer touch each other's entries",
            "rollout_check: 3 errors in 10 min: WRONGTYPE Operation against a key holding the wrong kind of value",
            "rollout_check: 0 errors in 10 min",
        ),
    ),
    wrong=("flushall", "delete-keys"),
    right="versioned-keys",
    paraphrases=(
        "WRONGTYPE Operation against a key holding the wrong kind of value on the session cache after the deploy",
        "redis WRONGTYPE errors during the rollout of the cart cache change",
        "we switched another cache entry from string to hash and of course mid-deploy redis starts throwing wrong "
        "kind of value",
    ),
    near_misses=(
        "redis.exceptions.ResponseError: MOVED 12182 10.0.3.14:6379, since the cache moved to the clustered redis.",
    ),
    requests=("Add a cache for the product catalogue with a ten minute TTL.",),
    takeaway="WRONGTYPE during a rollout: FLUSHALL did not help, the old pods wrote strings again. Versioned "
    "keys (user:v2:{id}) fixed it.",
)

UNREGISTERED = single(
    BACKEND,
    "celery-unregistered-task",
    "The invoice emails stopped going out. Worker log:\n\n"
    "  [ERROR/MainProcess] Received unregistered task of type 'app.tasks.billing.send_invoice_email'.\n"
    "  The message has been ignored and discarded.\n\n"
    "The task moved from app/tasks.py to app/tasks/billing.py last sprint.",
    (
        Fix(
            "restart-worker",
            "docker compose restart worker && scripts/enqueue_probe.sh send_invoice_email",
            "restart the celery worker",
            "restarted the worker container",
            "worker-1 | [ERROR/MainProcess] Received unregistered task of type "
            "'app.tasks.billing.send_invoice_email'.\nenqueue_probe: task not executed within 30s\nexit status 1",
        ),
        Fix(
            "old-task-name",
            "python scripts/patch_task.py send_invoice_email --name 'app.tasks.send_invoice_email' "
            "&& scripts/enqueue_probe.sh send_invoice_email",
            "give the task its old explicit name",
            "pinned the task's registered name to the pre-move one",
            "worker-1 | [ERROR/MainProcess] Received unregistered task of type 'app.tasks.send_invoice_email'.\n"
            "enqueue_probe: task not executed within 30s\nexit status 1",
        ),
        Fix(
            "include-module",
            "python scripts/patch_celery.py --include 'app.tasks.billing' && docker compose up -d --build worker "
            "&& scripts/enqueue_probe.sh send_invoice_email",
            "add app.tasks.billing to the Celery app's include list",
            "listed the new billing tasks module in the worker's imports so it registers its tasks at startup",
            "worker-1 | [ERROR/MainProcess] Received unregistered task of type 'app.tasks.billing.send_invoice_email'",
            "worker-1 | [INFO/ForkPoolWorker-2] Task app.tasks.billing.send_invoice_email[5c1e] succeeded in 0.41s\n"
            "enqueue_probe: ok",
        ),
    ),
    wrong=("restart-worker", "old-task-name"),
    right="include-module",
    paraphrases=(
        "Received unregistered task of type 'app.tasks.reports.build_statement', message discarded",
        "celery ignores the tasks I moved into a new module, 'unregistered task' in the worker log",
        "Nothing happens when we queue the reminder job, the worker says it doesn't know the task. We reorganised "
        "the tasks package again.",
    ),
    near_misses=(
        "celery worker: kombu.exceptions.OperationalError: [Errno 111] Connection refused, the broker URL still "
        "says localhost inside the container.",
    ),
)

UUID_JSON = single(
    BACKEND,
    "celery-uuid-json",
    "Queueing the export task fails in the API:\n\n"
    "  kombu.exceptions.EncodeError: Object of type UUID is not JSON serializable\n\n"
    "We call export_orders.delay(customer.id) and customer ids became UUIDs in the last migration.",
    (
        Fix(
            "pickle-serializer",
            "python scripts/patch_celery.py --set 'task_serializer=\"pickle\"' && pytest tests/tasks -q",
            "switch the task serializer to pickle",
            "made celery serialise task arguments with Python's own binary format",
            "E   kombu.exceptions.ContentDisallowed: Refusing to deserialize untrusted content of type pickle "
            "(application/x-python-serialize)\n3 failed, 21 passed",
        ),
        Fix(
            "json-default",
            "python scripts/patch_json.py --default str --module app.api && pytest tests/tasks -q",
            "set json.dumps default=str in the API's JSON encoder",
            "taught the API's response encoder to stringify objects it does not know",
            "E   kombu.exceptions.EncodeError: Object of type UUID is not JSON serializable\n3 failed, 21 passed",
        ),
        Fix(
            "string-ids",
            "python scripts/patch_calls.py --task export_orders --wrap-arg 'str(customer.id)' && pytest tests/tasks -q",
            "pass str(customer.id) to export_orders.delay and parse it back in the task",
            "sent the id across as text and turned it back into a UUID inside the task",
            "E   kombu.exceptions.EncodeError: Object of type UUID is not JSON serializable",
            "24 passed in 2.7s",
        ),
    ),
    wrong=("pickle-serializer",),
    right="string-ids",
    paraphrases=(
        "EncodeError: Object of type UUID is not JSON serializable when calling .delay on the invoice pdf task",
        "kombu can't serialize a UUID argument, another task after the id migration",
        "queuing a celery job with an order id blows up with a 'not JSON serializable' error now",
    ),
    near_misses=(
        "celery.exceptions.SoftTimeLimitExceeded in export_orders for the biggest customers; the task gets killed "
        "after 300 s.",
    ),
)

JINJA_CVE = single(
    BACKEND,
    "cve-jinja2",
    "The security job fails on pip-audit:\n\n"
    "  Found 1 known vulnerability in 1 package\n"
    "  Name   Version ID                  Fix Versions\n"
    "  ------ ------- ------------------- ------------\n"
    "  jinja2 3.1.3   GHSA-h75v-3vvj-5mfj 3.1.4\n\n"
    "jinja2 is pinned in requirements.in (we use it for the email templates).",
    (
        Fix(
            "upgrade-package",
            "pip-compile --upgrade-package jinja2 requirements.in && pip-audit -r requirements.txt",
            "let pip-compile upgrade jinja2 in the lock file",
            "asked the lock compiler to move jinja2 to its newest allowed version",
            "Found 1 known vulnerability in 1 package\nName   Version ID                  Fix Versions\n"
            "jinja2 3.1.3   GHSA-h75v-3vvj-5mfj 3.1.4",
        ),
        Fix(
            "ignore-advisory",
            "pip-audit -r requirements.txt --ignore-vuln GHSA-h75v-3vvj-5mfj && python scripts/check_audit_policy.py",
            "ignore the advisory with --ignore-vuln",
            "told the audit to skip that advisory id",
            "check_audit_policy: ignoring GHSA-h75v-3vvj-5mfj needs an entry in SECURITY-EXCEPTIONS.md approved by "
            "security\nexit status 1",
        ),
        Fix(
            "bump-pin",
            "sed -i 's/^jinja2==3.1.3/jinja2==3.1.4/' requirements.in && pip-compile requirements.in "
            "&& pip-audit -r requirements.txt",
            "raise the exact pin jinja2==3.1.4 in requirements.in and recompile",
            "edited our own exact version line for jinja2 to 3.1.4 and regenerated the lock",
            "Found 1 known vulnerability in 1 package\njinja2 3.1.3   GHSA-h75v-3vvj-5mfj 3.1.4",
            "No known vulnerabilities found",
        ),
    ),
    wrong=("upgrade-package", "ignore-advisory"),
    right="bump-pin",
    paraphrases=(
        "pip-audit: jinja2 3.1.3 GHSA-h75v-3vvj-5mfj, fix version 3.1.4; security job is red",
        "security check fails on the templating package's CVE",
        "The nightly audit flags jinja2 again (new advisory, fix version 3.1.5 this time). How did we get past it "
        "last time?",
    ),
    near_misses=(
        "pip-audit fails the security job: 'Dependency not found on PyPI and could not be audited: "
        "kestrel-internal-sdk (0.4.2)'. That's our private package.",
    ),
    requests=("Explain what pip-audit checks and whether it covers our private packages.",),
)

URLLIB3_CVE = single(
    BACKEND,
    "cve-urllib3",
    "The security job fails on pip-audit again, another package:\n\n"
    "  Found 1 known vulnerability in 1 package\n"
    "  Name    Version ID                  Fix Versions\n"
    "  ------- ------- ------------------- -------------\n"
    "  urllib3 1.26.18 GHSA-34jh-p97f-mpxf 1.26.19,2.2.2\n\n"
    "urllib3 isn't in requirements.in, it comes in through botocore.",
    (
        Fix(
            "bump-pin",
            "echo 'urllib3==2.2.2' >> requirements.in && pip-compile requirements.in && pip-audit -r requirements.txt",
            "add an exact pin urllib3==2.2.2 to requirements.in and recompile",
            "added our own exact version line for urllib3 at 2.2.2",
            "ERROR: Cannot install urllib3==2.2.2 because these package versions have conflicting dependencies.\n"
            "    botocore 1.29.165 depends on urllib3<1.27 and >=1.25.4\nResolutionImpossible",
        ),
        Fix(
            "ignore-advisory",
            "pip-audit -r requirements.txt --ignore-vuln GHSA-34jh-p97f-mpxf && python scripts/check_audit_policy.py",
            "ignore the advisory with --ignore-vuln",
            "told the audit to skip that advisory id",
            "check_audit_policy: ignoring GHSA-34jh-p97f-mpxf needs an entry in SECURITY-EXCEPTIONS.md approved by "
            "security\nexit status 1",
        ),
        Fix(
            "upgrade-package",
            "pip-compile --upgrade-package 'urllib3<1.27' requirements.in && pip-audit -r requirements.txt",
            "let pip-compile upgrade urllib3 within the 1.26 line that botocore allows",
            "asked the lock compiler for the newest 1.26.x urllib3, which carries the patch and keeps botocore happy",
            "Found 1 known vulnerability in 1 package\nurllib3 1.26.18 GHSA-34jh-p97f-mpxf 1.26.19,2.2.2",
            "No known vulnerabilities found",
        ),
    ),
    wrong=("bump-pin", "ignore-advisory"),
    right="upgrade-package",
    paraphrases=(
        "pip-audit: urllib3 1.26.18 GHSA-34jh-p97f-mpxf; the security job is red again",
        "audit flags urllib3, which we don't even depend on directly",
        "CVE in a transitive dep (urllib3 via boto) is failing the security check, and we can't just pin 2.x",
    ),
    near_misses=(
        "pip-compile fails with ResolutionImpossible: fastapi 0.110 depends on starlette<0.37 and we pinned "
        "starlette==0.38 for the lifespan fix.",
    ),
)

DATABASE_URL = single(
    BACKEND,
    "settings-database-url-ci",
    "Every CI job fails at import since the settings refactor:\n\n"
    "  pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\n  DATABASE_URL\n"
    "    Field required [type=missing, input_value={...}, input_type=dict]\n\n"
    "Locally it works, my .env has DATABASE_URL.",
    (
        Fix(
            "compose-env-file",
            "python scripts/patch_compose.py --service api --add 'env_file: .env' && gh workflow run ci.yml",
            "add env_file: .env to the service in docker-compose.yml",
            "had compose load the dotenv file for the service",
            "pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\nDATABASE_URL\n"
            "  Field required [type=missing]\nError: Process completed with exit code 1.",
        ),
        Fix(
            "commit-dotenv",
            "cp .env.example .env && git add -f .env && git commit -m 'env for ci' && gh workflow run ci.yml",
            "commit a .env file for CI",
            "committed a dotenv file for the pipeline",
            "pre-commit check_secrets: .env must not be committed (contains DATABASE_URL, JWT_SECRET)\nexit status 1",
        ),
        Fix(
            "rename-ci-var",
            "python scripts/patch_workflow.py --rename-env DB_URL DATABASE_URL && gh workflow run ci.yml",
            "rename the workflow's DB_URL variable to DATABASE_URL, the name Settings reads now",
            "changed the pipeline to export the connection string under the new name the settings class expects "
            "instead of the old DB_URL",
            "ValidationError: 1 validation error for Settings\nDATABASE_URL\n  Field required [type=missing]",
            "✓ lint in 41s\n✓ test in 6m12s",
        ),
    ),
    wrong=("commit-dotenv",),
    right="rename-ci-var",
    paraphrases=(
        "ValidationError for Settings: DATABASE_URL Field required, only in CI",
        "ci fails at import, settings says the database url is missing",
        "After renaming the env vars in Settings the pipeline can't start the app (Field required for "
        "DATABASE_URL). Works on my machine.",
    ),
    near_misses=(
        "ValidationError for Settings: DATABASE_URL URL scheme should be 'postgresql+psycopg' [type=url_scheme]; "
        "the helm chart still says postgres://.",
    ),
)

JWT_SECRET = single(
    BACKEND,
    "settings-jwt-secret-compose",
    "The worker container exits at startup in the compose stack:\n\n"
    "  worker-1  | pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings\n"
    "  worker-1  | JWT_SECRET\n"
    "  worker-1  |   Field required [type=missing, input_value={...}, input_type=dict]\n\n"
    "The api service starts fine, JWT_SECRET is in .env.",
    (
        Fix(
            "rename-ci-var",
            "python scripts/patch_workflow.py --rename-env SECRET_KEY JWT_SECRET && docker compose up -d worker",
            "rename the SECRET_KEY variable to JWT_SECRET, the name Settings reads now",
            "exported the secret under the name the settings class expects",
            "worker-1  | JWT_SECRET\nworker-1  |   Field required [type=missing]\nworker-1 exited with code 1",
        ),
        Fix(
            "shell-export",
            "export JWT_SECRET=$(grep JWT_SECRET .env | cut -d= -f2) && docker compose up -d worker",
            "export JWT_SECRET in the shell before compose up",
            "put the secret into my shell's environment first",
            "worker-1  | JWT_SECRET\nworker-1  |   Field required [type=missing]\nworker-1 exited with code 1",
        ),
        Fix(
            "compose-env-file",
            "python scripts/patch_compose.py --service worker --add 'env_file: .env' && docker compose up -d worker",
            "add env_file: .env to the worker service in docker-compose.yml",
            "had compose hand the worker the same dotenv file the api gets; only the api service was reading it",
            "worker-1  | JWT_SECRET\nworker-1  |   Field required [type=missing]",
            "worker-1  | [INFO/MainProcess] celery@worker ready.",
        ),
    ),
    wrong=("shell-export", "rename-ci-var"),
    right="compose-env-file",
    paraphrases=(
        "worker exits: ValidationError for Settings JWT_SECRET Field required (compose)",
        "beat container can't start, settings says JWT_SECRET is missing, the api has it",
        "new scheduler service in docker-compose dies at startup with a pydantic Field required error for one of "
        "the secrets",
    ),
    near_misses=(
        "worker-1 | ValidationError for Settings: JWT_SECRET String should have at least 32 characters; the "
        "staging .env has a short placeholder.",
    ),
)

PROBLEMS: tuple[Problem, ...] = (
    DOCKERIGNORE,
    EXEC_FORMAT,
    CRLF,
    COMPOSE_DB,
    CI_PORTS,
    EXIT_137,
    GHCR,
    EXPIRED,
    AUDIENCE,
    BCRYPT,
    WRONGTYPE,
    UNREGISTERED,
    UUID_JSON,
    JINJA_CVE,
    URLLIB3_CVE,
    DATABASE_URL,
    JWT_SECRET,
)
