"""The UsdValidation plugin module named in plugInfo: loading the plugin imports it, which
registers the task of every audit rule with the validation registry."""
from __future__ import annotations

import usdjoints  # noqa: F401  (PhysX schemas before any stage is opened)

from .validators import register

register()
