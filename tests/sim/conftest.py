import sys
from pathlib import Path

# tests/reference holds the numpy oracles; make it importable as `reference`.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
