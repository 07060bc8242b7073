"""How statetools writes figures in its texts: counts ("1 tool", "2 tools") and the
plain-text tables of the review reports (explore, tokens).

>>> print(table(("tool", "tokens"), [("search", "1,024"), ("fetch", "87")]))
tool    tokens
search   1,024
fetch       87
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["after", "counted", "table"]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` (with thousands separators) and ``noun``, in the plural (``plural``, or
    ``noun`` + "s") unless ``count`` is 1.

    >>> counted(1, "tool"), counted(0, "model call"), counted(1_500, "state")
    ('1 tool', '0 model calls', '1,500 states')
    >>> counted(2, "entry", "entries")
    '2 entries'
    """
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def after(path: tuple[str, ...]) -> str:
    """A path of calls as a table shows it: ``search, fetch`` or ``(start)``.

    >>> after(())
    '(start)'
    """
    return ", ".join(path) if path else "(start)"


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    """Columns padded to their widest cell, numbers to the right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    numeric = [all(_number(r[i]) for r in rows) for i in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        cells = [
            cell.rjust(width) if right else cell.ljust(width)
            for cell, width, right in zip(row, widths, numeric, strict=True)
        ]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), *(line(row) for row in rows)])


def _number(cell: str) -> bool:
    """A cell aligned to the right: a number, or ``-`` for none."""
    return cell == "-" or cell.replace(",", "").isdigit()
