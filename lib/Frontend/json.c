/* json.c - the AST document (JSON) into a tree of vfe_node, with libyaml.
 *
 * JSON is YAML, so libyaml's event parser reads it; this file turns the
 * events into nodes with an explicit stack (no recursion, so a deeply
 * nested document cannot overflow the C stack) and holds YAML to JSON's
 * rules where YAML is looser: plain scalars must be null, true, false or a
 * JSON number; anchors, aliases and tags are refused; keys are strings.
 * Every node remembers its JSON line:col, and an object's "_type" and
 * Python location fields are lifted into the node itself.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "fe.h"

enum { MAX_DEPTH = 2000 };

static const char *const ast_names[VFE_AST_COUNT] = {
    "?",
#define VFE_AST_NAME(N) #N,
    VFE_AST_CLASSES(VFE_AST_NAME)
#undef VFE_AST_NAME
};

const char *vfe_ast_name(vfe_ast a) { return a < VFE_AST_COUNT ? ast_names[a] : "?"; }

static vfe_ast ast_lookup(const char *s) {
  /* ~100 names, looked up once per object: a scan that compares first
   * characters before strcmp costs little next to libyaml's own work. */
  for (unsigned i = 1; i < VFE_AST_COUNT; i++)
    if (ast_names[i][0] == s[0] && strcmp(ast_names[i], s) == 0)
      return (vfe_ast)i;
  return VFE_AST_OTHER;
}

/* A container being filled: entries collect in a growable array and move
 * into the node when it closes. */
typedef struct frame {
  vfe_node *node;
  const char *key; /* OBJ: the key waiting for its value */
  vp_ptrvec keys, vals;
} frame;

typedef struct reader {
  vp_arena *arena;
  vp_diags *diags;
  const char *name;
  const char *text;
  size_t len;
  frame *stack;
  uint32_t depth, cap;
  bool oom;
} reader;

static void jerror(reader *r, const yaml_mark_t *mark, const char *fmt, const char *arg) {
  vp_loc loc = {r->name, (uint32_t)mark->line + 1, (uint32_t)mark->column + 1};
  if (mark->index >= r->len) {
    /* libyaml places the end of the stream past a final line break it
     * imagines; a truncated document is reported where its text ends */
    uint32_t line = 1, col = 1;
    for (size_t i = 0; i < r->len; i++) {
      if (r->text[i] == '\n') {
        line++;
        col = 1;
      } else if (((unsigned char)r->text[i] & 0xC0) != 0x80) {
        col++;
      }
    }
    loc.line = line;
    loc.col = col;
  }
  vp_diag_add(r->diags, VP_ERROR, loc, fmt, arg);
}

/* JSON's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number(const char *s, bool *is_int) {
  const char *p = s;
  *is_int = true;
  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if (*p >= '1' && *p <= '9')
    while (*p >= '0' && *p <= '9')
      p++;
  else
    return false;
  if (*p == '.') {
    *is_int = false;
    p++;
    if (!(*p >= '0' && *p <= '9'))
      return false;
    while (*p >= '0' && *p <= '9')
      p++;
  }
  if (*p == 'e' || *p == 'E') {
    *is_int = false;
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (!(*p >= '0' && *p <= '9'))
      return false;
    while (*p >= '0' && *p <= '9')
      p++;
  }
  return *p == 0;
}

/* A scalar event as a node; NULL after an error. */
static vfe_node *scalar(reader *r, const yaml_event_t *e) {
  vfe_node *n = vp_arena_alloc(r->arena, sizeof *n);
  if (!n)
    return NULL;
  const char *v = (const char *)e->data.scalar.value;
  size_t len = e->data.scalar.length;
  n->jline = (uint32_t)e->start_mark.line + 1;
  n->jcol = (uint32_t)e->start_mark.column + 1;
  if (e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
    if (e->data.scalar.style != YAML_DOUBLE_QUOTED_SCALAR_STYLE) {
      jerror(r, &e->start_mark, "malformed JSON: %s", "strings take double quotes");
      return NULL;
    }
    n->kind = VFE_J_STR;
    n->len = (uint32_t)len;
    n->s = vp_arena_strndup(r->arena, v, len);
    return n->s ? n : NULL;
  }
  if (strcmp(v, "null") == 0) {
    n->kind = VFE_J_NULL;
    return n;
  }
  if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
    n->kind = VFE_J_BOOL;
    n->b = v[0] == 't';
    return n;
  }
  bool is_int;
  if (!json_number(v, &is_int)) {
    jerror(r, &e->start_mark, "malformed JSON: unexpected '%.40s'", v);
    return NULL;
  }
  errno = 0;
  if (is_int && v[0] == '-') {
    n->kind = VFE_J_INT;
    n->i = strtoll(v, NULL, 10);
  } else if (is_int) {
    n->kind = VFE_J_INT;
    n->u = strtoull(v, NULL, 10);
    n->big = n->u > (uint64_t)INT64_MAX;
  } else {
    n->kind = VFE_J_FLOAT;
    n->f = strtod(v, NULL); /* exact: the dump writes repr() */
    if (isinf(n->f))
      errno = ERANGE;
    else
      errno = 0; /* underflow to a denormal or zero is the correct rounding */
  }
  if (errno == ERANGE) {
    /* Kept as data: the translator reports it where the literal is used,
     * with the Python location. Marked by a string. */
    n->kind = VFE_J_STR;
    n->s = "<out of range number>";
    n->len = (uint32_t)strlen(n->s);
    n->big = true;
  }
  return n;
}

