"""Curated word lists the deterministic extractor leans on.

Hand-kept on purpose: they are small, reviewable, and need no download.
Python's own ``sys.stdlib_module_names`` supplies the standard library.
Keys are lower case; ``DISPLAY`` keeps the usual spelling of a name.
"""

from __future__ import annotations

import keyword
import sys

# Libraries, frameworks, languages, databases and services that show up in
# coding conversations. Names that are also common English words live in
# AMBIGUOUS_TECH and only count in a code-ish context (see extraction.py).
LIBRARIES = frozenset(
    """
    numpy pandas scipy sklearn scikit-learn torch pytorch tensorflow keras jax transformers
    sentence-transformers huggingface tokenizers onnx onnxruntime spacy nltk networkx matplotlib
    seaborn plotly polars pyarrow dask xgboost lightgbm opencv pillow sympy statsmodels
    django flask fastapi starlette uvicorn gunicorn pydantic sqlalchemy alembic celery httpx
    aiohttp grpc grpcio protobuf asyncio pytest-asyncio hypothesis chromadb chroma faiss qdrant
    pinecone weaviate milvus pgvector langchain llamaindex openai anthropic boto3 botocore
    jinja2 marshmallow typer argparse logging sqlite3 psycopg psycopg2 asyncpg pymongo redis-py
    beautifulsoup bs4 scrapy selenium playwright puppeteer cypress jest mocha vitest webpack vite
    esbuild rollup babel eslint prettier typescript javascript python rust golang java kotlin
    swift ruby php scala haskell elixir erlang clojure lua perl c++ c# dotnet .net node.js nodejs
    deno bun angular svelte sveltekit nextjs next.js nuxt remix tailwind tailwindcss bootstrap
    jquery redux graphql apollo prisma mongoose sequelize typeorm axios lodash zod trpc
    postgres postgresql mysql mariadb sqlite mongodb redis elasticsearch opensearch kafka
    rabbitmq cassandra dynamodb neo4j clickhouse duckdb snowflake bigquery supabase firebase
    kubernetes k8s terraform ansible helm nginx apache envoy istio prometheus grafana
    opentelemetry sentry datadog aws gcp azure lambda s3 ec2 cloudflare vercel heroku netlify
    tokio serde actix axum hyper clap anyhow thiserror rayon gin echo gorm cobra
    spring springboot hibernate junit gradle maven mockito
    llama mistral claude gpt-4 gpt-4o ollama vllm llama.cpp mcp jwt oauth oauth2 websocket
    websockets sse openapi swagger json-schema yaml toml markdown latex pyyaml tomli orjson ujson
    msgpack pypdf pdfplumber tiktoken sentencepiece wandb mlflow ray streamlit gradio
    """.split()
)

TOOLS = frozenset(
    """
    git github gitlab bitbucket docker docker-compose podman kubectl minikube kind k9s
    pip pip3 pipx uv poetry conda mamba pyenv virtualenv venv npm npx yarn pnpm cargo rustup
    rustc go gofmt gcc clang cmake bazel ninja gdb lldb valgrind strace ltrace perf
    pytest tox nox ruff mypy pyright pylint flake8 isort black bandit coverage pre-commit
    curl wget ssh scp rsync tmux screen vim neovim emacs vscode cursor zsh bash fish powershell
    grep ripgrep rg sed awk jq yq fzf htop systemd systemctl journalctl cron launchd brew apt
    apt-get dnf yum pacman homebrew make makefile just ansible-playbook
    buf grpcurl protoc postman insomnia wireshark ngrok jenkins circleci travis
    claude-code opencode copilot chatgpt jupyter ipython notebook sqlitebrowser psql
    mcp-inspector gh
    """.split()
)

