"""Our value of a published fact (a count, a mean, an agreement figure), from the loaded data.

Each quantity named in `published.FACTS` is computed by one function below; a quantity with no
function is documented only (the data cannot tell it, e.g. which of ComperDial's systems are
people).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats as sps

from comperbench.benchmark import Benchmark, get_metadata
from comperbench.reproduction import chateval_table as chateval
from comperbench.reproduction.published import TABLE6
from comperbench.stats.annotator_agreement.agreement import RatingTable, krippendorff_alpha
from comperbench.stats.human.judgments.single_response import wald_interval
from comperbench.stats.human.planning.plan import SETTINGS

Loader = Callable[..., Benchmark]


def _first_level(name: str) -> str:
    return get_metadata(name).stored_levels[0]


def _items(load: Loader, name: str, level: str) -> float:
    return float(len(load(name, level)))


def _distinct(load: Loader, name: str, column: str) -> float:
    table = load(name, _first_level(name)).table
    return float(len(set(table.column(column).to_pylist())))


def _ratings_per_item(load: Loader, name: str) -> float:
    ratings = load(name, _first_level(name)).ratings()
    per_item = ratings.groupby(["item_id", "aspect"]).size()
    return float(per_item.median())


def _annotators(load: Loader, name: str) -> float:
    return float(load(name, _first_level(name)).ratings()["annotator"].nunique())


def _system_mean(load: Loader, name: str, aspect: str, system: str) -> float:
    return float(load(name, _first_level(name)).systems().at[system, aspect])


def _rating_positions(ratings: pd.DataFrame, aspect: str) -> pd.DataFrame:
    """Items x rating position (first, second, ... rating of each item) of one aspect."""
    rows = ratings[ratings["aspect"] == aspect].copy()
    rows["position"] = rows.groupby("item_id").cumcount()
    return rows.pivot(index="item_id", columns="position", values="value").dropna()


def _pairwise_agreement(load: Loader, name: str, statistic: str, aspect: str) -> float:
    """The mean correlation between every two rating positions (the USR paper's Table 1)."""
    table = _rating_positions(load(name, _first_level(name)).ratings(), aspect)
    correlate = sps.pearsonr if statistic == "pearson" else sps.spearmanr
    values = [correlate(table[a], table[b])[0] for a, b in combinations(table.columns, 2)]
    return float(np.mean(values))


def _krippendorff_alpha(load: Loader, name: str, level: str) -> float:
    """Interval Krippendorff's alpha of the default aspect's ratings at one level."""
    bench = load(name, level)
    table = RatingTable.from_ratings(bench.ratings(), get_metadata(name).default_aspect)
    return float(krippendorff_alpha(table, "interval")[0])


def _split_size(load: Loader, name: str, split: str) -> float:
    return float(len(load(name, _first_level(name), split)))


TABLE1_PLANS: dict[str, tuple[str, dict[str, object]]] = {
    "PM-SOBA": ("soba-pair", {"difference": 0.1, "reading": "paper", "method": "tabled-z"}),
    "PM-SATA": ("sata-pair", {"difference": 0.1}),
    "MM-SOBA": ("soba-k", {"difference": 0.1, "k": 4}),
    "MM-SATA": ("sata-k", {"difference": 0.1, "k": 4}),
    "SM-SATA": ("sata-rate", {"difference": 0.1, "expected": 0.8, "method": "tabled-z"}),
}
"""The interactive per-turn paper's Table 1 settings as `human plan` settings and parameters:
a win-rate difference of 0.1, alpha 0.05 two-sided, power 0.8 (the paper's section "Sample Size
for Different Evaluations"); the null rate is 0.5 in pairs and 0.8 for one system (SM)."""


def _table1_turns(load: Loader, name: str, cell: str) -> float:
    """Turns needed for one cell of the interactive paper's Table 1; needs no data."""
    setting, parameters = TABLE1_PLANS[cell]
    return float(SETTINGS[setting].plan(**parameters).n)


def _table6_bound(load: Loader, name: str, side: str, model: str) -> float:
    """One bound of a single-model interval of the interactive paper's Table 6, as
    `human selections` computes it (Wald), from the printed turns and (rounded) win rate."""
    turns, rate, _, _ = TABLE6[model]
    low, high = wald_interval(rate * turns, turns)
    return low if side == "low" else high


_PATTERNS: tuple[tuple[str, Callable[..., float]], ...] = (
    (r"turn-level items(?: \(lower bound\))?", lambda load, n: _items(load, n, "turn")),
    (r"dialogue-level items", lambda load, n: _items(load, n, "dialogue")),
    (r"systems", lambda load, n: _distinct(load, n, "system")),
    (r"dialogue contexts|dialogues", lambda load, n: _distinct(load, n, "dialogue_id")),
    (r"ratings per response", _ratings_per_item),
    (r"annotators", _annotators),
    (r"mean (\w+), system '(.+)'", _system_mean),
    (r"inter-annotator (pearson|spearman) (\w+)", _pairwise_agreement),
    (r"(\w+) split size", _split_size),
    (r"krippendorff-alpha (turn|dialogue)", _krippendorff_alpha),
    (r"rank by pairwise wins, (.+)", lambda load, n, s: chateval.rank_by_wins(s)),
    (r"pairwise wins, (.+)", lambda load, n, s: chateval.pair_wins(s)),
    (r"pairwise losses, (.+)", lambda load, n, s: chateval.pair_losses(s)),
    (r"vote share lead, (.+) over (.+)", lambda load, n, a, b: chateval.vote_share_lead(a, b)),
    (r"Fleiss' kappa, \w+", lambda load, n: chateval.needs_raw_votes("Fleiss' kappa")),
    (r"Table 1 turns, ([A-Z]+-[A-Z]+)", _table1_turns),
    (r"Table 6 95% CI (low|high), (.+)", _table6_bound),
)


def fact_computer(quantity: str) -> Callable[[Loader, str], float] | None:
    """The function that computes `quantity` from a benchmark loader, or None."""
    for pattern, compute in _PATTERNS:
        match = re.fullmatch(pattern, quantity)
        if match:
            groups = match.groups()
            return lambda load, name: compute(load, name, *groups)
    return None


def is_lower_bound(quantity: str) -> bool:
    """A published 'over N' figure: ours agrees when it is at least N."""
    return quantity.endswith("(lower bound)")
