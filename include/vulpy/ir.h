/* vulpy/ir.h - VIR, the VulPy intermediate representation.
 *
 * VIR is typed SSA with structured control flow. A module holds declarations
 * (structs, the push-constant block, storage buffers, shared arrays,
 * constants) and functions; a function's body is a region, a list of ops;
 * control-flow ops (if, loop, for, while) own nested regions, so every back
 * end prints structured code directly. Python's mutable variables are
 * function locals read and written with local.load / local.store; every
 * other value is SSA. A value defined in a region is visible in that region
 * after its definition and in all regions nested inside it.
 *
 * Every op is declared once in vulpy/ir/ops.def. All IR objects of a module
 * come from the module's arena and die with vir_module_destroy().
 *
 * Textual form (docs/ir.md has the full grammar):
 *
 *   module "my_kernel.vul.py"
 *   push @pc { N: u32, dt: f32 }
 *   buffer @pos : f64[] binding(0, 0) readwrite
 *   kernel @main local_size(256, 1, 1) {
 *     %0 = global_id : vec3<u32> loc(9:19)
 *     %i = extract %0[0] : u32
 *     ...
 *   }
 */
#ifndef VULPY_IR_H
#define VULPY_IR_H

#include "vulpy/support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vir_module vir_module;
typedef struct vir_type vir_type;
typedef struct vir_struct vir_struct;
typedef struct vir_field vir_field;
typedef struct vir_sym vir_sym;
typedef struct vir_func vir_func;
typedef struct vir_value vir_value;
typedef struct vir_op vir_op;
typedef struct vir_region vir_region;

/* ================================================================ ops */

#define VIR_VARIADIC (-1)

typedef enum vir_opcode {
#define VIR_OP(ID, NAME, NOPND, NREGION, RESULT, ATTR, FLAGS, SPELL) VIR_OP_##ID,
#include "vulpy/ir/ops.def"
#undef VIR_OP
  VIR_OP_COUNT
} vir_opcode;

/* How an op's result type follows from its operands (verifier and
 * vir_infer_type use it). */
typedef enum vir_result_rule {
  VIR_RES_VOID,     /* no result */
  VIR_RES_EXPLICIT, /* written in the text / given to the builder; checked per op */
  VIR_RES_SAME,     /* all operands and the result have one type */
  VIR_RES_SAME0,    /* result has operand 0's type; other operands per op */
  VIR_RES_ARITH,    /* two operands of one type, or a vector and a scalar of
                       its element type; the result is the wider one */
  VIR_RES_CMP,      /* bool, or bvecN for N-vectors */
  VIR_RES_SCALAR,   /* the element type of operand 0 (dot, length) */
  VIR_RES_SELECT,   /* operands (cond, a, b): result = type of a = type of b */
  VIR_RES_BOOL,     /* scalar bool */
} vir_result_rule;

/* What an op carries besides its operands. */
typedef enum vir_attr_kind {
  VIR_ATTR_NONE,
  VIR_ATTR_CONST,   /* attr.lit */
  VIR_ATTR_SYM,     /* attr.sym plus attr.path */
  VIR_ATTR_INDEX,   /* attr.index: a component (or matrix column) */
  VIR_ATTR_SWIZZLE, /* attr.swz */
  VIR_ATTR_ATOMIC,  /* attr.sym, attr.path, attr.scope, attr.sem */
  VIR_ATTR_SCOPE,   /* attr.scope, attr.sem, attr.storage */
  VIR_ATTR_CALL,    /* attr.sym: the callee */
  VIR_ATTR_VIEW,    /* attr.sym (memory ops), attr.arr: offset, strides, shape */
  VIR_ATTR_AXES,    /* attr.arr: axes (reductions, scans, take, transpose) */
  VIR_ATTR_UFUNC,   /* attr.index: the vir_ufunc (array.ufunc) */
} vir_attr_kind;

/* The NumPy ufuncs of the array level (vulpy/ir/ufuncs.def): the name that
 * follows array.ufunc; lower-ufuncs expands each into elementwise ops. */
