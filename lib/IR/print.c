/* print.c - the textual form of VIR (docs/ir.md has the grammar).
 *
 * The output is what vir_parse reads, and printing what was parsed gives
 * the same text again. Values are named per function before printing: a
 * value with a name hint prints as %hint, made unique with a .N suffix in
 * definition order (%x, %x.1, ...); the rest are numbered %0, %1, ... in
 * definition order. Numbers and names are appended by hand rather than
 * through printf: the printer is on the IR throughput benchmark's path.
 */
#include "print.h"

#include <stdlib.h>

/* ------------------------------------------------------------------- ops */

static void print_region_body(printer *p, const vir_region *r, int depth);

/* Op names, zero-padded to 32 bytes so that one fixed-size copy prints
 * any of them, and their lengths. */
static const char op_name_pad[VIR_OP_COUNT][32] = {
#define VIR_OP(ID, NAME, NOPND, NREGION, RESULT, ATTR, FLAGS, SPELL) NAME,
#include "vulpy/ir/ops.def"
#undef VIR_OP
};
static const uint8_t op_name_len[VIR_OP_COUNT] = {
#define VIR_OP(ID, NAME, NOPND, NREGION, RESULT, ATTR, FLAGS, SPELL) sizeof(NAME) - 1,
#include "vulpy/ir/ops.def"
#undef VIR_OP
};

static void put_operands(printer *p, const vir_op *op, uint32_t from, bool lead_comma) {
  for (uint32_t i = from; i < op->nopnd; i++) {
    if (i > from || lead_comma)
      PUTS(p, ", ");
    else
      putc_(p, ' ');
    prt_value(p, op->opnd[i]);
  }
}

