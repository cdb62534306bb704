import vulpy as vp

TILE: vp.uint32 = 32
ROWS = 4

@vp.kernel(local_size_x=TILE, local_size_y=ROWS)
def tiled(a: vp.Buffer[vp.float32]):
    a[vp.global_id()] = 1.0

# The decorator's local size from module constants, typed or not (once
# refused: "local_size_x must be an integer constant").
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# CHECK: kernel @tiled local_size(32, 4, 1)
