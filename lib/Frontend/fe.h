/* fe.h - the frontend's inside: the JSON tree, the translation context, the
 * value model and the functions the files of lib/Frontend share.
 *
 * json.c reads the document into a tree of vfe_node (one arena, freed when
 * the translation ends). frontend.c finds the kernel and declares the
 * module's interface; stmt.c, expr.c, call.c and func.c walk the Python AST
 * and build VIR; types.c holds the names of the language (types and
 * built-ins) and the typing rules. The patterns a Taichi or Warp user
 * writes have files of their own: builtins.c (Python's round/pow, math.*),
 * tuples.c, static_loops.c (unrolled loops), locals.c (vp.Local), methods.c
 * (struct methods), generic.c (bare vp.Buffer), ndbuf.c (vp.Buffer[T, N]).
 * Out of memory anywhere longjmps back to vfe_translate_json, which frees
 * everything and reports it.
 */
#ifndef VULPY_FE_H
#define VULPY_FE_H

#include <setjmp.h>

#include "vulpy/frontend.h"

/* ================================================================ JSON */

typedef enum vfe_jkind {
  VFE_J_NULL,
  VFE_J_BOOL,
  VFE_J_INT,   /* fits int64 or uint64 (big: > INT64_MAX) */
  VFE_J_FLOAT,
  VFE_J_STR,
  VFE_J_LIST,
  VFE_J_OBJ,
} vfe_jkind;

/* The Python ast classes the translator looks at; anything else is
 * VFE_AST_OTHER and keeps its name for the "not supported" message. */
#define VFE_AST_CLASSES(X)                                                               \
  X(Module) X(FunctionDef) X(ClassDef) X(Return) X(Assign) X(AugAssign) X(AnnAssign)     \
  X(For) X(While) X(If) X(Assert) X(Import) X(ImportFrom) X(Expr) X(Pass) X(Break)       \
  X(Continue) X(BoolOp) X(BinOp) X(UnaryOp) X(IfExp) X(Compare) X(Call) X(Constant)      \
  X(Attribute) X(Subscript) X(Name) X(Tuple) X(List) X(Slice) X(keyword) X(arg)          \
  X(arguments) X(alias) X(And) X(Or) X(Add) X(Sub) X(Mult) X(MatMult) X(Div) X(Mod)      \
  X(Pow) X(LShift) X(RShift) X(BitOr) X(BitXor) X(BitAnd) X(FloorDiv) X(Invert) X(Not)   \
  X(UAdd) X(USub) X(Eq) X(NotEq) X(Lt) X(LtE) X(Gt) X(GtE) X(Is) X(IsNot) X(In) X(NotIn)  \
  X(Lambda) X(GeneratorExp) X(ListComp) X(SetComp) X(DictComp) X(Try) X(With)           \
  X(AsyncFunctionDef) X(Global) X(Nonlocal) X(Delete) X(Raise) X(Yield) X(Await)         \
  X(JoinedStr) X(Starred) X(NamedExpr) X(Dict) X(Set) X(Match) X(YieldFrom) X(TryStar)   \
  X(AsyncFor) X(AsyncWith)

typedef enum vfe_ast {
  VFE_AST_OTHER,
#define VFE_AST_ENUM(N) VFE_AST_##N,
  VFE_AST_CLASSES(VFE_AST_ENUM)
#undef VFE_AST_ENUM
  VFE_AST_COUNT
} vfe_ast;

typedef struct vfe_ctx vfe_ctx;
typedef struct vfe_node vfe_node;
struct vfe_node {
  uint8_t kind;   /* vfe_jkind */
  uint8_t ast;    /* OBJ: vfe_ast of its "_type" */
  bool b;         /* BOOL */
  bool big;       /* INT: the value is u (above INT64_MAX) */
  uint32_t len;   /* STR: bytes; LIST, OBJ: entries */
  uint32_t jline, jcol; /* where it starts in the JSON (1-based) */
  /* OBJ: the Python location (lineno, col_offset + 1, ...), 0 = none */
  uint32_t line, col, end_line, end_col;
  union {
    int64_t i;
    uint64_t u;
    double f;
    const char *s; /* STR (NUL-terminated, may hold NULs inside) */
  };
  const char *type_name; /* OBJ: "_type" */
  const char **keys;     /* OBJ */
  vfe_node **items;      /* LIST items, OBJ values */
};

/* Reads JSON text into a tree in `arena`. Errors name `json_name` and the
 * JSON line:col; returns NULL after adding them. */
vfe_node *vfe_json_read(vp_arena *arena, const char *text, size_t len, const char *json_name,
                        vp_diags *diags);

/* vfe_translate_json on a document already read (the benchmark times the
 * translation apart from libyaml with it). */
vir_module *vfe_translate_tree(const vfe_node *doc, const char *json_name, const vfe_options *opts,
                               vp_diags *diags);

