from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from services.memory.domain.memory_errors import InvalidRequest
from services.memory.domain.naming import Scope, make_scope, memory_id, split_id
from services.memory.domain.write_rules import (
    check_bank_attributes,
    clean_content,
    clean_tags,
    parse_extra_metadata,
)
from services.memory.storage.chroma_store import chroma_name

MEMORY_DIR = Path(__file__).resolve().parents[3] / "services" / "memory"
# Modules allowed to import grpc / chromadb: the transport (the RPC groups, the servicer and its
# error mapping, the proto converters), the entrypoint and the Chroma store.
TRANSPORT = (MEMORY_DIR / "transport").glob("*.py")
ADAPTERS = {f"transport/{p.name}" for p in TRANSPORT} | {"__main__.py", "storage/chroma_store.py"}


def test_domain_modules_import_neither_grpc_nor_chromadb_nor_fastapi() -> None:
    paths = sorted(MEMORY_DIR.rglob("*.py"))
    assert {p.relative_to(MEMORY_DIR).as_posix() for p in paths} >= ADAPTERS  # the exemptions name real files
    for path in paths:
        module = path.relative_to(MEMORY_DIR).as_posix()
        if module in ADAPTERS:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                root = name.split(".")[0]
                assert root not in {"grpc", "chromadb", "fastapi"}, f"{module} imports {name}"


def test_ids_keep_their_uid_across_collections() -> None:
    assert split_id(memory_id("memory_bank", "ab12")) == ("memory_bank", "ab12")
    assert split_id("history_ab12") == ("history", "ab12")
    assert split_id("mem_legacy") == (None, "mem_legacy")


def test_chroma_names_are_valid_and_distinct() -> None:
    valid = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$")
    a = chroma_name(Scope("Ann Lee", "app-1234"), "working")
    b = chroma_name(Scope("ann-lee", "app-1234"), "working")
    bank = chroma_name(Scope("ann", "x").owner_of("memory_bank"), "memory_bank")
    assert valid.match(a) and valid.match(bank) and a != b
    assert Scope("ann", "x").owner_of("memory_bank") == Scope("ann", "y").owner_of("memory_bank")


def test_scope_defaults_and_validation() -> None:
    assert make_scope("", "", "me") == Scope("me", "default")
    with pytest.raises(InvalidRequest, match=r"scope\.project"):
        make_scope("me", "../etc", "me")


def test_write_rules() -> None:
    assert clean_content("keep <private>secret plan</private> this", 100) == "keep  this"
    with pytest.raises(InvalidRequest, match="empty"):
        clean_content("<private>all of it</private>", 100)
    with pytest.raises(InvalidRequest, match="limit is 10"):
        clean_content("x" * 11, 10)
    assert clean_tags([" a ", "a", ""]) == ["a"]
    assert clean_tags(["ghp_abcdefghijklmnopqrstuvwxyz0123456789"]) == ["[REDACTED:github-token]"]
    with pytest.raises(InvalidRequest, match="memory_bank only"):
        check_bank_attributes("working", 0.5, None)
    with pytest.raises(InvalidRequest, match=r"0\.0 to 1\.0"):
        check_bank_attributes("memory_bank", 1.5, None)


def test_extra_metadata_is_scalar_redacted_and_cannot_forge_scores() -> None:
    meta = parse_extra_metadata('{"source": "password=hunter2hunter2", "n": 3, "created_at": "2025-01-02T03:04:05Z"}')
    source = meta["source"]
    assert isinstance(source, str) and "hunter2" not in source
    assert meta["created_at"] == "2025-01-02T03:04:05+00:00"
    for bad in ('{"score": 1}', '{"nested": {"a": 1}}', "[1]", '{"created_at": "someday"}'):
        with pytest.raises(InvalidRequest):
            parse_extra_metadata(bad)
