"""``make demo``: compare mechanisms on the Entropy paper's Example 1 (run ``python -m privopt.app.demo``).

Data: ``P̂ = [[0.07, 0.10], [0.26, 0.57]]`` on ``S × U = {s1, s2} × {u1, u2}`` from n = 100 samples,
``ε = log 2``, and the 95% χ² confidence set ``F``. The optimal mechanisms (NR, PolyOpt and PolyOpt
without the vacuous ``s1 = s2`` pairs) are designed; every mechanism is audited against every
definition (for ``F``, the upper end of the interval audit); the table prints utility and realized ε.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table

import privopt as po

EXAMPLE_1 = po.JointDistribution(
    [[0.07, 0.10], [0.26, 0.57]], s_labels=("s1", "s2"), u_labels=("u1", "u2"), n=100
)


def comparison(P: po.JointDistribution, eps: float) -> pd.DataFrame:
    """One row per mechanism: utility and realized ε under each definition."""
    n_s, n_u = P.shape
    labels = P.x_labels
    F = po.RenyiBall.confidence(P, level=0.95)
    mi = po.MutualInformation(P)
    mechanisms = {
        "NR (optimal at P̂ only)": po.designs.nr(P, eps),
        "PolyOpt (paper-faithful)": po.designs.polyopt(F, eps),
        "PolyOpt, no s1=s2 pairs": po.designs.polyopt(F, eps, self_pairs=False),
        "GRR (ε-LDP)": po.mechanisms.grr(P.n_x, eps, labels),
        "OUE (ε-LDP)": po.mechanisms.oue(P.n_x, eps, labels),
        "SRR (ε, simplex)-RLDP": po.mechanisms.srr(n_s, n_u, eps, P.s_labels, P.u_labels),
        "GRR calibrated to ε-LIP": po.mechanisms.grr_calibrated_lip(P, eps),
        "OUE calibrated to ε-LIP": po.mechanisms.oue_calibrated_lip(P, eps),
    }
    definitions = {
        "RLDP (χ² set F)": po.SensitiveLDP(eps, F),
        "LDP": po.LDP(eps),
        "RLDP(simplex)": po.SensitiveLDP(eps, po.Simplex(P.shape)),
        "LDP wrt S (P̂)": po.SensitiveLDP(eps, P),
        "LIP (P̂)": po.LIP(eps, P),
        "PML (P̂)": po.PML(eps, P),
    }
    rows = []
    for name, mechanism in mechanisms.items():
        row: dict[str, object] = {"mechanism": name, "outputs": mechanism.n_outputs}
        information = mi.value(mechanism)
        row["I(X;Y)"] = information
        row["NMI"] = information / P.entropy()
        for key, definition in definitions.items():
            row[f"ε {key}"] = po.audit(mechanism, definition).eps
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    eps = float(np.log(2))
    console = Console(width=150)
    console.print(
        "[bold]privopt demo[/bold] — Entropy paper Example 1: "
        "P̂ = [[0.07, 0.10], [0.26, 0.57]] (rows s, columns u), ε = log 2 ≈ 0.6931 nats"
    )
    frame = comparison(EXAMPLE_1, eps)
    table = Table(show_lines=False)
    for column in frame.columns:
        table.add_column(column, justify="left" if column == "mechanism" else "right")
    for _, row in frame.iterrows():
        table.add_row(*[f"{v:.4f}" if isinstance(v, float) else str(v) for v in row])
    console.print(table)
    console.print(
        "Utility I(X;Y) is in nats under P̂; each ε column is the audited (realized) ε of the "
        "mechanism under that definition (over F: the upper end of the interval audit). Paper values: "
        "I(PolyOpt) = 0.4228 (Example 3), I(GRR) = 0.0419, I(SRR) = 0.1005 (Example 4). NR leaks more "
        "than ε over F; PolyOpt does not."
    )


if __name__ == "__main__":
    main()