typedef enum vir_ufunc {
#define VIR_UFUNC(ID, NAME, NIN, RULE, FOP, IOP, BOP) VIR_UFUNC_##ID,
#include "vulpy/ir/ufuncs.def"
#undef VIR_UFUNC
  VIR_UFUNC_COUNT
} vir_ufunc;
/* NumPy's name of a ufunc ("?" out of range). */
const char *vir_ufunc_name(uint32_t u);
/* Its operand count (0 out of range). */
unsigned vir_ufunc_nin(uint32_t u);
/* The ufunc of a NumPy name; VIR_UFUNC_COUNT when there is none. */
vir_ufunc vir_ufunc_lookup(const char *name, size_t len);

typedef enum vir_op_flags {
  VIR_F_PURE = 1u << 0,     /* no side effects, no memory reads: CSE/DCE-able */
  VIR_F_TERM = 1u << 1,     /* must be the last op of its region */
  VIR_F_COMMUT = 1u << 2,   /* operands may be swapped */
  VIR_F_NUM = 1u << 3,      /* operands int, uint or float (scalar or vector) */
  VIR_F_INT = 1u << 4,      /* operands int or uint */
  VIR_F_FLOAT = 1u << 5,    /* operands float */
  VIR_F_BOOL = 1u << 6,     /* operands bool */
  VIR_F_INFIX = 1u << 7,    /* C-family spelling is an infix operator */
  VIR_F_PREFIX = 1u << 8,   /* C-family spelling is a prefix operator */
  VIR_F_READMEM = 1u << 9,  /* reads memory */
  VIR_F_WRITEMEM = 1u << 10,/* writes memory */
  VIR_F_CONTROL = 1u << 11, /* control flow */
  VIR_F_CONV = 1u << 12,    /* convergent: never moved into or out of control flow */
  VIR_F_SUBGROUP = 1u << 13,/* needs subgroup support */
  VIR_F_TRANSC = 1u << 14,  /* transcendental: precise helpers unless fast math */
  VIR_F_HIGH = 1u << 15,    /* high-level: lowered by a pass, never seen by back ends */
} vir_op_flags;

typedef struct vir_op_info {
  const char *name;
  int8_t nopnd; /* or VIR_VARIADIC */
  uint8_t nregion;
  uint8_t result;  /* vir_result_rule */
  uint8_t attr;    /* vir_attr_kind */
  uint32_t flags;  /* vir_op_flags */
  const char *spell;
} vir_op_info;

/* One entry per opcode, in enum order. */
extern const vir_op_info vir_op_infos[VIR_OP_COUNT];
static inline const vir_op_info *vir_op_info_of(vir_opcode c) { return &vir_op_infos[c]; }
/* Looks an op up by its textual name; returns VIR_OP_COUNT when unknown. */
vir_opcode vir_opcode_lookup(const char *name, size_t len);
/* Elementwise ops: the scalar ops that also apply to tensors, element by
 * element (pure, no regions, a shape-preserving result rule, and cast /
 * bitcast; not the vector-only ones like cross or dot). docs/fusion.md. */
bool vir_op_is_elementwise(vir_opcode c);

/* ============================================================== types */

typedef enum vir_type_kind {
  VIR_TY_VOID,
  VIR_TY_BOOL,
  VIR_TY_INT,   /* signed: bits 8, 16, 32, 64 */
  VIR_TY_UINT,  /* unsigned: bits 8, 16, 32, 64 */
  VIR_TY_FLOAT, /* bits 16, 32, 64 */
  VIR_TY_VEC,   /* elem scalar, n in 2..4 */
  VIR_TY_MAT,   /* n columns of elem (a float vector of `rows` components) */
  VIR_TY_ARRAY, /* len elements of elem (shared memory, struct members) */
  VIR_TY_STRUCT,
  VIR_TY_TENSOR, /* array level: a shaped array of scalars, `tensor<4x8xf32>` (docs/fusion.md) */
} vir_type_kind;

/* Most dimensions of a tensor. */
#define VIR_MAX_RANK 8