/* An object's field, or NULL when absent (JSON null counts as absent). */
vfe_node *vfe_get(const vfe_node *obj, const char *key);
/* A string field's text, or NULL. */
const char *vfe_get_str(const vfe_node *obj, const char *key);
/* A list field's items (count in *n); absent = empty. */
vfe_node **vfe_get_list(const vfe_node *obj, const char *key, uint32_t *n);
/* The ast class of a field's object, VFE_AST_OTHER when not an object. */
static inline vfe_ast vfe_ast_of(const vfe_node *n) {
  return n && n->kind == VFE_J_OBJ ? (vfe_ast)n->ast : VFE_AST_OTHER;
}
const char *vfe_ast_name(vfe_ast a);

/* ========================================================== name table */

/* A small open-addressing string map (arena memory). */
typedef struct vfe_map {
  const char **keys;
  void **vals;
  uint32_t cap, len;
} vfe_map;

void *vfe_map_get(const vfe_map *m, const char *key);
void vfe_map_put(vfe_ctx *c, vfe_map *m, const char *key, void *val);

/* ============================================================ builtins */

/* The language's predefined names: types and functions, reached as
 * `vp.NAME` or bare `NAME` (and Python's own int/float/bool/abs/min/max/
 * round/len/range). types.c has the table. */
typedef enum vfe_bkind {
  VFE_B_TYPE,   /* a scalar, vector or matrix type: cast or constructor */
  VFE_B_BUFFER, /* vp.Buffer[T] */
  VFE_B_SHARED, /* vp.Shared[T, N...] */
  VFE_B_CONTROL, /* vp.Control: a control buffer (uint32 words, some named) */
  VFE_B_FUNC,   /* a built-in function; `op` says which */
  VFE_B_LOCAL,  /* vp.Local[T, N]: a thread-private array (locals.c) */
  VFE_B_SCALAR, /* vp.Scalar: a generic kernel's push constant (generic.c) */
} vfe_bkind;

typedef enum vfe_bfn {
  VFE_F_MATH1,    /* one float operand: op */
  VFE_F_MATH2,    /* two float operands of one type: op */
  VFE_F_MATH3,    /* three: op (mix, fma, smoothstep) */
  VFE_F_NUM1,     /* abs, sign: int or float */
  VFE_F_MINMAX,   /* min, max */
  VFE_F_CLAMP,
  VFE_F_STEP,
  VFE_F_ATAN,     /* atan(x) or atan(y, x) */
  VFE_F_ROUND,
  VFE_F_VEC1,     /* length, normalize (op) */
  VFE_F_VEC2,     /* dot, cross, distance, reflect (op) */
  VFE_F_TEST,     /* isnan, isinf */
  VFE_F_ANYALL,   /* any, all */
  VFE_F_WHERE,    /* where / select */
  VFE_F_TRANSPOSE,
  VFE_F_ID,       /* global_id & co.: op; with axis or .xyz */
  VFE_F_ID1,      /* local_index, subgroup ids: a u32 */
  VFE_F_SG1,      /* subgroup reductions, broadcast_first: op */
  VFE_F_SG2,      /* subgroup broadcast and shuffles: op */
  VFE_F_BALLOT,
  VFE_F_ELECT,
  VFE_F_ATOMIC,   /* op; atomic_sub is ADD of a negation */
  VFE_F_ATOMIC_SUB,
  VFE_F_BARRIER,
  VFE_F_MEMBAR,
  VFE_F_VAR,      /* vp.var(x) */
  VFE_F_RANGE,
  VFE_F_LEN,
  VFE_F_BITCAST,  /* bitcast(x, T) */
  VFE_F_KERNEL,   /* the decorators: vp.kernel, vp.func */
  VFE_F_GRID_SYNC,  /* persistent programs (persistent.c) */
  VFE_F_GRID_RANGE,
  VFE_F_PY,       /* Python's round/pow and math.*: `op` says which (builtins.c) */
  VFE_F_STATIC,   /* vp.static(...): only as a for loop's iterable */
  VFE_F_PRINT,    /* vp.print(...): print.c */
} vfe_bfn;

typedef struct vfe_builtin {
  const char *name;
  uint8_t kind;  /* vfe_bkind */
  uint8_t fn;    /* vfe_bfn */
  uint16_t op;   /* vir_opcode */
  /* TYPE: scalar kind (VIR_TY_BOOL/INT/UINT/FLOAT), bits, vector width
   * (1 = scalar), matrix columns (0 = not a matrix) */
  uint8_t tkind, bits, n, cols;
  bool python; /* also a bare Python built-in (abs, min, int, ...) */
} vfe_builtin;

/* By name, or NULL. `bare` names need no prefix except those marked
 * vp-only (Buffer, Shared, var...), which are bare too: the seed writes
 * bare `uint32`. */
const vfe_builtin *vfe_builtin_find(const char *name);
/* The vir_type of a TYPE built-in. */
vir_type *vfe_builtin_type(vfe_ctx *c, const vfe_builtin *b);
/* The closest known built-in name (for "did you mean"), or NULL. */
const char *vfe_builtin_suggest(const char *name);

/* ================================================================ values */

