"""``usdjoints simulate``: the npz archive, USD time samples and the error paths.

Oracles: the archive keys of ARCHITECTURE.md; OpenUSD composing the written layer over the stage
must put each body where the trajectory says (a round trip through USD's own transform stack).
"""
from __future__ import annotations

import numpy as np
import pytest

from samples import REPO
from usdjoints.cli import main

ARM = REPO / "sample_stages" / "arm_articulation.usda"


def test_simulate_writes_npz_and_time_samples(tmp_path, capsys):
    from pxr import Usd, UsdGeom

    npz, layer = tmp_path / "arm.npz", tmp_path / "arm_motion.usda"
    assert main(["simulate", str(ARM), "--duration", "0.5", "--out", str(npz), "--write-usd", str(layer)]) == 0
    data = np.load(npz)
    for key in ("t", "q", "qd", "joint_names", "q_start", "body_paths", "body_poses"):
        assert key in data.files
    T, nbody = data["body_poses"].shape[:2]
    assert data["body_poses"].shape == (T, nbody, 7) and data["q"].shape[0] == T
    stage = Usd.Stage.Open(str(layer))
    for frame in (0, T - 1):
        cache = UsdGeom.XformCache(frame)
        for index, path in enumerate(data["body_paths"]):
            position = cache.GetLocalToWorldTransform(stage.GetPrimAtPath(str(path))).ExtractTranslation()
            # float64 matrices through USD: agreement to rounding
            assert np.allclose(position, data["body_poses"][frame, index, :3], atol=1e-9), path
    assert set(tmp_path.iterdir()) == {npz, layer}  # no temporary file left behind


SLOT = """#usda 1.0
(
    metersPerUnit = 1
    kilogramsPerUnit = 1
    upAxis = "Z"
)
def Xform "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsMassAPI"])
{
    float physics:mass = 1
    float3 physics:diagonalInertia = (0.1, 0.1, 0.1)
}
def PhysicsRevoluteJoint "Hinge"
{
    rel physics:body1 = </Box>
    uniform token physics:axis = "X"
}
def PhysicsJoint "Slot" (prepend apiSchemas = ["PhysicsLimitAPI:transX"])
{
    rel physics:body1 = </Box>
    bool physics:excludeFromArticulation = 1
    float limit:transX:physics:low = 1
    float limit:transX:physics:high = -1
}
"""
# metres per unit far past float64 once squared into the inertia: refused before any step
REFUSED = SLOT.replace("metersPerUnit = 1\n", "metersPerUnit = 1e200\n")


def test_loop_closing_d6_with_five_free_axes_simulates(tmp_path, capsys):
    """A loop-closing D6 with five free axes (a point held on a plane) is simulated (it was
    refused; tests/sim/test_d6_loops.py holds its motion to closed forms): exit 0, an output."""
    stage = tmp_path / "slot.usda"
    stage.write_text(SLOT)
    out = tmp_path / "slot.npz"
    assert main(["simulate", str(stage), "--duration", "0.1", "--out", str(out)]) == 0
    assert out.exists()