/* Types are interned per module: two types are equal iff their pointers are. */
struct vir_type {
  vir_type_kind kind;
  uint8_t bits;   /* scalars; for VEC/MAT the element's bits */
  uint8_t n;      /* VEC: components; MAT: columns */
  uint8_t rows;   /* MAT: rows */
  vir_type *elem; /* VEC: scalar; MAT: column vector; ARRAY: element */
  uint32_t len;   /* ARRAY */
  uint32_t str_len; /* strlen(str), for the printer */
  vir_struct *st; /* STRUCT */
  const char *str; /* the text form, as vir_type_print writes it */
  const uint32_t *dims; /* TENSOR: n (the rank) dimensions, row-major; elem is the scalar */
};

vir_type *vir_ty_void(vir_module *m);
vir_type *vir_ty_bool(vir_module *m);
vir_type *vir_ty_int(vir_module *m, unsigned bits);   /* i8..i64 */
vir_type *vir_ty_uint(vir_module *m, unsigned bits);  /* u8..u64 */
vir_type *vir_ty_float(vir_module *m, unsigned bits); /* f16, f32, f64 */
vir_type *vir_ty_vec(vir_module *m, vir_type *scalar, unsigned n);
vir_type *vir_ty_mat(vir_module *m, vir_type *scalar, unsigned cols, unsigned rows);
vir_type *vir_ty_array(vir_module *m, vir_type *elem, uint32_t len);
vir_type *vir_ty_struct(vir_module *m, vir_struct *st);
/* A tensor of `rank` (0..VIR_MAX_RANK) dims of a scalar; NULL when the
 * element is not a scalar or the element count does not fit 32 bits. */
vir_type *vir_ty_tensor(vir_module *m, vir_type *scalar, unsigned rank, const uint32_t *dims);
static inline bool vir_ty_is_tensor(const vir_type *t) { return t && t->kind == VIR_TY_TENSOR; }
/* Elements of a tensor (1 for rank 0), or 1 for any other type. */
uint64_t vir_ty_numel(const vir_type *t);
/* The element type of a tensor, the type itself otherwise. */
static inline vir_type *vir_ty_elem_of(vir_type *t) { return vir_ty_is_tensor(t) ? t->elem : t; }

/* Dynamic extent (issue 14): a rank-1 tensor may have the extent `?`
 * (`tensor<?xf32>`): its element count is the u32 field `n` of the
 * module's push block, given at each launch, so one compile serves every
 * size (the eager ufuncs). Loads and stores of such a tensor read whole
 * unsized buffers (`f32[]`); lower-arrays takes elementwise ops of them. */
#define VIR_DIM_DYNAMIC UINT32_MAX
static inline bool vir_ty_is_dynamic(const vir_type *t) {
  return t && t->kind == VIR_TY_TENSOR && t->n == 1 && t->dims[0] == VIR_DIM_DYNAMIC;
}
/* What a tensor of dynamic extent may be broadcast from: a scalar, or a
 * static tensor of one element (x - mean(x): the mean, read on the device). */
static inline bool vir_ty_splats(const vir_type *t) {
  return t && (!vir_ty_is_tensor(t) || (!vir_ty_is_dynamic(t) && vir_ty_numel(t) == 1));
}

static inline bool vir_ty_is_scalar(const vir_type *t) {
  return t->kind == VIR_TY_BOOL || t->kind == VIR_TY_INT || t->kind == VIR_TY_UINT ||
         t->kind == VIR_TY_FLOAT;
}
/* The scalar of a scalar or vector (or matrix) type; the type itself otherwise. */
const vir_type *vir_ty_scalar_of(const vir_type *t);
/* Components: 1 for scalars, n for vectors. */
unsigned vir_ty_width(const vir_type *t);
bool vir_ty_is_float(const vir_type *t); /* float scalar or vector or matrix */
bool vir_ty_is_int(const vir_type *t);   /* int/uint scalar or vector */
bool vir_ty_is_signed(const vir_type *t);
bool vir_ty_is_bool(const vir_type *t);  /* bool scalar or vector */
/* Same shape (scalar or N-vector) with another scalar: cast targets, bvecN. */
vir_type *vir_ty_with_scalar(vir_module *m, const vir_type *shape, vir_type *scalar);

/* The text of a type as in .vir files ("vec4<f32>", "@Particle"). Writes into b. */
void vir_type_print(vp_strbuf *b, const vir_type *t);

