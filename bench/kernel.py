"""The compiled measurement vs its numpy oracle, in-process: ``python -m bench.kernel``.

For the dnd5e, starfinder and pf2e-variant cover matrices and the (dnd5e) vision matrix on
the bench's dungeon scenes (2,000 walls x 50 tokens, 5,000 x 100), the time per ordered
token pair with the numpy oracle (``tests/reference``) and compiled, side by side in one run,
and whether the two matrices are equal. One warm-up call per path first (numba compiles or
loads its cache; the wall grid is built) so only steady-state work is timed. Nothing is
asserted; the table is printed (Markdown), and written as JSON with ``--json PATH``.

``--vision``: the vision matrix of each ruleset (dnd5e, starfinder, pf2e-variant) per pair
beside the dnd5e cover matrix, with the compiled kernel, at 2,000 x 50, 5,000 x 100 and
5,000 x 200 (issue 20: vision at most 2x dnd5e cover, every kind at 200 tokens x 5,000 walls
under 3 s). Wall time and the process's CPU time (the machine is shared) of each matrix.

``--exponents``: every kind (the three rulesets' cover and vision matrices) at 50, 100 and
200 tokens on 5,000 walls and at 1,000, 5,000 and 20,000 walls with 100 tokens, and the
exponents fitted on log-log (issue 20: at most 2.05 in tokens).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from typing import Any

from bench.dungeon import dungeon
from schemas.scene import SceneSchema
from service import rules
from service.engine.scene import build_scene
from service.matrix import matrix
from tests.kernel_paths import kernel_mode

SIZES = [(2000, 50), (5000, 100)]
VISION_SIZES = [(2000, 50), (5000, 100), (5000, 200)]
VISION_KINDS = [
    ("dnd5e cover", "dnd5e", "cover"),
    ("dnd5e vision", "dnd5e", "vision"),
    ("starfinder vision", "starfinder", "vision"),
    ("pf2e-variant vision", "pf2e-variant", "vision"),
]
KINDS = [
    ("dnd5e cover", "dnd5e", "cover"),
    ("starfinder cover", "starfinder", "cover"),
    ("pf2e-variant cover", "pf2e-variant", "cover"),
    ("vision (dnd5e)", "dnd5e", "vision"),
]


#: A measure runs ``--repeat`` times at least, and again until this many seconds have passed
#: (at most ``MAX_RUNS`` runs): a matrix of some hundredths of a second is then the median of
#: dozens of runs, not of three, and the machine's noise weighs less on the fitted exponents.
MIN_SECONDS = 1.0
MAX_RUNS = 50


def runs(fn: Any, repeat: int) -> tuple[list[float], list[float], Any]:
    """Wall and CPU seconds of each run of ``fn()`` (see ``MIN_SECONDS``), and its last result."""
    walls: list[float] = []
    cpus: list[float] = []
    out = None
    while len(walls) < repeat or (sum(walls) < MIN_SECONDS and len(walls) < MAX_RUNS):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return walls, cpus, out


def timed(fn: Any, repeat: int) -> tuple[float, Any]:
    """Median wall time of ``fn()`` in seconds (``runs``) and its last result."""
    walls, _, out = runs(fn, repeat)
    return statistics.median(walls), out


def vision_table(sizes: list[tuple[int, int]], repeat: int) -> list[dict[str, Any]]:
    """Per pair times of the dnd5e cover matrix and each ruleset's vision matrix (kernel).

    One warm-up matrix per scene (numba's cache, the wall grid); then each kind ``repeat``
    times or more (``runs``), its median wall time and the CPU time of that same run.
    """
    rows = []
    for n_walls, n_tokens in sizes:
        geo = build_scene(SceneSchema().load(dungeon(n_walls, n_tokens)))
        pairs = n_tokens * (n_tokens - 1)
        for kind in ("cover", "vision"):  # warm-up: numba cache of every walk, wall grid
            matrix(geo, rules.get("dnd5e"), None, kind, {})
        cover_us = None
        for label, system_id, kind in VISION_KINDS:
            system = rules.get(system_id)
            walls, cpus, _ = runs(
                lambda geo=geo, system=system, kind=kind: matrix(geo, system, None, kind, {}),
                repeat,
            )
            k = walls.index(statistics.median_low(walls))
            row = {
                "kind": label,
                "walls": n_walls,
                "tokens": n_tokens,
                "seconds": walls[k],
                "cpu_seconds": cpus[k],
                "us_per_pair": 1e6 * walls[k] / pairs,
                "cpu_us_per_pair": 1e6 * cpus[k] / pairs,
            }
            if kind == "cover" and system_id == "dnd5e":
                cover_us = row["cpu_us_per_pair"]
            row["x_dnd5e_cover"] = row["cpu_us_per_pair"] / cover_us if cover_us else None
            rows.append(row)
            print(
                f"{label:20s} {n_walls:>5} x {n_tokens:<4} {row['seconds']:6.2f} s"
                f" ({row['cpu_seconds']:6.2f} s CPU)  {row['us_per_pair']:7.1f} us/pair"
                f" ({row['cpu_us_per_pair']:7.1f} CPU)",
                flush=True,
            )
    print()
    print("| per pair (CPU) | walls x tokens | matrix | per pair | x dnd5e cover |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['kind']} | {r['walls']:,} x {r['tokens']} | {r['seconds']:.2f} s"
            f" ({r['cpu_seconds']:.2f} s CPU) | {r['us_per_pair']:.1f} µs"
            f" ({r['cpu_us_per_pair']:.1f} µs CPU) | {r['x_dnd5e_cover']:.2f} |"
        )
    return rows


#: ``--exponents``: token counts at 5,000 walls, and wall counts at 100 tokens.
EXPONENT_TOKENS = [50, 100, 200]
EXPONENT_WALLS = [1000, 5000, 20000]
EXPONENT_KINDS = [
    (f"{system_id} {kind}", system_id, kind)
    for kind in ("cover", "vision")
    for system_id in ("dnd5e", "starfinder", "pf2e-variant")
]


def _slope(xs: list[int], ys: list[float]) -> float:
    """Least-squares slope of log(ys) over log(xs): the fitted exponent."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


def exponents_table(repeat: int) -> list[dict[str, Any]]:
    """Every kind's matrix seconds over tokens (5,000 walls) and walls (100 tokens), fitted.

    In-process, one warm-up per scene and kind, the median of ``repeat`` runs or more
    (``runs``: a small matrix is run for a second).
    """
    scenes: dict[tuple[int, int], Any] = {}
    sizes = [(5000, t) for t in EXPONENT_TOKENS] + [(w, 100) for w in EXPONENT_WALLS]
    for size in dict.fromkeys(sizes):
        scenes[size] = build_scene(SceneSchema().load(dungeon(*size)))
    rows = []
    for label, system_id, kind in EXPONENT_KINDS:
        system = rules.get(system_id)
        seconds = {}
        for size, geo in scenes.items():
            matrix(geo, system, None, kind, {})  # warm-up

            def run(geo: Any = geo, system: Any = system, kind: str = kind) -> Any:
                return matrix(geo, system, None, kind, {})

            seconds[size] = timed(run, repeat)[0]
        by_tokens = [seconds[(5000, t)] for t in EXPONENT_TOKENS]
        by_walls = [seconds[(w, 100)] for w in EXPONENT_WALLS]
        row = {
            "kind": label,
            "seconds_by_tokens": by_tokens,
            "seconds_by_walls": by_walls,
            "exponent_tokens": _slope(EXPONENT_TOKENS, by_tokens),
            "exponent_walls": _slope(EXPONENT_WALLS, by_walls),
        }
        rows.append(row)
        print(
            f"{label:20s} tokens {EXPONENT_TOKENS}: "
            + " ".join(f"{v:.2f}s" for v in by_tokens)
            + f"  exponent {row['exponent_tokens']:.2f};  walls {EXPONENT_WALLS}: "
            + " ".join(f"{v:.2f}s" for v in by_walls)
            + f"  exponent {row['exponent_walls']:.2f}",
            flush=True,
        )
    print()
    print(
        "| kind | s at 50 / 100 / 200 tokens (5,000 walls) | exponent in tokens |"
        " s at 1,000 / 5,000 / 20,000 walls (100 tokens) | exponent in walls |"
    )
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['kind']} | {' / '.join(f'{v:.2f}' for v in r['seconds_by_tokens'])}"
            f" | {r['exponent_tokens']:.2f}"
            f" | {' / '.join(f'{v:.2f}' for v in r['seconds_by_walls'])}"
            f" | {r['exponent_walls']:.2f} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", default=None)
    parser.add_argument("--quick", action="store_true", help="2,000 x 50 only")
    parser.add_argument("--vision", action="store_true", help="vision matrices (see above)")
    parser.add_argument(
        "--exponents",
        action="store_true",
        help="every kind's fitted exponents in tokens (50-200) and walls (1,000-20,000)",
    )
    args = parser.parse_args()
    if args.exponents:
        rows = exponents_table(args.repeat)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(rows, fh, indent=2)
        return
    if args.vision:
        rows = vision_table(VISION_SIZES[:1] if args.quick else VISION_SIZES, args.repeat)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(rows, fh, indent=2)
        return
    sizes = SIZES[:1] if args.quick else SIZES
    rows = []
    for n_walls, n_tokens in sizes:
        geo = build_scene(SceneSchema().load(dungeon(n_walls, n_tokens)))
        pairs = n_tokens * (n_tokens - 1)
        for label, system_id, kind in KINDS:
            system = rules.get(system_id)
            result = {}
            for mode in ("numpy", "kernel"):

                def run(geo: Any = geo, system: Any = system, kind: str = kind) -> Any:
                    return matrix(geo, system, None, kind, {})

                with kernel_mode(mode):
                    run()  # warm-up: compile / load the numba cache, build the grid
                    seconds, out = timed(run, args.repeat)
                result[mode] = (seconds, out)
            numpy_s, kernel_s = result["numpy"][0], result["kernel"][0]
            rows.append(
                {
                    "kind": label,
                    "walls": n_walls,
                    "tokens": n_tokens,
                    "numpy_us_per_pair": 1e6 * numpy_s / pairs,
                    "kernel_us_per_pair": 1e6 * kernel_s / pairs,
                    "speedup": numpy_s / kernel_s,
                    "equal": result["numpy"][1] == result["kernel"][1],
                }
            )
            r = rows[-1]
            print(
                f"{label:20s} {n_walls:>5} x {n_tokens:<4} numpy {r['numpy_us_per_pair']:8.1f} us"
                f"  kernel {r['kernel_us_per_pair']:8.1f} us  x{r['speedup']:.2f}"
                f"  equal={r['equal']}",
                flush=True,
            )
    print()
    print("| per pair | walls x tokens | numpy | kernel | speed-up | same answers |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['kind']} | {r['walls']:,} x {r['tokens']} | {r['numpy_us_per_pair']:.1f} µs"
            f" | {r['kernel_us_per_pair']:.1f} µs | {r['speedup']:.2f}x"
            f" | {'yes' if r['equal'] else 'NO'} |"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
