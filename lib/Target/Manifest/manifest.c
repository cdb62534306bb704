/* manifest.c - the kernel manifest: YAML in (libyaml's document API), YAML out
 * (hand formatting), clone, free and look-ups.
 *
 * Parsing loads the whole document into libyaml's node tree and walks it with
 * one small reader per field; every error names the YAML line:col of the node
 * at fault and the parse goes on, so one run reports every bad field. The
 * emitter writes one fixed layout (docs/manifest.md), quoting a string only
 * when a plain scalar would read back differently, so emit -> parse -> emit is
 * byte-identical. Every string and array of a vpm_manifest is its own malloc
 * block (the header promises hand-built manifests can be freed the same way).
 */
#include "vulpy/manifest.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ================================================================ parsing */

typedef struct reader {
  yaml_document_t *doc;
  const char *file;
  vp_diags *diags;
  bool oom;
} reader;

static vp_loc node_loc(reader *r, yaml_node_t *n) {
  vp_loc loc = {r->file, 0, 0};
  if (n) {
    loc.line = (uint32_t)n->start_mark.line + 1;
    loc.col = (uint32_t)n->start_mark.column + 1;
  }
  return loc;
}

static void rerror(reader *r, yaml_node_t *n, const char *fmt, ...) VP_PRINTF(3, 4);
static void rerror(reader *r, yaml_node_t *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(r->diags, VP_ERROR, node_loc(r, n), fmt, ap);
  va_end(ap);
}

static const char *node_kind(yaml_node_t *n) {
  switch (n->type) {
  case YAML_SCALAR_NODE: return "a scalar";
  case YAML_SEQUENCE_NODE: return "a list";
  case YAML_MAPPING_NODE: return "a mapping";
  default: return "nothing";
  }
}

static const char *scalar(yaml_node_t *n) { return (const char *)n->data.scalar.value; }

static bool is_plain_null(yaml_node_t *n) {
  if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
    return false;
  const char *s = scalar(n);
  return !*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
         strcmp(s, "NULL") == 0;
}

static char *xstrdup(reader *r, const char *s) {
  char *p = strdup(s);
  if (!p)
    r->oom = true;
  return p;
}

/* string := any scalar */
static char *read_string(reader *r, yaml_node_t *n, const char *what) {
  if (n->type != YAML_SCALAR_NODE) {
    rerror(r, n, "%s: expected a string, found %s", what, node_kind(n));
    return NULL;
  }
  return xstrdup(r, scalar(n));
}

/* name := a non-empty string without control characters */
static char *read_name(reader *r, yaml_node_t *n, const char *what) {
  if (n->type != YAML_SCALAR_NODE || !*scalar(n) || is_plain_null(n)) {
    rerror(r, n, "%s: expected a non-empty name", what);
    return NULL;
  }
  for (const char *p = scalar(n); *p; p++)
    if ((unsigned char)*p < 0x20) {
      rerror(r, n, "%s: control character in name", what);
      return NULL;
    }
  return xstrdup(r, scalar(n));
}

/* uint := plain decimal (or 0x hex) integer in [0, 2^32) */
static bool read_u32(reader *r, yaml_node_t *n, const char *what, uint32_t *out) {
  if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
    rerror(r, n, "%s: expected an unsigned integer, found %s", what,
           n->type == YAML_SCALAR_NODE ? "a quoted string" : node_kind(n));
    return false;
  }
  const char *s = scalar(n);
  char *end;
  errno = 0;
  unsigned long long v = isdigit((unsigned char)s[0]) ? strtoull(s, &end, 0) : 0;
  if (!isdigit((unsigned char)s[0]) || *end || errno || v > UINT32_MAX) {
    rerror(r, n, "%s: expected an unsigned 32-bit integer, found '%s'", what, s);
    return false;
  }
  *out = (uint32_t)v;
  return true;
}

/* Calls `fn` for each key/value pair of a mapping; NULL `n` is allowed. */
typedef void (*pair_fn)(reader *r, const char *key, yaml_node_t *k, yaml_node_t *v, void *ctx);

