"""Qt windows for the usdview commands, through usdview's own Qt binding (PySide2/6 or PyQt).

Every function returns ``None`` when there is no Qt or no main window (a headless usdviewApi),
and the caller falls back to ``PrintStatus``. Windows are modeless and kept alive in ``_OPEN``
so Python's garbage collector does not close them.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

_OPEN: list = []


def qt_widgets(usdview_api):
    """usdview's QtWidgets module, or None when Qt or a main window is missing."""
    if getattr(usdview_api, "qMainWindow", None) is None:
        return None
    try:
        from pxr.Usdviewq.qt import QtWidgets
    except ImportError:
        return None
    return QtWidgets


def show_table(usdview_api, title: str, header: Sequence[str], rows: Sequence[Sequence[str]],
               on_choose: Optional[Callable[[int], None]] = None):
    """A table window; ``on_choose(row)`` runs when a row becomes current (clicked or keyed)."""
    QtWidgets = qt_widgets(usdview_api)
    if QtWidgets is None:
        return None
    dialog = QtWidgets.QDialog(usdview_api.qMainWindow)
    dialog.setWindowTitle(title)
    layout = QtWidgets.QVBoxLayout(dialog)
    table = QtWidgets.QTableWidget(len(rows), len(header), dialog)
    table.setHorizontalHeaderLabels(list(header))
    table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectRows)
    table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            item = QtWidgets.QTableWidgetItem(str(text))
            item.setToolTip(str(text))
            table.setItem(r, c, item)
    table.resizeColumnsToContents()
    if on_choose is not None:
        table.currentCellChanged.connect(lambda row, *_: on_choose(row) if row >= 0 else None)
    layout.addWidget(table)
    dialog.resize(900, 420)
    _keep(dialog)
    return dialog


def show_text(usdview_api, title: str, text: str):
    """A read-only, monospaced text window."""
    QtWidgets = qt_widgets(usdview_api)
    if QtWidgets is None:
        return None
    dialog = QtWidgets.QDialog(usdview_api.qMainWindow)
    dialog.setWindowTitle(title)
    layout = QtWidgets.QVBoxLayout(dialog)
    view = QtWidgets.QPlainTextEdit(dialog)
    view.setReadOnly(True)
    view.setLineWrapMode(QtWidgets.QPlainTextEdit.NoWrap)
    from pxr.Usdviewq.qt import QtGui

    view.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.FixedFont))
    view.setPlainText(text)
    layout.addWidget(view)
    dialog.resize(1000, 500)
    _keep(dialog)
    return dialog


def ask_duration(usdview_api, default: float) -> Optional[float]:
    """Ask for a duration [s]; ``default`` without Qt, None when the user cancels."""
    QtWidgets = qt_widgets(usdview_api)
    if QtWidgets is None:
        return default
    value, accepted = QtWidgets.QInputDialog.getDouble(
        usdview_api.qMainWindow, "usdjoints: simulate", "Duration [s]", default, 0.01, 3600.0, 2)
    return float(value) if accepted else None


def _keep(dialog) -> None:
    _OPEN.append(dialog)
    dialog.finished.connect(lambda *_: _OPEN.remove(dialog) if dialog in _OPEN else None)
    dialog.show()
