"""Overview: counts per collection and project, the score distribution, lifecycle events per day."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from gateway.ui.data import ViewerData
from gateway.ui.memory_query import COLLECTIONS
from gateway.ui.page_render import UiRoute, render
from gateway.ui.page_shapes import OverviewStats
from gateway.ui.project_scope import display_names
from gateway.ui.viewer_deps import gateway_of, identify, viewer
from kernel import optout
from kernel.json_values import JSONObject, int_at, object_at

router = APIRouter(route_class=UiRoute)
EVENT_KINDS = ("promoted", "demoted", "deleted", "expired")
BUCKETS = [f"{i / 10:.1f}" for i in range(10)]


def opt_outs(request: Request) -> optout.OptOut | None:
    """This machine's excluded folders and pauses (``mnemex projects --exclude``, ``mnemex pause``).

    Shown to the operator (the shared token, or no token) only: a per-user token holder
    reaches the gateway from elsewhere, and the folders are paths of the gateway's machine.
    """
    found = identify(request)
    if found is None or found.user is not None:
        return None
    return optout.load(gateway_of(request).settings.home)


def chart_data(stats: OverviewStats) -> JSONObject:
    """What overview.js draws: the score histogram, and each lifecycle event's count per day."""
    histogram = stats["score_histogram"]
    by_day = stats["events_by_day"]
    days = sorted(by_day)
    series: JSONObject = {kind: [int_at(object_at(by_day, day), kind) for day in days] for kind in EVENT_KINDS}
    return {
        "scores": {"labels": list(BUCKETS), "counts": [histogram.get(b, 0) for b in BUCKETS]},
        "events": {"labels": list(days), "series": series},
    }


@router.get("/ui", include_in_schema=False)
async def overview(
    request: Request, project: str = Query("", max_length=64), data: ViewerData = Depends(viewer)
) -> HTMLResponse:
    found = await data.overview(project)  # none: the most active project
    names = [p["name"] for p in found["projects"] if p["name"]]
    return render(
        request,
        "overview.html",
        page="Overview",
        project=found["project"],
        project_names=names,
        collections=COLLECTIONS,
        stats=found["stats"],
        projects=found["projects"],
        project_labels=display_names(names),
        chart_data=chart_data(found["stats"]),
        opt_outs=opt_outs(request),
        # memory_bank facts are user-wide: a project with only those has nothing of its own yet
        empty=not any(found["stats"]["counts"].get(name, 0) for name in COLLECTIONS if name != "memory_bank"),
    )


@router.get("/ui/projects", include_in_schema=False)
async def all_projects(request: Request, data: ViewerData = Depends(viewer)) -> HTMLResponse:
    """Every project of this user with its counts: the switcher's "All projects"."""
    scopes = await data.project_table()
    names = [p["name"] for p in scopes if p["name"]]
    return render(
        request,
        "projects.html",
        page="Overview",
        project="",
        project_names=names,
        collections=COLLECTIONS,
        projects=scopes,
        project_labels=display_names(names),
    )
