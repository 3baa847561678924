"""pytest configuration: the tests import dlbridge from the build tree
(PYTHONPATH=build/python, set by `make test`) and the helpers next to them."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "trace"))
