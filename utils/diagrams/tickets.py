"""In which order the programs of a one-launch reduction drew its atomic ticket (`ticket_order_diagram`,
notebook 07)."""

from __future__ import annotations

from utils.diagrams.style import program_color


def ticket_order_diagram(tickets, *, title=None):
    """The ticket each program drew from a one-launch reduction's atomic counter (notebook 07): program id
    across, ticket up. Programs that drew in program order lie on the diagonal; the program that drew the
    last ticket, the one that combines, is marked. `tickets`: one integer per program, as the kernel
    stored them."""
    import matplotlib.pyplot as plt

    drawn = [int(t) for t in tickets]
    programs = len(drawn)
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ax.plot([0, programs - 1], [0, programs - 1], linestyle="--", color="grey", label="in program order")
    ax.scatter(
        range(programs), drawn, s=12 if programs > 64 else 30, color=program_color(0), label="ticket drawn"
    )
    last = drawn.index(programs - 1) if programs - 1 in drawn else None
    if last is not None:
        ax.scatter(
            [last],
            [programs - 1],
            s=90,
            facecolors="none",
            edgecolors="red",
            label=f"last ticket: program {last} combines",
        )
    ax.set_xlabel("program id (tl.program_id(0))")
    ax.set_ylabel("ticket (value before its atomic add)")
    ax.set_title(title or f"{programs} programs: who reached the ticket when")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    plt.close(fig)  # shown once by the cell that returns it
    return fig
