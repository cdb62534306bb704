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

/* ------------------------------------------------------- known strings */

/* The object keys of Python's ast (and of the document's header) and the
 * ast class names, found by one hash probe: a key that is one of them is
 * not copied (the node points at the table's string), a "_type" gives its
 * class at once, and the location keys are recognized without strcmp. */
enum {
  KEY_OTHER,
  KEY_TYPE,     /* "_type" */
  KEY_LINENO,   /* "lineno" */
  KEY_COL,      /* "col_offset" */
  KEY_END_LINE, /* "end_lineno" */
  KEY_END_COL,  /* "end_col_offset" */
  KEY_PLAIN,    /* another known key */
};

static const char *const plain_keys[] = {
    "ctx", "id", "value", "body", "args", "targets", "func", "keywords", "attr", "left", "right",
    "op", "ops", "comparators", "slice", "elts", "annotation", "arg", "name", "orelse", "test",
    "target", "iter", "decorator_list", "returns", "kind", "values", "operand", "type_ignores",
    "simple", "level", "module", "names", "asname", "bases", "posonlyargs", "kwonlyargs",
    "kw_defaults", "defaults", "vararg", "kwarg", "lower", "upper", "step", "msg", "type_comment",
    "_vulpy_ast", "filename", "source", "kernel", "options", "constants"};

enum { KNOWN_SIZE = 512 };
typedef struct known {
  const char *s; /* NULL: empty */
  uint32_t len;
  uint8_t key;   /* KEY_* when it is a key */
  uint8_t ast;   /* vfe_ast when it is a class name, else 0 */
} known;

/* Length and three characters: enough to spread ~150 names (the probe
 * compares the whole string). */
static uint32_t known_hash(const char *s, size_t len) {
  if (!len)
    return 0;
  uint32_t h = (uint32_t)len * 0x9e3779b1u ^ (unsigned char)s[0] * 0x85ebca6bu ^
               (unsigned char)s[len - 1] * 0xc2b2ae35u ^ (unsigned char)s[len / 2] * 0x27d4eb2fu;
  return h ^ (h >> 13);
}

static known *known_find(known *t, const char *s, size_t len) {
  for (uint32_t i = known_hash(s, len) & (KNOWN_SIZE - 1);; i = (i + 1) & (KNOWN_SIZE - 1))
    if (!t[i].s || (t[i].len == len && memcmp(t[i].s, s, len) == 0))
      return &t[i];
}

static void known_add(known *t, const char *s, uint8_t key, uint8_t ast) {
  known *k = known_find(t, s, strlen(s));
  if (!k->s)
    *k = (known){s, (uint32_t)strlen(s), 0, 0};
  if (key)
    k->key = key;
  if (ast)
    k->ast = ast;
}

static void known_init(known *t) {
  memset(t, 0, KNOWN_SIZE * sizeof *t);
  known_add(t, "_type", KEY_TYPE, 0);
  known_add(t, "lineno", KEY_LINENO, 0);
  known_add(t, "col_offset", KEY_COL, 0);
  known_add(t, "end_lineno", KEY_END_LINE, 0);
  known_add(t, "end_col_offset", KEY_END_COL, 0);
  for (size_t i = 0; i < sizeof plain_keys / sizeof *plain_keys; i++)
    known_add(t, plain_keys[i], KEY_PLAIN, 0);
  for (unsigned i = 1; i < VFE_AST_COUNT; i++)
    known_add(t, ast_names[i], 0, (uint8_t)i);
}

/* ----------------------------------------------------------- the reader */

/* A container being filled: its entries wait on the reader's stack (one
 * growable array for the whole document) and move into the node, in one
 * arena allocation of the exact size, when it closes. */
typedef struct frame {
  vfe_node *node;
  uint32_t start;   /* its first entry on the stack */
  const char *key;  /* OBJ: the key waiting for its value */
  uint8_t key_kind; /* KEY_* of that key */
} frame;

typedef struct reader {
  vp_arena *arena;
  vp_diags *diags;
  const char *name;
  const char *text;
  size_t len;
  frame *stack;
  uint32_t depth, cap;
  const char **pkeys; /* pending entries of the open containers */
  vfe_node **pvals;
  uint32_t npend, pcap;
  known *known;
  known *last;  /* the table entry of the last string scalar, or NULL */
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

/* A scalar event as a node; NULL after an error. A string that is a known
 * key or class name points at the table's copy. */
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
    known *k = len <= 32 ? known_find(r->known, v, len) : NULL;
    r->last = k && k->s ? k : NULL;
    n->s = r->last ? k->s : vp_arena_strndup(r->arena, v, len);
    return n->s ? n : NULL;
  }
  /* numbers first: they are most of the plain scalars (locations) */
  if (v[0] >= '0' && v[0] <= '9' && len <= 18) {
    uint64_t x = 0;
    size_t i = 0;
    while (i < len && v[i] >= '0' && v[i] <= '9')
      x = x * 10 + (uint64_t)(v[i++] - '0');
    if (i == len && (v[0] != '0' || len == 1)) {
      n->kind = VFE_J_INT;
      n->u = x;
      return n;
    }
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
  r->stack[r->depth++] = (frame){.node = node, .start = r->npend};
  return true;
}