typedef enum vfe_vkind {
  VFE_V_ERR,     /* an error was reported: propagates without more messages */
  VFE_V_VAL,     /* an SSA value */
  VFE_V_INT,     /* an untyped integer literal (Python int), folded */
  VFE_V_FLOAT,   /* an untyped float literal */
  VFE_V_BOOL,    /* True / False */
  VFE_V_NONE,
  VFE_V_PLACE,   /* memory not yet read: buffer/shared element, local, push field */
  VFE_V_ARRAY,   /* a buffer or shared array itself (name without index) */
  VFE_V_PUSH,    /* the push block `pc` */
  VFE_V_VP,      /* the vulpy module */
  VFE_V_BUILTIN, /* a built-in type or function */
  VFE_V_FUNC,    /* a helper function */
  VFE_V_CLASS,   /* a struct class */
  VFE_V_IDVEC,   /* global_id() & co. without an axis: x, or the vector by .xyz */
  VFE_V_STR,
  VFE_V_TUPLE,   /* (a, b): only for unpacking and multi-index */
  VFE_V_TYPE,    /* a resolved non-builtin type (vp.Buffer[T] / class) */
  VFE_V_MATH,    /* Python's math module (builtins.c) */
  VFE_V_LITSEL,  /* `a if cond else b` of two number literals: v is the condition, elems
                    the literals; it takes its type where it is used, as a literal does */
} vfe_vkind;

typedef enum vfe_root { VFE_R_BUFFER, VFE_R_SHARED, VFE_R_LOCAL, VFE_R_PUSH } vfe_root;

typedef struct vfe_place {
  uint8_t root;     /* vfe_root */
  uint8_t npath;
  uint8_t path[VIR_MAX_PATH];
  uint8_t dims_left;    /* shared arrays: indices still to come (2-D) */
  vir_sym *sym;
  vir_value *index;     /* BUFFER, SHARED: the element index */
  vir_type *type;       /* of the place */
  struct vfe_array *arr; /* BUFFER, SHARED: the frontend's record */
  bool atomic;          /* a control word by name: atomic loads and stores */
} vfe_place;

typedef struct vfe_val vfe_val;
struct vfe_val {
  uint8_t kind; /* vfe_vkind */
  bool big;     /* INT: u is above INT64_MAX */
  vir_value *v;        /* VAL; IDVEC: the vec3 */
  vir_type *type;      /* VAL: v->type; TYPE: the type */
  union {
    int64_t i;
    uint64_t u;
    double f;
    bool b;
  };
  const char *s;              /* STR */
  vir_sym *gsym;              /* INT, FLOAT, BOOL: the module constant it came from */
  vfe_place place;            /* PLACE */
  struct vfe_array *arr;      /* ARRAY */
  const vfe_builtin *bi;      /* BUILTIN */
  struct vfe_helper *helper;  /* FUNC */
  vir_struct *st;             /* CLASS */
  vfe_val *elems;             /* TUPLE */
  uint32_t nelems;
};

/* ===================================================== module and scopes */

/* A buffer or shared array of the kernel. */
typedef struct vfe_array {
  vir_sym *sym;
  vir_type *elem;
  bool shared;
  uint32_t dims[2]; /* shared: the declared shape (dims[1] = 0 for 1-D) */
  uint32_t reads, writes;
  /* a control buffer (vp.Control): its named words, word i at index i */
  bool control;
  const char **words;
  uint32_t nwords;
  bool priv;        /* vp.Local[T, N]: a local of array type (locals.c) */
  const vfe_node *decl; /* priv: the declaring statement (an unrolled copy re-zeroes) */
  uint8_t ndim;     /* vp.Buffer[T, N]: N; 0 for a plain buffer (ndbuf.c) */
  uint32_t shape_field, stride_field, offset_field; /* their push fields */
  /* a MemSock's frames (vp.MemSock[T]); `ring` its ring words (memsock.c) */
  bool memsock;
  vir_sym *ring;
} vfe_array;

/* A module-level name. */
typedef enum vfe_gkind { VFE_G_CONST, VFE_G_CLASS, VFE_G_FUNC, VFE_G_VP, VFE_G_OTHER } vfe_gkind;

typedef struct vfe_global {
  uint8_t kind; /* vfe_gkind */
  const vfe_node *node; /* the defining statement (CONST: the value expr) */
  const vfe_node *ann;  /* CONST: its annotation, or NULL */
  /* CONST, once evaluated */
  bool evaluating, evaluated, typed;
  vfe_val value;        /* the literal (untyped ones carry gsym) */
  vir_sym *sym;         /* CONST: the VIR constant */
  vir_struct *st;       /* CLASS, once declared */
  bool declaring;
  struct vfe_helper *helper; /* FUNC */
} vfe_global;

/* One specialization of a helper function. */
typedef struct vfe_inst {
  struct vfe_inst *next;
  uint32_t nparams;
  vfe_val *args;      /* per parameter: VAL (type only) or ARRAY */
  vir_func *func;
  bool done;
  bool self_out;      /* a method that changes self: the func returns the new self */
} vfe_inst;

