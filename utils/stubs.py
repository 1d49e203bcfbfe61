"""Turn a solution cell's marked answers into a learner's stubs (`stub_cell_source`), for utils.release.

An answer sits between a whole line ``### BEGIN SOLUTION`` and a whole line ``### END SOLUTION``
(markers may be indented), inside a function. It becomes ``# YOUR CODE HERE`` plus ``pass`` inside a
``@triton.jit`` kernel (a stub that still compiles) or ``raise NotImplementedError("exercise: <function>")``
inside any other function. A region outside a function, unbalanced markers, or a line that looks like a
marker but is not exactly one is a ReleaseError naming the cell and the line.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from utils.notebooks import is_triton_jit

BEGIN_MARKER = "### BEGIN SOLUTION"
END_MARKER = "### END SOLUTION"
STUB_COMMENT = "# YOUR CODE HERE"

# Lines that look like a marker but are not exactly one (wrong case, '##', no space...): a typo here
# would silently ship the answer, so they are errors rather than ordinary comments.
_MARKER_LIKE = re.compile(r"^\s*#+\s*(BEGIN|END)[\s_]*SOLUTION\b", re.IGNORECASE)
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef)
_Function = ast.FunctionDef | ast.AsyncFunctionDef


class ReleaseError(Exception):
    """A solution notebook whose markers cannot be turned into learner stubs."""


@dataclass(frozen=True)
class _Region:
    begin: int  # 0-based index of the BEGIN marker line in the cell
    end: int  # 0-based index of the END marker line in the cell
    indent: str  # leading whitespace of the BEGIN marker; the stub is written at this indentation


def _where(cell_index: int, line_index: int | None = None) -> str:
    if line_index is None:
        return f"cell {cell_index}"
    return f"cell {cell_index}, line {line_index + 1}"


def _find_regions(lines: list[str], cell_index: int) -> list[_Region]:
    """The marked regions of one cell, in order; rejects unbalanced, nested or misspelt markers."""
    regions = []
    open_begin: int | None = None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped == BEGIN_MARKER:
            if open_begin is not None:
                raise ReleaseError(
                    f"{_where(cell_index, i)}: nested {BEGIN_MARKER!r} (the region opened at line "
                    f"{open_begin + 1} has no {END_MARKER!r} yet)"
                )
            open_begin = i
        elif stripped == END_MARKER:
            if open_begin is None:
                raise ReleaseError(f"{_where(cell_index, i)}: {END_MARKER!r} without {BEGIN_MARKER!r}")
            begin_line = lines[open_begin]
            indent = begin_line[: len(begin_line) - len(begin_line.lstrip())]
            regions.append(_Region(open_begin, i, indent))
            open_begin = None
        elif _MARKER_LIKE.match(line):
            raise ReleaseError(
                f"{_where(cell_index, i)}: {stripped!r} looks like a solution marker but is not exactly "
                f"{BEGIN_MARKER!r} or {END_MARKER!r}"
            )
    if open_begin is not None:
        raise ReleaseError(f"{_where(cell_index, open_begin)}: {BEGIN_MARKER!r} without {END_MARKER!r}")
    return regions


def _mask_magics(lines: list[str]) -> list[str]:
    """Replace IPython magic and shell lines (``%...``, ``!...``) by ``pass`` so ``ast`` can parse the cell.

    Line numbers are preserved, so positions found in the masked text are positions in the cell.
    """
    masked = []
    for line in lines:
        body = line.lstrip()
        if body.startswith(("%", "!")):
            masked.append(line[: len(line) - len(body)] + "pass")
        else:
            masked.append(line)
    return masked


def _parse_cell(lines: list[str]) -> ast.Module:
    """Parse a code cell as Python; magics are masked only if the plain text does not parse.

    Trying the plain text first keeps continuation lines such as ``    % value`` intact.
    """
    source = "\n".join(lines)
    try:
        return ast.parse(source)
    except SyntaxError:
        return ast.parse("\n".join(_mask_magics(lines)))


def _statements(tree: ast.Module):
    """Yield ``(statement, enclosing functions outermost first)`` for every statement of ``tree``."""

    def visit(node: ast.AST, functions: tuple[_Function, ...]):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                yield child, functions
            inner = functions + (child,) if isinstance(child, _FUNCTION_NODES) else functions
            yield from visit(child, inner)

    yield from visit(tree, ())


def _sentinel(index: int) -> str:
    return f"__release_region_{index}__"


def stub_cell_source(source: str, cell_index: int) -> str:
    """The learner's version of one code cell's source (unchanged when it has no marked region)."""
    lines = source.split("\n")
    regions = _find_regions(lines, cell_index)
    if not regions:
        return source

    try:
        original_tree = _parse_cell(lines)
    except SyntaxError as error:
        raise ReleaseError(
            f"{_where(cell_index, (error.lineno or 1) - 1)}: the cell does not parse as Python "
            f"({error.msg}), so its solution regions cannot be placed"
        ) from None

    # Replace each region by one sentinel statement at the marker's indentation and let Python's own
    # parser say which function (if any) that statement belongs to.
    sentinel_lines: list[str] = []
    origin: list[int] = []  # for each sentinel line, the cell line it comes from
    position = 0
    for k, region in enumerate(regions):
        sentinel_lines += lines[position : region.begin]
        origin += range(position, region.begin)
        sentinel_lines.append(region.indent + _sentinel(k))
        origin.append(region.begin)
        position = region.end + 1
    sentinel_lines += lines[position:]
    origin += range(position, len(lines))
    try:
        sentinel_tree = _parse_cell(sentinel_lines)
    except SyntaxError as error:
        line = origin[min(max((error.lineno or 1) - 1, 0), len(origin) - 1)]
        raise ReleaseError(
            f"{_where(cell_index, line)}: the cell does not parse once its solution regions are "
            f"replaced by stubs ({error.msg}); does a region start or end in the middle of a statement?"
        ) from None

    sentinel_ids = {_sentinel(k): k for k in range(len(regions))}
    region_function: dict[int, _Function] = {}
    for statement, functions in _statements(sentinel_tree):
        value = getattr(statement, "value", None)
        is_sentinel = (
            isinstance(statement, ast.Expr) and isinstance(value, ast.Name) and value.id in sentinel_ids
        )
        if is_sentinel and functions and isinstance(value, ast.Name):
            region_function[sentinel_ids[value.id]] = functions[-1]
    original_statements = list(_statements(original_tree))

    stubbed: list[str] = []
    position = 0
    for k, region in enumerate(regions):
        function = region_function.get(k)
        if function is None:
            raise ReleaseError(
                f"{_where(cell_index, region.begin)}: solution region is not inside a function body; "
                "only function bodies can be stubbed (move the answer into a function)"
            )
        # Every statement of the answer must lie in that same function (no dedented lines, say).
        def_line = origin[function.lineno - 1] + 1  # the def's line number in the original cell
        for statement, functions in original_statements:
            inside_region = region.begin + 1 < statement.lineno <= region.end
            if inside_region and def_line not in [f.lineno for f in functions]:
                raise ReleaseError(
                    f"{_where(cell_index, statement.lineno - 1)}: this line of the solution region is "
                    f"outside the body of {function.name!r}, where the region starts"
                )
        stubbed += lines[position : region.begin]
        stubbed.append(region.indent + STUB_COMMENT)
        if is_triton_jit(function):
            stubbed.append(region.indent + "pass")
        else:
            stubbed.append(region.indent + f'raise NotImplementedError("exercise: {function.name}")')
        position = region.end + 1
    stubbed += lines[position:]
    return "\n".join(stubbed)