static void print_op(printer *p, const vir_op *op, int depth) {
  const vir_op_info *info = vir_op_info_of(op->code);
  indent(p, depth);
  bool has_result = op->val.type && op->val.type->kind != VIR_TY_VOID;
  if (has_result) {
    prt_value(p, &op->val);
    PUTS(p, " = ");
  }
  if (room(p, 32)) {
    memcpy(p->cur, op_name_pad[op->code], 32);
    p->cur += op_name_len[op->code];
  }
  if (op->flags & VIR_OPF_VOLATILE)
    PUTS(p, " volatile");
  uint32_t k = 0;
  switch ((vir_attr_kind)info->attr) {
  case VIR_ATTR_NONE:
    if (op->code == VIR_OP_FOR && op->nopnd == 3) {
      putc_(p, ' ');
      prt_value(p, op->regions[0].nargs ? op->regions[0].args[0] : NULL);
      PUTS(p, " = ");
      prt_value(p, op->opnd[0]);
      PUTS(p, " to ");
      prt_value(p, op->opnd[1]);
      PUTS(p, " step ");
      prt_value(p, op->opnd[2]);
    } else {
      put_operands(p, op, 0, false);
    }
    break;
  case VIR_ATTR_CONST:
    putc_(p, ' ');
    prt_literal(p, op->val.type, op->attr.lit);
    put_operands(p, op, 0, true);
    break;
  case VIR_ATTR_SYM:
    putc_(p, ' ');
    prt_access(p, op, &k);
    put_operands(p, op, k, true);
    break;
  case VIR_ATTR_INDEX:
    putc_(p, ' ');
    prt_value(p, op->nopnd ? op->opnd[0] : NULL);
    putc_(p, '[');
    prt_u64(p, op->attr.index);
    putc_(p, ']');
    put_operands(p, op, 1, true);
    break;
  case VIR_ATTR_SWIZZLE:
    putc_(p, ' ');
    prt_value(p, op->nopnd ? op->opnd[0] : NULL);
    putc_(p, '.');
    for (uint32_t i = 0; i < op->attr.nswz && i < 4; i++)
      putc_(p, op->attr.swz[i] < 4 ? vir_comp_names[op->attr.swz[i]] : '?');
    put_operands(p, op, 1, true);
    break;
  case VIR_ATTR_ATOMIC:
    putc_(p, ' ');
    prt_access(p, op, &k);
    put_operands(p, op, k, true);
    putc_(p, ' ');
    puts_(p, vir_scope_name(op->attr.scope));
    putc_(p, ' ');
    puts_(p, vir_semantics_name(op->attr.sem));
    break;
  case VIR_ATTR_SCOPE:
    putc_(p, ' ');
    puts_(p, vir_scope_name(op->attr.scope));
    putc_(p, ' ');
    puts_(p, vir_semantics_name(op->attr.sem));
    puts_(p, op->attr.storage == VIR_STORAGE_BUFFER   ? " buffer"
             : op->attr.storage == VIR_STORAGE_SHARED ? " shared"
                                                      : " all");
    put_operands(p, op, 0, true);
    break;
  case VIR_ATTR_VIEW:
    putc_(p, ' ');
    if (op->code == VIR_OP_ARRAY_SLICE) {
      prt_value(p, op->nopnd ? op->opnd[0] : NULL);
      k = 1;
    } else {
      prt_sym(p, op->attr.sym);
    }
    if (vir_view_scalars(op)) {
      vir_value *const *at = vir_view_scalars(op);
      PUTS(p, " at(");
      for (uint32_t i = 0; i < vir_view_nscalars(op); i++) {
        if (i)
          PUTS(p, ", ");
        prt_value(p, at[i]);
      }
      putc_(p, ')');
      prt_view(p, op->attr.arr);
      if (op->code == VIR_OP_ARRAY_STORE) {
        PUTS(p, ", ");
        prt_value(p, op->opnd[0]);
      }
      break;
    }
    prt_view(p, op->attr.arr);
    put_operands(p, op, k, true);
    break;
  case VIR_ATTR_AXES:
    put_operands(p, op, 0, false);
    prt_axes(p, op->attr.arr);
    break;
  case VIR_ATTR_UFUNC:
    putc_(p, ' ');
    puts_(p, vir_ufunc_name(op->attr.index));
    put_operands(p, op, 0, false);
    break;
  case VIR_ATTR_CALL:
    putc_(p, ' ');
    prt_sym(p, op->attr.sym);
    putc_(p, '(');
    for (uint32_t i = 0; i < op->nopnd; i++) {
      if (i)
        PUTS(p, ", ");
      prt_value(p, op->opnd[i]);
    }
    putc_(p, ')');
    break;
  }
  if (has_result) {
    PUTS(p, " : ");
    put_type(p, op->val.type);
  }
  prt_loc(p, op->loc);
  for (uint32_t i = 0; i < info->nregion; i++) {
    const vir_region *r = &op->regions[i];
    /* `else {}` and nothing else may be left out */
    if (op->code == VIR_OP_IF && i == 1 && !r->first)
      break;
    if (i == 1)
      puts_(p, op->code == VIR_OP_WHILE ? " do" : " else");
    PUTS(p, " {\n");
    print_region_body(p, r, depth + 1);
    indent(p, depth);
    putc_(p, '}');
  }
  putc_(p, '\n');
}

static void print_region_body(printer *p, const vir_region *r, int depth) {
  for (const vir_op *op = r->first; op; op = op->next)
    print_op(p, op, depth);
}

/* ---------------------------------------------------------- declarations */

static void print_fields(printer *p, const vir_struct *st) {
  PUTS(p, " {");
  for (uint32_t i = 0; st && i < st->nfields; i++) {
    puts_(p, i ? ", " : " ");
    prt_name(p, st->fields[i].name);
    PUTS(p, ": ");
    put_type(p, st->fields[i].type);
    prt_loc(p, st->fields[i].loc);
  }
  puts_(p, st && st->nfields ? " }" : "}");
}

static void print_func(printer *p, const vir_func *f) {
  prt_begin_func(p, f->next_id);
  prt_name_region(p, &f->body);

  puts_(p, f->is_array ? "array " : f->is_kernel ? "kernel " : "func ");
  prt_sym(p, f->sym);
  if (f->is_array) {
    /* no parameters, no result: its arrays are the module's buffers */
  } else if (f->is_kernel) {
    PUTS(p, " local_size(");
    for (int i = 0; i < 3; i++) {
      if (i)
        PUTS(p, ", ");
      prt_u64(p, f->local_size[i]);
    }
    putc_(p, ')');
  } else {
    putc_(p, '(');
    for (uint32_t i = 0; i < f->body.nargs; i++) {
      if (i)
        PUTS(p, ", ");
      prt_value(p, f->body.args[i]);
      PUTS(p, ": ");
      put_type(p, f->body.args[i]->type);
    }
    putc_(p, ')');
    if (f->ret && f->ret->kind != VIR_TY_VOID) {
      PUTS(p, " -> ");
      put_type(p, f->ret);
    }
  }
  prt_loc(p, f->loc);
  PUTS(p, " {\n");
  for (uint32_t i = 0; i < f->locals.len; i++) {
    const vir_sym *s = f->locals.data[i];
    PUTS(p, "  local ");
    prt_sym(p, s);
    PUTS(p, " : ");
    put_type(p, s->type);
    prt_loc(p, s->loc);
    putc_(p, '\n');
  }
  print_region_body(p, &f->body, 1);
  PUTS(p, "}\n");
}

