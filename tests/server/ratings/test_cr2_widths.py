"""The CR2 correction worked per block width equals the one worked on every block padded to
the widest (two- and four-seat blocks side by side)."""

from __future__ import annotations

import numpy as np

from server.ratings import smallsample
from server.ratings.design import Design
from server.ratings.fit import fit
from tests.server.ratings.test_update import results


def test_per_width_equals_padded() -> None:
    design = Design()
    design.append(results(4_000, 20, seed=7))
    packed = design.packed()
    result = fit(packed)
    b = smallsample.blocks(packed, result)
    widths = set(b.mask.sum(axis=1).tolist())
    assert len(widths) > 1 and max(widths) == b.mask.shape[1]  # narrower blocks are padded
    bread = np.linalg.inv(result.neg_hessian)
    padded = smallsample._cr2(b, bread)  # every block at the widest width, as before
    assert np.allclose(smallsample.cr2_scores(b, bread), padded, rtol=0, atol=1e-12)
