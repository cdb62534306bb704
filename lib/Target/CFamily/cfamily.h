/* cfamily.h - the C-family printer's insides, shared by its files.
 *
 * One printer writes GLSL 450, CUDA and HIP. The dialects differ in a few
 * places only (declarations of buffers and push constants, the kernel's
 * signature, atomics taking an address, literal suffixes, swizzles); for
 * everything else the CUDA/HIP prelude (prelude.c) defines GLSL's names
 * (vec3, dot, mix, gl_GlobalInvocationID, barrier(), subgroupAdd, ...), so
 * the body of a kernel reads the same in all three.
 *
 * Printing goes in two steps: the functions are printed into `body` while
 * the printer notes what they need (extensions, Python-semantics helpers,
 * math helpers, prelude sections); then the file is assembled: header,
 * helpers, declarations, functions.
 */
#ifndef VULPY_CFAMILY_H
#define VULPY_CFAMILY_H

#include "vulpy/target.h"

typedef enum cf_dialect {
  CF_GLSL,
  CF_CUDA,
  CF_HIP,
  CF_HOSTC, /* C++ on the host: only the math library, for its accuracy test */
} cf_dialect;

/* GLSL extensions (#extension ... : require) the printed text needs. */
enum {
  CF_EXT_INT8 = 1u << 0,       /* GL_EXT_shader_explicit_arithmetic_types_int8 */
  CF_EXT_INT16 = 1u << 1,      /* ..._int16 */
  CF_EXT_INT64 = 1u << 2,      /* ..._int64 */
  CF_EXT_FLOAT16 = 1u << 3,    /* ..._float16 */
  CF_EXT_STORAGE8 = 1u << 4,   /* GL_EXT_shader_8bit_storage */
  CF_EXT_STORAGE16 = 1u << 5,  /* GL_EXT_shader_16bit_storage */
  CF_EXT_SG_BASIC = 1u << 6,   /* GL_KHR_shader_subgroup_basic */
  CF_EXT_SG_ARITH = 1u << 7,
  CF_EXT_SG_BALLOT = 1u << 8,
  CF_EXT_SG_SHUFFLE = 1u << 9,
  CF_EXT_SG_SHUFFLE_REL = 1u << 10,
  CF_EXT_SG_VOTE = 1u << 11,
  CF_EXT_ATOMIC64 = 1u << 12,  /* GL_EXT_shader_atomic_int64 */
  CF_EXT_ATOMIC_FLOAT = 1u << 13, /* GL_EXT_shader_atomic_float */
  CF_EXT_SCOPE = 1u << 14,     /* GL_KHR_memory_scope_semantics */
  CF_EXT_VMM = 1u << 15,       /* #pragma use_vulkan_memory_model */
};

/* Sections of the CUDA/HIP prelude (prelude.c), emitted only when used. */
enum {
  CF_PRE_VEC = 1u << 0,      /* tvec2/3/4 templates, operators, vec3 & co. */
  CF_PRE_MAT = 1u << 1,      /* tmat templates */
  CF_PRE_IDS = 1u << 2,      /* gl_GlobalInvocationID & co. */
  CF_PRE_SUBGROUP = 1u << 3, /* subgroupAdd & co. */
  CF_PRE_ATOMIC = 1u << 4,   /* atomicLoad/atomicStore, scoped forms */
  CF_PRE_BITS = 1u << 5,     /* floatBitsToUint & co. */
  CF_PRE_MATH = 1u << 6,     /* GLSL math names: mix, fract, inversesqrt, ... */
  CF_PRE_F16 = 1u << 7,      /* half precision */
  CF_PRE_BARRIER = 1u << 8,  /* barrier(), memoryBarrier*() */
};

/* Python-semantics helpers (pyops.c): one bit per helper kind. They are
 * emitted per scalar type used (and per vector width, componentwise). */
typedef enum cf_pyop {
  CF_PY_FLOORDIV, /* Python // */
  CF_PY_MOD,      /* Python % */
  CF_PY_REM,      /* C remainder (int: truncating; float: fmod) */
  CF_PY_SHL,      /* << with counts >= width giving 0 */
  CF_PY_SHR,      /* >> with counts >= width giving 0 or -1 */
  CF_PY_ROUND,    /* half away from zero */
  CF_PY_RINT,     /* double's roundEven, spelled out (Mesa 22's is wrong) */
  CF_PY_SEXT64,   /* int -> int64_t from its two words (Mesa 22's compare is wrong) */
  CF_PY_TRUNC,    /* double's trunc, spelled out (Mesa 22's is wrong from 2^31 on) */
  CF_PY_SIGN,     /* float64 sign() that keeps NaN (GLSL leaves it open) */
  CF_PY_F2U,      /* float -> uint, a negative value through int (NumPy on x86) */
  CF_PY_F2U64,    /* float -> uint64_t, a negative value through int64_t */
  CF_PY_COUNT
} cf_pyop;