# Names that are plain English words too: "click the button", "make sure",
# "rich text", "express concern", "react to". They count as libraries/tools
# only when capitalised, in backticks, in an import/install line, or next to
# a word such as "library" or "package".
_AMBIGUOUS_LIBRARIES = """
    click requests rich express next react vue spring rails arrow attrs mock bottle dash fire
    swift rust ruby echo gin ray hyper apache lambda chroma remix bun deno node apollo jest
    mocha babel prettier sentry hypothesis grafana prometheus julia scala java kotlin claude
    llama mistral go
""".split()
_AMBIGUOUS_TOOLS = """
    black make just poetry sh kind cursor notebook screen fish helm coverage ninja perf cron
    nox tox uv gradle maven
""".split()
AMBIGUOUS_TECH: dict[str, str] = {
    **dict.fromkeys(_AMBIGUOUS_LIBRARIES, "library"),
    **dict.fromkeys(_AMBIGUOUS_TOOLS, "tool"),
}

# Usual spelling for lower-case keys, used as the entity's display name.
DISPLAY = {
    "fastapi": "FastAPI",
    "numpy": "NumPy",
    "pytorch": "PyTorch",
    "postgresql": "PostgreSQL",
    "postgres": "Postgres",
    "mongodb": "MongoDB",
    "mysql": "MySQL",
    "sqlite": "SQLite",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "github": "GitHub",
    "gitlab": "GitLab",
    "graphql": "GraphQL",
    "openai": "OpenAI",
    "chromadb": "ChromaDB",
    "networkx": "NetworkX",
    "sqlalchemy": "SQLAlchemy",
    "pydantic": "Pydantic",
    "kubernetes": "Kubernetes",
    "docker": "Docker",
    "redis": "Redis",
    "django": "Django",
    "flask": "Flask",
    "react": "React",
    "python": "Python",
    "rust": "Rust",
    "grpc": "gRPC",
    "jwt": "JWT",
    "oauth": "OAuth",
    "mcp": "MCP",
    "pytest": "pytest",
    "git": "git",
    "aws": "AWS",
    "gcp": "GCP",
    "vscode": "VS Code",
    "nodejs": "Node.js",
    "node.js": "Node.js",
    "nextjs": "Next.js",
    "next.js": "Next.js",
    "tailwindcss": "Tailwind CSS",
    "elasticsearch": "Elasticsearch",
    "duckdb": "DuckDB",
    "neo4j": "Neo4j",
    "pypdf": "pypdf",
    "onnxruntime": "ONNX Runtime",
}

# Acronyms too generic to be entities (they still become concepts).
GENERIC_ACRONYMS = frozenset(
    """
    i a ok id ids ui ux api apis url urls uri io os pr prs todo fyi asap eta am pm tl dr
    faq etc vs aka cli gui db dbs rpc sdk ide cpu gpu ram ssd hdd pc qa kb mb gb tb ms
    """.split()
)

STOPWORDS = frozenset(
    """
    a about above after again against all almost also although always am among an and any
    anyone anything are aren't around as at be because been before being below between both
    but by can can't cannot could couldn't did didn't do does doesn't doing don't done down
    during each either else enough even ever every few for from further had hadn't has hasn't
    have haven't having he he'd he'll he's her here here's hers herself him himself his how
    how's however i i'd i'll i'm i've if in into is isn't it it's its itself just let's lets
    like may me might mine more most much must mustn't my myself no nor not now of off often
    on once one only onto or other others otherwise ought our ours ourselves out over own per
    perhaps please quite rather really same shall shan't she she'd she'll she's should
    shouldn't since so some somehow something sometimes somewhat still such than that that's
    the their theirs them themselves then there there's these they they'd they'll they're
    they've this those though through thus to too toward towards under until up upon us
    very via was wasn't we we'd we'll we're we've were weren't what what's whatever when
    when's whenever where where's whereas wherever whether which while who who's whoever
    whom whose why why's will with within without won't would wouldn't yes yet you you'd
    you'll you're you've your yours yourself yourselves hi hello hey thanks thank okay ok
    sure yeah yep nope maybe etc e.g i.e. eg ie instead actually basically currently
    already anyway anyhow again ago back way ways lot lots bit kind sort thing things stuff
    new old good bad better best worse worst great nice big small large little many several
    certain different similar whole entire main other another next last first second third
    able unable possible right wrong true false fine real simple easy hard
    everything nothing someone everyone anybody nobody somebody everybody twice thrice
    across along behind beyond despite except near past throughout amid versus against
    """.split()
)

