"""Old names that keep working for one release, with a `DeprecationWarning` naming the new one."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib
import inspect
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from comperbench.common.errors import ComperbenchError

F = TypeVar("F", bound=Callable[..., Any])


def deprecated(old: str, new: str) -> None:
    """Warn that `old` is deprecated in favour of `new` (removed in the next release)."""
    warnings.warn(
        f"{old} is deprecated; use {new} (it will be removed in the next release)",
        DeprecationWarning,
        stacklevel=3,
    )


def renamed_keywords(**renames: str) -> Callable[[F], F]:
    """Accept each old keyword (`old="new"`) with a warning; refuse an unknown keyword with a
    one-line error that names the closest parameter."""

    def decorate(function: F) -> F:
        known = list(inspect.signature(function).parameters)

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return function(*args, **_translated(function.__name__, kwargs, renames, known))

        return wrapper  # type: ignore[return-value]

    return decorate


def _translated(
    name: str, kwargs: dict[str, Any], renames: Mapping[str, str], known: list[str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if key in renames:
            new = renames[key]
            if new in kwargs:
                raise ComperbenchError(f"{name}() got both {key}= and {new}=; give only {new}=")
            deprecated(f"{name}({key}=...)", f"{new}=")
            out[new] = value
        elif key in known:
            out[key] = value
        else:
            raise unknown_keyword(name, key, [*known, *renames])
    return out


def unknown_keyword(function: str, key: str, known: list[str]) -> ComperbenchError:
    """The one-line error for a keyword `function` does not take."""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]}=?" if close else ""
    return ComperbenchError(f"{function}() takes no keyword {key}={hint}")


def moved_names(old_module: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `old_module` that serves each moved name from its new module
    (`homes`: name -> module path), with a warning naming the new path."""

    def module_getattr(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        deprecated(f"{old_module}.{name}", f"{homes[name]}.{name}")
        return getattr(importlib.import_module(homes[name]), name)

    return module_getattr


def renamed_names(old_module: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `old_module` that serves each old name from its new home
    (`homes`: old name -> new dotted path, "package.module.new_name"), with a warning naming
    the new path; for names that moved to another module under a new name."""

    def module_getattr(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        deprecated(f"{old_module}.{name}", homes[name])
        module, _, new = homes[name].rpartition(".")
        return getattr(importlib.import_module(module), new)

    return module_getattr


def folded_keywords(parameter: str, default: Any, **fields: str) -> Callable[[F], F]:
    """Accept old keywords that became fields of one settings object (`old="field"`; e.g.
    `n_resamples="resamples"` of `resampling=`): each, with a warning, replaces its field of the
    `parameter` given (or of `default`). A positional value of another kind in the parameter's
    place (an old positional call) is refused with a one-line error."""

    def decorate(function: F) -> F:
        place = list(inspect.signature(function).parameters).index(parameter)

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            listed, positional = list(args), len(args) > place
            if positional and not isinstance(args[place], type(default)):
                raise ComperbenchError(
                    f"{function.__name__}() takes {parameter}= (a {type(default).__name__}) as "
                    f"argument {place + 1}, not {args[place]!r}; give {', '.join(fields)} as "
                    "its fields"
                )
            old = {key: kwargs.pop(key) for key in list(kwargs) if key in fields}
            if old:
                given = args[place] if positional else kwargs.get(parameter, default)
                for key in old:
                    deprecated(
                        f"{function.__name__}({key}=...)", f"{parameter}= (its {fields[key]} field)"
                    )
                folded = dataclasses.replace(given, **{fields[k]: v for k, v in old.items()})
                if positional:
                    listed[place] = folded
                else:
                    kwargs[parameter] = folded
            return function(*listed, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
