"""Question: is PyG GraphMask's RedBlueLeaf-NC recall set by settings F1 tuning cannot tell
apart? Yes, 5 epochs give the paper's row: `docs/results/gracrbench/graphmask-diagnostics.md`.

    .venv/bin/python studies/graphmask_settings.py [--tasks RedBlueLeaf-NC]
        [--instances 10] [--seed 0] [--markdown FILE]

The paper's PyG GraphMask row on RedBlueLeaf-NC is 0.01 / 0.92 / 0.01; ours, tuned, has
the same precision and F1 but recall 0.5. Every trial of our tuning study scored F1 about
0.01 on that task, so the study's choice (50 epochs) was made among settings it could not
tell apart. This runs the tuned settings beside settings of the same Table 16 space with
the fewest epochs (5) on the same instances, and prints precision, recall, F1, CPU seconds
and the number of distinct edge scores. The paper's Table 14 gives its GraphMask 0.109 s
per RedBlueLeaf-NC instance, less than its 0.678 s on Majority1Hop, where our tuned setting
has 5 epochs. The benchmark keeps the tuned setting.
"""

from __future__ import annotations

from typing import Any

from arms import StudyArm, compare_arms_main, registered, summary

from gracr.bench.tuning import tuned_settings


def main() -> None:
    arm_settings: dict[str, dict[str, Any]] = {
        "5 epochs, rest tuned": {"epochs": 5},
        "Majority1Hop's tuned": tuned_settings("GraphMask", "Majority1Hop"),
        "5 epochs, PyG defaults": {"epochs": 5, "lr": 0.01, "penalty_scaling": 5,
                                   "allowance": 0.03},
    }
    arms: dict[str, StudyArm] = {"tuned (ours)": registered("GraphMask")}
    arms.update({name: registered("GraphMask") for name in arm_settings})
    compare_arms_main("GraphMask", summary(__doc__), "settings", arms,
                      ["RedBlueLeaf-NC"], arm_settings)


if __name__ == "__main__":
    main()