static void print_decl(printer *p, const vir_sym *s) {
  switch (s->kind) {
  case VIR_SYM_PUSH:
    PUTS(p, "push ");
    prt_sym(p, s);
    print_fields(p, s->type && s->type->kind == VIR_TY_STRUCT ? s->type->st : NULL);
    break;
  case VIR_SYM_BUFFER:
    PUTS(p, "buffer ");
    prt_sym(p, s);
    PUTS(p, " : ");
    put_type(p, s->type);
    putc_(p, '[');
    if (s->count)
      prt_u64(p, s->count);
    PUTS(p, "] binding(");
    prt_u64(p, s->set);
    PUTS(p, ", ");
    prt_u64(p, s->binding);
    puts_(p, s->access == VIR_ACCESS_READONLY ? ") readonly"
             : s->access == VIR_ACCESS_WRITEONLY ? ") writeonly" : ") readwrite");
    if (s->buf_flags & VIR_BUF_COHERENT)
      PUTS(p, " coherent");
    if (s->buf_flags & VIR_BUF_VOLATILE)
      PUTS(p, " volatile");
    if (s->buf_flags & VIR_BUF_NONPRIVATE)
      PUTS(p, " nonprivate");
    break;
  case VIR_SYM_SHARED:
    PUTS(p, "shared ");
    prt_sym(p, s);
    PUTS(p, " : ");
    put_type(p, s->type);
    break;
  case VIR_SYM_CONST:
    PUTS(p, "const ");
    prt_sym(p, s);
    PUTS(p, " : ");
    put_type(p, s->type);
    PUTS(p, " = ");
    prt_literal(p, s->type, s->lit);
    break;
  default: return;
  }
  prt_loc(p, s->loc);
  putc_(p, '\n');
}

void vir_print(const vir_module *m, unsigned flags, vp_strbuf *out) {
  printer p = {.out = out, .m = m, .flags = flags};
  bool any = false;
  if (m->source_name) {
    PUTS(&p, "module ");
    prt_string(&p, m->source_name);
    putc_(&p, '\n');
  }
  /* Structs, then data symbols, then functions: each group in declaration
   * order, so everything is declared before it is named (calls excepted:
   * the parser resolves those at the end). */
  const vir_struct *push_st = m->push && m->push->type && m->push->type->kind == VIR_TY_STRUCT
                                  ? m->push->type->st : NULL;
  for (uint32_t i = 0; i < m->structs.len; i++) {
    const vir_struct *st = m->structs.data[i];
    bool is_push = st == push_st;
    for (uint32_t j = 0; !is_push && j < m->syms.len; j++) {
      const vir_sym *s = m->syms.data[j];
      is_push = s->kind == VIR_SYM_PUSH && s->type && s->type->st == st;
    }
    if (is_push)
      continue;
    if (!any && m->source_name)
      putc_(&p, '\n');
    any = true;
    PUTS(&p, "struct @");
    prt_name(&p, st->name);
    print_fields(&p, st);
    prt_loc(&p, st->loc);
    putc_(&p, '\n');
  }
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC)
      continue;
    if (!any && m->source_name)
      putc_(&p, '\n');
    any = true;
    print_decl(&p, s);
  }
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func)
      continue;
    if (any || m->source_name)
      putc_(&p, '\n');
    any = true;
    print_func(&p, s->func);
  }
  prt_free(&p);
  terminate(&p);
}

void vir_print_op(const vir_op *op, unsigned flags, vp_strbuf *out) {
  printer p = {.out = out, .flags = flags};
  print_op(&p, op, 0);
  prt_free(&p);
  terminate(&p);
}
