"""Puts the fidelity set's dask harness (common.py, fidelity_tasks.py: ../shared/fidelity beside
the checkout or its parent) and this folder on sys.path; a tool imports it before either. Also
`emit`, how a tool hands over its JSON object."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
for up in (("..", "..", ".."), ("..", "..", "..", "..")):
    found = os.path.join(HERE, *up, "shared", "fidelity")
    if os.path.exists(os.path.join(found, "common.py")):
        sys.path.insert(0, found)
        break
sys.path.insert(0, HERE)


def emit(out, path=None):
    """Prints `out` as indented JSON, and writes it to `path` too when one is given."""
    text = json.dumps(out, indent=1)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
    print(text)