typedef struct vfe_helper {
  const char *name;
  const vfe_node *def;   /* the FunctionDef */
  const char *file;      /* where it is (a helper may come from another file) */
  bool active;           /* being translated: a call now is recursion */
  bool bad_sig;          /* its parameter list was reported: later calls stay quiet */
  bool method;           /* a method of a struct class: `self` first (methods.c) */
  bool fire_body;        /* named by a pipe.fire: inlined there, not a helper (memsock.c) */
  uint32_t ninst;
  vfe_inst *insts;
} vfe_helper;

/* What a Python name is bound to inside a function. */
typedef enum vfe_bind { VFE_BIND_LOCAL, VFE_BIND_SSA, VFE_BIND_LOOP, VFE_BIND_ARRAY,
                        VFE_BIND_PUSH, VFE_BIND_POISON, VFE_BIND_DEAD,
                        VFE_BIND_VALUE /* a compile-time value: a static loop's variable, a tuple */
} vfe_bind;

typedef struct vfe_var {
  uint8_t bind;     /* vfe_bind */
  vir_sym *local;   /* LOCAL */
  vir_value *value; /* SSA, LOOP */
  vfe_array *arr;   /* ARRAY */
  uint32_t field;   /* PUSH: field index */
  vir_type *type;
  uint32_t line;    /* where it got its type */
  vfe_val *val;     /* VALUE */
} vfe_var;

/* The function being translated. */
typedef struct vfe_fn {
  vir_func *f;
  vfe_helper *helper; /* NULL for the kernel */
  bool is_kernel;
  vfe_map vars;       /* name -> vfe_var* */
  vfe_map assigns;    /* name -> (void*)(uintptr_t) assignment count (+ flags) */
  vir_type *ret;      /* helpers: the return type once known */
  bool ret_annotated;
  uint32_t loop_depth;
  uint32_t ntemps;
  const char *file;
  uint32_t static_base; /* loop_depth + 1 where a static loop's body began (0: none) */
  vir_sym *self_local;  /* a method that changes self: its copy, returned at the end */
} vfe_fn;

#define VFE_MAX_TIME_LOOPS 16

struct vfe_ctx {
  vp_arena arena;
  vp_diags *diags;
  const vfe_options *opts;
  vir_module *m;
  const char *file;      /* the Python file (module arena) */
  const vfe_node *doc, *module;
  vfe_map globals;       /* name -> vfe_global* */
  vfe_map vp_names;      /* aliases of the vulpy module ("vp") */
  vfe_map from_names;    /* `from vulpy import x as y`: y -> builtin */
  vir_struct *push_st;   /* fields gathered before the push block is added */
  vir_sym *push;         /* the push block, once declared */
  uint32_t count_field;  /* index of _vp_count, or UINT32_MAX */
  const char *const_name; /* the module constant being evaluated */
  vfe_fn *fn;            /* the function being translated */
  vir_builder b;
  vfe_array *assert_buf; /* _vp_assert, when debug asserts are on */
  vfe_array *print_buf;  /* _vp_print, the ring of vp.print (print.c) */
  uint32_t nbindings;
  uint32_t depth;        /* expression nesting (a guard against deep trees) */
  bool too_deep;         /* reported in this expression: the deep node's siblings stay quiet */
  uint32_t helper_depth; /* helpers being translated, one inside another */
  vp_ptrvec arrays;      /* every vfe_array, for the access qualifiers */
  /* persistent programs (persistent.c): persistent=True, and the time loops */
  bool persistent;
  uint32_t ntime_loops;
  const vfe_node *time_loops[VFE_MAX_TIME_LOOPS];
  /* `if` statements holding a grid_sync, checked when their condition is
   * translated (a compile-time constant keeps the taken branch's syncs),
   * and whether a time loop may start in them */
  uint32_t nsync_ifs;
  const vfe_node *sync_ifs[VFE_MAX_TIME_LOOPS];
  bool sync_if_loop_ok[VFE_MAX_TIME_LOOPS];
  vfe_map math_names;    /* aliases of Python's math module (builtins.c) */
  /* MemSock (memsock.c): fire bodies defined in the kernel, by name; the
   * fire bodies being translated; whether the kernel has a MemSock */
  vfe_map fire_bodies;
  uint32_t fire_depth;
  bool has_memsock;
  /* the conditions (const ops) of the `if`s that lost a branch (stmt.c):
   * at the end each goes where nothing reads it (vfe_drop_unused_locals) */
  vp_ptrvec pruned;
  jmp_buf oom;
};

/* ============================================================ helpers */

/* A location naming a file only. */
static inline vp_loc vfe_file_loc(const char *file) {
  vp_loc l = {file, 0, 0};
  return l;
}

/* After translation (unassigned.c): removes the locals no op refers to
 * from every function (those a pruned constant `if`'s dropped branch alone
 * used, stmt.c, or a declaration never used) and the pruned conditions'
 * constants no op reads; then warns at the first read of each name that may
 * run before any assignment to it. */
void vfe_drop_unused_locals(vfe_ctx *c);
void vfe_check_unassigned(vfe_ctx *c);

