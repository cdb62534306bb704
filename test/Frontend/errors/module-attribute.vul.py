import vulpy as vp
import mymod

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    a[i] = mymod.C

# Error class: another module's attribute (only vulpy's and math's are read).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}module-attribute.vul.py:6:12: error: 'mymod' is a module; kernels read attributes of vulpy and math only
# CHECK-NEXT: {{^}}    a[i] = mymod.C
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: import the number itself: from mymod import NAME
# CHECK-NOT: {{.}}
