/* manifest_emit.c - the kernel manifest out: YAML (hand formatting), clone,
 * free and look-ups.
 *
 * The emitter writes one fixed layout (docs/manifest.md), quoting a string
 * only when a plain scalar would read back differently, so emit -> parse ->
 * emit is byte-identical. Every string and array of a vpm_manifest is its
 * own malloc block, so hand-built manifests are freed the same way as parsed
 * ones.
 */
#include "vulpy/manifest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const access_names[] = {"readwrite", "readonly", "writeonly"};

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
