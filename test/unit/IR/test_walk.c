/* test_walk.c - the walker: pre-order, SKIP and STOP, unlinking the
 * visited op, ops inserted after the visited one; splicing and use
 * replacement. */
#include <stdlib.h>

#include "check.h"
#include "vulpy/ir.h"

static const char *text =
    "func @f(%a: i32) -> i32 {\n"
    "  %x = add %a, %a : i32\n"
    "  %c = lt %x, %a : bool\n"
    "  if %c {\n"
    "    %y = add %x, %x : i32\n"
    "    %z = mul %y, %y : i32\n"
    "  } else {\n"
    "    %w = add %a, %x : i32\n"
    "  }\n"
    "  loop {\n"
    "    %q = neg %x : i32\n"
    "    break\n"
    "  }\n"
    "  return %x\n"
    "}\n";

typedef struct rec {
  char order[64];
  int n;
  vir_opcode skip_at, stop_at;
} rec;

static vir_walk_result record(vir_op *op, void *p) {
  rec *r = p;
  static const char letters[VIR_OP_COUNT] = {[VIR_OP_ADD] = 'a', [VIR_OP_LT] = 'l', [VIR_OP_IF] = 'i',
                                             [VIR_OP_MUL] = 'm', [VIR_OP_LOOP] = 'o', [VIR_OP_NEG] = 'n',
                                             [VIR_OP_BREAK] = 'b', [VIR_OP_RETURN] = 'r'};
  r->order[r->n++] = letters[op->code] ? letters[op->code] : '?';
  if (op->code == r->stop_at)
    return VIR_WALK_STOP;
  return op->code == r->skip_at ? VIR_WALK_SKIP : VIR_WALK_ADVANCE;
}

/* unlinks every add; its uses are replaced by the add's first operand */
static vir_walk_result drop_adds(vir_op *op, void *p) {
  int *count = p;
  if (op->code == VIR_OP_ADD) {
    vir_func *f = vir_op_func(op);
    vir_replace_all_uses(f, &op->val, op->opnd[0]);
    vir_op_unlink(op);
    (*count)++;
  }
  return VIR_WALK_ADVANCE;
}

/* after the first neg, inserts a neg of it: the walk visits the new op */
typedef struct grow_ctx {
  vir_module *m;
  int seen;
} grow_ctx;

static vir_walk_result grow(vir_op *op, void *p) {
  grow_ctx *g = p;
  if (op->code == VIR_OP_NEG && g->seen++ == 0) {
    vir_builder b;
    vir_builder_init(&b, g->m);
    vir_builder_before(&b, op->next);
    vir_value *v = &op->val;
    vir_build_auto(&b, VIR_OP_NEG, 1, &v);
  }
  return VIR_WALK_ADVANCE;
}

int main(void) {
  vp_diags d = {0};
  vir_module *m = vir_parse(text, strlen(text), "walk.vir", &d);
  CHECK(m != NULL);
  if (!m)
    CHECK_DONE();
  vir_func *f = vir_module_find(m, "f")->func;

  rec r = {.skip_at = VIR_OP_COUNT, .stop_at = VIR_OP_COUNT};
  CHECK(vir_walk_func(f, record, &r));
  CHECK_STR(r.order, "aliamaonbr");

  rec s = {.skip_at = VIR_OP_IF, .stop_at = VIR_OP_COUNT};
  CHECK(vir_walk_module(m, record, &s));
  CHECK_STR(s.order, "alionbr");

  rec t = {.skip_at = VIR_OP_COUNT, .stop_at = VIR_OP_MUL};
  CHECK(!vir_walk_region(&f->body, record, &t));
  CHECK_STR(t.order, "aliam");

  int dropped = 0;
  CHECK(vir_walk_func(f, drop_adds, &dropped));
  CHECK_EQ_U(dropped, 3);
  CHECK(vir_verify(m, &d));
  vp_strbuf b = {0};
  vir_print(m, 0, &b);
  CHECK_STR(b.data, "func @f(%a: i32) -> i32 {\n"
                    "  %c = lt %a, %a : bool\n"
                    "  if %c {\n"
                    "    %z = mul %a, %a : i32\n"
                    "  }\n"
                    "  loop {\n"
                    "    %q = neg %a : i32\n"
                    "    break\n"
                    "  }\n"
                    "  return %a\n"
                    "}\n");
  vp_strbuf_free(&b);

  /* ops inserted after the visited op are visited too */
  grow_ctx g = {m, 0};
  CHECK(vir_walk_func(f, grow, &g));
  CHECK_EQ_U(g.seen, 2);
  vir_op *neg = NULL;
  for (vir_op *op = f->body.first; op; op = op->next)
    if (op->code == VIR_OP_LOOP)
      neg = op->regions[0].first;
  CHECK(neg && neg->code == VIR_OP_NEG);
  if (!neg)
    CHECK_DONE();

  /* splice the loop body before the loop, then drop the loop */
  vir_op *loop = neg->parent->parent_op;
  vir_op *brk = loop->regions[0].last;
  vir_op_unlink(brk);
  vir_region_splice(&f->body, loop, &loop->regions[0]);
  vir_op_unlink(loop);
  CHECK(loop->regions[0].first == NULL);
  CHECK(vir_verify(m, &d));
  vir_print(m, VIR_PRINT_NO_LOCS, &b);
  CHECK(strstr(b.data, "  %q = neg %a : i32\n  %0 = neg %q : i32\n  return %a\n") != NULL);
  vp_strbuf_free(&b);

  vp_diags_free(&d);
  vir_module_destroy(m);
  CHECK_DONE();
}
