/* mathlib_gen.c - writes the precise math library as host C++ (the CF_HOSTC
 * dialect) for math_ulp.cpp to compile: the accuracy of the very formulas
 * the GLSL helpers use, measured on the CPU. */
#include <stdio.h>

#include "cfamily.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: mathlib_gen OUT.inc\n");
    return 2;
  }
  vp_strbuf b = {0};
  vtg_mathlib_source(CF_HOSTC, 32 | 64, &b);
  FILE *f = fopen(argv[1], "w");
  if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
    perror(argv[1]);
    return 1;
  }
  vp_strbuf_free(&b);
  return 0;
}
