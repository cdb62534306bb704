/* test_sha256.c - vp_sha256 against the FIPS 180-4 / NIST test vectors,
 * whole and fed in uneven pieces (the block buffering), and vp_hmac_sha256
 * against RFC 4231's. */
#include <stdio.h>
#include <string.h>

#include "vulpy/support.h"

static int failures;

static void hex(const uint8_t d[32], char out[65]) {
  for (int i = 0; i < 32; i++)
    snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void check(const char *what, const void *msg, size_t n, size_t repeat, const char *want) {
  uint8_t d[32];
  char got[65];
  vp_sha256 s;
  vp_sha256_init(&s);
  for (size_t r = 0; r < repeat; r++)
    vp_sha256_update(&s, msg, n);
  vp_sha256_final(&s, d);
  hex(d, got);
  if (strcmp(got, want)) {
    fprintf(stderr, "sha256(%s) = %s, want %s\n", what, got, want);
    failures++;
  }
  if (repeat == 1) { /* the same in pieces of 1, 3, 7, 64, 65 bytes */
    static const size_t steps[] = {1, 3, 7, 64, 65};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
      vp_sha256_init(&s);
      for (size_t at = 0; at < n; at += steps[k])
        vp_sha256_update(&s, (const char *)msg + at, n - at < steps[k] ? n - at : steps[k]);
      vp_sha256_final(&s, d);
      hex(d, got);
      if (strcmp(got, want)) {
        fprintf(stderr, "sha256(%s) in pieces of %zu = %s, want %s\n", what, steps[k], got, want);
        failures++;
      }
    }
  }
}

static void check_hmac(const void *key, size_t klen, const char *msg, const char *want) {
  uint8_t d[32];
  char got[65];
  vp_hmac_sha256(key, klen, msg, strlen(msg), d);
  hex(d, got);
  if (strcmp(got, want)) {
    fprintf(stderr, "hmac_sha256(%s) = %s, want %s\n", msg, got, want);
    failures++;
  }
}

int main(void) {
  check("\"\"", "", 0, 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  check("abc", "abc", 3, 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  check("448 bits", m448, strlen(m448), 1,
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklm"
                     "nopqrlmnopqrsmnopqrstnopqrstu";
  check("896 bits", m896, strlen(m896), 1,
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  check("a million a's", "aaaaaaaaaa", 10, 100000,
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  uint8_t d[32];
  char got[65];
  vp_sha256_of("abc", 3, d);
  hex(d, got);
  if (strcmp(got, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")) {
    fprintf(stderr, "vp_sha256_of(abc) = %s\n", got);
    failures++;
  }
  /* HMAC-SHA256: RFC 4231 test cases 1, 2 and 6 (a key longer than a block) */
  uint8_t k1[20], k6[131];
  memset(k1, 0x0b, sizeof k1);
  memset(k6, 0xaa, sizeof k6);
  check_hmac(k1, sizeof k1, "Hi There",
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  check_hmac("Jefe", 4, "what do ya want for nothing?",
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  check_hmac(k6, sizeof k6, "Test Using Larger Than Block-Size Key - Hash Key First",
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  if (failures)
    fprintf(stderr, "%d failure(s)\n", failures);
  return failures != 0;
}