/* std430 size and alignment (buffers, push constants, shared memory). */
uint32_t vir_type_size(const vir_type *t);
uint32_t vir_type_align(const vir_type *t);

/* ============================================================ structs */

struct vir_field {
  const char *name;
  vir_type *type;
  uint32_t offset; /* std430, filled by vir_struct_layout */
  vp_loc loc;
};

struct vir_struct {
  const char *name;
  uint32_t nfields;
  vir_field *fields;
  uint32_t size, align; /* std430 */
  vp_loc loc;
  vir_type *type; /* the struct type (vir_ty_struct) */
};

/* Creates an empty struct (registered in the module, declaration order). */
vir_struct *vir_struct_create(vir_module *m, const char *name, vp_loc loc);
void vir_struct_add_field(vir_module *m, vir_struct *st, const char *name, vir_type *t, vp_loc loc);
/* Computes std430 offsets, size and alignment. Call after the last field. */
void vir_struct_layout(vir_struct *st);
/* Field index by name, or -1. */
int vir_struct_find(const vir_struct *st, const char *name);

/* ============================================================ symbols */

typedef enum vir_sym_kind {
  VIR_SYM_BUFFER, /* storage buffer: a runtime array of `type` */
  VIR_SYM_PUSH,   /* the push-constant block: `type` is a struct type */
  VIR_SYM_SHARED, /* workgroup memory: `type` is an array type */
  VIR_SYM_CONST,  /* module constant: scalar `type`, value in `lit` */
  VIR_SYM_LOCAL,  /* function local: any value type */
  VIR_SYM_FUNC,   /* function or kernel: `func` */
} vir_sym_kind;

typedef enum vir_access { VIR_ACCESS_READWRITE, VIR_ACCESS_READONLY, VIR_ACCESS_WRITEONLY } vir_access;

/* Per-buffer qualifiers. */
enum {
  VIR_BUF_COHERENT = 1u << 0, /* other invocations / the host see writes without barriers */
  VIR_BUF_VOLATILE = 1u << 1, /* every access reaches memory */
  /* Vulkan memory model: accesses are non-private (GLSL `nonprivate`), so
   * fences and atomics with availability / visibility order them across
   * invocations; not coherent (persistent-nonprivate, docs/persistent.md) */
  VIR_BUF_NONPRIVATE = 1u << 2,
};

typedef union vir_literal {
  int64_t i; /* INT */
  uint64_t u; /* UINT */
  double f;  /* FLOAT (f16/f32 values stored exactly as doubles) */
  bool b;    /* BOOL */
} vir_literal;

struct vir_sym {
  vir_sym_kind kind;
  const char *name;
  vir_type *type;
  vp_loc loc;
  /* BUFFER */
  uint32_t set, binding;
  vir_access access;
  uint32_t buf_flags;
  /* BUFFER: element count when the size is fixed (`f32[1024]`), else 0 */
  uint64_t count;
  /* CONST */
  vir_literal lit;
  /* FUNC */
  vir_func *func;
};

/* Each adds the symbol to the module in declaration order; names are the
 * caller's to keep unique (the verifier checks). */
vir_sym *vir_add_buffer(vir_module *m, const char *name, vir_type *elem, uint32_t set,
                        uint32_t binding, vir_access access, vp_loc loc);
/* The push-constant block (at most one per module) from a laid-out struct. */
vir_sym *vir_add_push(vir_module *m, const char *name, vir_struct *fields, vp_loc loc);
vir_sym *vir_add_shared(vir_module *m, const char *name, vir_type *array, vp_loc loc);
vir_sym *vir_add_const(vir_module *m, const char *name, vir_type *t, vir_literal v, vp_loc loc);
/* Module-level symbol by name, or NULL. */
vir_sym *vir_module_find(const vir_module *m, const char *name);

/* ============================================================= values */

struct vir_value {
  vir_type *type;
  vir_op *def;        /* the op whose result this is; NULL for a region argument */
  vir_region *owner;  /* region argument: its region */
  uint32_t id;        /* unique within the function */
  uint32_t nuses;     /* valid after vir_func_count_uses() */
  const char *name;   /* optional hint (a Python name), printed as %name */
};

/* ================================================================ ops */

