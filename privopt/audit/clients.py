"""Samplers for :func:`privopt.audit_sampler`: a privopt mechanism, and the frequency-oracle clients of
the LDP libraries ``pure-ldp`` and ``multi-freq-ldpy`` (the optional extra ``privopt[ldp]``).

Every sampler here is a :class:`Sampler`: vectorised (one call per chunk of reports), with the inputs
it draws for (``inputs``) and, for a library client, the ε the client was built for (``eps``).

**Reports.** Generalized randomized response (pure-ldp's direct encoding ``DEClient``,
multi-freq-ldpy's ``GRR_Client``) reports the input whose index the client outputs. Unary encodings
(``UEClient``, ``UE_Client``: OUE and SUE) report the bit vector as a bitmask ``Σ_j bit_j 2^j`` (bit
``j`` is the input of index ``j``), the output labels of :func:`privopt.mechanisms.oue`. Local
hashing (``LHClient``, ``LH_Client``: OLH and BLH) reports ``(value, hash seed)``, almost always a new
pair; the sampler reports instead the *support* of the pair, ``Σ_j 2^j [H_seed(j) = value]``, a
function of the client's report whose likelihood ratios between inputs are those of the pair itself
(``P(pair | x) = P(seed)·(p or q)`` by whether ``x`` is in the support), so the realized ε of LDP is
unchanged. Every lower bound on the realized ε of a post-processed report also holds for the raw
one (post-processing cannot increase it).

**Indexing.** pure-ldp maps a data item to an index with the client's ``index_mapper`` (by default
``x ↦ x − 1``: items ``1..d``); multi-freq-ldpy takes indices ``0..k−1``. The default ``inputs`` are
the items that map to the indices ``0..d−1``.

**Randomness.** The clients draw from global random states: Python's :mod:`random` and numpy's global
generator (pure-ldp), and numba's own generator inside their compiled functions (multi-freq-ldpy,
which ``numpy.random.seed`` called from Python does not reach). Every call of these samplers seeds all
three from the ``rng`` it is given, so that a chunk of reports depends on its seed only and an audit
is reproducible — in worker processes (joblib, Dask), not in threads sharing the global states.

Tested against pure-ldp 1.2.0 and multi-freq-ldpy 0.2.5 (the versions the extra pins). Both hash
``str(index)`` with xxhash, which xxhash 4 refuses (it wants bytes): the extra pins ``xxhash < 4``.
pure-ldp imports scikit-learn and statsmodels without declaring them; the extra installs them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from privopt.data.mechanism import Mechanism
from privopt.errors import NotSupportedError, ValidationError

_INSTALL = "pip install 'privopt[ldp]'"


class Sampler:
    """A vectorised sampler: ``sampler(xs, rng)`` returns one report per input label of ``xs``.

    ``inputs`` are the labels it draws for, ``eps`` the ε it claims (``None`` when it claims none) and
    ``name`` names it in reports.
    """

    vectorized = True

    def __init__(
        self,
        draw: Callable[[Sequence[Hashable], np.random.Generator], list[Hashable]],
        inputs: Sequence[Hashable],
        name: str,
        eps: float | None = None,
    ) -> None:
        self._draw = draw
        self.inputs = tuple(inputs)
        self.name = name
        self.eps = eps

    def __call__(self, xs: Sequence[Hashable], rng: np.random.Generator) -> list[Hashable]:
        return self._draw(xs, rng)

    def __repr__(self) -> str:
        return f"Sampler({self.name!r}, {len(self.inputs)} inputs)"


# ---------------------------------------------------------------------- a privopt mechanism
def mechanism_sampler(mechanism: Mechanism) -> Sampler:
    """The sampler of a mechanism: for input label ``x``, an output label drawn from row ``x``."""
    if not isinstance(mechanism, Mechanism):
        raise ValidationError("mechanism", "a privopt.Mechanism", type(mechanism).__name__)
    index = {x: i for i, x in enumerate(mechanism.input_labels)}
    outputs = np.empty(mechanism.n_outputs, dtype=object)
    outputs[:] = list(mechanism.output_labels)

    def draw(xs: Sequence[Hashable], rng: np.random.Generator) -> list[Hashable]:
        try:
            rows = np.fromiter((index[x] for x in xs), dtype=np.int64, count=len(xs))
        except KeyError as exc:
            raise ValidationError("x", f"an input label of {mechanism.summary}", repr(exc.args[0])) from None
        return outputs[mechanism.sample(rows, rng)].tolist()

    return Sampler(draw, mechanism.input_labels, mechanism.name or mechanism.summary)


# ---------------------------------------------------------------------- global random states
#: The seeder of the global generators, built on first use in the process that draws.
_SEEDER: list[Callable[[int], None]] = []


def _seed_globals(value: int) -> None:
    """Seed Python's, numpy's and (when numba is installed) numba's global generators."""
    if not _SEEDER:
        try:
            import numba
        except ImportError:  # pure-ldp alone does not need numba
            _SEEDER.append(lambda value: None)
        else:
            _SEEDER.append(numba.njit(_numpy_seed))
    random.seed(value)
    np.random.seed(value)  # noqa: NPY002 - the libraries draw from numpy's global generator
    _SEEDER[0](value)


def _numpy_seed(value: int) -> None:
    """``numpy.random.seed``; compiled by numba, it seeds numba's own generator."""
    np.random.seed(value)  # noqa: NPY002 - numba's generator is seeded only this way


def _seeded(
    privatise: Callable[[Hashable], Hashable], report: Callable[[Any], Hashable]
) -> Callable[[Sequence[Hashable], np.random.Generator], list[Hashable]]:
    def draw(xs: Sequence[Hashable], rng: np.random.Generator) -> list[Hashable]:
        _seed_globals(int(rng.integers(0, 2**32)))
        return [report(privatise(x)) for x in xs]

    return draw


