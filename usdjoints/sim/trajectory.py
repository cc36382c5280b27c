"""Trajectory: the recorded result of a simulation run."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Trajectory:
    """Recorded states. With ``n_envs > 1`` every state array gains a leading env axis.

    t [T] [s]; q [T, nq]; qd [T, nv]; body_poses [T, nbody, 7] (position [m], quaternion w x y z
    in world coordinates); joint_names / q_start / v_start per joint; body_names per body.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    body_poses: np.ndarray
    joint_names: tuple[str, ...]
    q_start: np.ndarray
    v_start: np.ndarray
    body_names: tuple[str, ...]
    n_envs: int
    joint_types: tuple[str, ...] = ()  # revolute | prismatic | spherical | free | d6, per joint


def sample_times(duration: float, fps: float) -> np.ndarray:
    """The times a run recorded at ``fps`` samples per second reports: 0, 1/fps, 2/fps, ... and
    ``duration`` itself when it is not one of them [s]."""
    count = int(np.floor(duration * fps * (1.0 + 1e-12)))
    times = np.arange(count + 1) / fps
    if duration - times[-1] > 1e-9 * max(1.0, duration):
        times = np.append(times, duration)
    return times


def _nlerp(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Normalised linear blend of unit quaternions along the last axis (shortest arc)."""
    sign = np.where(np.sum(a * b, axis=-1, keepdims=True) < 0.0, -1.0, 1.0)
    blend = (1.0 - w) * a + w * sign * b
    return blend / np.linalg.norm(blend, axis=-1, keepdims=True)


def resample(trajectory: Trajectory, times: np.ndarray, quaternion_starts) -> Trajectory:
    """The trajectory at ``times`` [s] (within its span): linear between the two recorded states
    around each time, quaternions (q's at ``quaternion_starts`` and the body orientations) by
    normalised blend. A time that is a recorded one returns that state exactly."""
    t = trajectory.t
    times = np.asarray(times, dtype=float)
    right = np.clip(np.searchsorted(t, times, side="left"), 0, len(t) - 1)
    exact = np.isclose(t[right], times, rtol=0.0, atol=1e-12 * max(1.0, float(t[-1])))
    left = np.where(exact, right, np.maximum(right - 1, 0))
    span = t[right] - t[left]
    w = np.where(span > 0, (times - t[left]) / np.where(span > 0, span, 1.0), 0.0)
    axis = 0 if trajectory.n_envs == 1 else 1

    def blend(array):
        a, b = np.take(array, left, axis=axis), np.take(array, right, axis=axis)
        shape = [1] * array.ndim
        shape[axis] = len(times)
        weight = w.reshape(shape)
        return a, b, (1.0 - weight) * a + weight * b, weight

    qa, qb, q, wq = blend(trajectory.q)
    for start in quaternion_starts:
        q[..., start:start + 4] = _nlerp(qa[..., start:start + 4], qb[..., start:start + 4], wq)
    _, _, qd, _ = blend(trajectory.qd)
    pa, pb, poses, wp = blend(trajectory.body_poses)
    poses[..., 3:] = _nlerp(pa[..., 3:], pb[..., 3:], wp)
    return Trajectory(t=times.copy(), q=q, qd=qd, body_poses=poses, joint_names=trajectory.joint_names,
                      q_start=trajectory.q_start, v_start=trajectory.v_start,
                      body_names=trajectory.body_names, n_envs=trajectory.n_envs,
                      joint_types=trajectory.joint_types)
