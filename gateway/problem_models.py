"""Known problems and their merges as the gateway hands them on: typed once, from the kg's replies
(``gateway.capabilities.problem_service``), and the shape of the problem tools' structured content."""

from __future__ import annotations

from pydantic import BaseModel, Field


class KnownProblemOut(BaseModel):
    id: str = Field(description="The problem's id, e.g. p12: what merge_problems takes")
    statement: str = Field(description="The first prompt that told the problem")
    fixes: int = Field(description="Fixes that worked for it")
    failures: int = Field(description="Failed attempts remembered for it")
    episodes: int = Field(description="Episodes (problem -> fix) filed under it")
    last_seen: float = Field(description="Unix seconds it was last seen")


class ProblemMergeOut(BaseModel):
    id: str = Field(description="The merge's id, e.g. m3: what unmerge_problems takes")
    keep: str = Field(description="The problem kept")
    merged: str = Field(description="The problem folded into it")
    merged_statement: str
    merged_at: float
    undone_at: float = Field(0.0, description="Unix seconds it was undone; 0 while it holds")
    fixes: int = Field(description="Fixes that moved with the merged problem")
    failures: int = Field(description="Failed attempts that moved with it")
    undo: str = Field(description="The call that undoes this merge")


class ProblemsOut(BaseModel):
    problems: list[KnownProblemOut] = Field(description="The project's known problems, most recently seen first")
    merges: list[ProblemMergeOut] = Field(description="Merges that hold, newest first")
    total: int = Field(description="Known problems of the project in all")


class MergeOut(BaseModel):
    merge: ProblemMergeOut
    problem: KnownProblemOut | None = Field(None, description="The kept problem as it is now")


class UnmergeOut(BaseModel):
    merge: ProblemMergeOut
    kept: KnownProblemOut | None = Field(None, description="The kept problem as it is now (absent if gone since)")
    restored: KnownProblemOut | None = Field(None, description="The merged problem, back on its own")
