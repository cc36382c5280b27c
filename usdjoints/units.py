"""Every unit conversion usdjoints makes, one named function each.

UsdPhysics stores angles in degrees and angular drive gains per degree; the simulator works in
radians and SI. Stage lengths are scaled by ``metersPerUnit`` and masses by ``kilogramsPerUnit``.
"""
from __future__ import annotations

import math

DEG_PER_RAD = 180.0 / math.pi
RAD_PER_DEG = math.pi / 180.0


def deg_to_rad(angle_deg: float) -> float:
    """An angle [deg] -> [rad]."""
    return angle_deg * RAD_PER_DEG


def rad_to_deg(angle_rad: float) -> float:
    """An angle [rad] -> [deg]."""
    return angle_rad * DEG_PER_RAD


def angular_gain_per_deg_to_per_rad(gain_per_deg: float) -> float:
    """A stiffness [N·m/deg] or damping [N·m·s/deg] -> per radian; PhysX multiplies by 57.2958."""
    return gain_per_deg * DEG_PER_RAD


def angular_gain_per_rad_to_per_deg(gain_per_rad: float) -> float:
    """A stiffness [N·m/rad] or damping [N·m·s/rad] -> per degree, as UsdPhysics stores it."""
    return gain_per_rad * RAD_PER_DEG


def length_to_meters(length: float, meters_per_unit: float) -> float:
    """A length [stage unit] -> [m]."""
    return length * meters_per_unit


def mass_to_kilograms(mass: float, kilograms_per_unit: float) -> float:
    """A mass [stage mass unit] -> [kg]."""
    return mass * kilograms_per_unit