static bool each_pair(reader *r, yaml_node_t *n, const char *what, pair_fn fn, void *ctx) {
  if (n->type != YAML_MAPPING_NODE) {
    rerror(r, n, "%s: expected a mapping, found %s", what, node_kind(n));
    return false;
  }
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
    yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
    if (k->type != YAML_SCALAR_NODE) {
      rerror(r, k, "%s: keys must be plain names", what);
      continue;
    }
    fn(r, scalar(k), k, v, ctx);
  }
  return true;
}

static uint32_t seq_len(yaml_node_t *n) {
  return (uint32_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

static yaml_node_t *seq_at(reader *r, yaml_node_t *n, uint32_t i) {
  return yaml_document_get_node(r->doc, n->data.sequence.items.start[i]);
}

/* Checks that a mapping has every required key; `seen` is a bit per key. */
static void require_keys(reader *r, yaml_node_t *n, const char *what, const char *const *keys,
                         unsigned nkeys, unsigned seen) {
  for (unsigned i = 0; i < nkeys; i++)
    if (!(seen & (1u << i)))
      rerror(r, n, "%s: missing '%s'", what, keys[i]);
}

static int key_index(const char *key, const char *const *keys, unsigned nkeys) {
  for (unsigned i = 0; i < nkeys; i++)
    if (strcmp(key, keys[i]) == 0)
      return (int)i;
  return -1;
}

/* field := {name: NAME, type: TYPE, offset: UINT, size: UINT} */
static const char *const field_keys[] = {"name", "type", "offset", "size"};

typedef struct field_ctx {
  vpm_field *f;
  const char *what;
  unsigned seen;
} field_ctx;

static void field_pair(reader *r, const char *key, yaml_node_t *k, yaml_node_t *v, void *vctx) {
  field_ctx *c = vctx;
  int i = key_index(key, field_keys, 4);
  if (i < 0) {
    rerror(r, k, "%s: unknown key '%s' (expected name, type, offset, size)", c->what, key);
    return;
  }
  if (c->seen & (1u << i))
    rerror(r, k, "%s: duplicate key '%s'", c->what, key);
  c->seen |= 1u << i;
  switch (i) {
  case 0: free(c->f->name); c->f->name = read_name(r, v, "field name"); break;
  case 1: free(c->f->type); c->f->type = read_name(r, v, "field type"); break;
  case 2: read_u32(r, v, "field offset", &c->f->offset); break;
  case 3: read_u32(r, v, "field size", &c->f->size); break;
  }
}

/* fields := '[' field* ']'; `limit` is the block size the fields must fit in. */
static vpm_field *read_fields(reader *r, yaml_node_t *n, const char *what, uint32_t limit,
                              uint32_t *count) {
  *count = 0;
  if (n->type != YAML_SEQUENCE_NODE) {
    rerror(r, n, "%s: expected a list of fields, found %s", what, node_kind(n));
    return NULL;
  }
  uint32_t len = seq_len(n);
  if (!len)
    return NULL;
  vpm_field *fields = calloc(len, sizeof *fields);
  if (!fields) {
    r->oom = true;
    return NULL;
  }
  *count = len;
  for (uint32_t i = 0; i < len; i++) {
    yaml_node_t *e = seq_at(r, n, i);
    field_ctx c = {&fields[i], what, 0};
    if (!each_pair(r, e, what, field_pair, &c))
      continue;
    require_keys(r, e, what, field_keys, 4, c.seen);
    if ((c.seen & 12) == 12 && (uint64_t)fields[i].offset + fields[i].size > limit)
      rerror(r, e, "%s: field '%s' (offset %u, size %u) does not fit in %u bytes", what,
             fields[i].name ? fields[i].name : "?", fields[i].offset, fields[i].size, limit);
    for (uint32_t j = 0; j < i; j++)
      if (fields[i].name && fields[j].name && strcmp(fields[i].name, fields[j].name) == 0)
        rerror(r, e, "%s: duplicate field '%s'", what, fields[i].name);
  }
  return fields;
}

/* Finds a key in a mapping without the generic walker (for a size that other
 * keys depend on). */
static yaml_node_t *map_get(reader *r, yaml_node_t *n, const char *key) {
  if (n->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
    if (k->type == YAML_SCALAR_NODE && strcmp(scalar(k), key) == 0)
      return yaml_document_get_node(r->doc, p->value);
  }
  return NULL;
}

/* buffer := {name: NAME, set: UINT, binding: UINT, type: TYPE, elem_size: UINT,
 *            access: readwrite|readonly|writeonly} */
static const char *const buffer_keys[] = {"name", "set", "binding", "type", "elem_size", "access"};
static const char *const access_names[] = {"readwrite", "readonly", "writeonly"};

typedef struct buffer_ctx {
  vpm_buffer *b;
  unsigned seen;
} buffer_ctx;

static void buffer_pair(reader *r, const char *key, yaml_node_t *k, yaml_node_t *v, void *vctx) {
  buffer_ctx *c = vctx;
  int i = key_index(key, buffer_keys, 6);
  if (i < 0) {
    rerror(r, k, "buffer: unknown key '%s' (expected name, set, binding, type, elem_size, access)",
           key);
    return;
  }
  if (c->seen & (1u << i))
    rerror(r, k, "buffer: duplicate key '%s'", key);
  c->seen |= 1u << i;
  switch (i) {
  case 0: free(c->b->name); c->b->name = read_name(r, v, "buffer name"); break;
  case 1: read_u32(r, v, "buffer set", &c->b->set); break;
  case 2: read_u32(r, v, "buffer binding", &c->b->binding); break;
  case 3: free(c->b->type); c->b->type = read_name(r, v, "buffer type"); break;
  case 4:
    if (read_u32(r, v, "buffer elem_size", &c->b->elem_size) && c->b->elem_size == 0)
      rerror(r, v, "buffer elem_size: must be positive");
    break;
  case 5: {
    int a = v->type == YAML_SCALAR_NODE ? key_index(scalar(v), access_names, 3) : -1;
    if (a < 0)
      rerror(r, v, "buffer access: expected readwrite, readonly or writeonly");
    else
      c->b->access = (vpm_access)a;
    break;
  }
  }
}

static void read_buffers(reader *r, yaml_node_t *n, vpm_manifest *m) {
  if (n->type != YAML_SEQUENCE_NODE) {
    rerror(r, n, "buffers: expected a list, found %s", node_kind(n));
    return;
  }
  uint32_t len = seq_len(n);
  if (!len)
    return;
  m->buffers = calloc(len, sizeof *m->buffers);
  if (!m->buffers) {
    r->oom = true;
    return;
  }
  m->nbuffers = len;
  for (uint32_t i = 0; i < len; i++) {
    yaml_node_t *e = seq_at(r, n, i);
    vpm_buffer *b = &m->buffers[i];
    buffer_ctx c = {b, 0};
    if (!each_pair(r, e, "buffer", buffer_pair, &c))
      continue;
    /* access defaults to readwrite; everything else is required */
    require_keys(r, e, "buffer", buffer_keys, 5, c.seen);
    for (uint32_t j = 0; j < i; j++) {
      vpm_buffer *o = &m->buffers[j];
      if (b->name && o->name && strcmp(b->name, o->name) == 0)
        rerror(r, e, "buffers: duplicate buffer '%s'", b->name);
      else if ((c.seen & 6) == 6 && b->set == o->set && b->binding == o->binding)
        rerror(r, e, "buffers: '%s' and '%s' both use set %u binding %u", o->name ? o->name : "?",
               b->name ? b->name : "?", b->set, b->binding);
    }
  }
}

/* push_constants := {size: UINT, fields: fields} */
static void read_push(reader *r, yaml_node_t *n, vpm_manifest *m) {
  if (n->type != YAML_MAPPING_NODE) {
    rerror(r, n, "push_constants: expected a mapping with size and fields, found %s", node_kind(n));
    return;
  }
  yaml_node_t *size = map_get(r, n, "size"), *fields = map_get(r, n, "fields");
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
    if (k->type != YAML_SCALAR_NODE ||
        (strcmp(scalar(k), "size") != 0 && strcmp(scalar(k), "fields") != 0))
      rerror(r, k, "push_constants: unknown key (expected size, fields)");
  }
  if (!size) {
    rerror(r, n, "push_constants: missing 'size'");
    return;
  }
  if (!read_u32(r, size, "push_constants size", &m->push_size))
    return;
  if (m->push_size % 4)
    rerror(r, size, "push_constants size: %u is not a multiple of 4", m->push_size);
  if (fields)
    m->push = read_fields(r, fields, "push constant", m->push_size, &m->npush);
}

/* struct := {name: NAME, size: UINT, align: UINT, fields: fields} */
static void read_structs(reader *r, yaml_node_t *n, vpm_manifest *m) {
  if (n->type != YAML_SEQUENCE_NODE) {
    rerror(r, n, "structs: expected a list, found %s", node_kind(n));
    return;
  }
  uint32_t len = seq_len(n);
  if (!len)
    return;
  m->structs = calloc(len, sizeof *m->structs);
  if (!m->structs) {
    r->oom = true;
    return;
  }
  m->nstructs = len;
  static const char *const keys[] = {"name", "size", "align", "fields"};
  for (uint32_t i = 0; i < len; i++) {
    yaml_node_t *e = seq_at(r, n, i);
    vpm_struct *s = &m->structs[i];
    if (e->type != YAML_MAPPING_NODE) {
      rerror(r, e, "struct: expected a mapping, found %s", node_kind(e));
      continue;
    }
    unsigned seen = 0;
    yaml_node_t *fields = NULL;
    for (yaml_node_pair_t *p = e->data.mapping.pairs.start; p < e->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
      yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
      int ki = k->type == YAML_SCALAR_NODE ? key_index(scalar(k), keys, 4) : -1;
      if (ki < 0) {
        rerror(r, k, "struct: unknown key (expected name, size, align, fields)");
        continue;
      }
      seen |= 1u << ki;
      switch (ki) {
      case 0: free(s->name); s->name = read_name(r, v, "struct name"); break;
      case 1: read_u32(r, v, "struct size", &s->size); break;
      case 2: read_u32(r, v, "struct align", &s->align); break;
      case 3: fields = v; break;
      }
    }
    require_keys(r, e, "struct", keys, 4, seen);
    if (fields)
      s->fields = read_fields(r, fields, "struct field", s->size, &s->nfields);
  }
}

/* features := '[' FEATURE-NAME* ']' */
static void read_features(reader *r, yaml_node_t *n, vpm_manifest *m) {
  if (n->type != YAML_SEQUENCE_NODE) {
    rerror(r, n, "features: expected a list, found %s", node_kind(n));
    return;
  }
  for (uint32_t i = 0; i < seq_len(n); i++) {
    yaml_node_t *e = seq_at(r, n, i);
    int bit = e->type == YAML_SCALAR_NODE ? vp_feature_lookup(scalar(e)) : -1;
    if (bit < 0) {
      vp_strbuf known = {0};
      for (unsigned f = 0; f < VP_FEATURE_COUNT; f++)
        vp_strbuf_printf(&known, "%s%s", f ? ", " : "", vp_feature_name(f));
      rerror(r, e, "features: unknown feature '%s'",
             e->type == YAML_SCALAR_NODE ? scalar(e) : node_kind(e));
      vp_diag_hint(r->diags, "known features: %s", known.data ? known.data : "");
      vp_strbuf_free(&known);
      continue;
    }
    m->features |= 1u << bit;
  }
}

/* local_size := '[' UINT (',' UINT (',' UINT)?)? ']' */
static void read_local_size(reader *r, yaml_node_t *n, vpm_manifest *m) {
  if (n->type != YAML_SEQUENCE_NODE || seq_len(n) < 1 || seq_len(n) > 3) {
    rerror(r, n, "local_size: expected a list of 1 to 3 positive integers");
    return;
  }
  for (uint32_t i = 0; i < seq_len(n); i++) {
    yaml_node_t *e = seq_at(r, n, i);
    if (read_u32(r, e, "local_size", &m->local_size[i]) && m->local_size[i] == 0)
      rerror(r, e, "local_size: must be positive");
  }
}

static const char *const top_keys[] = {
    "vulpy_manifest", "kernel",     "entry_point",  "source",   "local_size",     "buffers",
    "push_constants", "structs",    "shared_bytes", "features", "dispatch_guard",
};
enum { NTOP = sizeof top_keys / sizeof top_keys[0] };

static void top_pair(reader *r, const char *key, yaml_node_t *k, yaml_node_t *v, void *vctx) {
  vpm_manifest *m = ((void **)vctx)[0];
  unsigned *seen = ((void **)vctx)[1];
  int i = key_index(key, top_keys, NTOP);
  if (i < 0) {
    /* A newer writer may add fields; say so instead of failing. */
    vp_diag_add(r->diags, VP_WARNING, node_loc(r, k), "unknown manifest key '%s' ignored", key);
    return;
  }
  if (*seen & (1u << i))
    rerror(r, k, "duplicate key '%s'", key);
  *seen |= 1u << i;
  switch (i) {
  case 0: {
    uint32_t version = 0;
    if (read_u32(r, v, "vulpy_manifest", &version) && version != 1)
      rerror(r, v, "vulpy_manifest: version %u is not supported (this reader knows version 1)",
             version);
    break;
  }
  case 1: free(m->kernel); m->kernel = read_name(r, v, "kernel"); break;
  case 2: free(m->entry_point); m->entry_point = read_name(r, v, "entry_point"); break;
  case 3: free(m->source); m->source = is_plain_null(v) ? NULL : read_string(r, v, "source"); break;
  case 4: read_local_size(r, v, m); break;
  case 5: read_buffers(r, v, m); break;
  case 6: read_push(r, v, m); break;
  case 7: read_structs(r, v, m); break;
  case 8: read_u32(r, v, "shared_bytes", &m->shared_bytes); break;
  case 9: read_features(r, v, m); break;
  case 10:
    free(m->dispatch_guard);
    m->dispatch_guard = is_plain_null(v) ? NULL : read_name(r, v, "dispatch_guard");
    break;
  }
}

/* manifest := mapping of the keys in top_keys; vulpy_manifest, kernel,
 * entry_point and local_size are required. */
vpm_manifest *vpm_parse(const char *yaml, size_t len, const char *filename, vp_diags *diags) {
  const char *file = filename ? filename : "<manifest>";
  yaml_parser_t parser;
  yaml_document_t doc;
  if (!yaml_parser_initialize(&parser)) {
    vp_error(diags, ((vp_loc){file, 0, 0}), "out of memory");
    return NULL;
  }
  yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
  if (!yaml_parser_load(&parser, &doc)) {
    yaml_mark_t mark = parser.problem_mark;
    vp_error(diags, ((vp_loc){file, (uint32_t)mark.line + 1, (uint32_t)mark.column + 1}),
             "invalid YAML: %s%s%s", parser.problem ? parser.problem : "parse error",
             parser.context ? " " : "", parser.context ? parser.context : "");
    yaml_parser_delete(&parser);
    return NULL;
  }
  yaml_parser_delete(&parser);

  vpm_manifest *m = calloc(1, sizeof *m);
  reader r = {&doc, file, diags, m == NULL};
  uint32_t errors = diags->nerrors;
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (m && !root) {
    vp_error(diags, ((vp_loc){file, 1, 1}), "empty manifest");
  } else if (m) {
    m->local_size[0] = m->local_size[1] = m->local_size[2] = 1;
    unsigned seen = 0;
    void *ctx[2] = {m, &seen};
    if (each_pair(&r, root, "manifest", top_pair, ctx)) {
      static const char *const required[] = {"vulpy_manifest", "kernel", "entry_point",
                                             "source", "local_size"};
      unsigned need = 1u | 2u | 4u | 16u; /* source is optional */
      for (unsigned i = 0; i < 5; i++)
        if ((need & (1u << i)) && !(seen & (1u << i)))
          rerror(&r, root, "manifest: missing '%s'", required[i]);
    }
    if (m->dispatch_guard) {
      int f = vpm_find_push(m, m->dispatch_guard);
      if (f < 0)
        rerror(&r, root, "dispatch_guard: '%s' is not a push constant field", m->dispatch_guard);
      else if (m->push[f].size != 12 || m->push[f].offset % 4)
        rerror(&r, root, "dispatch_guard: field '%s' must be a vec3<u32> (12 bytes, 4-aligned)",
               m->dispatch_guard);
    }
  }
  yaml_document_delete(&doc);
  if (r.oom)
    vp_error(diags, ((vp_loc){file, 0, 0}), "out of memory while reading the manifest");
  if (r.oom || diags->nerrors != errors) {
    vpm_free(m);
    return NULL;
  }
  return m;
}

/* =============================================================== emitting */

/* A string reads back as itself from a plain scalar when it is made of name
 * characters, does not start like a number or an indicator, and is not one of
 * YAML's words for null and booleans. Anything else is double-quoted. */
static bool plain_ok(const char *s) {
  static const char *const words[] = {"null", "Null", "NULL", "~",     "true",  "True", "TRUE",
                                      "false", "False", "FALSE", "yes", "Yes",  "YES",
                                      "no",   "No",   "NO",   "on",    "On",    "ON",
                                      "off",  "Off",  "OFF",  "y",     "Y",     "n",    "N"};
  if (!*s || !(isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == '/'))
    return false;
  for (const char *p = s; *p; p++)
    if (!(isalnum((unsigned char)*p) || strchr("_./<>-", *p)))
      return false;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strcmp(s, words[i]) == 0)
      return false;
  return true;
}

