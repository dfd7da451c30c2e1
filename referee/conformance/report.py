"""A conformance run's report: a table for a person, JSON for CI."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from waraq.referee.conformance.cases import Status
from waraq.referee.conformance.check import Report

STYLES = {Status.PASS: "green", Status.FAIL: "bold red", Status.SKIP: "yellow"}
FORMAT = "waraq.check.v1"  # the --json object's "format": a script can check it reads what it expects


def summary(report: Report) -> str:
    counts = ", ".join(f"{report.count(status)} {status}" for status in Status)
    return f"{report.name}: {counts} in {report.seconds:.1f} s; records in {report.record_dir}/"


def table(report: Report) -> Table:
    out = Table(title=f"check-bot {report.spec}", title_justify="left")
    for name in ("#", "case", "result", "detail"):
        out.add_column(name, justify="right" if name == "#" else "left", overflow="fold")
    for verdict in report.verdicts:
        out.add_row(
            str(verdict.number),
            Text(f"{verdict.case.id}\n{verdict.case.title}"),
            Text(str(verdict.status), style=STYLES[verdict.status]),
            Text(verdict.detail),  # quotes the bot: not markup
        )
    return out


def show(console: Console, report: Report) -> None:
    console.print(table(report))
    for verdict in report.verdicts:
        if verdict.status is Status.FAIL and verdict.replay:
            console.print(
                f"case {verdict.number} ({verdict.case.id}) failed: see {verdict.replay}",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
    console.print(summary(report), highlight=False, markup=False, soft_wrap=True)


def to_json(report: Report) -> dict[str, Any]:
    hello = report.probe.hello
    return {
        "format": FORMAT,
        "bot": {
            "spec": str(report.spec),
            "name": hello.name if hello is not None else None,
            "version": hello.version if hello is not None else None,
        },
        "ok": report.ok,
        "passed": report.count(Status.PASS),
        "failed": report.count(Status.FAIL),
        "skipped": report.count(Status.SKIP),
        "seconds": round(report.seconds, 3),
        "records": str(report.record_dir),
        "cases": [verdict.to_json() for verdict in report.verdicts],
    }
