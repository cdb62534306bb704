import vulpy as vp

def main(ctrl: vp.Control, plain: vp.Control):
    a = ctrl.speed
    b = plain.mode
    ctrl.mode += 1

# Error class: control words. A name that is not among control_words; a
# control buffer without named words; an augmented assignment to a word
# (a load and a store, not one atomic step).
# RUN: %python %S/../Inputs/dump_opts.py %s '{"control_words": {"ctrl": ["mode", "hot_count"]}}' | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}control-word.vul.py:4:9: error: control buffer 'ctrl' has no word 'speed'
# CHECK-NEXT: {{^}}    a = ctrl.speed
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: its words: mode, hot_count
# CHECK-NEXT: {{.*}}control-word.vul.py:5:9: error: control buffer 'plain' has no named words
# CHECK-NEXT: {{^}}    b = plain.mode
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: name them in the decorator: control_words={"plain": ["mode", ...]}, or index the words: plain[i]
# CHECK-NEXT: {{.*}}control-word.vul.py:6:5: error: 'ctrl.mode' += ... would be a load and a store, not one atomic step
# CHECK-NEXT: {{^}}    ctrl.mode += 1
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: use vp.atomic_add(ctrl.mode, ...) (or atomic_sub, atomic_or, ...)
# CHECK-NOT: {{.}}
