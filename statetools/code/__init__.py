"""Code mode: the model writes one script that calls the visible tools, and locks hold
inside it (``st.CodeMode``; extra ``statetools[code]``). See docs/code-mode.md.

>>> from statetools.code import CodeMode
>>> CodeMode(name="run_code").tool.name
'run_code'
"""

from statetools.code.mode import CodeMode, CodeModeTool
from statetools.code.sandbox import Limits

__all__ = ["CodeMode", "CodeModeTool", "Limits"]
