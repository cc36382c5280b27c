"""usdview integration: a plugin container (``container``, importable only inside usdview) and the
commands it runs, which work on any open ``Usd.Stage`` and need no viewer (``frames``,
``inspect``, ``simulate``, ``commands``).

Nothing is imported here, so loading the container pulls in neither numpy nor numba.
"""
