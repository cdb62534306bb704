/* vulpy-run - runs a SPIR-V kernel with its manifest on .npy arrays.
 *
 *   vulpy-run kernel.spv --manifest k.yaml --buf pos=pos.npy --buf out=zeros:1000
 *             --push N=1000 --dispatch 1000[,Y[,Z]] | --groups X[,Y[,Z]]
 *             --out pos=pos_out.npy [--device SEL] [--local-size X[,Y,Z]] [--time]
 *             [--preserve-denorms] [--exact-float]
 *   vulpy-run --devices [-v]
 *   vulpy-run --manifest k.yaml --print-manifest
 *
 * A thin driver over vulpy_runtime: it reads the inputs, checks them against
 * the manifest (names, element sizes, dtypes, push fields), runs, and writes
 * the outputs. Every mistake is one `error:` line naming the thing at fault.
 * The SPIR-V runs as written unless --preserve-denorms asks the runtime to
 * add DenormPreserve, as it does for VulPy's precise-math kernels (or, where
 * the device cannot keep float32 subnormals, to set VP_DENORM_EMULATE)
 * (docs/runtime.md, "Subnormals"), and unless --exact-float asks it to keep
 * the float arithmetic as written (SignedZeroInfNanPreserve where the device
 * offers it, NoContraction where its compiler rewrites float arithmetic;
 * docs/runtime.md, "Float arithmetic as written"). The context honours the VULPY_*
 * variables through vulpy_runtime_env (include/vulpy/runtime_env.h).
 */
#include "npy.h"
#include "vulpy/runtime.h"
#include "vulpy/runtime_env.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ITEMS 64

typedef struct item {
  const char *name, *value; /* NAME=VALUE, split */
} item;

typedef struct options {
  const char *spirv, *manifest, *device;
  item bufs[MAX_ITEMS], pushes[MAX_ITEMS], outs[MAX_ITEMS];
  int nbufs, npushes, nouts;
  const char *dispatch, *groups, *local_size;
  bool devices, verbose, print_manifest, time, preserve_denorms, exact_float;
} options;

static int error(const char *fmt, ...) VP_PRINTF(1, 2);
static int error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "vulpy-run: error: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 1;
}

static int print_diags(const vp_diags *d, const char *source) {
  char *s = vp_diags_format(d, source);
  fputs(s ? s : "error\n", stderr);
  free(s);
  return 1;
}

static const char usage[] =
    "usage: vulpy-run KERNEL.spv --manifest K.yaml [--buf NAME=FILE.npy|NAME=zeros:COUNT]...\n"
    "                 [--push FIELD=VALUE]... (--dispatch X[,Y[,Z]] | --groups X[,Y[,Z]])\n"
    "                 [--out NAME=FILE.npy]... [--device SELECTOR] [--local-size X[,Y[,Z]]]\n"
    "                 [--time] [--preserve-denorms] [--exact-float]\n"
    "       vulpy-run --devices [-v]\n"
    "       vulpy-run --manifest K.yaml --print-manifest\n"
    "The VULPY_* variables of docs/runtime.md (\"Environment variables\") choose the\n"
    "device (--device wins), validation, the cache folder and the wait.\n";

static bool split_item(const char *arg, const char *flag, item *it) {
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || !eq[1]) {
    error("%s expects NAME=VALUE, got '%s'", flag, arg);
    return false;
  }
  char *name = strndup(arg, (size_t)(eq - arg));
  it->name = name;
  it->value = eq + 1;
  return true;
}