static void emit_str(vp_strbuf *b, const char *s) {
  if (plain_ok(s)) {
    vp_strbuf_append(b, s);
    return;
  }
  vp_strbuf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      vp_strbuf_printf(b, "\\%c", *p);
    else if (*p == '\n')
      vp_strbuf_append(b, "\\n");
    else if (*p == '\t')
      vp_strbuf_append(b, "\\t");
    else if (*p < 0x20 || *p == 0x7f)
      vp_strbuf_printf(b, "\\x%02x", *p);
    else
      vp_strbuf_putc(b, (char)*p);
  }
  vp_strbuf_putc(b, '"');
}

static void emit_fields(vp_strbuf *b, int indent, const vpm_field *f, uint32_t n) {
  if (!n) {
    vp_strbuf_append(b, " []\n");
    return;
  }
  vp_strbuf_putc(b, '\n');
  for (uint32_t i = 0; i < n; i++) {
    vp_strbuf_indent(b, indent);
    vp_strbuf_append(b, "- {name: ");
    emit_str(b, f[i].name ? f[i].name : "");
    vp_strbuf_append(b, ", type: ");
    emit_str(b, f[i].type ? f[i].type : "");
    vp_strbuf_printf(b, ", offset: %u, size: %u}\n", f[i].offset, f[i].size);
  }
}