typedef enum vir_scope {
  VIR_SCOPE_INVOCATION,
  VIR_SCOPE_SUBGROUP,
  VIR_SCOPE_WORKGROUP,
  VIR_SCOPE_DEVICE,
  VIR_SCOPE_QUEUE_FAMILY, /* host-visible: the CPU or another queue reads it */
} vir_scope;

typedef enum vir_semantics {
  VIR_SEM_RELAXED,
  VIR_SEM_ACQUIRE,
  VIR_SEM_RELEASE,
  VIR_SEM_ACQ_REL,
  VIR_SEM_SEQ_CST,
} vir_semantics;

/* memory_barrier storage classes */
enum { VIR_STORAGE_BUFFER = 1u << 0, VIR_STORAGE_SHARED = 1u << 1 };

#define VIR_MAX_PATH 4

/* The array level's attribute (attr.arr, from the module arena).
 * VIEW: a strided view: element (i_0..i_r) of the value is element
 *   offset + sum(i_k * strides[k]) of the buffer (array.load / array.store /
 *   array.scatter) or of the operand in row-major order (array.slice);
 *   nstrides == 0 means row-major contiguous. array.scatter also names the
 *   target's shape in dims (ndims of them).
 * AXES: the axes an op works on, ascending for reductions, a permutation
 *   for array.transpose, one axis for scans and array.take. */
typedef struct vir_array_attr {
  int64_t offset;
  uint8_t nstrides, ndims, naxes;
  int64_t strides[VIR_MAX_RANK];
  uint32_t dims[VIR_MAX_RANK];
  uint8_t axes[VIR_MAX_RANK];
} vir_array_attr;

typedef struct vir_attr {
  vir_literal lit;          /* CONST */
  vir_sym *sym;             /* SYM, ATOMIC, CALL */
  uint8_t npath;            /* SYM, ATOMIC: member/component path after [index] */
  uint8_t path[VIR_MAX_PATH];
  uint32_t index;           /* INDEX */
  uint8_t nswz, swz[4];     /* SWIZZLE: component indices */
  vir_scope scope;          /* ATOMIC, SCOPE */
  vir_semantics sem;        /* ATOMIC, SCOPE */
  uint8_t storage;          /* SCOPE */
  vir_array_attr *arr;      /* VIEW, AXES (NULL: offset 0, contiguous, no axes) */
} vir_attr;

/* Per-op flags. */
enum {
  VIR_OPF_VOLATILE = 1u << 0, /* a load that must not be hoisted, merged or cached */
};

struct vir_op {
  vir_value val;          /* the result; val.type is void for ops without one */
  vir_opcode code;
  uint32_t flags;         /* VIR_OPF_* */
  uint32_t nopnd;
  vir_value **opnd;
  vir_region *regions;    /* vir_op_infos[code].nregion of them */
  vir_attr attr;
  vp_loc loc;
  vir_op *prev, *next;
  vir_region *parent;
};

static inline vir_value *vir_result(vir_op *op) {
  return op->val.type && op->val.type->kind != VIR_TY_VOID ? &op->val : NULL;
}

/* The run-time view of an array.load or array.store of a tensor of
 * dynamic extent, `at(%off, %step)`: {off, step} (u32 scalars; element i
 * of the tensor is element off + i * step of the buffer, in u32
 * arithmetic, so a negative step is its two's complement). A load may
 * also take `at(%off, %step, %div, %mod)`, a block broadcast: element i
 * is element off + ((i / div) % mod) * step (div, mod >= 1: a row of mod
 * elements repeated, each element div times). Loads and stores take
 * `at(%off, %step, %div, %mod, %step2, %div2, %mod2)` too, a view of two
 * axes (x[1:-1, 1:-1], x.T): element off + ((i / div) % mod) * step +
 * ((i / div2) % mod2) * step2. NULL for a static view (offset(K)
 * strides(S) attributes, or none). */
static inline uint32_t vir_view_nscalars(const vir_op *op) {
  if (op->code == VIR_OP_ARRAY_LOAD)
    return op->nopnd == 2 || op->nopnd == 4 || op->nopnd == 7 ? op->nopnd : 0;
  if (op->code == VIR_OP_ARRAY_STORE)
    return op->nopnd == 3 || op->nopnd == 8 ? op->nopnd - 1 : 0;
  return 0;
}

