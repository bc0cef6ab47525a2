"""The report's tables: one table record, rendered both as Markdown and as HTML, and the cells' number formats.

Every section of the report (:mod:`latent_agent.benchmarks.report_sections`) builds :class:`Table` records
from these parts, so the sections never import the report that assembles them.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from urllib.parse import quote

from latent_agent.agent.methods import METHODS
from latent_agent.plain_text import markdown_text


@dataclass(frozen=True, slots=True)
class Link:
    """A table cell that links somewhere (relative to the report)."""

    text: str
    href: str


Cell = str | Link


@dataclass(frozen=True, slots=True)
class Table:
    """One table, rendered both as Markdown and as HTML.

    Attributes:
        title: Its heading.
        headers: Its column headers.
        rows: Its rows.
        note: What a reader must know to read it, under it.
        chart: A chart of it, relative to the report (shown under the note); empty for none.
        chart_alt: The chart's alternative text.
    """

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    note: str = ""
    chart: str = ""
    chart_alt: str = ""


def pct(value: float | None) -> str:
    """A share as a percentage with one decimal ("–" when unknown)."""
    return "–" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 1) -> str:
    """A number with thousands separators and ``digits`` decimals ("–" when unknown)."""
    return "–" if value is None else f"{value:,.{digits}f}"


def p_value(value: float | None) -> str:
    """A test's p-value to three decimals ("<0.001" below that, "–" when no test ran)."""
    if value is None:
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def method_label(method: str) -> str:
    """The registry's label of ``method`` (its name when it is no longer registered)."""
    known = METHODS.get(method)
    return known.label if known is not None else method


def family_label(family: str) -> str:
    """The registry's label of a method family (its name when no registered method belongs to it)."""
    return next((m.family.label for m in METHODS.values() if m.family.name == family), family)


def cell_markdown(cell: Cell) -> str:
    """A cell (or a page's line) as Markdown: a link as ``[text](target)``, every text inert."""
    # Cells hold names from results.jsonl (a copied folder's): markup and control characters stay inert.
    if isinstance(cell, Link):  # its target, a relative path, percent-encoded: no ")" or space ends it early
        return f"[{markdown_text(cell.text)}]({quote(cell.href, safe='/+')})"
    return markdown_text(cell)


def table_markdown(table: Table) -> str:
    """The table as a Markdown section: title, pipe table (one row of "–" when empty), note in italics; every
    text inert (:func:`~latent_agent.plain_text.markdown_text`)."""
    lines = [f"### {markdown_text(table.title)}", "", "| " + " | ".join(map(markdown_text, table.headers)) + " |",
             "|" + "|".join("---" for _ in table.headers) + "|"]
    lines += ["| " + " | ".join(cell_markdown(c) for c in row) + " |" for row in table.rows]
    if not table.rows:
        lines.append("| " + " | ".join("–" for _ in table.headers) + " |")
    if table.note:
        lines += ["", f"_{markdown_text(table.note)}_"]
    if table.chart:
        lines += ["", f"![{markdown_text(table.chart_alt)}]({quote(table.chart, safe='/+')})"]
    return "\n".join(lines) + "\n"


#: The columns whose cells name a method by its label. A name is never broken across lines: only the variant
#: in brackets may go to a line of its own, so "Staged planning + structured reflection (T=1, task check)" takes
#: two lines rather than four (the page's style keeps each part whole).
NAME_COLUMNS = frozenset({"Agent"})


def _name_html(text: str) -> str:
    """A method's label as its parts, each kept whole: the name, then its variant in brackets."""
    name, bracket, variant = text.partition(" (")
    parts = [name, f"({variant}"] if bracket else [name]
    return " ".join(f"<span>{html.escape(part)}</span>" for part in parts)


def _html_cell(cell: Cell, header: str) -> str:
    if header in NAME_COLUMNS and not isinstance(cell, Link):
        return f"<td class=name>{_name_html(cell)}</td>"
    return f"<td>{cell_html(cell)}</td>"


def cell_html(cell: Cell) -> str:
    """A cell (or a page's line) as HTML: a link as ``<a>``, every text escaped."""
    if isinstance(cell, Link):
        # Percent-encoded like the Markdown link: a folder named "javascript:..." stays a relative path.
        return f'<a href="{html.escape(quote(cell.href, safe="/+"))}">{html.escape(cell.text)}</a>'
    return html.escape(cell)


def table_html(table: Table) -> str:
    """The table as an HTML section: heading, table ("none" when empty), note paragraph; a method's name in a
    :data:`NAME_COLUMNS` cell kept whole (its ``class=name`` spans)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
    body = "".join("<tr>" + "".join(_html_cell(c, h) for c, h in zip(row, table.headers, strict=True)) + "</tr>\n"
                   for row in table.rows)
    if not table.rows:  # say so, rather than leave a bare header row
        body = f"<tr><td colspan={len(table.headers)}>none</td></tr>\n"
    note = f"<p class=note>{html.escape(table.note)}</p>" if table.note else ""
    chart = (f'<img src="{html.escape(quote(table.chart, safe="/+"))}" alt="{html.escape(table.chart_alt)}">'
             if table.chart else "")
    # In a box of its own that scrolls sideways when the window is narrower than the table (a phone), not the page.
    return (f"<h3>{html.escape(table.title)}</h3>\n<div class=wide><table><thead><tr>{head}</tr></thead><tbody>\n"
            f"{body}</tbody></table></div>{note}{chart}\n")