static int parse_args(int argc, char **argv, options *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define VALUE()                                                              \
  ({                                                                         \
    if (!next)                                                               \
      return error("%s needs a value", a) + 1;                               \
    i++;                                                                     \
    next;                                                                    \
  })
    if (strcmp(a, "--devices") == 0) {
      o->devices = true;
    } else if (strcmp(a, "-v") == 0) {
      o->verbose = true;
    } else if (strcmp(a, "--print-manifest") == 0) {
      o->print_manifest = true;
    } else if (strcmp(a, "--time") == 0) {
      o->time = true;
    } else if (strcmp(a, "--preserve-denorms") == 0) {
      o->preserve_denorms = true;
    } else if (strcmp(a, "--exact-float") == 0) {
      o->exact_float = true;
    } else if (strcmp(a, "--manifest") == 0) {
      o->manifest = VALUE();
    } else if (strcmp(a, "--device") == 0) {
      o->device = VALUE();
    } else if (strcmp(a, "--dispatch") == 0) {
      o->dispatch = VALUE();
    } else if (strcmp(a, "--groups") == 0) {
      o->groups = VALUE();
    } else if (strcmp(a, "--local-size") == 0) {
      o->local_size = VALUE();
    } else if (strcmp(a, "--buf") == 0 || strcmp(a, "--push") == 0 || strcmp(a, "--out") == 0) {
      const char *v = VALUE();
      item *list = a[2] == 'b' ? o->bufs : a[2] == 'p' ? o->pushes : o->outs;
      int *n = a[2] == 'b' ? &o->nbufs : a[2] == 'p' ? &o->npushes : &o->nouts;
      if (*n == MAX_ITEMS)
        return error("too many %s options", a) + 1;
      if (!split_item(v, a, &list[*n]))
        return 2;
      (*n)++;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage, stdout);
      return -1;
    } else if (a[0] == '-' && a[1]) {
      fputs(usage, stderr);
      return error("unknown option '%s'", a) + 1;
    } else if (!o->spirv) {
      o->spirv = a;
    } else {
      return error("more than one SPIR-V file ('%s' and '%s')", o->spirv, a) + 1;
    }
#undef VALUE
  }
  return 0;
}

/* A list of 1 to 3 positive integers "X[,Y[,Z]]"; missing ones are 1. */
static bool parse_dims(const char *s, const char *what, uint32_t out[3], bool allow_zero) {
  out[0] = out[1] = out[2] = 1;
  const char *p = s;
  for (int i = 0; i < 3; i++) {
    char *end;
    errno = 0;
    unsigned long long v = isdigit((unsigned char)*p) ? strtoull(p, &end, 10) : 0;
    if (!isdigit((unsigned char)*p) || errno || v > UINT32_MAX || (!v && !allow_zero) ||
        (*end && *end != ',')) {
      error("%s expects 1 to 3 %s integers separated by commas, got '%s'", what,
            allow_zero ? "non-negative" : "positive", s);
      return false;
    }
    out[i] = (uint32_t)v;
    if (!*end)
      return true;
    p = end + 1;
  }
  error("%s expects at most 3 numbers, got '%s'", what, s);
  return false;
}

/* The scalar of a VIR type spelling: f32 -> ('f', 4), vec3<u32> -> ('u', 4,
 * 3 components), bool -> ('b', 4: stored as a 32-bit word); false for
 * structs and other compound types. */
static bool type_scalar(const char *t, char *kind, uint32_t *size, uint32_t *count) {
  *count = 1;
  if ((strncmp(t, "vec", 3) == 0 || strncmp(t, "mat", 3) == 0) && isdigit((unsigned char)t[3]) &&
      t[4] == '<') {
    *count = (uint32_t)(t[3] - '0') * (t[0] == 'm' ? (uint32_t)(t[3] - '0') : 1);
    size_t len = strlen(t);
    if (t[len - 1] != '>')
      return false;
    char inner[16];
    snprintf(inner, sizeof inner, "%.*s", (int)(len - 6), t + 5);
    uint32_t one;
    return type_scalar(inner, kind, size, &one);
  }
  if (strcmp(t, "bool") == 0) {
    *kind = 'b';
    *size = 4;
    return true;
  }
  if ((t[0] == 'f' || t[0] == 'i' || t[0] == 'u') && isdigit((unsigned char)t[1])) {
    unsigned bits = (unsigned)atoi(t + 1);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
      return false;
    *kind = t[0];
    *size = bits / 8;
    return true;
  }
  return false;
}

static const char *kind_word(char kind) {
  switch (kind) {
  case 'f': return "float";
  case 'i': return "int";
  case 'u': return "uint";
  case 'b': return "bool";
  default: return "void";
  }
}

/* Parses one push value into dst as a field of struct code `code` holds
 * it: the manifest library's packer (push_pack.c), the rules vp's
 * PushPacker and the Python Launcher follow too. */
static bool parse_scalar(const char *s, char code, bool is_bool, unsigned char *dst) {
  vpm_value v;
  return vpm_push_parse(code, is_bool, s, &v) && vpm_push_store(code, &v, dst);
}

