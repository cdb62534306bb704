import vulpy as vp

def main(ctrl: vp.Control):
    ctrl.mode = 1

# Error class: a malformed control_words option (word names are strings,
# each once).
# RUN: %python %S/../Inputs/dump_opts.py %s '{"control_words": {"ctrl": ["mode", "mode"]}}' | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=TWICE
# RUN: %python %S/../Inputs/dump_opts.py %s '{"control_words": {"ctrl": [1]}}' | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=TYPE
# RUN: %python %S/../Inputs/dump_opts.py %s '{"control_words": ["ctrl"]}' | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=MAP
# TWICE: control-words-option.vul.py:3:10: error: control buffer 'ctrl' names word 'mode' twice
# TYPE: control-words-option.vul.py:3:10: error: control_words["ctrl"] must be a list of word names (strings)
# MAP: control-words-option.vul.py: error: option control_words must map parameter names to lists of word names