char *vpm_emit(const vpm_manifest *m) {
  vp_strbuf b = {0};
  vp_strbuf_append(&b, "vulpy_manifest: 1\nkernel: ");
  emit_str(&b, m->kernel ? m->kernel : "");
  vp_strbuf_append(&b, "\nentry_point: ");
  emit_str(&b, m->entry_point ? m->entry_point : "main");
  vp_strbuf_putc(&b, '\n');
  if (m->source) {
    vp_strbuf_append(&b, "source: ");
    emit_str(&b, m->source);
    vp_strbuf_putc(&b, '\n');
  }
  vp_strbuf_printf(&b, "local_size: [%u, %u, %u]\n", m->local_size[0], m->local_size[1],
                   m->local_size[2]);
  vp_strbuf_append(&b, "buffers:");
  if (!m->nbuffers)
    vp_strbuf_append(&b, " []");
  vp_strbuf_putc(&b, '\n');
  for (uint32_t i = 0; i < m->nbuffers; i++) {
    const vpm_buffer *u = &m->buffers[i];
    vp_strbuf_append(&b, "  - {name: ");
    emit_str(&b, u->name ? u->name : "");
    vp_strbuf_printf(&b, ", set: %u, binding: %u, type: ", u->set, u->binding);
    emit_str(&b, u->type ? u->type : "");
    vp_strbuf_printf(&b, ", elem_size: %u, access: %s}\n", u->elem_size,
                     access_names[u->access <= VPM_WRITEONLY ? u->access : 0]);
  }
  vp_strbuf_printf(&b, "push_constants:\n  size: %u\n  fields:", m->push_size);
  emit_fields(&b, 2, m->push, m->npush);
  vp_strbuf_append(&b, "structs:");
  if (!m->nstructs)
    vp_strbuf_append(&b, " []");
  vp_strbuf_putc(&b, '\n');
  for (uint32_t i = 0; i < m->nstructs; i++) {
    const vpm_struct *s = &m->structs[i];
    vp_strbuf_append(&b, "  - name: ");
    emit_str(&b, s->name ? s->name : "");
    vp_strbuf_printf(&b, "\n    size: %u\n    align: %u\n    fields:", s->size, s->align);
    emit_fields(&b, 3, s->fields, s->nfields);
  }
  vp_strbuf_printf(&b, "shared_bytes: %u\nfeatures: [", m->shared_bytes);
  bool first = true;
  for (unsigned f = 0; f < VP_FEATURE_COUNT; f++)
    if (m->features & (1u << f)) {
      vp_strbuf_printf(&b, "%s%s", first ? "" : ", ", vp_feature_name(f));
      first = false;
    }
  vp_strbuf_append(&b, "]\n");
  if (m->dispatch_guard) {
    vp_strbuf_append(&b, "dispatch_guard: ");
    emit_str(&b, m->dispatch_guard);
    vp_strbuf_putc(&b, '\n');
  }
  return vp_strbuf_take(&b);
}