def test_refused_stage_exits_2_without_output(tmp_path, capsys):
    """A stage the simulator refuses (an inertia not finite in SI units): exit 2, one line naming
    the body, no output."""
    stage = tmp_path / "huge.usda"
    stage.write_text(REFUSED)
    out = tmp_path / "huge.npz"
    code = main(["simulate", str(stage), "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 2 and "/Box" in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


@pytest.mark.parametrize("argv", [["--dt", "0"], ["--duration", "-1"], ["--envs", "0"]])
def test_bad_numbers_are_usage_errors(capsys, argv):
    assert main(["simulate", str(ARM), *argv]) == 2


def test_simulate_envs_reports_env_steps(capsys):
    """Oracle: the count is envs x steps (duration / dt); the rate is that count over a time."""
    assert main(["simulate", str(ARM), "--duration", "0.05", "--envs", "3", "--no-progress"]) == 0
    out, err = capsys.readouterr()
    line = out.strip().splitlines()[-1]
    assert line.startswith("3 envs x 50 steps in ") and line.endswith("threads"), line
    rate = float(line.split(": ")[1].split(" M env-steps/s")[0])
    assert rate > 0.0
    assert err == ""


def test_simulate_progress_bar_on_request(capsys):
    assert main(["simulate", str(ARM), "--duration", "0.05", "--progress"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("\rsimulate [") and err.endswith("] 100%\n"), err[-60:]


def test_slow_kernel_load_is_announced_on_a_terminal(monkeypatch, capsys):
    """A first compile takes up to a minute: a terminal is told so once loading outlasts
    COMPILE_NOTICE_AFTER (here a load made slow on purpose); a quick load says nothing."""
    import sys
    import time

    from usdjoints import cli
    from usdjoints.sim import api

    real = api.simulate

    def slow_first_load(model, duration, *args, **kwargs):
        if duration == 0.0:
            time.sleep(0.5)
        return real(model, duration, *args, **kwargs)

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setattr(cli, "COMPILE_NOTICE_AFTER", 0.05)
    monkeypatch.setattr(api, "simulate", slow_first_load)
    assert main(["simulate", str(ARM), "--duration", "0.01", "--no-progress"]) == 0
    assert "compiling the simulator's kernels" in capsys.readouterr().err
    monkeypatch.setattr(api, "simulate", real)
    monkeypatch.setattr(cli, "COMPILE_NOTICE_AFTER", 30.0)
    assert main(["simulate", str(ARM), "--duration", "0.01", "--no-progress"]) == 0
    assert capsys.readouterr().err == ""


def test_plot_draws_one_panel_per_unit(tmp_path, monkeypatch):
    """Oracle: the trajectory itself; the arm's hinges are drawn on the angle panel [rad] and its
    slider on the length panel [m], each line one joint coordinate over t labelled with the
    joint's name; the file is a PNG that matplotlib reads back."""
    pytest.importorskip("matplotlib")
    import matplotlib.image
    import matplotlib.pyplot as plt

    from usdjoints.model.build import load_model
    from usdjoints.sim import api
    from usdjoints.trajectory_io import write_plot

    closed = []
    real_close = plt.close
    monkeypatch.setattr(plt, "close", lambda figure=None: (closed.append(figure), real_close(figure)))
    model = load_model(ARM)
    trajectory = api.simulate(model, 0.2, 1e-3, record_every=10)
    out = tmp_path / "q.png"
    write_plot(trajectory, out)
    panels = closed[0].axes
    assert [p.get_ylabel() for p in panels] == ["q [rad]", "q [m]"]
    drawn = {}
    for panel in panels:
        for line in panel.get_lines():
            drawn[line.get_label()] = (panel.get_ylabel(), line)
    assert sorted(drawn) == sorted(trajectory.joint_names)
    for j, name in enumerate(trajectory.joint_names):
        unit, line = drawn[name]
        assert unit == ("q [m]" if model.joint_types[j] == "prismatic" else "q [rad]")
        np.testing.assert_array_equal(line.get_xdata(), trajectory.t)
        np.testing.assert_array_equal(line.get_ydata(), trajectory.q[:, trajectory.q_start[j]])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert matplotlib.image.imread(out).shape[:2] == (650, 1000)


def test_plot_without_matplotlib_is_a_usage_error(tmp_path, monkeypatch, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    out, npz = tmp_path / "q.png", tmp_path / "q.npz"
    assert main(["simulate", str(ARM), "--duration", "0.01", "--out", str(npz), "--plot", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usdjoints: error: --plot needs matplotlib") and len(err.strip().splitlines()) == 1
    assert not out.exists() and not npz.exists()  # refused before the run: no partial outputs


def test_out_to_a_fifo_with_a_reader_streams_the_archive(tmp_path, capsys):
    """A FIFO output is opened once, before the run, and written in place (never replaced)."""
    import io
    import os
    import stat
    import threading

    import time

    fifo = tmp_path / "traj.fifo"
    os.mkfifo(fifo)
    # the reader's end is open before the run starts (a thread left to open it could still be
    # on its way when the run checks for a reader); until the writer closes, an empty read
    # only means nothing has come yet
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(fd, True)
    done = threading.Event()
    received = []

    def read():
        while True:
            chunk = os.read(fd, 65536)
            if chunk:
                received.append(chunk)
            elif done.is_set():
                return
            else:
                time.sleep(0.01)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert main(["simulate", str(ARM), "--duration", "0.05", "--out", str(fifo)]) == 0
    finally:
        done.set()
        reader.join(30)
        os.close(fd)
    data = np.load(io.BytesIO(b"".join(received)))
    assert data["q"].shape[0] == len(data["t"]) > 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_write_usd_over_the_stage_is_refused_before_the_run(tmp_path, capsys):
    stage = tmp_path / "arm.usda"
    stage.write_text(ARM.read_text())
    before = stage.read_bytes()
    assert main(["simulate", str(stage), "--write-usd", str(stage)]) == 2
    assert "refusing to overwrite an input" in capsys.readouterr().err
    assert stage.read_bytes() == before


@pytest.mark.parametrize("name", ["motion.usda", "motion.USD", "motion.usdc", "motion.usdz"])
def test_out_under_a_usd_name_is_refused_before_the_run(tmp_path, capsys, name):
    """--out writes an npz archive (a zip): under a USD name, OpenUSD could not open the file the
    user meant to get (--write-usd writes USD), so nothing is written."""
    target = tmp_path / name
    assert main(["simulate", str(ARM), "--duration", "0.01", "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert "--out writes an npz archive" in err and "--write-usd" in err and len(err.strip().splitlines()) == 1
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_step_flops_of_a_chain_and_of_a_star():
    """The factorisation's work: sum of (ancestor dofs + 1)^2, n (n + 1) (2 n + 1) / 6 for a
    chain of n hinges (closed form), n for n hinges on one fixed root."""
    from usdjoints.model import ModelBuilder
    from usdjoints.sim.api import step_flops

    chain, star = ModelBuilder(), ModelBuilder()
    for i in range(30):
        chain.add_body(f"c{i}", parent=None if i == 0 else f"c{i - 1}", joint_type="revolute",
                       axis=np.array([0.0, 0.0, 1.0]), mass=1.0, inertia=np.eye(3))
        star.add_body(f"s{i}", parent=None, joint_type="revolute", axis=np.array([0.0, 0.0, 1.0]),
                      mass=1.0, inertia=np.eye(3))
    assert step_flops(chain.build()) == 30 * 31 * 61 / 6
    assert step_flops(star.build()) == 30


def test_a_long_run_is_announced_with_its_estimate(monkeypatch, capsys):
    """A run whose estimated stepping time would pass a minute gets one note on stderr with the
    estimate (here the factorisation's rate is set to 1 flop/s); --quiet keeps it back."""
    from usdjoints.sim import api

    monkeypatch.setattr(api, "FACTOR_FLOPS_PER_S", 1.0)
    stage = str(REPO / "sample_stages" / "arm_articulation.usda")
    assert main(["simulate", stage, "--duration", "0.01"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "usdjoints: note:" in line]
    assert len(notes) == 1 and "11 steps of 1 env(s) of 4 dofs" in notes[0] and "may take about" in notes[0]
    assert main(["simulate", stage, "--duration", "0.01", "--quiet"]) == 0
    assert "note:" not in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "0", "-1"])
def test_stage_units_out_of_range_are_a_warning_of_the_run(tmp_path, capsys, value):
    """A metersPerUnit of nan, 0 or -1 runs at the schema's fallback (OpenUSD's
    UsdGeom.GetStageMetersPerUnit of a stage without the metadatum: 0.01), as the walk reads it;
    the run says so on stderr instead of scaling every length by 0.01 silently."""
    from pxr import Usd, UsdGeom

    fallback = UsdGeom.GetStageMetersPerUnit(Usd.Stage.CreateInMemory())
    text = (REPO / "sample_stages" / "sim" / "double_pendulum.usda").read_text()
    assert "    metersPerUnit = 1\n" in text
    stage = tmp_path / "s.usda"
    stage.write_text(text.replace("    metersPerUnit = 1\n", f"    metersPerUnit = {value}\n"))
    assert main(["simulate", str(stage), "--duration", "0.01"]) == 0
    err = capsys.readouterr().err
    warnings = [line for line in err.splitlines() if "metersPerUnit" in line]
    assert len(warnings) == 1 and warnings[0].startswith("usdjoints: warning: "), err
    assert f"fallback {fallback!r}" in warnings[0], warnings