static bool push_frame(reader *r, vfe_node *node) {
  if (r->depth == r->cap) {
    uint32_t cap = r->cap ? r->cap * 2 : 64;
    frame *s = realloc(r->stack, cap * sizeof *s);
    if (!s)
      return false;
    r->stack = s;
    r->cap = cap;
  }
  frame *f = &r->stack[r->depth++];
  memset(f, 0, sizeof *f);
  f->node = node;
  return true;
}

static uint32_t loc_field(const vfe_node *v) {
  if (!v || v->kind != VFE_J_INT || v->big || v->i < 0 || v->i > UINT32_MAX - 1)
    return 0;
  return (uint32_t)v->i;
}

/* Moves a closed container's entries into its node; lifts "_type" and
 * the Python location of an object. */
static bool close_frame(reader *r, frame *f) {
  vfe_node *n = f->node;
  n->len = f->vals.len;
  n->items = (vfe_node **)f->vals.data;
  if (n->kind != VFE_J_OBJ)
    return true;
  n->keys = (const char **)f->keys.data;
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n->len; i++) {
    const char *k = n->keys[i];
    vfe_node *v = n->items[i];
    if (k[0] == '_' && strcmp(k, "_type") == 0 && v->kind == VFE_J_STR) {
      n->type_name = v->s;
      n->ast = (uint8_t)ast_lookup(v->s);
    } else if (k[0] == 'l' && strcmp(k, "lineno") == 0) {
      n->line = loc_field(v);
    } else if (k[0] == 'c' && strcmp(k, "col_offset") == 0) {
      n->col = loc_field(v) + 1; /* Python's 0-based byte offset -> 1-based */
    } else if (k[0] == 'e' && strcmp(k, "end_lineno") == 0) {
      n->end_line = loc_field(v);
    } else if (k[0] == 'e' && strcmp(k, "end_col_offset") == 0) {
      n->end_col = loc_field(v) + 1;
    } else {
      n->keys[kept] = k;
      n->items[kept] = v;
      kept++;
    }
  }
  n->len = kept;
  return true;
}

/* Adds a finished value to the container on top of the stack. */
static bool add_value(reader *r, vfe_node *v, vfe_node **root, const yaml_event_t *e) {
  if (r->depth == 0) {
    *root = v;
    return true;
  }
  frame *f = &r->stack[r->depth - 1];
  if (f->node->kind == VFE_J_LIST)
    return vp_ptrvec_push(r->arena, &f->vals, v);
  if (!f->key) {
    if (v->kind != VFE_J_STR) {
      jerror(r, &e->start_mark, "malformed JSON: %s", "object keys must be strings");
      return false;
    }
    f->key = v->s;
    return true;
  }
  bool ok = vp_ptrvec_push(r->arena, &f->keys, (void *)f->key) &&
            vp_ptrvec_push(r->arena, &f->vals, v);
  f->key = NULL;
  return ok;
}

