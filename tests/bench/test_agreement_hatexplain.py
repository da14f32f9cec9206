"""HateXplain's three rationale slots as three annotators (bench/agreement): xmd's Cohen's κ per pair, Fleiss' κ
and Krippendorff's α equal a direct computation from the CSV's raw 0/1 lists, written out here."""

from __future__ import annotations

import ast
import csv

import numpy as np
import pytest
from xmd.core.agreement import agreement, annotator_marks, token_table, value_counts

from bench.agreement.agreement_hatexplain import NAMES, import_annotators
from bench.real_data.hatexplain import align_tokens, data_dir, load_posts


def _direct(rows: list[dict[str, str]]) -> tuple[list[float], float, float]:
    """Cohen's κ per pair, Fleiss' κ and α straight from the CSV's 0/1 lists (formulas written out here)."""
    cols: list[list[int]] = [[], [], []]
    for row in rows:
        rats = ast.literal_eval(row["rationales"])
        if len(rats) != 3:
            continue
        _, token_words = align_tokens(ast.literal_eval(row["post_tokens"]))
        for r in range(3):
            for flag, words in zip(rats[r], token_words, strict=True):
                cols[r].extend([int(flag)] * len(words))  # a token covering k xmd words is k units
    x = np.array(cols, dtype=float)
    kappas = []
    for i, j in ((0, 1), (0, 2), (1, 2)):
        po = float((x[i] == x[j]).mean())
        pi, pj = x[i].mean(), x[j].mean()
        pe = pi * pj + (1 - pi) * (1 - pj)
        kappas.append((po - pe) / (1 - pe))
    ones = x.sum(axis=0)
    zeros = 3 - ones
    p_bar = float(((ones * (ones - 1) + zeros * (zeros - 1)) / 6).mean())
    p1 = ones.sum() / x.size
    pe = p1**2 + (1 - p1) ** 2
    fleiss = (p_bar - pe) / (1 - pe)
    # alpha = 1 - (n - 1) * o01 / (n0 n1) with the coincidence o01 = sum over units of ones * zeros / (m - 1),
    # m = 3 raters per unit, n = 3 T pairable values (Krippendorff 2011, nominal, two values).
    o01 = float((ones * zeros / 2).sum())
    n, n1 = x.size, ones.sum()
    alpha = 1 - (n - 1) * o01 / (n1 * (n - n1))
    return kappas, float(fleiss), float(alpha)


def test_hatexplain_three_annotators_against_the_csv() -> None:
    path = data_dir() / "val.csv"
    posts = [p for p in load_posts(path) if len(p.annotator_rationales) == 3]
    feedbacks, n_words, texts = import_annotators(posts)
    ids = [p.id for p in posts]
    people = [annotator_marks(n, feedbacks[n], ids) for n in NAMES]
    res = agreement(people, n_words, texts=texts)
    with path.open(newline="", encoding="utf-8") as fh:
        kappas, fleiss, alpha = _direct(list(csv.DictReader(fh)))
    assert len(posts) == 415 and res["n_examples"] == 415
    assert [p["kappa"] for p in res["pairs"]] == pytest.approx(kappas, abs=1e-9)
    assert res["fleiss_kappa"] == pytest.approx(fleiss, abs=1e-9)
    assert res["alpha"] == pytest.approx(alpha, abs=1e-9)
    # Fleiss' κ and α are different measures that meet on complete data with many units.
    assert res["fleiss_kappa"] != res["alpha"] and abs(res["fleiss_kappa"] - res["alpha"]) < 1e-3
    assert 0.3 < res["alpha"] < 0.7  # moderate agreement, as the dataset paper reports for rationales
    assert value_counts(token_table(people, n_words).codes).sum() == 3 * res["n_tokens"]
