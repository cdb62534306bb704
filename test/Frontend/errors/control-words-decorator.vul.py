import vulpy as vp

@vp.kernel(control_words=["ctrl"])
def notdict(ctrl: vp.Control):
    ctrl.mode = 1

@vp.kernel(control_words={"ctrl": "mode"})
def notlist(ctrl: vp.Control):
    ctrl.mode = 1

@vp.kernel(control_words={"ctrl": ["mode", 2]})
def notname(ctrl: vp.Control):
    ctrl.mode = 1

@vp.kernel(control_words={"ctrl": ["mode", "mode"]})
def twice(ctrl: vp.Control):
    ctrl.mode = 1

# Error class: a malformed control_words keyword of a .vul.py file's
# decorator (a dict literal of lists of word names, each once).
# RUN: %dump-ast --kernel notdict %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=DICT
# RUN: %dump-ast --kernel notlist %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=LIST
# RUN: %dump-ast --kernel notname %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=NAME
# RUN: %dump-ast --kernel twice %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=TWICE
# DICT: control-words-decorator.vul.py:3:26: error: control_words must be a dict literal of parameter names to lists of word names
# LIST: control-words-decorator.vul.py:7:35: error: control_words["ctrl"] must be a list of word names
# NAME: control-words-decorator.vul.py:11:44: error: control_words["ctrl"] must be a list of word names (strings)
# TWICE: control-words-decorator.vul.py:15:44: error: control buffer 'ctrl' names word 'mode' twice