# Common nouns that open sentences capitalised but are never names.
GENERIC_NOUNS = frozenset(
    """
    user users customer customers team teams client clients server servers people project
    projects app apps service services system systems code file files test tests tool tools
    """.split()
)

# Verbs and fillers that never head a noun phrase in these conversations.
COMMON_VERBS = frozenset(
    """
    add adds added adding get gets got getting make makes made making use uses used using
    fix fixes fixed fixing run runs ran running need needs needed want wants wanted try
    tries tried trying work works worked working fail fails failed failing return returns
    returned returning set sets setting see sees saw seen seeing know knows knew known think
    thinks thought show shows showed shown keep keeps kept start starts started starting stop
    stops stopped call calls called calling write writes wrote written writing read reads
    reading help helps helped look looks looked looking find finds found change changes
    changed update updates updated create creates created creating build builds built
    remove removes removed removing delete deletes deleted check checks checked checking
    put puts take takes took taken give gives gave given go goes went gone going come comes
    came coming say says said tell tells told ask asks asked seem seems seemed become
    becomes became leave leaves left move moves moved turn turns turned happen happens
    happened explain explains explained implement implements implemented implementing
    install installs installed installing configure configured setup wait waits waiting
    should could would might must will shall can may let lets allow allows allowed
    throws thrown raise raises raised crash crashes crashed crashing break breaks broke
    broken debug debugging refactor refactoring rewrite rewriting handle handles handled
    contain contains contained include includes included including replace replaces
    replaced load loads loaded loading save saves saved saving send sends sent receive
    receives received open opens opened close closes closed print prints printed
    store stores stored compare compared prefer prefers preferred like likes liked love
    hate mean means meant understand understood suggest suggests suggested improve improved
    depend depends depended own owns owned lives lived joined leads led manages managed
    wants said says asked thinks rejects rejected accepts accepted supports supported
    """.split()
)

FILE_EXTENSIONS = frozenset(
    """
    py pyi pyx js mjs cjs ts tsx jsx json jsonl yaml yml toml md mdx rst txt cfg ini conf sh
    bash zsh fish ps1 rs go java kt kts c h cc cpp hpp cs rb php html htm css scss sass less
    sql proto lock env xml csv tsv ipynb vue svelte swift lua r pl ex exs erl hs scala clj
    dart tf hcl gradle pdf png jpg jpeg gif svg log db sqlite sqlite3 parquet whl
    """.split()
)

SPECIAL_FILENAMES = frozenset(
    """
    Dockerfile Makefile Justfile Procfile Gemfile Rakefile Vagrantfile Jenkinsfile README
    LICENSE CHANGELOG CONTRIBUTING .gitignore .dockerignore .env .bashrc .zshrc .npmrc
    """.split()
)

STDLIB_MODULES = frozenset(sys.stdlib_module_names)
CODE_KEYWORDS = frozenset(keyword.kwlist) | frozenset(
    "def fn func function const let var import export return async await class struct impl".split()
)
# Words a capitalised sentence opener is followed by when it is a subject name.
SUBJECT_VERBS = frozenset(
    "is was has had prefers likes works owns uses wants said says asked thinks lives joined leads "
    "manages wrote created built maintains and 's".split()
)

# Words after which a known ambiguous name clearly means the technology.
TECH_CUE_WORDS = frozenset(
    "library libraries package packages framework module modules crate crates gem plugin "
    "sdk client server cli command app api version install import".split()
)
