"""Replay pages as files: one record -> one self-contained HTML file; a folder of records -> a page each and an index.

A page is ``template.html`` with the viewer's ``viewer.css``, ``table.js`` (the
table's drawing, shared with other pages: :func:`asset`) and ``viewer.js``
inlined and the record's data (:func:`waraq.referee.replay.html.page.page_data`)
embedded as JSON in a ``<script type="application/json">``. So it opens from
disk, mailed or copied, with no server and no request (its
Content-Security-Policy allows none).

The JSON is escaped for where it sits (:func:`script_json`): a bot's note is
the bot's own text, and ``</script>`` in it must not end the script.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from waraq.referee.replay.html.page import page_data, result_data
from waraq.referee.replay.walk import Replay, load

PAGE_SUFFIX = ".html"
INDEX = "index.html"
_SLOT = re.compile(r"\{\{(title|style|data|script)\}\}")
# In a script element, "</script" and "<!--" change how HTML reads what follows; U+2028 and U+2029
# end a line in older JavaScript. As \u escapes, JSON reads the same string and HTML sees no markup.
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def asset(name: str) -> str:
    """A packaged asset's text (``table.js``, ``viewer.css``, ...), for a page that draws a seat's
    table as the replay does: it inlines ``table.js`` and uses ``window.WaraqTable``."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """``data`` as JSON safe inside ``<script type="application/json">``: no ``<``, ``>``, ``&``,
    U+2028 or U+2029 but as ``\\u`` escapes (only inside strings: JSON has them nowhere else)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return re.sub("[<>&\u2028\u2029]", lambda m: _UNSAFE[m.group()], text)


def page_title(replay: Replay) -> str:
    bots = " v ".join(dict.fromkeys(replay.bots)) if replay.bots else "?"
    return f"{replay.match_id} · {replay.game} · {bots}"


def render_page(replay: Replay) -> str:
    """The whole page for a replayed record (pure: the viewer's files are the package's own)."""
    slots = {
        "title": html.escape(page_title(replay)),
        "style": asset("viewer.css"),
        "data": script_json(page_data(replay)),
        # One script element: table.js defines WaraqTable, then viewer.js uses it.
        "script": asset("table.js") + "\n" + asset("viewer.js"),
    }
    # One pass: text put in one slot is never read for another slot's marker.
    return _SLOT.sub(lambda m: slots[m.group(1)], asset("template.html"))


def write_page(record: Path, out: Path) -> int:
    """Write ``record``'s page to ``out``; the bytes written. Never raises for a bad record: its
    page says what is wrong, and shows it as far as it replays. (Raises OSError when ``out``
    cannot be written.)"""
    return write_replay(load(record), out)


def write_replay(replay: Replay, out: Path) -> int:
    """Write the page of a record already loaded; the bytes written."""
    data = render_page(replay).encode("utf-8")
    out.write_bytes(data)
    return len(data)


def write_folder(
    records: Sequence[Path],
    out_dir: Path,
    *,
    index: bool = True,
    on_page: Callable[[Replay, Path], None] | None = None,
) -> list[Path]:
    """A page for each record in ``out_dir`` (made if need be), named after the record
    (:func:`page_names`), and with ``index``, ``out_dir/index.html`` listing them; the pages'
    paths, in the order of ``records``. ``on_page(replay, page)`` is called as each is written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pages, rows = [], []
    for record, name in zip(records, page_names(records), strict=True):
        replay = load(record)
        out = out_dir / name
        write_replay(replay, out)
        pages.append(out)
        rows.append(_index_row(replay, name))
        if on_page is not None:
            on_page(replay, out)
    if index:
        (out_dir / INDEX).write_text(index_page(rows, title=f"{len(rows)} replays"), encoding="utf-8")
    return pages


def page_names(records: Sequence[Path]) -> list[str]:
    """``hokm-7.jsonl`` -> ``hokm-7.html``; records of one name in different folders are told apart
    by their folders (``two-hokm-7.html``, ``three-hokm-7.html``)."""
    stems = [_stem(r) for r in records]
    names = []
    for record, stem in zip(records, stems, strict=True):
        if stems.count(stem) > 1:
            parents = [p.name for p in reversed(Path(record).resolve().parents) if p.name][-2:]
            stem = "-".join([*parents, stem])
        names.append(stem + PAGE_SUFFIX)
    seen: dict[str, int] = {}
    for i, name in enumerate(names):  # still the same (a record named twice): number them
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            names[i] = name.removesuffix(PAGE_SUFFIX) + f"-{seen[name]}" + PAGE_SUFFIX
    return names


def _stem(path: Path) -> str:
    name = Path(path).name
    for suffix in (".jsonl.gz", ".jsonl"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return Path(path).stem


def _index_row(replay: Replay, page: str) -> dict[str, str]:
    result = replay.result or {}
    said = result_data(replay)
    return {
        "page": page,
        "record": replay.path.name,
        "game": replay.game,
        "bots": ", ".join(f"s{seat} {bot}" for seat, bot in enumerate(replay.bots)),
        "result": said["text"] if said else "no result",
        "reason": str(result.get("reason") or ""),
        "status": "" if replay.ok else f"{replay.status}: {replay.problem}",
        "decisions": str(len(replay.steps)),
    }


INDEX_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em; color: #1d232b; }
table { border-collapse: collapse; } th, td { text-align: left; padding: .3em .8em; border-bottom: 1px solid #d8dde3; }
th { background: #eef1f4; } td.n { text-align: right; } td:first-child { white-space: nowrap; } .bad { color: #b3261e; }
"""


def index_page(rows: Sequence[dict[str, str]], *, title: str) -> str:
    """A static page listing replay pages: record, game, bots, result, reason, and a link to each."""
    e = html.escape
    lines = []
    for row in rows:
        status = f'<br><span class="bad">{e(row["status"])}</span>' if row["status"] else ""
        lines.append(
            f'<tr data-page="{e(row["page"])}"><td><a href="{e(row["page"])}">{e(row["record"])}</a></td>'
            f"<td>{e(row['game'])}</td><td>{e(row['bots'])}</td><td>{e(row['result'])}{status}</td>"
            f'<td>{e(row["reason"])}</td><td class="n">{e(row["decisions"])}</td></tr>'
        )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
        f"<title>{e(title)}</title><style>{INDEX_STYLE}</style></head><body>"
        f"<h1>{e(title)}</h1><table><thead><tr><th>record</th><th>game</th><th>bots</th><th>result</th>"
        "<th>reason</th><th>decisions</th></tr></thead><tbody>\n"
        + "\n".join(lines)
        + "\n</tbody></table></body></html>\n"
    )
