"""A benchmark figure beside its goal, said the same way in every benchmark so that
tests/test_benchmarks.py can read the figure and the goal back and check the verdict."""

import re

PATTERN = re.compile(r"goal (<=|>=) ([\d,.]+)(?: ?[^:\s]+)?: ([\d,.]+)(?: ?[^:\s]+)? (met|NOT met)")


def goal(value: float, target: float, unit: str, at_least: bool = False) -> str:
    """`goal <= 60 ms: 27.30 ms met` (or `NOT met`); at_least for a rate (`goal >= 30,000
    events/s`); unit "x" for a ratio (`goal <= 1x: 0.85x met`)."""
    met = value >= target if at_least else value <= target
    shown = f"{value:,.0f}" if abs(value) >= 100 else f"{value:.2f}"
    for places in range(2, 7):  # 150.4 shown as 150 would read as meeting 150: more places
        figure = float(shown.replace(",", ""))
        if (figure >= target if at_least else figure <= target) == met:
            break
        shown = f"{value:,.{places}f}"
    space = "" if unit == "x" else " "
    return (
        f"goal {'>=' if at_least else '<='} {target:,g}{space}{unit}: {shown}{space}{unit} "
        f"{'met' if met else 'NOT met'}"
    )


def verdicts(text: str) -> list[tuple[str, float, float, bool]]:
    """Every goal said in `text`: (sign, goal, figure, met)."""
    number = lambda s: float(s.replace(",", ""))  # noqa: E731
    return [
        (sign, number(target), number(value), said == "met")
        for sign, target, value, said in PATTERN.findall(text)
    ]
