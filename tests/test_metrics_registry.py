"""The metric registry: every metric module declared and described, `info`, the one-line error
for an unknown name, and the old import paths that keep working."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import comperbench
from comperbench.common.errors import UnknownNameError
from comperbench.common.registry import Registry
from comperbench.metrics import METRICS, MetricInfo, available, get, info, register_metric
from comperbench.metrics.about import citations
from comperbench.metrics.registry import METRIC_MODULES
from comperbench.metrics.runner import default_suite

ROOT = Path(comperbench.__file__).resolve().parents[1]
BRACKETS_NEEDED = {
    "geval": "coherence",
    "bleurt-style": "/tmp",
    "unieval-style": "/tmp",
    "usr-mlm": "/tmp",
    "usr-relevance": "/tmp",
}
"""Metrics that cannot be built without a bracketed argument, and one that builds them."""


def _registered_by_modules(code: str) -> list[str]:
    """The metric names registered after `code` runs in a fresh interpreter."""
    probe = f"{code}\nimport json\nfrom comperbench.metrics import METRICS\nprint(json.dumps(sorted(METRICS._items)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_the_declared_modules_register_every_metric_of_the_package() -> None:
    """A metric module missing from METRIC_MODULES would register metrics only when imported
    by chance: importing every module of comperbench.metrics must add none."""
    declared = _registered_by_modules("import comperbench.metrics.registry as r; r.METRICS.load()")
    walk = (
        "import importlib, pkgutil, comperbench.metrics as m\n"
        "from comperbench.metrics import METRICS\n"
        "METRICS.load()\n"
        "for found in pkgutil.walk_packages(m.__path__, 'comperbench.metrics.'):\n"
        "    if found.name.rsplit('.', 1)[-1] not in ('ngram', 'hf_evaluate'):\n"
        "        importlib.import_module(found.name)"
    )
    assert _registered_by_modules(walk) == declared
    assert declared == available()


@pytest.mark.parametrize("module", METRIC_MODULES)
def test_every_declared_module_registers_a_metric(module: str) -> None:
    source = (ROOT / (module.replace(".", "/"))).with_suffix(".py")
    path = source if source.is_file() else source.with_suffix("") / "__init__.py"
    assert re.search(r"register_(plain_)?metric\(", path.read_text()), module


@pytest.mark.parametrize("name", available())
def test_every_metric_describes_itself_as_it_is_built(name: str) -> None:
    described = info(name)
    assert described.name == name
    assert len(described.description) > 40 and described.description.rstrip().endswith(".")
    assert described.link.startswith("https://")
    arg = BRACKETS_NEEDED.get(name)
    metric = get(f"{name}[{arg}]" if arg else name)
    assert (metric.family, metric.needs, metric.implementation) == (
        described.family,
        described.needs,
        described.implementation,
    )


def test_a_bracketed_name_has_its_base_metric_info() -> None:
    assert info("bertscore-f1[all-MiniLM-L6-v2:L6]") is info("bertscore-f1")
    assert info("rouge-l[unicode]").name == "rouge-l"
    with pytest.raises(UnknownNameError, match="malformed metric name"):
        info("bleu-4[")


def test_the_citations_are_bibtex_of_the_defining_papers() -> None:
    papers = {
        "bleu-4": ("Papineni", "2002"),
        "corpus-bleu": ("Papineni", "2002"),
        "rouge-l": ("Lin, Chin-Yew", "2004"),
        "meteor": ("Banerjee, Satanjeev and Lavie, Alon", "2005"),
        "chrf": ("Popovi", "2015"),
        "chrf++": ("Popovi", "2017"),
        "bertscore-f1": ("Zhang, Tianyi", "2020"),
        "usr-mlm": ("Mehri, Shikib and Eskenazi, Maxine", "2020"),
        "fed-overall": ("Mehri, Shikib and Eskenazi, Maxine", "2020"),
        "geval": ("Liu, Yang", "2023"),
        "distinct-2": ("Li, Jiwei", "2016"),
        "cpdscore-paper": ("Wakaki", "2024"),
        "soda-eval-paper": ("Mendon", "2024"),
    }
    for name, (author, year) in papers.items():
        cited = info(name).citation
        assert author in cited, name
        assert f"year = {{{year}}}" in cited or f'year = "{year}"' in cited, name
    for name, text in vars(citations).items():
        if name.isupper():
            assert re.fullmatch(r"@\w+\{[\w-]+,\n(    \w+ = .+\n)+\}", text), name
            assert text.count("{") == text.count("}"), name
            assert re.search(r"\n    title = ", text) and re.search(r"\n    year = ", text), name


def test_every_pinned_library_is_the_constraint_of_the_install() -> None:
    pins = dict(
        re.findall(r"^([\w.-]+)==(\S+)", (ROOT / "constraints.txt").read_text(), flags=re.M)
    )
    normal = {name.lower().replace("_", "-"): version for name, version in pins.items()}
    for name in available():
        library = info(name).library
        if library:
            package, _, version = library.partition("==")
            assert normal.get(package) == version, (name, library)


def test_an_unknown_metric_gets_one_short_line() -> None:
    with pytest.raises(UnknownNameError) as raised:
        get("blue-4")
    message = raised.value.args[0]
    assert message.startswith("unknown metric 'blue-4'; did you mean bleu-4")
    assert message.endswith("? `comperbench list metrics` lists them all")
    assert "\n" not in message and len(message) < 120
    with pytest.raises(UnknownNameError) as raised:
        info("xyzzy")
    assert raised.value.args[0] == (
        "unknown metric 'xyzzy'; `comperbench list metrics` lists them all"
    )


def test_a_registry_without_a_listing_command_names_what_it_knows() -> None:
    few: Registry[int] = Registry("statistic")
    few.add("pearson", 1)
    few.add("spearman", 2)
    with pytest.raises(
        UnknownNameError, match=r"^unknown statistic 'kendall'; known: pearson, spearman$"
    ):
        few.get("kendall")
    with pytest.raises(
        UnknownNameError, match=r"^unknown statistic 'pearsn'; did you mean pearson\?$"
    ):
        few.get("pearsn")


def test_the_default_suites_are_registered() -> None:
    for level in ("turn", "dialogue"):
        assert set(default_suite(level)) <= set(available())


def test_registering_with_another_metrics_info_or_without_info() -> None:
    described = info("length")
    with pytest.raises(ValueError, match="registered with the info of 'length'"):
        register_metric("not-length", described)
    with pytest.warns(DeprecationWarning, match="without info= is deprecated"):
        register_metric("undescribed-for-a-test")(lambda arg: get("length"))
    try:
        with pytest.raises(UnknownNameError, match="registered without a MetricInfo"):
            info("undescribed-for-a-test")
    finally:
        del METRICS._items["undescribed-for-a-test"]
    assert isinstance(described, MetricInfo)


@pytest.mark.parametrize(
    ("old", "name", "new"),
    [
        ("comperbench.metrics.lexical.ngram", "SentenceBleu", "comperbench.metrics.lexical.bleu"),
        ("comperbench.metrics.lexical.ngram", "words", "comperbench.metrics.lexical.common.tokens"),
        ("comperbench.metrics.lexical.ngram", "Meteor", "comperbench.metrics.lexical.meteor"),
        ("comperbench.metrics.lexical.ngram", "lcs_length", "comperbench.metrics.lexical.rouge"),
        ("comperbench.metrics.hf_evaluate", "load", "comperbench.metrics.hf_modules"),
    ],
)
def test_the_old_import_paths_keep_working_with_a_warning(old: str, name: str, new: str) -> None:
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old}.{name}.*{new}.{name}"):
        found = getattr(module, name)
    assert found is getattr(importlib.import_module(new), name)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        module.nothing  # noqa: B018


def test_the_package_itself_uses_no_deprecated_path() -> None:
    code = "from comperbench.metrics import METRICS, get; METRICS.load(); get('bleu-4')"
    subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code], check=True)
