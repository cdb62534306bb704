/* check.h - the few macros the IR unit tests share. */
#ifndef VULPY_TEST_CHECK_H
#define VULPY_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

#include "vulpy/support.h"

static int check_failures;

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      check_failures++;                                                    \
    }                                                                      \
  } while (0)

#define CHECK_EQ_U(a, b)                                                   \
  do {                                                                     \
    unsigned long long va_ = (unsigned long long)(a), vb_ = (unsigned long long)(b); \
    if (va_ != vb_) {                                                      \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu vs %llu)\n", __FILE__, __LINE__, \
              #a, #b, va_, vb_);                                           \
      check_failures++;                                                    \
    }                                                                      \
  } while (0)

#define CHECK_STR(a, b)                                                    \
  do {                                                                     \
    const char *sa_ = (a), *sb_ = (b);                                     \
    if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s\n  got:  %s\n  want: %s\n", __FILE__, \
              __LINE__, #a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)"); \
      check_failures++;                                                    \
    }                                                                      \
  } while (0)

/* true when some diagnostic's message contains `needle` */
static inline int diags_have(const vp_diags *d, const char *needle) {
  for (uint32_t i = 0; i < d->count; i++)
    if (strstr(d->items[i].message, needle))
      return 1;
  return 0;
}

#define CHECK_DONE()                                                       \
  do {                                                                     \
    if (check_failures)                                                    \
      fprintf(stderr, "%d check(s) failed\n", check_failures);             \
    return check_failures ? 1 : 0;                                         \
  } while (0)

#endif
