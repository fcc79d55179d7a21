"""The pages of the HTML report (`gracrc report --html`): their file names, one style sheet,
the sorting script and the small helpers every page writes its cells with. The report
itself is `gracr.bench.report.html`; a domain's own report (the tissue study's) builds its
pages from these too.

No page loads anything from the network: the style and the script are inline.
"""

from __future__ import annotations

import re
from html import escape
from typing import Any

from gracr.bench.report.formatting import MISSING, PAPER
from gracr.stats import Stat

HTML_FILE = "report.html"
PAGES_FOLDER = "instances"
DEFAULT_INSTANCES = 10

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right;white-space:nowrap}
th{background:#f3f3f3}
td.text,th.text{text-align:left}
table.sortable th{cursor:pointer}
table.sortable th[aria-sort=ascending]::after{content:" ▲"}
table.sortable th[aria-sort=descending]::after{content:" ▼"}
.note{background:#fff6e0;border-left:4px solid #f5a623;padding:.4em .8em;margin:.5em 0}
.explanation{display:inline-block;vertical-align:top;margin:0 1.5em 1.5em 0;
border:1px solid #ddd;padding:.5em}
pre{background:#f7f7f7;padding:.4em;max-width:36em;white-space:pre-wrap}
svg{background:#fff;border:1px solid #eee}
"""

SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (header, column) {
    header.addEventListener("click", function () {
      var up = header.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      header.setAttribute("aria-sort", up ? "ascending" : "descending");
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function key(row) {
        var cell = row.cells[column];
        var text = cell.getAttribute("data-sort");
        if (text === null) { text = cell.textContent; }
        var number = parseFloat(text);
        return isNaN(number) ? text : number;
      }
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        if (typeof x !== typeof y) { x = String(x); y = String(y); }
        var order = x < y ? -1 : (x > y ? 1 : 0);
        return up ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def page(title: str, body: str, script: str = "") -> str:
    """A whole HTML page: `body` under `title`, with the style sheet and `script`."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>\n{body}\n"
            + (f"<script>{script}</script>" if script else "") + "</body></html>\n")


def slug(text: str) -> str:
    """`text` made safe as a file name or an element id."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)


def stat_cell(stat: Stat | None, number: Any = PAPER) -> str:
    """A table cell of mean ± std (`number`'s format), sorted by its mean."""
    if stat is None:
        return f'<td data-sort="">{MISSING}</td>'
    return f'<td data-sort="{stat.mean!r}">{escape(number.stat(stat))}</td>'


def number_text(value: float | None, digits: int = 3) -> str:
    """One number to `digits` decimals, or the missing mark."""
    return MISSING if value is None else f"{value:.{digits}f}"