vfe_node *vfe_json_read(vp_arena *arena, const char *text, size_t len, const char *json_name,
                        vp_diags *diags) {
  reader r = {.arena = arena, .diags = diags, .name = json_name, .text = text, .len = len};
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p)) {
    vp_error(diags, vfe_file_loc(json_name), "out of memory");
    return NULL;
  }
  yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
  yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
  vfe_node *root = NULL;
  bool ok = true, done = false;
  uint32_t docs = 0;
  while (ok && !done) {
    yaml_event_t e;
    if (!yaml_parser_parse(&p, &e)) {
      if (p.error == YAML_MEMORY_ERROR) {
        r.oom = true;
      } else {
        /* "did not find expected ',' or '}'" and the like, at the spot. */
        jerror(&r, &p.problem_mark, "malformed JSON: %s", p.problem ? p.problem : "syntax error");
        if (p.context)
          vp_diag_hint(diags, "%s (line %zu)", p.context, p.context_mark.line + 1);
      }
      ok = false;
      break;
    }
    vfe_node *n = NULL;
    switch (e.type) {
    case YAML_STREAM_START_EVENT:
    case YAML_DOCUMENT_END_EVENT:
      break;
    case YAML_DOCUMENT_START_EVENT:
      if (++docs > 1) {
        jerror(&r, &e.start_mark, "malformed JSON: %s", "more than one document");
        ok = false;
      }
      break;
    case YAML_STREAM_END_EVENT:
      done = true;
      break;
    case YAML_ALIAS_EVENT:
      jerror(&r, &e.start_mark, "malformed JSON: %s", "YAML aliases are not JSON");
      ok = false;
      break;
    case YAML_SCALAR_EVENT:
      if (e.data.scalar.anchor || (e.data.scalar.tag && !e.data.scalar.plain_implicit &&
                                   !e.data.scalar.quoted_implicit)) {
        jerror(&r, &e.start_mark, "malformed JSON: %s", "YAML anchors and tags are not JSON");
        ok = false;
        break;
      }
      n = scalar(&r, &e);
      ok = n && add_value(&r, n, &root, &e);
      break;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
      bool map = e.type == YAML_MAPPING_START_EVENT;
      if ((map ? e.data.mapping_start.anchor : e.data.sequence_start.anchor) ||
          (map ? e.data.mapping_start.tag : e.data.sequence_start.tag)) {
        jerror(&r, &e.start_mark, "malformed JSON: %s", "YAML anchors and tags are not JSON");
        ok = false;
        break;
      }
      if (r.depth >= MAX_DEPTH) {
        jerror(&r, &e.start_mark, "malformed JSON: %s", "nested too deeply");
        ok = false;
        break;
      }
      if (r.depth && r.stack[r.depth - 1].node->kind == VFE_J_OBJ && !r.stack[r.depth - 1].key) {
        jerror(&r, &e.start_mark, "malformed JSON: %s", "object keys must be strings");
        ok = false;
        break;
      }
      n = vp_arena_alloc(arena, sizeof *n);
      if (!n || !push_frame(&r, n)) {
        r.oom = true;
        ok = false;
        break;
      }
      n->kind = map ? VFE_J_OBJ : VFE_J_LIST;
      n->jline = (uint32_t)e.start_mark.line + 1;
      n->jcol = (uint32_t)e.start_mark.column + 1;
      break;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
      frame f = r.stack[--r.depth];
      ok = close_frame(&r, &f) && add_value(&r, f.node, &root, &e);
      if (!ok && !diags->nerrors)
        r.oom = true;
      break;
    }
    case YAML_NO_EVENT:
      done = true;
      break;
    }
    yaml_event_delete(&e);
  }
  if (r.oom)
    vp_error(diags, vfe_file_loc(json_name), "out of memory reading the JSON");
  if (ok && !root) {
    vp_loc loc = {json_name, 1, 1};
    vp_error(diags, loc, "malformed JSON: the document is empty");
    ok = false;
  }
  yaml_parser_delete(&p);
  free(r.stack);
  return ok ? root : NULL;
}

/* ------------------------------------------------------------ accessors */

vfe_node *vfe_get(const vfe_node *obj, const char *key) {
  if (!obj || obj->kind != VFE_J_OBJ)
    return NULL;
  for (uint32_t i = 0; i < obj->len; i++)
    if (strcmp(obj->keys[i], key) == 0)
      return obj->items[i]->kind == VFE_J_NULL ? NULL : obj->items[i];
  return NULL;
}

const char *vfe_get_str(const vfe_node *obj, const char *key) {
  vfe_node *v = vfe_get(obj, key);
  return v && v->kind == VFE_J_STR ? v->s : NULL;
}

vfe_node **vfe_get_list(const vfe_node *obj, const char *key, uint32_t *n) {
  vfe_node *v = vfe_get(obj, key);
  if (!v || v->kind != VFE_J_LIST) {
    *n = 0;
    return NULL;
  }
  *n = v->len;
  return v->items;
}