void *vfe_alloc(vfe_ctx *c, size_t size);
const char *vfe_strdup(vfe_ctx *c, const char *s);
/* A copy in the module's arena: every name handed to VIR outlives ours. */
const char *vfe_mstrdup(vfe_ctx *c, const char *s);
vp_loc vfe_loc(vfe_ctx *c, const vfe_node *n);
/* An error at a node; returns an ERR value for convenience. */
vfe_val vfe_err(vfe_ctx *c, const vfe_node *n, const char *fmt, ...) VP_PRINTF(3, 4);
void vfe_warn(vfe_ctx *c, const vfe_node *n, const char *fmt, ...) VP_PRINTF(3, 4);
#define vfe_hint(c, ...) vp_diag_hint((c)->diags, __VA_ARGS__)
/* The text of a type for messages ("u32", "vec3<f32>"), arena memory. */
const char *vfe_tyname(vfe_ctx *c, const vir_type *t);
/* The vp spelling of a type for hints ("vp.uint32", "vp.vec3"). */
const char *vfe_vpname(vfe_ctx *c, const vir_type *t);

/* Builds an op at the builder (location set by the caller); longjmps on OOM. */
vir_op *vfe_build(vfe_ctx *c, vir_opcode code, vir_type *t, uint32_t n, vir_value *const *ops);
vir_value *vfe_build1(vfe_ctx *c, vir_opcode code, vir_type *t, vir_value *a);
vir_value *vfe_build2(vfe_ctx *c, vir_opcode code, vir_type *t, vir_value *a, vir_value *b);
/* vp.print(...) (print.c) */
vfe_val vfe_call_print(vfe_ctx *c, const vfe_node *call, vfe_node **args, uint32_t n);
vir_value *vfe_const_int(vfe_ctx *c, vir_type *t, int64_t v);
vir_value *vfe_const_float(vfe_ctx *c, vir_type *t, double v);
vir_value *vfe_const_bool(vfe_ctx *c, bool v);
void vfe_set_loc(vfe_ctx *c, const vfe_node *n);

static inline vfe_val vfe_value_of(vir_value *v) {
  return v ? (vfe_val){.kind = VFE_V_VAL, .v = v, .type = v->type} : (vfe_val){.kind = VFE_V_ERR};
}
static inline bool vfe_is_literal(const vfe_val *v) {
  return v->kind == VFE_V_INT || v->kind == VFE_V_FLOAT || v->kind == VFE_V_BOOL;
}
/* A literal or a conditional choice of two (VFE_V_LITSEL): it adapts to the
 * type it meets. */
static inline bool vfe_adapts(const vfe_val *v) {
  return vfe_is_literal(v) || v->kind == VFE_V_LITSEL;
}
/* A float literal, or a choice with a float literal in it. */
static inline bool vfe_lit_is_float(const vfe_val *v) {
  return v->kind == VFE_V_FLOAT ||
         (v->kind == VFE_V_LITSEL && (v->elems[0].kind == VFE_V_FLOAT || v->elems[1].kind == VFE_V_FLOAT));
}

/* What a conversion is for, named in its error message: formatted only
 * when there is an error (printf(fmt, s1, s2, n)); `ty` fills s2 with a
 * type's name, `vp` fills s1 with a type's vp spelling. */
typedef struct vfe_what {
  const char *fmt, *s1, *s2;
  unsigned n;
  const vir_type *ty, *vp;
} vfe_what;
/* VFE_WHAT(fmt [, s1 [, s2 [, n [, ty [, vp]]]]]): the missing ones are 0. */
static inline vfe_what vfe_what_make(const char *fmt, const char *s1, const char *s2, unsigned n,
                                     const vir_type *ty, const vir_type *vp, ...) {
  vfe_what w = {fmt, s1, s2, n, ty, vp};
  return w;
}
#define VFE_WHAT(...) vfe_what_make(__VA_ARGS__, 0, 0, 0, 0, 0)
const char *vfe_what_text(vfe_ctx *c, vfe_what w);

/* ================================================================ types */

/* Resolves an annotation to a value type (scalars, vectors, matrices,
 * structs); NULL after an error. */
vir_type *vfe_type_of_annotation(vfe_ctx *c, const vfe_node *ann);
/* Whether a value of type `from` converts implicitly to `to` (same shape,
 * same kind, no narrower). */
bool vfe_widens(const vir_type *from, const vir_type *to);
/* The common type of two typed operands of an arithmetic op, or NULL with
 * an error (mixed sign, int and float, shapes). */
vir_type *vfe_unify(vfe_ctx *c, const vfe_node *at, const vir_type *a, const vir_type *b,
                    vfe_what what);
/* A value of the exact type `t`: literals adapt (checked to fit), typed
 * values widen; anything else is an error naming `what`. */
