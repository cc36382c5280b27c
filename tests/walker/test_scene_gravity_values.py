"""A PhysicsScene's gravityMagnitude: -inf (the schema's fallback) means earth gravity in stage
units (UsdPhysics' schema and OpenUSD's parser read it so); NaN and +inf are no gravity at all,
so the walker keeps them, the auditor reports them and the simulator refuses them, naming the
scene, instead of falling with earth gravity."""
from __future__ import annotations

import math

import pytest

from usdjoints.auditor import audit
from usdjoints.errors import InputError
from usdjoints.model.build import build_model
from usdjoints.walker import walk

STAGE = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def PhysicsScene "Scene"
{{
    float physics:gravityMagnitude = {magnitude}
}}
def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{{
    float physics:mass = 1
    double size = 0.1
}}
"""


def _stage(tmp_path, magnitude):
    path = tmp_path / "scene.usda"
    path.write_text(STAGE.format(magnitude=magnitude))
    return str(path)


@pytest.mark.parametrize("magnitude", ["nan", "inf"])
def test_a_magnitude_that_is_no_gravity_is_kept_reported_and_refused(tmp_path, magnitude):
    path = _stage(tmp_path, magnitude)
    description = walk(path, consumer="usdjoints")
    assert not all(math.isfinite(c) for c in description.scene.gravity)
    findings = [f for f in audit(path).findings if f.rule == "non-finite-value"]
    assert [(f.prim, f.attribute) for f in findings] == [("/Scene", "physics:gravityMagnitude")]
    with pytest.raises(InputError, match="/Scene: physics:gravityMagnitude"):
        build_model(description)


def test_minus_infinity_is_earth_gravity(tmp_path):
    path = _stage(tmp_path, "-inf")
    assert walk(path, consumer="usdjoints").scene.gravity == pytest.approx((0.0, 0.0, -9.81))
    assert not [f for f in audit(path).findings if f.rule == "non-finite-value"]
