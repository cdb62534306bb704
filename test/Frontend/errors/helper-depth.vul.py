import vulpy as vp

def h0(x: vp.float32) -> vp.float32:
    return h1(x) + 1.0

def h1(x: vp.float32) -> vp.float32:
    return h2(x) + 1.0

def h2(x: vp.float32) -> vp.float32:
    return h3(x) + 1.0

def h3(x: vp.float32) -> vp.float32:
    return h4(x) + 1.0

def h4(x: vp.float32) -> vp.float32:
    return h5(x) + 1.0

def h5(x: vp.float32) -> vp.float32:
    return h6(x) + 1.0

def h6(x: vp.float32) -> vp.float32:
    return h7(x) + 1.0

def h7(x: vp.float32) -> vp.float32:
    return h8(x) + 1.0

def h8(x: vp.float32) -> vp.float32:
    return h9(x) + 1.0

def h9(x: vp.float32) -> vp.float32:
    return h10(x) + 1.0

def h10(x: vp.float32) -> vp.float32:
    return h11(x) + 1.0

def h11(x: vp.float32) -> vp.float32:
    return h12(x) + 1.0

def h12(x: vp.float32) -> vp.float32:
    return h13(x) + 1.0

def h13(x: vp.float32) -> vp.float32:
    return h14(x) + 1.0

def h14(x: vp.float32) -> vp.float32:
    return h15(x) + 1.0

def h15(x: vp.float32) -> vp.float32:
    return h16(x) + 1.0

def h16(x: vp.float32) -> vp.float32:
    return h17(x) + 1.0

def h17(x: vp.float32) -> vp.float32:
    return h18(x) + 1.0

def h18(x: vp.float32) -> vp.float32:
    return h19(x) + 1.0

def h19(x: vp.float32) -> vp.float32:
    return h20(x) + 1.0

def h20(x: vp.float32) -> vp.float32:
    return h21(x) + 1.0

def h21(x: vp.float32) -> vp.float32:
    return h22(x) + 1.0

def h22(x: vp.float32) -> vp.float32:
    return h23(x) + 1.0

def h23(x: vp.float32) -> vp.float32:
    return h24(x) + 1.0

def h24(x: vp.float32) -> vp.float32:
    return h25(x) + 1.0

def h25(x: vp.float32) -> vp.float32:
    return h26(x) + 1.0

def h26(x: vp.float32) -> vp.float32:
    return h27(x) + 1.0

def h27(x: vp.float32) -> vp.float32:
    return h28(x) + 1.0

def h28(x: vp.float32) -> vp.float32:
    return h29(x) + 1.0

def h29(x: vp.float32) -> vp.float32:
    return h30(x) + 1.0

def h30(x: vp.float32) -> vp.float32:
    return h31(x) + 1.0

def h31(x: vp.float32) -> vp.float32:
    return h32(x) + 1.0

def h32(x: vp.float32) -> vp.float32:
    return h33(x) + 1.0

def h33(x: vp.float32) -> vp.float32:
    return h34(x) + 1.0

def h34(x: vp.float32) -> vp.float32:
    return h35(x) + 1.0

def h35(x: vp.float32) -> vp.float32:
    return h36(x) + 1.0

def h36(x: vp.float32) -> vp.float32:
    return h37(x) + 1.0

def h37(x: vp.float32) -> vp.float32:
    return h38(x) + 1.0

def h38(x: vp.float32) -> vp.float32:
    return h39(x) + 1.0

def h39(x: vp.float32) -> vp.float32:
    return h40(x) + 1.0

def h40(x: vp.float32) -> vp.float32:
    return h41(x) + 1.0

def h41(x: vp.float32) -> vp.float32:
    return h42(x) + 1.0

def h42(x: vp.float32) -> vp.float32:
    return h43(x) + 1.0

def h43(x: vp.float32) -> vp.float32:
    return h44(x) + 1.0

def h44(x: vp.float32) -> vp.float32:
    return h45(x) + 1.0

def h45(x: vp.float32) -> vp.float32:
    return h46(x) + 1.0

def h46(x: vp.float32) -> vp.float32:
    return h47(x) + 1.0

def h47(x: vp.float32) -> vp.float32:
    return h48(x) + 1.0

def h48(x: vp.float32) -> vp.float32:
    return h49(x) + 1.0

def h49(x: vp.float32) -> vp.float32:
    return h50(x) + 1.0

def h50(x: vp.float32) -> vp.float32:
    return h51(x) + 1.0

def h51(x: vp.float32) -> vp.float32:
    return h52(x) + 1.0

def h52(x: vp.float32) -> vp.float32:
    return h53(x) + 1.0

def h53(x: vp.float32) -> vp.float32:
    return h54(x) + 1.0

def h54(x: vp.float32) -> vp.float32:
    return h55(x) + 1.0

def h55(x: vp.float32) -> vp.float32:
    return h56(x) + 1.0

def h56(x: vp.float32) -> vp.float32:
    return h57(x) + 1.0

def h57(x: vp.float32) -> vp.float32:
    return h58(x) + 1.0

def h58(x: vp.float32) -> vp.float32:
    return h59(x) + 1.0

def h59(x: vp.float32) -> vp.float32:
    return h60(x) + 1.0

def h60(x: vp.float32) -> vp.float32:
    return h61(x) + 1.0

def h61(x: vp.float32) -> vp.float32:
    return h62(x) + 1.0

def h62(x: vp.float32) -> vp.float32:
    return h63(x) + 1.0

def h63(x: vp.float32) -> vp.float32:
    return h64(x) + 1.0

def h64(x: vp.float32) -> vp.float32:
    return h65(x) + 1.0

def h65(x: vp.float32) -> vp.float32:
    return x

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    a[i] = h0(a[i])

# Error class: helpers nested deeper than the translator's bound (64).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}helper-depth.vul.py:193:12: error: helpers call each other more than 64 levels deep
# CHECK-NOT: error
