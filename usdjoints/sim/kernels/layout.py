"""Column layout of the packed tables the kernels read (plain integers; importing this is cheap).

``link_table`` int64 [nlink, 5]: parent, primitive type, q start, v start, and the unit row: for a
one-dof link whose motion subspace column is a unit vector (a hinge or slider along an axis of
its link frame, what converters write), the index of its 1, else -1; the dynamics then read a
column of the inertia where they would multiply by the subspace.
``dof_table`` float64 [nv, DOF_COLUMNS]: one row of passive, limit and drive parameters per dof.
A dof's position is q[DOF_Q_INDEX] for a hinge or slider; a ball joint's three dofs (-1 there)
read theirs from the quaternion at q[DOF_BALL_Q:] (jcalc.dof_position), component DOF_BALL_AXIS
of its rotation vector; other dofs have none (-1 in both).
"""
LINK_PARENT = 0
LINK_TYPE = 1
LINK_Q_START = 2
LINK_V_START = 3
LINK_UNIT_ROW = 4
LINK_COLUMNS = 5

DOF_Q_INDEX = 0
DOF_DAMPING = 1
DOF_STIFFNESS = 2
DOF_SPRING_REF = 3
DOF_FRICTION_LOSS = 4
DOF_ARMATURE = 5
DOF_LOWER = 6
DOF_UPPER = 7
DOF_LIMIT_STIFFNESS = 8
DOF_LIMIT_DAMPING = 9
DOF_EFFORT_LIMIT = 10
DOF_VELOCITY_LIMIT = 11
DOF_DRIVE_TYPE = 12
DOF_DRIVE_STIFFNESS = 13
DOF_DRIVE_DAMPING = 14
DOF_DRIVE_MAX_FORCE = 15
DOF_DRIVE_TARGET_POSITION = 16
DOF_DRIVE_TARGET_VELOCITY = 17
DOF_BALL_Q = 18
DOF_BALL_AXIS = 19
DOF_COLUMNS = 20
