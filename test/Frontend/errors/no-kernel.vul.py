import vulpy as vp

def helper():
    pass

# Error class: no kernel.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}no-kernel.vul.py: error: no kernel: the file defines no `def main(...)`
# CHECK-NEXT: {{^}}  hint: a .vul.py file's kernel is `def main(...)`; or pass --kernel=NAME
# CHECK-NOT: {{.}}
# A kernel asked for by a name the file does not define:
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir --kernel=mian - 2>&1 | FileCheck %s --check-prefix=NAMED
# NAMED: {{.*}}no-kernel.vul.py: error: no function named 'mian' to use as the kernel