def _bitmask(bits: Any) -> int:
    return sum(1 << j for j, bit in enumerate(np.asarray(bits).ravel().tolist()) if bit)


def _support(value: int, seed: int, d: int, g: int) -> int:
    """The inputs ``j`` whose hash ``xxh32(str(j), seed) mod g`` is ``value``, as a bitmask."""
    import xxhash

    return sum(1 << j for j in range(d) if xxhash.xxh32(str(j), seed=int(seed)).intdigest() % g == value)


# ---------------------------------------------------------------------- pure-ldp
def pure_ldp(client: Any, inputs: Sequence[Hashable] | None = None) -> Sampler:
    """The sampler of a pure-ldp frequency-oracle client: ``DEClient`` (GRR), ``UEClient`` (OUE with
    ``use_oue=True``, else SUE) or ``LHClient`` (OLH with ``use_olh=True``, else local hashing with its
    ``g``). Reports, indexing and seeding: module docstring.

    ``inputs`` are the data items to draw for (default: the items ``client.index_mapper`` maps to
    ``0..d−1``, i.e. ``1..d`` for pure-ldp's default mapper).
    """
    try:
        from pure_ldp.frequency_oracles.direct_encoding import DEClient
        from pure_ldp.frequency_oracles.local_hashing import LHClient
        from pure_ldp.frequency_oracles.unary_encoding import UEClient
    except ImportError as exc:
        raise NotSupportedError(f"pure-ldp is not installed or does not import ({exc}); {_INSTALL}") from exc
    d = int(client.d) if isinstance(client, (DEClient, LHClient, UEClient)) else 0
    items = _items(client, d, inputs)
    index = {x: int(client.index_mapper(x)) for x in items}
    by_index = {i: x for x, i in index.items()}
    if isinstance(client, DEClient):
        name, report = f"pure-ldp DE (GRR, d={d})", lambda r: by_index.get(int(r), int(r))
    elif isinstance(client, UEClient):
        kind = "OUE" if client.use_oue else "SUE"
        name, report = f"pure-ldp {kind} (d={d})", _bitmask
    elif isinstance(client, LHClient):
        if type(client) is not LHClient:
            raise NotSupportedError(
                f"{type(client).__name__}: only LHClient of local hashing is supported (its seeds are uniform)"
            )
        g = int(client.g)
        kind = "OLH" if client.use_olh else "LH"
        name, report = f"pure-ldp {kind} (d={d}, g={g})", lambda r: _support(int(r[0]), int(r[1]), d, g)
    else:
        raise NotSupportedError(
            f"{type(client).__name__}: pure_ldp() takes DEClient, UEClient or LHClient (GRR, OUE/SUE, OLH)"
        )
    return Sampler(_seeded(client.privatise, report), items, name, float(client.epsilon))


def _items(client: Any, d: int, inputs: Sequence[Hashable] | None) -> tuple[Hashable, ...]:
    """The data items of a pure-ldp client: ``inputs``, or the items its mapper sends to ``0..d−1``."""
    if inputs is not None:
        items = tuple(inputs)
        for x in items:
            try:
                i = int(client.index_mapper(x))
            except Exception as exc:
                raise ValidationError(
                    "inputs", "items the client's index_mapper maps to 0..d−1", repr(x)
                ) from exc
            if not 0 <= i < d:
                raise ValidationError(
                    "inputs", f"items the client's index_mapper maps to 0..{d - 1}", f"{x!r} ↦ {i}"
                )
        return items
    for candidates in (range(1, d + 1), range(d)):
        try:
            if [int(client.index_mapper(x)) for x in candidates] == list(range(d)):
                return tuple(candidates)
        except Exception:  # a mapper that refuses ints: the caller names the items
            continue
    raise ValidationError("inputs", "the data items (the client's index_mapper is not the default)", "None")


# ---------------------------------------------------------------------- multi-freq-ldpy
def multi_freq_ldpy(client: Callable[..., Any], k: int, epsilon: float, **options: Any) -> Sampler:
    """The sampler of a multi-freq-ldpy client function: ``GRR_Client``, ``UE_Client`` (OUE with
    ``optimal=True``, its default; SUE with ``optimal=False``) or ``LH_Client`` (OLH with
    ``optimal=True``, BLH otherwise), called as ``client(x, k, epsilon, **options)`` for the inputs
    ``0..k−1``. Reports and seeding: module docstring."""
    name = getattr(client, "__name__", type(client).__name__)
    if not callable(client) or name not in ("GRR_Client", "UE_Client", "LH_Client"):
        raise NotSupportedError(f"{name}: multi_freq_ldpy() takes GRR_Client, UE_Client or LH_Client")
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ValidationError("k", "an int >= 2 (the domain size)", repr(k))
    optimal = bool(options.get("optimal", True))
    report: Callable[[Any], Hashable]
    if name == "GRR_Client":
        label, report = f"multi-freq-ldpy GRR (k={k})", int
    elif name == "UE_Client":
        label, report = f"multi-freq-ldpy {'OUE' if optimal else 'SUE'} (k={k})", _bitmask
    else:
        g = round(math.exp(epsilon)) + 1 if optimal else 2
        label = f"multi-freq-ldpy {'OLH' if optimal else 'BLH'} (k={k}, g={g})"

        def report(r: Any) -> Hashable:
            return _support(int(r[0]), int(r[1]), k, g)

    def privatise(x: Hashable) -> Any:
        return client(x, k, epsilon, **options)

    return Sampler(_seeded(privatise, report), range(k), label, float(epsilon))