/* ========================================================= clone and free */

static void free_fields(vpm_field *f, uint32_t n) {
  for (uint32_t i = 0; f && i < n; i++) {
    free(f[i].name);
    free(f[i].type);
  }
  free(f);
}

void vpm_free(vpm_manifest *m) {
  if (!m)
    return;
  free(m->kernel);
  free(m->entry_point);
  free(m->source);
  free(m->dispatch_guard);
  for (uint32_t i = 0; m->buffers && i < m->nbuffers; i++) {
    free(m->buffers[i].name);
    free(m->buffers[i].type);
  }
  free(m->buffers);
  free_fields(m->push, m->npush);
  for (uint32_t i = 0; m->structs && i < m->nstructs; i++) {
    free(m->structs[i].name);
    free_fields(m->structs[i].fields, m->structs[i].nfields);
  }
  free(m->structs);
  free(m);
}

/* strdup that tolerates NULL and records failure. */
static char *dup_opt(const char *s, bool *oom) {
  if (!s)
    return NULL;
  char *p = strdup(s);
  if (!p)
    *oom = true;
  return p;
}

static vpm_field *clone_fields(const vpm_field *f, uint32_t n, bool *oom) {
  if (!n || !f)
    return NULL;
  vpm_field *c = calloc(n, sizeof *c);
  if (!c) {
    *oom = true;
    return NULL;
  }
  for (uint32_t i = 0; i < n; i++) {
    c[i] = f[i];
    c[i].name = dup_opt(f[i].name, oom);
    c[i].type = dup_opt(f[i].type, oom);
  }
  return c;
}