static inline vir_value *const *vir_view_scalars(const vir_op *op) {
  if (!vir_view_nscalars(op))
    return NULL;
  return op->code == VIR_OP_ARRAY_STORE ? op->opnd + 1 : op->opnd;
}

/* The tensor an array.store or array.scatter writes (a store's first
 * operand, a scatter's last). */
static inline vir_value *vir_array_stored(const vir_op *op) {
  return op->code == VIR_OP_ARRAY_STORE ? op->opnd[0] : op->opnd[op->nopnd - 1];
}

/* ============================================================ regions */

struct vir_region {
  vir_op *first, *last;
  vir_op *parent_op;    /* the op that owns it; NULL for a function body */
  vir_func *func;       /* the function it belongs to */
  uint32_t nargs;
  vir_value **args;     /* function parameters, or the `for` induction variable */
};

/* Inserts `op` (already created, not in a region) before `before`, or at the
 * end when `before` is NULL. */
void vir_region_insert(vir_region *r, vir_op *before, vir_op *op);
/* Unlinks an op from its region (its memory stays in the arena). */
void vir_op_unlink(vir_op *op);
/* Moves every op of `from` (in order) before `before` in `to` (at its end
 * when `before` is NULL); `from` becomes empty. */
void vir_region_splice(vir_region *to, vir_op *before, vir_region *from);
/* The function an op (or region) belongs to; NULL when not inserted. */
vir_func *vir_op_func(const vir_op *op);
/* Replaces every use of `from` by `to` in the function (one walk). */
void vir_replace_all_uses(vir_func *f, vir_value *from, vir_value *to);

/* ========================================================== functions */

struct vir_func {
  vir_sym *sym;            /* name; kind VIR_SYM_FUNC */
  bool is_kernel;
  /* An array function (`array @f { ... }`, docs/fusion.md): no parameters,
   * no result; its body works on tensors read from and written to the
   * module's buffers with array.load / array.store, and lower-arrays turns it
   * into kernels and a list of launches. */
  bool is_array;
  uint32_t local_size[3];  /* kernels */
  vir_type *ret;           /* void for kernels */
  vir_region body;         /* args: the parameters (helpers only) */
  vp_ptrvec locals;        /* vir_sym* of kind VIR_SYM_LOCAL, in declaration order */
  uint32_t next_id;        /* next value id */
  vp_loc loc;
  vp_map localtab;         /* name -> local vir_sym* (private to lib/IR) */
};

/* Creates a function (helper or kernel). Parameters become body.args. */
vir_func *vir_add_func(vir_module *m, const char *name, bool is_kernel, vir_type *ret,
                       uint32_t nparams, vir_type *const *param_types,
                       const char *const *param_names, vp_loc loc);
/* An array function (see vir_func.is_array). */
vir_func *vir_add_array_func(vir_module *m, const char *name, vp_loc loc);
/* An arena copy of `a` (or a zeroed one when NULL) for attr.arr. */
vir_array_attr *vir_array_attr_new(vir_module *m, const vir_array_attr *a);
vir_sym *vir_func_add_local(vir_module *m, vir_func *f, const char *name, vir_type *t, vp_loc loc);
vir_sym *vir_func_find_local(const vir_func *f, const char *name);
/* Takes a local out of f->locals (its ops must be gone already). */
void vir_func_remove_local(vir_module *m, vir_func *f, vir_sym *local);
/* Keeps the locals i with keep[i] (one pass, for removing many at once). */
void vir_func_filter_locals(vir_module *m, vir_func *f, const bool *keep);
/* Recomputes vir_value.nuses for every value of the function. */
void vir_func_count_uses(vir_func *f);

/* ============================================================= module */

