"""A Griffe extension for the API reference: Sphinx roles in docstrings become cross-references.

privopt's docstrings name other objects with Sphinx roles (``:class:`~privopt.Problem```,
``:func:`audit```, ``:meth:`with_eps```, ``:data:``, ``:mod:``, ``:attr:``, ``:exc:``). mkdocstrings
renders Markdown, where a role would show as raw text. Before the docstrings are parsed, this extension
rewrites each role into an mkdocs-autorefs cross-reference: a link when the target is documented on the
site, its name in code font otherwise (an *optional* reference, which never fails a strict build).

A target is resolved as Sphinx would: a dotted path is used as written, a bare or relative name is
looked up in the scope of the object whose docstring names it (its members, its module's imports);
``~`` shows only the last component, ``title <target>`` shows the title, and functions and methods get
``()``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from typing import Any

import griffe

#: A Sphinx cross-reference role, e.g. :class:`~privopt.compiler.cone.RowCone`.
ROLE = re.compile(r":(?:py:)?(?P<role>class|func|meth|data|mod|attr|exc|obj|const):`(?P<body>[^`]+)`")
_TITLED = re.compile(r"^(?P<title>.+?)\s*<(?P<target>[^<>]+)>$")


def _target(obj: griffe.Object | griffe.Alias, name: str) -> str:
    """The full path of ``name`` as written in ``obj``'s docstring (as written when it cannot be found)."""
    name = name.lstrip(".")
    if name.startswith("privopt.") or name == "privopt":
        return name
    head, _, rest = name.partition(".")
    try:
        resolved = obj.resolve(head)
    except (griffe.NameResolutionError, griffe.AliasResolutionError, KeyError):
        return name
    return f"{resolved}.{rest}" if rest else resolved


def cross_reference(obj: griffe.Object | griffe.Alias, match: re.Match[str]) -> str:
    """The autorefs element for one role found in ``obj``'s docstring."""
    role, body = match["role"], match["body"].strip()
    titled = _TITLED.match(body)
    if titled:
        title, written = titled["title"], titled["target"]
    else:
        written = body
        shown = body.lstrip("~")
        title = shown.rsplit(".", 1)[-1] if body.startswith("~") else shown.lstrip(".")
        if role in ("func", "meth"):
            title += "()"
    identifier = _target(obj, written.lstrip("~"))
    return (
        f'<autoref identifier="{html.escape(identifier, quote=True)}" optional>'
        f"<code>{html.escape(title)}</code></autoref>"
    )


def rewrite(obj: griffe.Object | griffe.Alias) -> None:
    """Replace every role of ``obj``'s own docstring."""
    docstring = obj.docstring
    if docstring is not None and ROLE.search(docstring.value):
        docstring.value = ROLE.sub(lambda match: cross_reference(obj, match), docstring.value)


def _objects(obj: griffe.Object) -> Iterator[griffe.Object]:
    """``obj`` and every object defined under it (aliases are skipped: their targets are visited)."""
    yield obj
    for member in obj.members.values():
        if isinstance(member, griffe.Object):
            yield from _objects(member)


class SphinxRoles(griffe.Extension):
    """Rewrite the Sphinx roles of every docstring of a package once it is loaded."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        for obj in _objects(pkg):
            rewrite(obj)