vpm_manifest *vpm_clone(const vpm_manifest *m) {
  vpm_manifest *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  bool oom = false;
  *c = *m;
  c->kernel = dup_opt(m->kernel, &oom);
  c->entry_point = dup_opt(m->entry_point, &oom);
  c->source = dup_opt(m->source, &oom);
  c->dispatch_guard = dup_opt(m->dispatch_guard, &oom);
  c->buffers = NULL;
  c->structs = NULL;
  c->push = clone_fields(m->push, m->npush, &oom);
  if (m->nbuffers && m->buffers) {
    c->buffers = calloc(m->nbuffers, sizeof *c->buffers);
    oom |= !c->buffers;
    for (uint32_t i = 0; c->buffers && i < m->nbuffers; i++) {
      c->buffers[i] = m->buffers[i];
      c->buffers[i].name = dup_opt(m->buffers[i].name, &oom);
      c->buffers[i].type = dup_opt(m->buffers[i].type, &oom);
    }
  }
  if (m->nstructs && m->structs) {
    c->structs = calloc(m->nstructs, sizeof *c->structs);
    oom |= !c->structs;
    for (uint32_t i = 0; c->structs && i < m->nstructs; i++) {
      c->structs[i] = m->structs[i];
      c->structs[i].name = dup_opt(m->structs[i].name, &oom);
      c->structs[i].fields = clone_fields(m->structs[i].fields, m->structs[i].nfields, &oom);
    }
  }
  if (oom) {
    vpm_free(c);
    return NULL;
  }
  return c;
}

/* ================================================================ look-ups */

int vpm_find_buffer(const vpm_manifest *m, const char *name) {
  for (uint32_t i = 0; i < m->nbuffers; i++)
    if (m->buffers[i].name && strcmp(m->buffers[i].name, name) == 0)
      return (int)i;
  return -1;
}

int vpm_find_push(const vpm_manifest *m, const char *name) {
  for (uint32_t i = 0; i < m->npush; i++)
    if (m->push[i].name && strcmp(m->push[i].name, name) == 0)
      return (int)i;
  return -1;
}
