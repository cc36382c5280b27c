"""The public Python API refuses arguments of the wrong Python type with a UsageError naming the
argument, as the command line refuses a bad option value; nothing reaches a TypeError or
ValueError inside, and nothing is read as truthy or truncated (n_envs=2.5 is not 2).

Oracle: the API contract in ARCHITECTURE.md (typed usdjoints errors at every entry point), and for
the accepted spellings, the same result as the canonical one.
"""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

import usdjoints
from usdjoints.errors import UsageError

SAMPLES = pathlib.Path(__file__).resolve().parents[1] / "sample_stages"
PENDULUM = str(SAMPLES / "sim" / "double_pendulum.usda")
URDF = pathlib.Path(__file__).resolve().parent / "data" / "urdf_corpus"


@pytest.fixture(scope="module")
def model():
    return usdjoints.load_model(PENDULUM)


SIMULATE_CASES = {
    "n_envs nan": dict(n_envs=float("nan")),
    "n_envs str": dict(n_envs="4"),
    "n_envs fraction": dict(n_envs=2.5),
    "n_envs bool": dict(n_envs=True),
    "n_envs zero": dict(n_envs=0),
    "record_every str": dict(record_every="x"),
    "record_every fraction": dict(record_every=1.5),
    "record_every negative": dict(record_every=-3),
    "contact_time_constant str": dict(contact_time_constant="x"),
    "contact_time_constant nan": dict(contact_time_constant=float("nan")),
    "integrator list": dict(integrator=["euler"]),
    "integrator None": dict(integrator=None),
    "q0 strings": dict(q0=["a", "b"]),
    "q0 object": dict(q0=object()),
    "q0 complex": dict(q0=[1j, 0.0]),
    "q0 ragged": dict(q0=[[0.0], [0.0, 1.0]]),
    "qd0 dict": dict(qd0={"a": 1.0}),
    "progress not callable": dict(progress=3),
}


@pytest.mark.parametrize("kwargs", SIMULATE_CASES.values(), ids=SIMULATE_CASES.keys())
def test_simulate_refuses_wrong_types(model, kwargs):
    with pytest.raises(UsageError):
        usdjoints.simulate(model, 0.01, 0.001, **kwargs)


@pytest.mark.parametrize("duration, dt", [("1", 0.001), (None, 0.001), (0.01, [0.001]), (0.01, True)])
def test_simulate_refuses_wrong_timing_types(model, duration, dt):
    with pytest.raises(UsageError):
        usdjoints.simulate(model, duration, dt)


def test_numpy_numbers_are_numbers(model):
    canonical = usdjoints.simulate(model, 0.01, 0.001, n_envs=2, record_every=2)
    spelled = usdjoints.simulate(model, np.float32(0.01), np.float64(0.001), n_envs=np.int64(2),
                                 record_every=2.0)
    assert spelled.q.shape == canonical.q.shape
    np.testing.assert_array_equal(spelled.q, canonical.q)


@pytest.mark.parametrize("q", [["a", "b"], {"a": 1}, [1j, 0.0], None, [True, False]])
def test_kinematics_and_dynamics_refuse_non_numbers(model, q):
    with pytest.raises(UsageError):
        usdjoints.forward_kinematics(model, q)
    with pytest.raises(UsageError):
        usdjoints.forward_dynamics(model, q, np.zeros(model.nv), np.zeros(model.nv))
    with pytest.raises(UsageError):
        usdjoints.forward_dynamics(model, np.zeros(model.nq), np.zeros(model.nv), q)


@pytest.mark.parametrize("value", [None, 3, 2.5, ["a.usda"], object()])
@pytest.mark.parametrize("entry", ["walk", "load_model", "open_stage"])
def test_stage_entry_points_refuse_non_paths(entry, value):
    with pytest.raises(UsageError, match="stage must be a path"):
        getattr(usdjoints, entry)(value)


def test_bytes_and_pathlike_paths_are_paths():
    from usdjoints.walker.render import walk_json

    by_str = walk_json(usdjoints.walk(PENDULUM))
    assert walk_json(usdjoints.walk(pathlib.Path(PENDULUM))) == by_str
    assert walk_json(usdjoints.walk(PENDULUM.encode())) == by_str


@pytest.mark.parametrize("kwargs", [dict(consumers=3), dict(rules=3), dict(consumers=[["ovphysx"]]),
                                    dict(rules=[1])], ids=["consumers int", "rules int", "consumer list", "rule int"])