struct vir_module {
  vp_arena arena;
  const char *source_name; /* the Python file it came from, or NULL */
  vp_ptrvec structs;       /* vir_struct*, declaration order */
  vp_ptrvec syms;          /* module-level vir_sym*, declaration order */
  vir_sym *push;           /* the push-constant block, or NULL */
  vp_ptrvec types;         /* interned vir_type* */
  /* Lookup tables, private to lib/IR. */
  vir_type *ty_cache[16][4]; /* [scalar slot][0: scalar, 1..3: vec2..vec4] */
  vp_map symtab;             /* name -> module-level vir_sym* */
  vp_map filetab;            /* file name -> interned copy */
  vp_map typetab;            /* (kind, element, sizes) bytes -> matrix and array types */
  /* The .vir file the module was parsed from: ops written without loc(...)
   * get their position in it, in a loc whose `file` is this pointer; the
   * printer leaves such locations out (docs/ir.md, "Locations"). */
  const char *text_file;
  /* The passes that lower it for a back end as its source asks (a
   * persistent kernel's barrier= and nonprivate=, set by the frontend), or
   * NULL: VIR_BACKEND_PIPELINE (vulpy/passes.h). A request to the driver,
   * not IR: the printer leaves it out. */
  const char *pipeline;
};

vir_module *vir_module_create(const char *source_name);
void vir_module_destroy(vir_module *m);
/* Forgets the module-level symbols declared after the first `nsyms` and
 * the structs after the first `nstructs` (a frontend that built something
 * only to check it); their memory stays in the arena. */
void vir_module_truncate(vir_module *m, uint32_t nsyms, uint32_t nstructs);
/* An arena copy of a file name, shared by every location that names it. */
const char *vir_intern_file(vir_module *m, const char *file);

/* ============================================================ builder */

/* Where new ops go: before `before` in `region`, or at its end. */
typedef struct vir_builder {
  vir_module *m;
  vir_func *f;
  vir_region *region;
  vir_op *before;
  vp_loc loc; /* stamped on every op built */
} vir_builder;

/* Sets b->m and clears the rest; then place it with one of the two below. */
void vir_builder_init(vir_builder *b, vir_module *m);
void vir_builder_at_end(vir_builder *b, vir_region *r);
void vir_builder_before(vir_builder *b, vir_op *op);

/* Creates an op with `nopnd` operands (copied) and its regions, inserts it.
 * `type` is the result type (NULL or void for none); the attribute is zero
 * and may be filled afterwards. Returns NULL only on out-of-memory. */
vir_op *vir_build(vir_builder *b, vir_opcode code, vir_type *type, uint32_t nopnd,
                  vir_value *const *opnd);
/* As vir_build, with the result type computed by the op's result rule;
 * NULL when the operands do not fit the rule (vir_verify says why). */
vir_op *vir_build_auto(vir_builder *b, vir_opcode code, uint32_t nopnd, vir_value *const *opnd);
vir_value *vir_build_const(vir_builder *b, vir_type *t, vir_literal v);
vir_value *vir_build_int(vir_builder *b, vir_type *t, int64_t v);   /* int/uint/bool types */
vir_value *vir_build_float(vir_builder *b, vir_type *t, double v);
/* A literal brought into the range of type `t`: integers wrapped to the
 * width (sign-extended for signed, zero-extended for unsigned), floats
 * rounded to f32 or f16, bools 0/1. */
vir_literal vir_lit_normalize(const vir_type *t, vir_literal v);
/* Result type for ops whose rule is not EXPLICIT (and the EXPLICIT ops whose
 * type is fixed: global_id, buffer.len, ...), or NULL if it does not fit. */
vir_type *vir_infer_type(vir_module *m, vir_opcode code, uint32_t nopnd, vir_value *const *opnd);
/* The type reached by following `path` from `t` (struct fields, vector
 * components, matrix columns); NULL when the path does not fit. */
vir_type *vir_path_type(vir_type *t, uint32_t npath, const uint8_t *path);
/* One step of a path: member `i` of a struct, component of a vector, column
 * of a matrix, element of an array; NULL when out of range. */
vir_type *vir_type_member(const vir_type *t, uint32_t i);
/* The type a symbol's access path starts from: a buffer's element type, a
 * shared array's element type, the push block's struct, a local's type. */
const vir_type *vir_sym_path_base(const vir_sym *s);

/* ======================================================== array level */

/* The shape rules of the array ops (docs/fusion.md), shared by the
 * verifier, the parser and the passes. */
/* The result type of an elementwise op with tensor operands (the scalar
 * rule on the element types, in their common shape); NULL if none fits. */