vir_value *vfe_coerce(vfe_ctx *c, const vfe_node *at, vfe_val v, vir_type *t, vfe_what what);
/* Materializes a value with no context: int literal -> i32, float -> f32. */
vir_value *vfe_rvalue(vfe_ctx *c, const vfe_node *at, vfe_val v);
/* Whether a literal fits a scalar type exactly enough (ints: in range). */
bool vfe_literal_fits(const vfe_val *v, const vir_type *scalar);
/* The struct a class names (declared on first use), or NULL. */
vir_struct *vfe_declare_class(vfe_ctx *c, vfe_global *g, const char *name);

/* ================================================================ walk */

/* The value of an expression (places stay places, names stay names). */
vfe_val vfe_expr(vfe_ctx *c, const vfe_node *e);
/* An expression as a typed SSA value (places are loaded, literals get
 * their default types). NULL after an error. */
vir_value *vfe_expr_value(vfe_ctx *c, const vfe_node *e);
/* An expression converted to `t` (literals adapt). NULL after an error. */
vir_value *vfe_expr_as(vfe_ctx *c, const vfe_node *e, vir_type *t, vfe_what what);
/* A condition: bool, or a scalar number compared with zero. */
vir_value *vfe_expr_cond(vfe_ctx *c, const vfe_node *e);
/* Loads a place. */
vir_value *vfe_load(vfe_ctx *c, const vfe_place *p);
void vfe_store(vfe_ctx *c, const vfe_place *p, vir_value *v);
/* A value for use: loads places, materializes literals (NULL on error). */
vir_value *vfe_use(vfe_ctx *c, const vfe_node *at, vfe_val v);
/* Binary arithmetic on two values (also AugAssign); `an`, `bn` are the
 * operand expressions, for hints (may be NULL). */
vfe_val vfe_binop(vfe_ctx *c, const vfe_node *at, vfe_ast op, vfe_val a, const vfe_node *an,
                  vfe_val b, const vfe_node *bn);
/* A comparison (one link of a chain). */
vfe_val vfe_compare(vfe_ctx *c, const vfe_node *at, vfe_ast op, vfe_val a, const vfe_node *an,
                    vfe_val b, const vfe_node *bn);
/* Short-circuit `a and rhs` / `a or rhs`: rhs runs only when needed; pure
 * right sides become land/lor, others a local and an if. */
typedef vir_value *(*vfe_rhs_fn)(vfe_ctx *c, const void *arg);
vir_value *vfe_logic(vfe_ctx *c, const vfe_node *at, bool is_and, vir_value *a, vfe_rhs_fn rhs,
                     const void *arg);
/* A fresh hidden local (`_vp_t0`, ...). */
vir_sym *vfe_temp(vfe_ctx *c, const char *what, vir_type *t);
/* Moves every op of `r` in front of `before` (in before's region). */
void vfe_hoist(vir_region *r, vir_op *before);
/* Reads and writes a whole local. */
vir_value *vfe_local_load(vfe_ctx *c, vir_sym *s);
void vfe_local_store(vfe_ctx *c, vir_sym *s, vir_value *v);
/* Component indices of a swizzle in one of xyzw/rgba/stpq: its length, or
 * -1 when `s` is not one. */
int vfe_swizzle(const char *s, uint8_t out[4]);
/* A splat of a scalar to a vector type. */
vir_value *vfe_splat(vfe_ctx *c, vir_value *s, vir_type *vec);
/* Makes a value an SSA name hint (module arena copy). */
void vfe_name_value(vfe_ctx *c, vir_value *v, const char *name);
/* Attribute of a value: swizzles, struct fields, pc.NAME, vp.NAME. */
vfe_val vfe_attribute(vfe_ctx *c, const vfe_node *at, vfe_val base, const char *attr);
/* The components a constant slice v[a:b:c] of a vector of type t picks
 * (Python's rules), 2 to 4 of them; -1 after an error. */
int vfe_vector_slice(vfe_ctx *c, const vfe_node *sl, const vir_type *t, uint8_t comp[4]);
/* The Python spelling of an operator ("+", "//", "<="). */
const char *vfe_op_text(vfe_ast op);
/* `ctrl.NAME` of a control buffer (vp.Control): the named word's place. */
vfe_val vfe_control_word(vfe_ctx *c, const vfe_node *at, vfe_array *a, const char *attr);
/* base[slice] of the Subscript `e`, its base already evaluated. */
vfe_val vfe_subscript_on(vfe_ctx *c, const vfe_node *e, vfe_val base);
/* Resolves a name in the function, then the module, then the built-ins. */
vfe_val vfe_name(vfe_ctx *c, const vfe_node *n, const char *id);
/* Whether the ops of a region are free of effects and faults. */
bool vfe_region_is_pure(const vir_region *r);

/* A Constant node's value. */
vfe_val vfe_constant(vfe_ctx *c, const vfe_node *e);
/* A call expression (built-ins in call.c, helpers in func.c). */
vfe_val vfe_call(vfe_ctx *c, const vfe_node *call);
vfe_val vfe_call_builtin(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi);
vfe_val vfe_call_helper(vfe_ctx *c, const vfe_node *call, vfe_helper *h);
/* A decorator option's integer when `e` names a module-level constant:
 * *out is the value, or -1 when it is not an integer; false after an
 * error (an unknown name, say). Other nodes: true with -1. */
