"""Pictures of a Triton launch drawn from the launch's own parameters: `lane_diagram` shows one program's
lanes (`tl.arange`, offsets, mask, loaded values), `tile_diagram` how the grid `cdiv(n, BLOCK_SIZE)` cuts
[0, n) into one tile per program, `loop_diagram` how one program walks one row in tiles with `acc` carried
from trip to trip, `row_tile_diagram` a 2-D tile of several rows reduced along axis=1,
`reduction_tree_diagram` how `tl.sum` turns one tile into a scalar, and
`combine_diagram` how the programs' partial sums meet in one output through atomic adds, and
`ticket_order_diagram` the order in which programs drew a one-launch reduction's ticket. Each function
returns its Figure already closed to pyplot: a cell ending with the
call shows it once, and no figure stays open.

The diagrams live in five modules: `style` (the shared look and drawing primitives), `tiles`, `rows`,
`reductions` and `tickets`; the notebooks import them from here.
"""

from utils.diagrams.reductions import combine_diagram, reduction_tree_diagram
from utils.diagrams.rows import loop_diagram, row_tile_diagram
from utils.diagrams.style import program_color
from utils.diagrams.tickets import ticket_order_diagram
from utils.diagrams.tiles import lane_columns, lane_diagram, tile_diagram

__all__ = [
    "combine_diagram",
    "lane_columns",
    "lane_diagram",
    "loop_diagram",
    "program_color",
    "reduction_tree_diagram",
    "row_tile_diagram",
    "ticket_order_diagram",
    "tile_diagram",
]
