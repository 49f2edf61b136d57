"""A person's turn as an append-only fold follows it: where it started, what its replies cost, and
the `turn.end` that closes it (Pi's and Qwen Code's folds keep one in their carry).

A turn's cost is the sum of its replies' costs; None when a reply of it had no price, or when
none had tokens at all ("no usage in the log"), never a made-up 0.
"""

from msgspec import Struct

from ..log import records as r
from .times import ms_between


class Turn(Struct, kw_only=True):
    open: bool = False
    at: str = ""
    key: str = ""  # the `src` of the prompt that started it
    cost: float = 0.0
    priced: bool = False  # a reply of it had tokens and a price
    unpriced: bool = False  # a reply of it had tokens and no price

    def start(self, at: str, key: str) -> None:
        self.open, self.at, self.key = True, at, key
        self.cost, self.priced, self.unpriced = 0.0, False, False

    def spend(self, cost: float | None) -> None:
        """One reply's cost (None: it had tokens but no price)."""
        if cost is None:
            self.unpriced = True
        else:
            self.cost, self.priced = self.cost + cost, True

    def end(self, at: str, status: str, out: list) -> None:
        """Close the turn, if one is open, with a `turn.end` at `at`."""
        if not self.open:
            return
        self.open = False
        cost = round(self.cost, 8) if self.priced and not self.unpriced else None
        out.append(
            r.TurnEnd(
                at=at, src=r.Src(id=f"end/{self.key}"), status=status,
                duration_ms=ms_between(self.at, at), cost_usd=cost,
            )
        )  # fmt: skip