bool vfe_module_int(vfe_ctx *c, const vfe_node *e, int64_t *out);
/* The value of a module-level constant (evaluated once). */
vfe_val vfe_global_const(vfe_ctx *c, const vfe_node *at, vfe_global *g, const char *name);

/* Casts and constructors: a call of a type built-in (construct.c). */
/* t(args...); `python`: Python's int / float, whose literal arguments fold to
 * literals (float(2) is 2.0, untyped), as the vp types' do not. */
vfe_val vfe_construct(vfe_ctx *c, const vfe_node *call, vir_type *t, vfe_node **args, uint32_t n,
                      bool python);
/* Checks the helpers the kernel never called (func.c). */
void vfe_check_unused_helpers(vfe_ctx *c, const vfe_node *kdef);
/* A struct value from a call of its class: Particle(pos=..., mass=...). */
vfe_val vfe_construct_struct(vfe_ctx *c, const vfe_node *call, vir_struct *st);
/* Checks a built-in's argument count, with the error. */
bool vfe_arity(vfe_ctx *c, const vfe_node *call, const char *name, uint32_t n, uint32_t lo, uint32_t hi);

/* Assignment counts per name (vfe_fn.assigns), decided before a body is
 * translated: */
enum {
  VFE_A_COUNT = 0xffffff,  /* whole assignments */
  VFE_A_NESTED = 1u << 24, /* one is inside if/for/while */
  VFE_A_VAR = 1u << 25,    /* one is from vp.var(...), or augmented */
  VFE_A_LOOP = 1u << 26,   /* a for-loop variable */
  VFE_A_MUT = 1u << 27,    /* changed in part: v.x = ..., v[k] = ... */
};
/* The assignment statements (assign.c). */
void vfe_stmt_assign(vfe_ctx *c, const vfe_node *s);
void vfe_stmt_annassign(vfe_ctx *c, const vfe_node *s);
void vfe_stmt_augassign(vfe_ctx *c, const vfe_node *s);
/* Binds a name in the current function. */
vfe_var *vfe_bind_name(vfe_ctx *c, const char *id, vfe_bind bind, vir_type *t, const vfe_node *at);

/* Module and kernel (kernel.c): the module's names, the entry, and the
 * kernel's translation with its interface. */
void vfe_scan_module(vfe_ctx *c);
const vfe_node *vfe_find_kernel(vfe_ctx *c, const char **name_out);
void vfe_translate_kernel(vfe_ctx *c, const vfe_node *def, const char *name);
/* Sets each buffer's access qualifier from its reads and writes. */
void vfe_buffer_access(vfe_ctx *c);

/* Statements of a body into the builder's region. */
void vfe_stmts(vfe_ctx *c, vfe_node **body, uint32_t n);
/* Counts assignments per name over a function body (decides SSA vs local). */
void vfe_count_assigns(vfe_ctx *c, vfe_fn *fn, vfe_node **body, uint32_t n);
/* Whether the last op built in the current region is a terminator. */
bool vfe_region_terminated(vfe_ctx *c);

/* Kernel set-up, in frontend.c. */
vfe_array *vfe_declare_shared(vfe_ctx *c, const vfe_node *at, const char *name, vir_type *elem,
                              uint32_t d0, uint32_t d1);
/* Adds a field to the push block (before it is declared). */
uint32_t vfe_push_field(vfe_ctx *c, const vfe_node *at, const char *name, vir_type *t);

/* Persistent programs (persistent.c): reads persistent=True and checks
 * where grid_sync stands (before the body is translated); persistent.step
 * at the top of a time loop's body; grid_sync and grid_range calls; a
 * `for ... in vp.grid_range(...)` loop (false when `s` is not one). */
void vfe_persistent_setup(vfe_ctx *c, const vfe_node *def);
void vfe_persistent_loop_body(vfe_ctx *c, const vfe_node *s, vir_region *body);
void vfe_persistent_if(vfe_ctx *c, const vfe_node *s, const vir_value *cond);
vfe_val vfe_persistent_call(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi);
bool vfe_persistent_for(vfe_ctx *c, const vfe_node *s);
/* A buffer parameter of the kernel (kernel.c). */
vfe_array *vfe_add_buffer(vfe_ctx *c, const vfe_node *at, const char *name, vir_type *elem);

/* MemSock (memsock.c). A `vp.MemSock[T]` parameter: true when `ann` is one
 * (v is bound: the frames buffer, its ring after it). */
bool vfe_memsock_param(vfe_ctx *c, const vfe_node *p, const char *name, const vfe_node *ann,
                       vfe_var *v);
/* A def inside the kernel: recorded as a fire body (true), else false. */
bool vfe_memsock_def(vfe_ctx *c, const vfe_node *s);
/* `pipe.fire(...)`: true with *out when `call` is one. */
bool vfe_memsock_call(vfe_ctx *c, const vfe_node *call, vfe_val *out);
/* Errors for pipe[i] outside a fire body, and for reads of a pipe. */
void vfe_memsock_check_access(vfe_ctx *c, const vfe_node *at, vfe_array *a);
void vfe_memsock_check_read(vfe_ctx *c, const vfe_place *p);