static bool push_entry(reader *r, const char *key, vfe_node *v) {
  if (r->npend == r->pcap) {
    uint32_t cap = r->pcap ? r->pcap * 2 : 256;
    const char **k = realloc(r->pkeys, cap * sizeof *k);
    if (k)
      r->pkeys = k;
    vfe_node **vv = realloc(r->pvals, cap * sizeof *vv);
    if (vv)
      r->pvals = vv;
    if (!k || !vv)
      return false;
    r->pcap = cap;
  }
  r->pkeys[r->npend] = key;
  r->pvals[r->npend++] = v;
  return true;
}

static uint32_t loc_field(const vfe_node *v) {
  if (!v || v->kind != VFE_J_INT || v->big || v->i < 0 || v->i > UINT32_MAX - 1)
    return 0;
  return (uint32_t)v->i;
}

/* Moves a closed container's entries into its node. */
static bool close_frame(reader *r, frame *f) {
  vfe_node *n = f->node;
  uint32_t count = r->npend - f->start;
  n->len = count;
  if (count) {
    n->items = vp_arena_alloc(r->arena, count * sizeof *n->items);
    if (!n->items)
      return false;
    memcpy(n->items, r->pvals + f->start, count * sizeof *n->items);
    if (n->kind == VFE_J_OBJ) {
      n->keys = vp_arena_alloc(r->arena, count * sizeof *n->keys);
      if (!n->keys)
        return false;
      memcpy((void *)n->keys, r->pkeys + f->start, count * sizeof *n->keys);
    }
  }
  r->npend = f->start;
  return true;
}

/* Adds a finished value to the container on top of the stack; an object's
 * "_type" and Python location are lifted into the node itself. */
static bool add_value(reader *r, vfe_node *v, vfe_node **root, const yaml_event_t *e) {
  if (r->depth == 0) {
    *root = v;
    return true;
  }
  frame *f = &r->stack[r->depth - 1];
  if (f->node->kind == VFE_J_LIST)
    return push_entry(r, NULL, v);
  if (!f->key) {
    if (v->kind != VFE_J_STR) {
      jerror(r, &e->start_mark, "malformed JSON: %s", "object keys must be strings");
      return false;
    }
    f->key = v->s;
    f->key_kind = r->last && r->last->s == v->s ? r->last->key : KEY_OTHER;
    return true;
  }
  vfe_node *n = f->node;
  const char *key = f->key;
  uint8_t kind = f->key_kind;
  f->key = NULL;
  switch (kind) {
  case KEY_TYPE:
    if (v->kind != VFE_J_STR)
      break;
    n->type_name = v->s;
    n->ast = r->last && r->last->s == v->s ? r->last->ast : VFE_AST_OTHER;
    return true;
  case KEY_LINENO: n->line = loc_field(v); return true;
  case KEY_COL: n->col = loc_field(v) + 1; return true; /* 0-based byte offset -> 1-based */
  case KEY_END_LINE: n->end_line = loc_field(v); return true;
  case KEY_END_COL: n->end_col = loc_field(v) + 1; return true;
  default: break;
  }
  return push_entry(r, key, v);
}

vfe_node *vfe_json_read(vp_arena *arena, const char *text, size_t len, const char *json_name,
                        vp_diags *diags) {
  reader r = {.arena = arena, .diags = diags, .name = json_name, .text = text, .len = len};
  r.known = vp_arena_alloc(arena, KNOWN_SIZE * sizeof *r.known);
  yaml_parser_t p;
  if (!r.known || !yaml_parser_initialize(&p)) {
    vp_error(diags, vfe_file_loc(json_name), "out of memory");
    return NULL;
  }
  known_init(r.known);
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
      if (n && !ok && !diags->nerrors)
        r.oom = true;
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
  free(r.pkeys);
  free(r.pvals);
  return ok ? root : NULL;
}

/* ------------------------------------------------------------ accessors */

vfe_node *vfe_get(const vfe_node *obj, const char *key) {
  if (!obj || obj->kind != VFE_J_OBJ)
    return NULL;
  for (uint32_t i = 0; i < obj->len; i++)
    if (obj->keys[i][0] == key[0] && strcmp(obj->keys[i], key) == 0)
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