def test_audit_refuses_wrong_types(kwargs):
    with pytest.raises(UsageError):
        usdjoints.audit(PENDULUM, **kwargs)


@pytest.mark.parametrize("value", [3, None, [None]])
def test_audit_refuses_non_paths(value):
    with pytest.raises(UsageError):
        usdjoints.audit(value)


def test_audit_takes_one_name_as_a_list_of_one():
    one = usdjoints.audit(PENDULUM, consumers="ovphysx", rules="tiny-mass")
    listed = usdjoints.audit(PENDULUM, consumers=["ovphysx"], rules=["tiny-mass"])
    assert one.as_json() == listed.as_json()
    assert one.consumers == ("ovphysx",)


@pytest.mark.parametrize("consumer", [["ovphysx"], None, 3])
def test_walk_refuses_a_consumer_that_is_not_a_name(consumer):
    with pytest.raises(UsageError, match="unknown consumer"):
        usdjoints.walk(PENDULUM, consumer=consumer)


@pytest.mark.parametrize("contact", ["no", 0, None])
def test_load_model_contact_is_a_bool(contact):
    with pytest.raises(UsageError, match="contact must be True or False"):
        usdjoints.load_model(PENDULUM, contact=contact)


def _a_urdf() -> str:
    return str(sorted(URDF.glob("*.urdf"))[0])


@pytest.mark.parametrize("kwargs", [
    dict(input_path=None), dict(input_path=3), dict(output_path=5), dict(output_path=None),
    dict(packages=["pkg"]), dict(packages={"pkg": 3}), dict(packages={3: "/tmp"}),
    dict(resource_paths="/tmp"), dict(resource_paths=3), dict(resource_paths=[None]),
], ids=lambda kw: " ".join(f"{k}={v!r}" for k, v in kw.items()))
def test_convert_refuses_wrong_types(tmp_path, kwargs):
    args = dict(input_path=_a_urdf(), output_path=str(tmp_path / "out.usda"))
    args.update(kwargs)
    with pytest.raises(UsageError):
        usdjoints.convert_urdf(args.pop("input_path"), args.pop("output_path"), **args)
    assert list(tmp_path.iterdir()) == []


def test_convert_sdformat_refuses_a_single_resource_path(tmp_path):
    sdf = tmp_path / "m.sdf"
    sdf.write_text('<sdf version="1.9"><model name="m"><link name="a"/></model></sdf>')
    with pytest.raises(UsageError, match="resource_paths must be a list"):
        usdjoints.convert_sdformat(sdf, tmp_path / "out.usda", resource_paths=str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.sdf"]


@pytest.mark.parametrize("trajectory", [None, 3, {"t": [0.0]}])
def test_write_trajectory_needs_a_trajectory(trajectory):
    stage = usdjoints.open_stage(PENDULUM)
    with pytest.raises(UsageError, match="expected a Trajectory"):
        usdjoints.write_trajectory(stage, trajectory)


@pytest.mark.parametrize("kwargs", [dict(n_envs=10 ** 400), dict(record_every=2 ** 60), dict(duration=10 ** 400),
                                    dict(dt=10 ** 400), dict(contact_time_constant=10 ** 400)],
                         ids=["n_envs", "record_every", "duration", "dt", "contact_time_constant"])
def test_numbers_past_a_float_are_refused(model, kwargs):
    args = dict(duration=0.01, dt=0.001)
    args.update(kwargs)
    with pytest.raises(UsageError):
        usdjoints.simulate(model, args.pop("duration"), args.pop("dt"), **args)


@pytest.mark.parametrize("flag", ["strict", "confine", "floating_base"])
def test_convert_flags_are_bools(tmp_path, flag):
    with pytest.raises(UsageError, match=flag):
        usdjoints.convert_urdf(_a_urdf(), tmp_path / "out.usda", **{flag: "no"})
    assert list(tmp_path.iterdir()) == []


def test_audit_strict_and_constrained_dynamics_are_bools(model):
    with pytest.raises(UsageError, match="strict"):
        usdjoints.audit(PENDULUM, strict="no")
    with pytest.raises(UsageError, match="constrained"):
        usdjoints.forward_dynamics(model, np.zeros(model.nq), np.zeros(model.nv), np.zeros(model.nv), constrained="no")