/* A printed expression: text plus its C precedence (16 = primary). */
enum {
  CF_PREC_LOWEST = 0,
  CF_PREC_TERNARY = 3,
  CF_PREC_LOR = 4,
  CF_PREC_LAND = 5,
  CF_PREC_BOR = 6,
  CF_PREC_BXOR = 7,
  CF_PREC_BAND = 8,
  CF_PREC_EQ = 9,
  CF_PREC_REL = 10,
  CF_PREC_SHIFT = 11,
  CF_PREC_ADD = 12,
  CF_PREC_MUL = 13,
  CF_PREC_UNARY = 15,
  CF_PREC_PRIMARY = 16,
};

/* A set of names (open addressing, arena strings). */
typedef struct cf_names {
  const char **slots;
  uint32_t cap, len;
} cf_names;

/* Per function being printed. */
typedef struct cf_func {
  const vir_func *f;
  uint32_t nvals;          /* f->next_id */
  uint32_t *nuses;         /* per value id */
  const vir_op **user;     /* the (last) user op of each value */
  const char **name;       /* per value id: its name when named */
  uint8_t *inl;            /* per value id: printed inline at its use */
  const char **local_name; /* per local (index in f->locals) */
  uint8_t *local_declared;
  const vir_op **local_decl_at; /* the op before which the local is declared */
  uint8_t *local_decl_store;    /* declared by its first store (`T x = v;`) */
  cf_names names;          /* taken names in this function */
  uint32_t ntemp;          /* next tN */
  uint32_t last_line;      /* the last `// file:line` printed */
  const char *last_file;
} cf_func;

typedef struct cf_printer {
  const vir_module *m;
  const vir_func *kernel;
  const vtg_options *o;
  cf_dialect dialect;
  vp_diags *d;
  vp_arena arena;
  vp_strbuf body;          /* the functions, printed first */
  uint32_t local_size[3];
  /* what the text needs */
  uint32_t ext;            /* CF_EXT_* */
  /* a buffer is `nonprivate` (VIR_BUF_NONPRIVATE): buffer fences and
   * ordered atomics carry availability / visibility (MakeAvailable /
   * MakeVisible), which is what orders non-private accesses */
  bool avvis;
  uint32_t pre;            /* CF_PRE_* */
  uint32_t pyops[CF_PY_COUNT];        /* per helper: bitmask of scalar slots (pyops.c) */
  uint8_t pyops_vec[CF_PY_COUNT][16]; /* per helper and slot: vector widths used */
  vp_ptrvec swizzles;      /* CUDA: "xyz" patterns used (arena strings) */
  uint64_t math[2];        /* per precision (0 = f32, 1 = f64): TRANSC ops used */
  uint64_t math_vec[2][3]; /* vector widths 2..4 per precision */
  /* globals */
  cf_names globals;        /* module-level names */
  const char **sym_name;   /* printed name of each module symbol (index in m->syms) */
  const char **struct_name;/* per struct (index in m->structs) */
  const char **func_name;  /* per module symbol that is a function */
  bool *func_used;         /* per module symbol: a function the kernel reaches */
  bool *sym_used;          /* per module symbol: used by the kernel or its callees */
  bool **res_uses;         /* per function symbol: module symbols it reaches */
  bool **res_len;          /* per function symbol: buffers whose length it reads */
  bool *func_pure;         /* per function symbol: writes no memory (calls inline) */
  const char **block_names;/* GLSL: per buffer symbol, its block's name */
  const char *pc_name;     /* "pc" */
  const char *pc_type;     /* the push block's struct type name */
  cf_func *fn;             /* the function being printed */
  int indent;
  bool failed;
} cf_printer;

/* ---- names.c ---- */
void cf_names_init(cf_printer *p, cf_names *s, uint32_t cap);
void cf_names_copy(cf_printer *p, cf_names *dst, const cf_names *src);
bool cf_names_has(const cf_names *s, const char *name);
void cf_names_add(cf_printer *p, cf_names *s, const char *name);
/* A readable, legal, unused identifier from a Python name; adds it to s. */
const char *cf_unique_name(cf_printer *p, cf_names *s, const char *want);
bool cf_is_reserved(const char *name);
void cf_put_file_name(vp_strbuf *out, const char *path);
/* A struct member / push field name: legal, otherwise unchanged. */
const char *cf_member_name(cf_printer *p, const char *name);