static bool set_push(const vpm_manifest *m, const item *it, unsigned char *push) {
  int f = vpm_find_push(m, it->name);
  if (f < 0) {
    vp_strbuf names = {0};
    for (uint32_t i = 0; i < m->npush; i++)
      if (!m->dispatch_guard || strcmp(m->push[i].name, m->dispatch_guard) != 0)
        vp_strbuf_printf(&names, "%s%s", names.len ? ", " : "", m->push[i].name);
    error("kernel '%s' has no push constant '%s' (its fields: %s)", m->kernel, it->name,
          names.data ? names.data : "none");
    vp_strbuf_free(&names);
    return false;
  }
  const vpm_field *fd = &m->push[f];
  if (m->dispatch_guard && strcmp(fd->name, m->dispatch_guard) == 0) {
    error("push constant '%s' is the dispatch guard: --dispatch sets it", fd->name);
    return false;
  }
  char kind;
  uint32_t size, count, lanes;
  char code = vpm_push_code(fd->type, &lanes);
  if (!type_scalar(fd->type, &kind, &size, &count) || size * count > fd->size || !code ||
      lanes != count || vpm_push_code_size(code) != size) {
    error("push constant '%s' has type %s, which vulpy-run cannot fill", fd->name, fd->type);
    return false;
  }
  const char *p = it->value;
  for (uint32_t c = 0; c < count; c++) {
    const char *comma = strchr(p, ',');
    char part[128];
    snprintf(part, sizeof part, "%.*s", (int)(comma ? (size_t)(comma - p) : strlen(p)), p);
    if (!parse_scalar(part, code, kind == 'b', push + fd->offset + c * size)) {
      error("push constant '%s' (%s): '%s' is not a valid %s%u value", fd->name, fd->type, part,
            kind_word(kind), size * 8);
      return false;
    }
    if ((comma == NULL) != (c + 1 == count)) {
      error("push constant '%s' (%s) takes %u comma-separated values, got '%s'", fd->name,
            fd->type, count, it->value);
      return false;
    }
    p = comma ? comma + 1 : p;
  }
  return true;
}

/* The array a buffer gives back: the input's dtype and shape, or one made
 * from the manifest's element type. */
static void output_layout(const vpm_buffer *b, uint64_t bytes, const npy_array *input,
                          npy_array *out) {
  memset(out, 0, sizeof *out);
  if (input && input->nbytes == bytes) {
    *out = *input;
    out->data = NULL;
    return;
  }
  char kind;
  uint32_t size, count;
  if (type_scalar(b->type, &kind, &size, &count) && b->elem_size % size == 0) {
    out->kind = kind == 'b' ? 'u' : kind;
    out->itemsize = size;
    uint32_t cols = b->elem_size / size; /* vec3 rows carry their padding */
    out->ndim = cols > 1 ? 2 : 1;
    out->shape[0] = bytes / b->elem_size;
    out->shape[1] = cols;
  } else {
    out->kind = 'V';
    out->itemsize = b->elem_size;
    out->ndim = 1;
    out->shape[0] = bytes / b->elem_size;
  }
  out->nbytes = bytes;
}

static int list_devices(bool verbose) {
  vp_diags d = {0};
  vrt_device_info *devs;
  uint32_t n;
  if (!vrt_env_loader_open(&d) || !vrt_list_devices(&devs, &n, &d)) {
    print_diags(&d, NULL);
    vp_diags_free(&d);
    return 1;
  }
  vp_strbuf s = {0};
  for (uint32_t i = 0; i < n; i++)
    vrt_device_format(&devs[i], verbose, &s);
  fputs(s.data ? s.data : "", stdout);
  vp_strbuf_free(&s);
  free(devs);
  vp_diags_free(&d);
  return 0;
}

static vpm_manifest *read_manifest(const char *path) {
  size_t len;
  char *text = vp_read_file(path, &len);
  if (!text) {
    error("cannot read manifest '%s': %s", path, strerror(errno));
    return NULL;
  }
  vp_diags d = {0};
  vpm_manifest *m = vpm_parse(text, len, strcmp(path, "-") == 0 ? "<stdin>" : path, &d);
  if (!m || d.count)
    print_diags(&d, text);
  vp_diags_free(&d);
  free(text);
  return m;
}

