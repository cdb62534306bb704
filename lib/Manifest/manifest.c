/* manifest.c - the kernel manifest in: YAML read with libyaml's document API.
 * (manifest_emit.c writes it back, clones, frees and looks things up.)
 *
 * Parsing loads the whole document into libyaml's node tree and walks it with
 * one small reader per field; every error names the YAML line:col of the node
 * at fault and the parse goes on, so one run reports every bad field. Every
 * string and array the parse builds is its own malloc block, as vpm_free
 * expects.
 *
 * Nesting is limited to VPM_MAX_DEPTH levels (a manifest needs four): a
 * first pass over libyaml's events stops at the first node deeper than
 * that, before the document is loaded, because libyaml itself has no limit
 * and its scanner is quadratic in the depth of flow collections (100,000
 * nested '[' took 25 s to load).
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
  if (c->seen & (1u << i)) {
    rerror(r, k, "%s: duplicate key '%s'", c->what, key);
    return; /* reading it again would leak what the first one built */
  }
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
  if (c->seen & (1u << i)) {
    rerror(r, k, "buffer: duplicate key '%s'", key);
    return; /* reading it again would leak what the first one built */
  }
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
  if (*seen & (1u << i)) {
    rerror(r, k, "duplicate key '%s'", key);
    return; /* reading it again would leak what the first one built */
  }
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

/* False (with an error at the node) when a collection opens deeper than
 * VPM_MAX_DEPTH levels. Only the events up to that node are read, so a
 * deep document costs what its first VPM_MAX_DEPTH levels cost; any other
 * problem is left to yaml_parser_load, which reports it. */
static bool depth_ok(const char *yaml, size_t len, const char *file, vp_diags *diags) {
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser))
    return true; /* the load reports the out-of-memory */
  yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
  unsigned depth = 0;
  bool ok = true;
  for (;;) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev))
      break;
    yaml_event_type_t t = ev.type;
    if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
      if (++depth > VPM_MAX_DEPTH) {
        vp_error(diags,
                 ((vp_loc){file, (uint32_t)ev.start_mark.line + 1,
                           (uint32_t)ev.start_mark.column + 1}),
                 "invalid YAML: nesting deeper than %d levels", VPM_MAX_DEPTH);
        ok = false;
      }
    } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
      depth--;
    }
    yaml_event_delete(&ev);
    if (!ok || t == YAML_STREAM_END_EVENT)
      break;
  }
  yaml_parser_delete(&parser);
  return ok;
}

/* manifest := mapping of the keys in top_keys; vulpy_manifest, kernel,
 * entry_point and local_size are required. */
vpm_manifest *vpm_parse(const char *yaml, size_t len, const char *filename, vp_diags *diags) {
  const char *file = filename ? filename : "<manifest>";
  if (!depth_ok(yaml, len, file, diags))
    return NULL;
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