/* The hint for a missing cast: "vp.uint32(x)". */
const char *vfe_cast_hint(vfe_ctx *c, const vir_type *to, const vfe_node *expr);

/* guard.c: in a kernel that calls vp.barrier(), the dispatch guard's early
 * return (`guard_if`) becomes predication of the buffer accesses. */
void vfe_guard_barriers(vfe_ctx *c, vir_func *kernel, vir_op *guard_if);
/* ===== language patterns: builtins.c, static_loops.c, tuples.c, locals.c,
 * methods.c, generic.c, ndbuf.c (docs/language.md, "Patterns from Taichi and Warp") */

/* Python's own built-ins (round, pow) with Python's semantics, by their
 * bare name; NULL for others. vp.round and vp.pow stay GLSL's. */
const vfe_builtin *vfe_py_builtin(const char *name);
/* `math.NAME` (also `from math import NAME`): a function, or a constant
 * literal (pi, e, tau, inf, nan); ERR with a message when unknown. */
vfe_val vfe_math_attr(vfe_ctx *c, const vfe_node *at, const char *name);
/* A call of a VFE_F_PY built-in. */
vfe_val vfe_call_py(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi);
/* `for` over a compile-time sequence (vp.static(range(..)), a tuple,
 * enumerate, zip): unrolled; false when `s` is an ordinary loop. */
bool vfe_static_for(vfe_ctx *c, const vfe_node *s);
/* `return a, b` in a helper: the tuple packed into its return struct. */
vir_value *vfe_tuple_return(vfe_ctx *c, const vfe_node *at, vfe_val v);
/* A helper's result: a returned tuple is unpacked back into a tuple. */
vfe_val vfe_tuple_result(vfe_ctx *c, const vfe_node *call, vfe_val r);
/* Whether `value` is vp.NAME[...] naming the built-in of `kind` (assign.c). */
bool vfe_is_array_decl(vfe_ctx *c, const vfe_node *value, const char *name, vfe_bkind kind);
/* `NAME = vp.Local[T, N]` (a private array); false when `s` is not one. */
bool vfe_local_decl(vfe_ctx *c, const vfe_node *s, const vfe_node *target, const vfe_node *value);
/* acc[i] of a private array: the element's place. */
vfe_val vfe_local_index(vfe_ctx *c, const vfe_node *e, vfe_array *a);
/* The methods of a struct class, registered as helpers "Class.name". */
void vfe_scan_methods(vfe_ctx *c, const vfe_node *cls);
/* obj.name(...) where obj is a struct (or Class.name(obj, ...)): a method
 * call, in *out; false when `name` is no method (an ordinary call). */
bool vfe_method_call(vfe_ctx *c, const vfe_node *call, vfe_val base, const char *name, vfe_val *out);
/* A helper call whose first parameter is given as a value (a method's self). */
vfe_val vfe_call_helper_self(vfe_ctx *c, const vfe_node *call, vfe_helper *h, const vfe_val *self,
                             bool *self_out);
/* Whether an annotation is a bare vp.Buffer (a generic kernel's buffer). */
bool vfe_is_generic_buffer(vfe_ctx *c, const vfe_node *ann);
/* Its element type, from the document's "buffer_dtypes" option; NULL with
 * an error when the call gave none (generic.c). */
vir_type *vfe_generic_buffer_type(vfe_ctx *c, const vfe_node *p, const char *name);
/* Whether an annotation is vp.Scalar (a generic kernel's scalar parameter). */
bool vfe_is_generic_scalar(vfe_ctx *c, const vfe_node *ann);
/* The type of generic scalar `name` from the document's "scalar_dtypes", or
 * an error when the call gave none (generic.c). */
vir_type *vfe_generic_scalar_type(vfe_ctx *c, const vfe_node *p, const char *name);
/* N-d buffers (ndbuf.c): `vp.Buffer[T, N]` (true when ann's slice is a
 * tuple; *elem NULL after an error), its hidden push fields, a[i, j],
 * a.shape / a.ndim, and one extent. */
bool vfe_nd_annotation(vfe_ctx *c, const vfe_node *ann, vir_type **elem, uint32_t *ndim);
void vfe_nd_declare(vfe_ctx *c, const vfe_node *p, const char *name, vfe_array *a, uint32_t ndim);
vfe_val vfe_nd_index(vfe_ctx *c, const vfe_node *e, vfe_array *a);
vfe_val vfe_nd_attribute(vfe_ctx *c, const vfe_node *at, vfe_array *a, const char *attr);
vir_value *vfe_nd_extent(vfe_ctx *c, vfe_array *a, int axis);
/* t[k] of a tuple with a constant k. */
vfe_val vfe_tuple_index(vfe_ctx *c, const vfe_node *e, vfe_val t, vfe_val k);

#endif /* VULPY_FE_H */