typedef struct run_state {
  const vpm_manifest *m;
  npy_array inputs[MAX_ITEMS];
  uint64_t sizes[MAX_ITEMS];
  bool given[MAX_ITEMS];
  vrt_buffer *bufs[MAX_ITEMS];
} run_state;

/* Reads every --buf into st; false after printing the error. */
static bool read_buffers(const options *o, run_state *st) {
  const vpm_manifest *m = st->m;
  for (int i = 0; i < o->nbufs; i++) {
    const item *it = &o->bufs[i];
    int b = vpm_find_buffer(m, it->name);
    if (b < 0) {
      vp_strbuf names = {0};
      for (uint32_t k = 0; k < m->nbuffers; k++)
        vp_strbuf_printf(&names, "%s%s", k ? ", " : "", m->buffers[k].name);
      error("kernel '%s' has no buffer '%s' (its buffers: %s)", m->kernel, it->name,
            names.data ? names.data : "none");
      vp_strbuf_free(&names);
      return false;
    }
    if (st->given[b])
      return error("buffer '%s' is given twice", it->name), false;
    st->given[b] = true;
    const vpm_buffer *vb = &m->buffers[b];
    if (strncmp(it->value, "zeros:", 6) == 0) {
      char *end;
      errno = 0;
      unsigned long long n = strtoull(it->value + 6, &end, 10);
      if (end == it->value + 6 || *end || errno || n > (1ull << 40) / vb->elem_size)
        return error("buffer '%s': 'zeros:COUNT' needs a count of elements, got '%s'", it->name,
                     it->value), false;
      st->sizes[b] = n * vb->elem_size;
      continue;
    }
    char err[512];
    npy_array *a = &st->inputs[b];
    if (!npy_read(it->value, a, err, sizeof err))
      return error("%s", err), false;
    st->sizes[b] = a->nbytes;
    if (a->nbytes % vb->elem_size)
      return error("%s holds %llu bytes, not a whole number of %u-byte elements of buffer "
                   "'%s' (%s)", it->value, (unsigned long long)a->nbytes, vb->elem_size,
                   vb->name, vb->type), false;
    char kind;
    uint32_t size, count;
    if (type_scalar(vb->type, &kind, &size, &count) && a->kind != 'V' &&
        !(a->kind == kind && a->itemsize == size) && !(kind == 'b' && a->itemsize == 4)) {
      char descr[32];
      npy_descr(a, descr, sizeof descr);
      return error("%s has dtype %s%u ('%s') but buffer '%s' holds %s", it->value,
                   kind_word(a->kind), a->itemsize * 8, descr, vb->name, vb->type), false;
    }
  }
  for (uint32_t b = 0; b < m->nbuffers; b++)
    if (!st->given[b])
      return error("buffer '%s' is not given: add --buf %s=FILE.npy or --buf %s=zeros:COUNT",
                   m->buffers[b].name, m->buffers[b].name, m->buffers[b].name), false;
  return true;
}