vir_type *vir_elementwise_type(vir_module *m, vir_opcode code, uint32_t nopnd, vir_value *const *opnd);
/* The common shape of the tensor operands (NULL when there is none); sets
 * *mismatch when two tensor operands differ in shape. */
const vir_type *vir_elementwise_shape(uint32_t nopnd, vir_value *const *opnd, bool *mismatch);
bool vir_is_reduction(vir_opcode c); /* array.sum .. array.all */
bool vir_is_scan(vir_opcode c);      /* array.cumsum, cumprod, cummax, cummin */
/* `r` is `in` reduced over a->axes (dropped, or kept as 1: keepdims). */
bool vir_reduced_shape_ok(const vir_type *in, const vir_array_attr *a, const vir_type *r);
/* NumPy broadcasting of `from` (a tensor or a scalar) to the tensor `to`. */
bool vir_broadcast_ok(const vir_type *from, const vir_type *to);
/* Row-major strides (in elements) of a tensor type. */
void vir_row_major(const vir_type *t, int64_t *strides);
/* The lowest and highest element index a view of shape `t` reaches. */
void vir_view_extent(const vir_type *t, const vir_array_attr *a, int64_t *lo, int64_t *hi);
/* A view that is the contiguous row-major layout from element 0. */
bool vir_view_is_identity(const vir_type *t, const vir_array_attr *a);

/* ============================================================= walker */

typedef enum vir_walk_result {
  VIR_WALK_ADVANCE, /* go on, into the op's regions */
  VIR_WALK_SKIP,    /* go on, but not into this op's regions */
  VIR_WALK_STOP,
} vir_walk_result;

typedef vir_walk_result (*vir_walk_fn)(vir_op *op, void *ctx);

/* Visits every op of the region and of its nested regions in program order
 * (pre-order). The callback may unlink or replace the op it is given.
 * Returns false when a callback stopped the walk. */
bool vir_walk_region(vir_region *r, vir_walk_fn fn, void *ctx);
bool vir_walk_module(vir_module *m, vir_walk_fn fn, void *ctx);
/* Every op of one function's body. */
bool vir_walk_func(vir_func *f, vir_walk_fn fn, void *ctx);

/* ============================================================= bounds */

/* An upper bound of unsigned (or bool) scalar `v` from the ops that compute
 * it (lib/IR/bounds.c): `x & k`, `min(x, k)`, `x % k` (constant k > 0),
 * `x >> k`, sums and products that cannot wrap, selects, widening casts, a
 * helper function's returns, and given `m` (may be NULL) a helper's
 * parameter from the arguments of its calls in m. False when nothing is
 * known (then *out is left alone). */
bool vir_uint_upper_bound(const vir_module *m, const vir_value *v, uint64_t *out);

/* ====================================================== text and checks */

/* Parses the textual form. `filename` names `text` in diagnostics. Returns
 * NULL and appends diagnostics (several where possible) on failure. */
vir_module *vir_parse(const char *text, size_t len, const char *filename, vp_diags *diags);

enum {
  VIR_PRINT_NO_LOCS = 1u << 0, /* leave out loc(...) */
};
void vir_print(const vir_module *m, unsigned flags, vp_strbuf *out);
void vir_print_op(const vir_op *op, unsigned flags, vp_strbuf *out); /* one op, for messages */

/* Checks every invariant (docs/ir.md, "Invariants"): types per op rule,
 * operands defined before use in an enclosing region, terminators last,
 * break/continue inside loops, unique bindings and names, std430 push
 * layout, symbol kinds per op, paths, intrinsic arity. Appends one error per
 * violation, located at the op; returns true when there was none. */
bool vir_verify(const vir_module *m, vp_diags *diags);

/* Names for messages and text: "buffer", "workgroup", "acq_rel". */
const char *vir_sym_kind_name(vir_sym_kind k);
const char *vir_scope_name(vir_scope s);
const char *vir_semantics_name(vir_semantics s);

/* Device features a module needs (VP_FEAT(...) bits, see support.h). */
uint32_t vir_module_features(const vir_module *m);

#ifdef __cplusplus
}
#endif
#endif /* VULPY_IR_H */
