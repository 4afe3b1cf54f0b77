"""The package's layout: its layers, imported only downwards; no import circle between its
modules; and no folder with more than twelve modules.

Every import statement counts, wherever it is: at the top, inside a function (a lazy import) or
under `if TYPE_CHECKING:`. An import names the module it reads, so `from comperbench.stats import
multiplicity` depends on `stats/multiplicity.py` and `from comperbench.stats import correlate` on
`stats/__init__.py`. Importing a module does not count as depending on the `__init__` of the
packages above it: were it counted, every package whose `__init__` re-exports its modules' names
would form a false circle with them. A module that imports its own package's `__init__` (to reach
a re-exported name) does close a real circle, and is caught.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

import comperbench
from comperbench.loaders.base import _imported_names, _module_file

PACKAGE = Path(comperbench.__file__).resolve().parent
MAX_MODULES = 12
LAYERS = (
    ("common",),
    ("schema", "metadata", "data", "benchmark_hooks"),
    ("loaders",),
    ("benchmark", "selection"),
    ("stats",),
    ("metrics",),
    ("human", "human_io"),
    ("evaluation", "explanations"),
    ("report",),
    ("results",),
    ("reproduction",),
    ("leaderboard",),
    ("cli",),
    ("__init__", "__main__"),
)
"""The package's layers, lowest first, by the top-level module or folder of `comperbench` each
module is in (`__init__`: the package's own). The rule: a module imports only modules of its own
layer or of the layers below it."""
DRAWN = (
    "Evaluation's plot_* and report() methods are conveniences that draw with the report layer, "
    "imported only when called; the report layer renders the evaluation's table"
)
ALLOWED: dict[tuple[str, str], str] = {
    ("comperbench.evaluation.result", f"comperbench.report.{module}"): DRAWN
    for module in ("evaluation_text", "figures", "html")
}
"""Upward imports allowed anyway, (importer, imported) -> the reason."""


def module_name(path: Path, package: Path) -> str:
    """comperbench/stats/signature.py -> comperbench.stats.signature; an __init__.py names its
    package."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of `package` -> the modules of `package` it imports."""
    graph = {}
    for path in sorted(package.rglob("*.py")):
        name = module_name(path, package)
        home = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imported = set()
        for choices in _imported_names(ast.parse(path.read_bytes()), home):
            found = next(filter(None, (_module_file(c, package) for c in choices)), None)
            if found is not None:
                imported.add(module_name(found, package))
        graph[name] = imported - {name}
    return graph


def top_level(module: str) -> str:
    """comperbench.stats.signature -> stats; the package itself -> __init__."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(module: str, layers: tuple[tuple[str, ...], ...]) -> int:
    """The index of the layer the module is in."""
    found = [i for i, layer in enumerate(layers) if top_level(module) in layer]
    if not found:
        raise AssertionError(f"{module}: {top_level(module)!r} is in no layer of LAYERS")
    return found[0]


def upward_imports(
    graph: dict[str, set[str]],
    layers: tuple[tuple[str, ...], ...],
    allowed: dict[tuple[str, str], str],
) -> list[str]:
    """Each import of a higher layer by a lower one that `allowed` does not list, in words."""
    found = []
    for module, imported in sorted(graph.items()):
        below = layer_of(module, layers)
        for other in sorted(imported):
            above = layer_of(other, layers)
            if above > below and (module, other) not in allowed:
                found.append(
                    f"{module} ({top_level(module)}, layer {below}) imports {other} "
                    f"({top_level(other)}, layer {above})"
                )
    return found


def circle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of the graph (its modules, the first repeated at the end), or []."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        return list(reversed(error.args[1]))
    return []


def crowded_folders(package: Path) -> dict[str, int]:
    """Folders of `package` holding more than MAX_MODULES modules directly (__init__.py counts)."""
    folders = [package, *(p.parent for p in package.rglob("__init__.py"))]
    counts = {f.relative_to(package.parent).as_posix(): len(list(f.glob("*.py"))) for f in folders}
    return {folder: n for folder, n in sorted(counts.items()) if n > MAX_MODULES}


def test_every_import_goes_down_the_layers() -> None:
    graph = import_graph(PACKAGE)
    stale = [f"{a} -> {b}" for a, b in ALLOWED if b not in graph.get(a, set())]
    assert not stale, f"ALLOWED lists imports that are gone: {stale}"
    assert all(reason.strip() for reason in ALLOWED.values()), "an ALLOWED import says no reason"
    found = upward_imports(graph, LAYERS, ALLOWED)
    assert not found, "a lower layer imports a higher one (LAYERS):\n" + "\n".join(found)


def test_no_import_circle() -> None:
    found = circle(import_graph(PACKAGE))
    assert not found, "import circle: " + " -> ".join(found)


def test_no_folder_holds_more_than_twelve_modules() -> None:
    assert not crowded_folders(PACKAGE), f"more than {MAX_MODULES} modules in a folder"


def write_package(root: Path, modules: dict[str, str]) -> Path:
    for name, text in modules.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_a_lazy_import_closes_a_circle(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "def f():\n    from pkg.b import g\n    return g\n",
            "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n",
        },
    )
    assert set(circle(import_graph(package))) == {"pkg.a", "pkg.b"}


def test_a_re_export_is_no_circle_but_importing_it_back_is(tmp_path: Path) -> None:
    modules = {"pkg/__init__.py": "from pkg.sub.x import f\n", "pkg/sub/__init__.py": ""}
    package = write_package(tmp_path, {**modules, "pkg/sub/x.py": "def f(): ...\n"})
    assert circle(import_graph(package)) == []
    (package / "sub" / "x.py").write_text("from pkg import f as g\n\ndef f(): ...\n")
    assert set(circle(import_graph(package))) == {"pkg", "pkg.sub.x"}


TOY_LAYERS = (("low",), ("high",), ("__init__",))


def test_a_lazy_import_of_a_higher_layer_is_found_unless_allowed(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.high import g\n",
            "pkg/low.py": "def f():\n    from pkg.high import g\n    return g\n",
            "pkg/high.py": "from pkg.low import f\n\ndef g(): ...\n",
        },
    )
    graph = import_graph(package)
    assert upward_imports(graph, TOY_LAYERS, {}) == [
        "pkg.low (low, layer 0) imports pkg.high (high, layer 1)"
    ]
    assert upward_imports(graph, TOY_LAYERS, {("pkg.low", "pkg.high"): "why"}) == []


def test_a_module_in_no_layer_is_refused(tmp_path: Path) -> None:
    package = write_package(
        tmp_path, {"pkg/__init__.py": "", "pkg/new.py": "from pkg import low\n"}
    )
    with pytest.raises(AssertionError, match="'new' is in no layer"):
        upward_imports(import_graph(package), TOY_LAYERS, {})


@pytest.mark.parametrize(("count", "crowded"), [(MAX_MODULES, False), (MAX_MODULES + 1, True)])
def test_a_folder_over_twelve_modules_is_found(tmp_path: Path, count: int, crowded: bool) -> None:
    modules = {"pkg/__init__.py": "", **{f"pkg/sub/m{i}.py": "" for i in range(count - 1)}}
    package = write_package(tmp_path, {**modules, "pkg/sub/__init__.py": ""})
    assert crowded_folders(package) == ({"pkg/sub": count} if crowded else {})
