import vulpy as vp

def star(x, *rest):
    return x

def many(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p30, p31, p32, p33, p34, p35, p36, p37, p38, p39, p40, p41, p42, p43, p44, p45, p46, p47, p48, p49, p50, p51, p52, p53, p54, p55, p56, p57, p58, p59, p60, p61, p62, p63, p64):
    return p0

def unused(x, /, y):
    return x

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    a[i] = star(1.0)
    a[i] = star(2.0)
    a[i] = many(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)

# Error classes of helper signatures: *args (reported once, though called
# twice), more than 64 parameters, and / in a helper the kernel never calls
# (checked all the same).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}helper-signatures.vul.py:3:1: error: helper 'star' takes plain named parameters only (no *args, **kwargs, / or *)
# CHECK: {{.*}}helper-signatures.vul.py:6:1: error: helper 'many' has more than 64 parameters
# CHECK: {{.*}}helper-signatures.vul.py:9:1: error: helper 'unused' takes plain named parameters only (no *args, **kwargs, / or *)
# CHECK-NOT: error:
