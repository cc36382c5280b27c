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


def force_to_newtons(force: float, meters_per_unit: float, kilograms_per_unit: float) -> float:
    """A force [stage mass · stage length / s^2] -> [N]."""
    return force * kilograms_per_unit * meters_per_unit


def torque_to_newton_meters(torque: float, meters_per_unit: float, kilograms_per_unit: float) -> float:
    """A torque [stage mass · stage length^2 / s^2] -> [N·m]."""
    return torque * kilograms_per_unit * meters_per_unit * meters_per_unit


def linear_stiffness_to_si(stiffness: float, kilograms_per_unit: float) -> float:
    """A linear stiffness [stage force / stage length] -> [N/m] (the lengths cancel)."""
    return stiffness * kilograms_per_unit


def angular_gain_to_si(gain_per_deg: float, meters_per_unit: float, kilograms_per_unit: float) -> float:
    """An angular stiffness [stage torque/deg] or damping [stage torque·s/deg] -> per radian, SI."""
    return angular_gain_per_deg_to_per_rad(torque_to_newton_meters(gain_per_deg, meters_per_unit, kilograms_per_unit))


def rotational_inertia_to_si(inertia: float, meters_per_unit: float, kilograms_per_unit: float) -> float:
    """A moment of inertia [stage mass · stage length^2] -> [kg·m^2]."""
    return inertia * kilograms_per_unit * meters_per_unit * meters_per_unit
