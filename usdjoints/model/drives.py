"""A drive as the simulator holds it: UsdPhysics' DriveAPI columns (per degree, targets in degrees,
stage units) in SI units and radians."""
from __future__ import annotations

from .. import units
from ..descriptors import DriveDesc
from .builder import Drive

ROTATIONAL_DOFS = ("angular", "rotX", "rotY", "rotZ")


def is_rotational(dof: str) -> bool:
    return dof in ROTATIONAL_DOFS


def drive_si(drive: DriveDesc, rotational: bool, mpu: float, kpu: float) -> Drive:
    """``drive`` in SI units and radians (metersPerUnit ``mpu``, kilogramsPerUnit ``kpu``)."""
    if drive.type == "acceleration":
        # acceleration drives carry gains per unit of inertia: only the angle unit converts
        gain = units.angular_gain_per_deg_to_per_rad if rotational else (lambda g: g)
        stiffness, damping = gain(drive.stiffness), gain(drive.damping)
    elif rotational:
        stiffness = units.angular_gain_to_si(drive.stiffness, mpu, kpu)
        damping = units.angular_gain_to_si(drive.damping, mpu, kpu)
    else:
        stiffness = units.linear_stiffness_to_si(drive.stiffness, kpu)
        damping = units.linear_stiffness_to_si(drive.damping, kpu)
    if rotational:
        max_force = units.torque_to_newton_meters(drive.max_force, mpu, kpu)
        target, velocity = units.deg_to_rad(drive.target_position), units.deg_to_rad(drive.target_velocity)
    else:
        max_force = units.force_to_newtons(drive.max_force, mpu, kpu)
        target, velocity = drive.target_position * mpu, drive.target_velocity * mpu
    # UsdPhysics' parser reads every drive type but "acceleration" (a token outside allowedTokens
    # as well) as a force drive
    kind = "acceleration" if drive.type == "acceleration" else "force"
    return Drive(type=kind, stiffness=stiffness, damping=damping, max_force=max_force,
                 target_position=target, target_velocity=velocity)