/* ---- types.c ---- */
/* The type's spelling (GLSL names in every dialect; CUDA's prelude defines
 * them). Notes extensions/prelude sections. `storage`: a block member
 * (8/16-bit storage extensions instead of arithmetic ones). */
void cf_type(cf_printer *p, vp_strbuf *b, const vir_type *t, bool storage);
/* `type name` with array dimensions after the name. */
void cf_decl(cf_printer *p, vp_strbuf *b, const vir_type *t, const char *name, bool storage);
/* A literal of scalar type t. */
void cf_literal(cf_printer *p, vp_strbuf *b, const vir_type *t, vir_literal v);
/* The float literal text for a double value in the given precision (bits). */
void cf_float_literal(cf_printer *p, vp_strbuf *b, double v, unsigned bits);
void cf_note_type(cf_printer *p, const vir_type *t, bool storage);
/* The index (0..3) of a vector component letter set: "xyzw". */
extern const char cf_comp[4];

/* ---- expr.c ---- */
/* Prints value v as an operand needing at least precedence `prec`. */
void cf_expr(cf_printer *p, vp_strbuf *b, const vir_value *v, int prec);
/* Prints the defining expression of op (its result's value), returning its
 * precedence. */
int cf_op_expr(cf_printer *p, vp_strbuf *b, const vir_op *op);
/* The lvalue of a memory op: buf[i].path, tile[i], x.path. */
void cf_lvalue(cf_printer *p, vp_strbuf *b, const vir_op *op, const vir_value *index);

/* ---- stmt.c ---- */
bool cf_print_function(cf_printer *p, const vir_func *f, bool kernel);
void cf_line(cf_printer *p); /* indentation for a new line in body */

/* ---- module.c ---- */
bool cf_emit(const vir_module *m, const vtg_options *o, cf_dialect dialect, vp_strbuf *out,
             vp_diags *d);
const char *cf_sym_name(cf_printer *p, const vir_sym *s);
int cf_sym_index(cf_printer *p, const vir_sym *s);
const char *cf_block_name(cf_printer *p, int sym);
void cf_call_resources(cf_printer *p, vp_strbuf *b, int func_sym, bool first);
void cf_signature(cf_printer *p, const vir_func *f, bool kernel);
const char *cf_param_name(cf_printer *p, const vir_value *v);
int cf_literal_prec(cf_printer *p, vp_strbuf *b, const vir_type *t, vir_literal v);
int cf_atomic_expr(cf_printer *p, vp_strbuf *b, const vir_op *op);
/* Reports an internal limitation at op's location and marks failure. */
void cf_error(cf_printer *p, vp_loc loc, const char *fmt, ...) VP_PRINTF(3, 4);

/* ---- features.c ---- */
/* Checks the kernel against o->features; errors name the op and feature. */
bool cf_check_features(cf_printer *p);
/* Features one op needs (types of its operands/result, its kind). */
uint32_t cf_op_features(const vir_op *op);

/* ---- pyops.c ---- */
/* Notes a Python-semantics helper for type t (scalar or vector); returns its name. */
const char *cf_need_pyop(cf_printer *p, cf_pyop k, const vir_type *t);
void cf_emit_pyops(cf_printer *p, vp_strbuf *out);

/* ---- prelude.c ---- */
void cf_emit_prelude(cf_printer *p, vp_strbuf *out);
void cf_need_swizzle(cf_printer *p, const uint8_t *swz, unsigned n);

/* ---- mathlib.c ---- */
/* The function name for a TRANSC op on type t (notes the helper), or for
 * an op cf_is_exact_f32_op accepts. */
const char *cf_need_math(cf_printer *p, vir_opcode code, const vir_type *t);
/* Whether op is one of the transcendental functions the math library
 * prints (a helper call in GLSL, a library call in CUDA/HIP). */
bool cf_is_math_op(vir_opcode code);
/* Whether op is a float32 abs / neg / sign / min / max / clamp / floor /
 * ceil / sqrt that GLSL prints as a call of the math library's helper (vp_negf,
 * ...: exact where the device flushes subnormals), i.e. without fast math;
 * cf_need_math gives its name. */
bool cf_is_exact_f32_op(const cf_printer *p, const vir_op *op);
void cf_emit_math(cf_printer *p, vp_strbuf *out);
/* The whole precise library (every function, both precisions) in a dialect:
 * the accuracy test compiles the CF_HOSTC text on the CPU. */
void vtg_mathlib_source(int dialect, unsigned which_bits, vp_strbuf *out);

#endif
