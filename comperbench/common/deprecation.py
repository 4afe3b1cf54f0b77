"""Old names that keep working for one release, with a `DeprecationWarning` naming the new one."""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from comperbench.common.errors import ComperbenchError

F = TypeVar("F", bound=Callable[..., Any])
_MISSING = object()


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


def moved_module(old_module: str, new_module: str) -> Callable[[str], Any]:
    """A module `__getattr__` for `old_module` that serves every name of `new_module`, with a
    warning naming the new path (for a module moved whole)."""

    def module_getattr(name: str) -> Any:
        found: Any = _MISSING
        if not name.startswith("__"):
            found = getattr(importlib.import_module(new_module), name, _MISSING)
        if found is _MISSING:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        deprecated(f"{old_module}.{name}", f"{new_module}.{name}")
        return found

    return module_getattr


def renamed_names(old_module: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `old_module` that serves each old name from its new home
    (`homes`: old name -> new dotted path, "package.module.new_name"), with a warning naming
    the new path; for names renamed in place or moved to another module under a new name."""

    def module_getattr(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        deprecated(f"{old_module}.{name}", homes[name])
        module, _, new = homes[name].rpartition(".")
        return getattr(importlib.import_module(module), new)

    return module_getattr


def folded_keywords(
    parameter: str, old: tuple[str, ...], fold: Callable[[Any, dict[str, Any]], Any]
) -> Callable[[F], F]:
    """Accept the old keywords `old` with a warning, folded into one `parameter` by `fold`
    (the parameter's value or default, the old keywords given -> the parameter's new value).
    A positional value of another kind in the parameter's place (an old positional call) is
    refused with a one-line error."""

    def decorate(function: F) -> F:
        signature = inspect.signature(function)
        place = list(signature.parameters).index(parameter)
        default = signature.parameters[parameter].default

        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            listed, positional = list(args), len(args) > place
            if positional and not isinstance(args[place], type(default)):
                raise ComperbenchError(
                    f"{function.__name__}() takes {parameter}= (a {type(default).__name__}) as "
                    f"argument {place + 1}, not {args[place]!r}; give {', '.join(old)} as its "
                    "fields"
                )
            given = {key: kwargs.pop(key) for key in old if key in kwargs}
            if given:
                for key in given:
                    deprecated(f"{function.__name__}({key}=...)", f"{parameter}=")
                current = args[place] if positional else kwargs.get(parameter, default)
                if positional:
                    listed[place] = fold(current, given)
                else:
                    kwargs[parameter] = fold(current, given)
            return function(*listed, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate
