"""`comperbench human plan SETTING`: units needed to detect a difference in a human evaluation,
or the power of a given number of units (`comperbench.stats.human.planning.plan`)."""

from __future__ import annotations

import argparse
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import asdict

from comperbench.cli.common import located, print_json
from comperbench.cli.flags import LEVEL, SEED, number, positive_real, real, resamples, whole
from comperbench.common.textutil import wrap
from comperbench.stats.human.planning.plan import READINGS, SETTINGS, Setting
from comperbench.stats.human.planning.power import MAX_N

NOTATION = "(z_a = z_(1-alpha/2), or z_(1-alpha) one-sided; z_b = z_(power); q = 1 - p)"
MOST_SYSTEMS = 1000
SYSTEMS = whole(2, MOST_SYSTEMS)
SHARE = real(0, 1, closed=True)


def _proportions(text: str) -> list[float]:
    try:
        return [SHARE(x) for x in text.split(",")]
    except argparse.ArgumentTypeError as refused:
        raise argparse.ArgumentTypeError(
            f"{refused}; give comma-separated proportions, e.g. 0.5,0.6,0.6"
        ) from None


def _win_rate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reading",
        choices=list(READINGS),
        default="pair",
        help="what --difference means: " + "; ".join(f"{k}: {v}" for k, v in READINGS.items()),
    )


def _sata_pair(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rate", type=LEVEL, help="baseline selection rate r (default 0.5)")
    parser.add_argument(
        "--p10", type=SHARE, help="share of turns only A is selected in (instead of a difference)"
    )
    parser.add_argument("--p01", type=SHARE, help="share of turns only B is selected in")


def _systems(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--k", type=SYSTEMS, help="number of systems (default 4)")


def _sata_k(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rate", type=LEVEL, help="the other systems' selection rate r (default 0.5)"
    )
    _systems(parser)
    parser.add_argument(
        "--p",
        type=_proportions,
        help="every system's selection rate, comma-separated (instead of a difference)",
    )
    parser.add_argument("--simulations", type=resamples(1), default=10_000, help="for monte-carlo")
    parser.add_argument("--seed", type=SEED, default=0, help="for monte-carlo")


def _sata_rate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--expected", type=LEVEL, required=True, help="expected rate under H0, e.g. 0.8"
    )
    parser.add_argument(
        "--alternative", choices=["two-sided", "greater", "less"], default="two-sided"
    )


def _labels(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rate", type=LEVEL, default=0.5, help="the first system's label rate r (default 0.5)"
    )


def _ratings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sd", type=positive_real, required=True, help="standard deviation of one rating"
    )


OPTIONS: dict[str, Callable[[argparse.ArgumentParser], None]] = {
    "ab": _win_rate,
    "soba-pair": _win_rate,
    "sata-pair": _sata_pair,
    "soba-k": _systems,
    "sata-k": _sata_k,
    "sata-rate": _sata_rate,
    "labels": _labels,
    "ratings": _ratings,
}
EXPLICIT = {"sata-pair": "--p10 and --p01", "sata-k": "--p"}
"""Settings whose test parameters may be given instead of a difference."""


def _parameters(setting: Setting) -> list[str]:
    """The setting's own parameters, named as the command-line options."""
    return list(inspect.signature(setting.solve).parameters)[1:]


def run_plan(args: argparse.Namespace) -> int:
    """`comperbench human plan SETTING`: print the plan.

    Args:
        args: the parsed command line.

    Returns:
        The exit status (0).
    """
    setting = SETTINGS[args.setting]
    parameters = {name: getattr(args, name) for name in _parameters(setting)}
    plan = setting.plan(args.alpha, args.power, args.n, **parameters)
    if args.json:
        print_json(asdict(plan))
        return 0
    label = "n needed" if plan.target_power is not None else "n"
    error = "" if plan.power_se is None else f" ± {plan.power_se:.3f} (Monte Carlo standard error)"
    print(wrap(f"{plan.setting}: {plan.test}, {plan.parameters}, alpha={plan.alpha:g}:", "  "))
    print(f"{label} = {plan.n} {plan.unit}, power = {plan.power:.3f}{error}")
    return 0


def _description(setting: Setting) -> str:
    """The setting, its test, its parameterisation and formula, and each method's formula."""
    text = f"{setting.summary}.\ntest: {setting.test}\n\n{textwrap.fill(setting.description, 88)}"
    if setting.methods:
        methods = "\n".join(
            textwrap.fill(f"{k}: {v}", 88, initial_indent="  ", subsequent_indent="    ")
            for k, v in setting.methods.items()
        )
        text += f"\n\nmethods (--method):\n{methods}"
    return f"{text}\n\n{NOTATION}" if "z_a" in text else text


def register(actions: argparse._SubParsersAction) -> None:
    """Add `plan` and its settings to the actions.

    Args:
        actions: the `human` verb's actions.
    """
    plan = actions.add_parser("plan")
    settings = plan.add_subparsers(dest="setting", required=True, metavar="SETTING")
    for name, setting in SETTINGS.items():
        sub = settings.add_parser(
            name,
            help=setting.summary,
            description=_description(setting),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        explicit = EXPLICIT.get(name)
        sub.add_argument(
            "--difference",
            type=number,
            required=explicit is None,
            metavar="D",
            help="smallest difference to detect" + (f" (or give {explicit})" if explicit else ""),
        )
        sub.add_argument("--alpha", type=LEVEL, default=0.05)
        sub.add_argument(
            "--power", type=LEVEL, default=0.8, help="target power (when --n is absent)"
        )
        sub.add_argument(
            "--n", type=whole(1, MAX_N), help=f"compute the power of this many {setting.unit}"
        )
        sub.add_argument("--json", action="store_true", help="print JSON instead of a line")
        if setting.methods:
            methods = list(setting.methods)
            sub.add_argument("--method", choices=methods, default=methods[0])
        if name in OPTIONS:
            OPTIONS[name](sub)
        sub.set_defaults(run=located(run_plan))