static int run(const options *o) {
  if (!o->spirv)
    return error("no SPIR-V file given (vulpy-run KERNEL.spv --manifest K.yaml ...)");
  if (!o->manifest)
    return error("no manifest given (--manifest K.yaml)");
  if (!o->dispatch == !o->groups)
    return error(o->dispatch ? "give --dispatch or --groups, not both"
                             : "give the grid with --dispatch COUNT[,Y,Z] or --groups X[,Y,Z]");
  uint32_t grid[3], local[3] = {0, 0, 0};
  if (!parse_dims(o->dispatch ? o->dispatch : o->groups, o->dispatch ? "--dispatch" : "--groups",
                  grid, true) ||
      (o->local_size && !parse_dims(o->local_size, "--local-size", local, false)))
    return 1;
  size_t spv_len;
  char *spv = vp_read_file(o->spirv, &spv_len);
  if (!spv)
    return error("cannot read SPIR-V '%s': %s", o->spirv, strerror(errno));
  vpm_manifest *m = read_manifest(o->manifest);
  if (!m) {
    free(spv);
    return 1;
  }
  run_state st;
  memset(&st, 0, sizeof st);
  st.m = m;
  int rc = 1;
  unsigned char push[512] = {0};
  bool ok = m->nbuffers <= MAX_ITEMS && read_buffers(o, &st);
  for (int i = 0; ok && i < o->npushes; i++)
    ok = set_push(m, &o->pushes[i], push);
  for (int i = 0; ok && i < o->nouts; i++)
    if (vpm_find_buffer(m, o->outs[i].name) < 0)
      ok = !error("--out: kernel '%s' has no buffer '%s'", m->kernel, o->outs[i].name);

  vp_diags d = {0};
  vrt_context *ctx = NULL;
  vrt_kernel *k = NULL;
  if (ok) {
    /* --device wins over VULPY_DEVICE; the other VULPY_* variables apply */
    vrt_context_options copt = {.device = o->device, .validation = -1};
    vrt_env env;
    ctx = vrt_env_context_options(&copt, &env, &d) ? vrt_context_create(&copt, &d) : NULL;
    if (!ctx)
      vrt_env_note(&env, &d);
    vrt_kernel_options kopt = {{local[0], local[1], local[2]}, false, o->preserve_denorms,
                               o->exact_float};
    k = ctx ? vrt_kernel_create(ctx, spv, spv_len, m, &kopt, &d) : NULL;
    ok = k != NULL;
  }
  for (uint32_t b = 0; ok && b < m->nbuffers; b++) {
    st.bufs[b] = vrt_buffer_create(ctx, st.sizes[b], VRT_DEVICE, &d);
    ok = st.bufs[b] && (!st.inputs[b].data ||
                        vrt_buffer_upload(st.bufs[b], 0, st.inputs[b].data, st.sizes[b], &d));
  }
  if (ok) {
    vrt_args args = {st.bufs, m->nbuffers, push, m->push_size};
    vrt_grid g = o->dispatch ? vrt_invocations(grid[0], grid[1], grid[2])
                             : vrt_groups(grid[0], grid[1], grid[2]);
    double ns = 0;
    ok = o->time && vrt_context_device(ctx)->timestamps ? vrt_dispatch_timed(k, &args, g, &ns, &d)
                                                        : vrt_dispatch(k, &args, g, &d);
    if (ok && o->time)
      printf("gpu time: %.3f us\n", ns / 1000.0);
  }
  for (int i = 0; ok && i < o->nouts; i++) {
    int b = vpm_find_buffer(m, o->outs[i].name);
    npy_array out;
    output_layout(&m->buffers[b], st.sizes[b], st.inputs[b].data ? &st.inputs[b] : NULL, &out);
    out.data = malloc(out.nbytes ? out.nbytes : 1);
    char err[512];
    ok = out.data && vrt_buffer_download(st.bufs[b], 0, out.data, out.nbytes, &d);
    if (ok && !npy_write(o->outs[i].value, &out, err, sizeof err))
      ok = !error("%s", err);
    npy_free(&out);
  }
  if (ctx && d.nerrors == 0)
    vrt_context_take_validation(ctx, &d);
  if (d.count)
    print_diags(&d, NULL);
  else if (ok)
    rc = 0;
  vrt_kernel_destroy(k);
  if (ctx) {
    vp_diags vd = {0};
    if (vrt_context_destroy_checked(ctx, &vd)) {
      print_diags(&vd, NULL);
      rc = 1;
    }
    vp_diags_free(&vd);
  }
  for (int i = 0; i < MAX_ITEMS; i++)
    npy_free(&st.inputs[i]);
  vp_diags_free(&d);
  vpm_free(m);
  free(spv);
  return rc;
}

int main(int argc, char **argv) {
  options o;
  memset(&o, 0, sizeof o);
  int rc = parse_args(argc, argv, &o);
  if (rc == 0) {
    if (o.devices) {
      rc = list_devices(o.verbose);
    } else if (o.print_manifest) {
      vpm_manifest *m = o.manifest ? read_manifest(o.manifest) : NULL;
      if (!o.manifest)
        rc = error("--print-manifest needs --manifest K.yaml");
      else if (!m)
        rc = 1;
      else {
        char *text = vpm_emit(m);
        fputs(text ? text : "", stdout);
        free(text);
        vpm_free(m);
      }
    } else {
      rc = run(&o);
    }
  } else if (rc < 0) {
    rc = 0; /* --help */
  }
  for (int i = 0; i < o.nbufs; i++)
    free((char *)o.bufs[i].name);
  for (int i = 0; i < o.npushes; i++)
    free((char *)o.pushes[i].name);
  for (int i = 0; i < o.nouts; i++)
    free((char *)o.outs[i].name);
  return rc;
}
