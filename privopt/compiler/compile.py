"""Compile declared ratio pairs over a set of distributions into a :class:`~privopt.compiler.cone.RowCone`.

The middle of the compiler's chain (docs/design.md, "One solve"): a definition declares its
:class:`~privopt.compiler.ratio_pairs.RatioPair` s; :func:`select_rule` picks, for each pair, the first
robust-counterpart rule of the uncertainty set that accepts it (:mod:`privopt.sets.counterparts`);
:func:`compile_pairs` evaluates both sides of every pair in every case of its rule and adds one block per
case to the cone. Groups of statistics shared by several pairs are evaluated once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from privopt.compiler.cone import ConeBuilder, RatioBlock, RowCone
from privopt.compiler.ratio_pairs import RatioPair
from privopt.errors import NotSupportedError
from privopt.memory import require
from privopt.sets.base import UncertaintySet
from privopt.sets.counterparts import ConstantRule, CounterpartRule, Layout, Side

_CONSTANT = ConstantRule()


def select_rule(
    pair: RatioPair,
    over: UncertaintySet | None,
    rules: Sequence[CounterpartRule],
    layout: Layout,
    who: str,
) -> CounterpartRule:
    """The first of ``rules`` (``over``'s :meth:`~privopt.sets.UncertaintySet.counterpart_rules`) that
    accepts ``pair``; a NotSupportedError that says why otherwise. ``who`` names the definition."""
    accepted, _ = _CONSTANT.accepts(pair.left, pair.right, layout)
    if accepted:
        return _CONSTANT
    if over is None:
        raise NotSupportedError(
            f"{who}: the pair {pair} depends on the distribution, but no set of distributions was given (over=)"
        )
    reasons = []
    for rule in rules:
        accepted, reason = rule.accepts(pair.left, pair.right, layout)
        if accepted:
            return rule
        reasons.append(reason)
    remedy = "Use a Point or a FiniteSet of distributions (each member is handled exactly)."
    # A rule that recognises the pair's dependence but refuses it says why ("the pair ...").
    specific = [reason for reason in reasons if reason.startswith("the pair")]
    if specific:
        raise NotSupportedError(f"{who} over {over!r}: {specific[0]}. {remedy}")
    left = " and ".join(sorted({st.dependence for st in pair.left}))
    right = " and ".join(sorted({st.dependence for st in pair.right}))
    handled = " or ".join(reasons) or "no distribution-dependent pairs"
    raise NotSupportedError(
        f"{who} over {over!r} is not supported: the pair {pair} is not affine in the distribution in one "
        f"way — its left side is {left}, its right side {right}, so no rule of the set gives its robust "
        f"counterpart. {type(over).__name__} handles {handled}. {remedy}"
    )


def compile_pairs(
    pairs: Sequence[RatioPair],
    eps: float,
    over: UncertaintySet | None,
    layout: Layout,
    who: str,
) -> RowCone:
    """The row cone of ``pairs`` at ``eps`` on inputs ``layout.labels``, robust over ``over``."""
    builder = ConeBuilder(eps, len(layout.labels), who)
    cache: dict[tuple[str, Side, str, int], int] = {}
    exact = True

    rules = () if over is None else over.counterpart_rules()
    stored = 0  # bytes of group vectors so far: refuse before a huge compilation exhausts memory
    for pair in pairs:
        rule = select_rule(pair, over, rules, layout, who)
        exact = exact and rule.exact
        log_factor, exact_factor = rule.factor(eps, pair.scale)
        text = f"{pair} [{rule.name} rule]"
        for case in rule.cases():
            sides = []
            for side in (pair.left, pair.right):
                key = (rule.name, side, case.key, case.index)
                if key not in cache:
                    evaluation = rule.evaluate(side, case, layout)
                    stored += evaluation.vectors.nbytes
                    require(
                        stored,
                        f"{who}: compiling its row cone on {len(layout.labels)} inputs (statistics of the "
                        f"{rule.name} rule over {type(over).__name__}, so far)",
                        "a smaller alphabet (coarser attributes), a Point or FiniteSet of distributions",
                    )
                    cache[key] = builder.group(evaluation.vectors, evaluation.terms, evaluation.name)
                sides.append(cache[key])
            builder.block(
                RatioBlock(
                    sides[0],
                    sides[1],
                    text,
                    log_factor,
                    rule.name,
                    case.member,
                    pair.scale,
                    exact_factor,
                )
            )
    return builder.build(exact)


def rescaled(cone: RowCone, eps: float, over: UncertaintySet | None, who: str) -> RowCone:
    """``cone`` (compiled by :func:`compile_pairs` over ``over``) at another ``eps``, without compiling
    again: the groups do not depend on ε, so they are kept; each block's factor is recomputed by the
    rule that made it (``RatioBlock.counterpart``), which need not be linear in ε (the PML transform,
    eq. 43). ``who`` names the definition at ``eps``."""
    rules = {rule.name: rule for rule in (_CONSTANT, *(() if over is None else over.counterpart_rules()))}
    blocks = []
    for block in cone.blocks:
        log_factor, exact_factor = rules[block.counterpart].factor(eps, block.scale)
        blocks.append(replace(block, log_factor=log_factor, exact_factor=exact_factor))
    return RowCone(eps, cone.n_inputs, cone.groups, tuple(blocks), cone.exact, who)
