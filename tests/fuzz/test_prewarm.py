"""The campaign's prewarm stages cover every kernel variant a fuzzed case can load.

Oracle: the packed model's own feature switches (loop or coupling rows, limit rows, contact
pairs) and the floating-tree switch, the ones ``usdjoints.sim.api.simulate`` picks the compiled
variant by.
"""
from __future__ import annotations

import itertools

from tests.fuzz.prewarm import feature_stages


def test_each_feature_combination_once(tmp_path):
    import usdjoints
    from usdjoints.sim.api import _floating_tree, _model

    seen = []
    for path in feature_stages(tmp_path):
        model = usdjoints.load_model(str(path))
        packed = _model(model)
        seen.append((packed.constraint_args() is not None, bool(packed.has_limit_rows()),
                     packed.contact_args() is not None, _floating_tree(model)))
    assert sorted(seen) == sorted(itertools.product((False, True), repeat=4))
