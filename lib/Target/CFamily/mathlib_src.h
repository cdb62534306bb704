/* mathlib_src.h - the precise math helpers' templates (mathlib_src.c). */
#ifndef VULPY_MATHLIB_SRC_H
#define VULPY_MATHLIB_SRC_H

typedef struct vtg_math_helper {
  const char *name;
  int bits;          /* 0: one text for both precisions; 32 / 64: that one only */
  const char *deps;  /* helpers (and tab_* tables) it calls, space-separated */
  const char *text;  /* GLSL with the placeholders of mathlib_src.c */
} vtg_math_helper;

extern const vtg_math_helper vtg_math_helpers[];

#endif
