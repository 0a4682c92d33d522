/*
 * model_attrs.c - operator attributes: the BSON document in Node slot 9
 * (inferred), decoded bounds-checked on demand.
 */
#include "model_internal.h"

#include <string.h>

#include "hal.h"
#include "rknn_api.h"

/* ---- operator attributes: a BSON document in Node slot 9 (inferred) ------- */

typedef struct {
    const uint8_t *doc;
    uint32_t size; /* whole document incl. length and terminating NUL */
    uint32_t pos;  /* next element */
} bson_iter;

typedef struct {
    uint8_t type;
    rknn_fbs_string key;
    const uint8_t *value; /* strings: the characters; binary: the bytes */
    uint32_t value_size;
    const uint8_t *raw; /* documents/arrays: the embedded document */
    uint32_t raw_size;
} bson_elem;

/* 1 if bytes look like a BSON document: int32 total length == avail, ends in NUL. */
FMT_API int fmt_bson_is_document(const uint8_t *d, uint32_t avail)
{
    return d && avail >= 5 && rknn_fbs_le32(d) == avail && d[avail - 1] == 0;
}

static int bson_open(const uint8_t *d, uint32_t avail, bson_iter *it)
{
    uint32_t len;

    if (!d || avail < 5)
        return -1;
    len = rknn_fbs_le32(d);
    if (len < 5 || len > avail || d[len - 1] != 0)
        return -1;
    it->doc = d;
    it->size = len;
    it->pos = 4;
    return 0;
}

/* Fixed value sizes of the BSON types we accept; -1 for variable / unknown. */
static int bson_fixed_size(uint8_t type)
{
    switch (type) {
    case 0x01: /* double */
    case 0x09: /* UTC datetime */
    case 0x11: /* timestamp */
    case 0x12: /* int64 */ return 8;
    case 0x10: /* int32 */ return 4;
    case 0x08: /* bool */ return 1;
    case 0x0a: /* null */ return 0;
    case 0x07: /* object id */ return 12;
    case 0x13: /* decimal128 */ return 16;
    default: return -1;
    }
}

/* Decodes the value of element e starting at p with `left` bytes before the
 * document's terminator; stores the bytes consumed. 0 = ok, -1 = malformed. */
static int bson_value(bson_elem *e, const uint8_t *p, uint32_t left, uint32_t *used)
{
    int fixed = bson_fixed_size(e->type);
    uint32_t n;

    if (fixed >= 0) {
        if ((uint32_t)fixed > left)
            return -1;
        e->value = p;
        e->value_size = (uint32_t)fixed;
        *used = (uint32_t)fixed;
        return 0;
    }
    if (left < 4)
        return -1;
    n = rknn_fbs_le32(p);
    switch (e->type) {
    case 0x02: /* string: int32 length incl. NUL, bytes, NUL */
        if (n < 1 || n > left - 4 || p[4 + n - 1] != 0)
            return -1;
        e->value = p + 4;
        e->value_size = n - 1;
        *used = 4 + n;
        return 0;
    case 0x03: /* document */
    case 0x04: /* array */
        if (n < 5 || n > left || p[n - 1] != 0)
            return -1;
        e->raw = e->value = p;
        e->raw_size = e->value_size = n;
        *used = n;
        return 0;
    case 0x05: /* binary: int32 length, subtype byte, bytes */
        if (left < 5 || n > left - 5)
            return -1;
        e->value = p + 5;
        e->value_size = n;
        *used = 5 + n;
        return 0;
    default: return -1;
    }
}

/* Next element: 1 = got one, 0 = end of document, -1 = malformed. */
static int bson_next(bson_iter *it, bson_elem *e)
{
    const uint8_t *key, *nul;
    uint32_t end = it->size - 1; /* index of the terminating NUL */
    uint32_t used = 0;

    if (it->pos == end)
        return 0;
    if (it->pos > end)
        return -1;
    memset(e, 0, sizeof(*e));
    e->type = it->doc[it->pos++];
    key = it->doc + it->pos;
    nul = memchr(key, 0, end - it->pos);
    if (!nul)
        return -1;
    e->key.ptr = (const char *)key;
    e->key.len = (uint32_t)(nul - key);
    it->pos += e->key.len + 1;
    if (bson_value(e, it->doc + it->pos, end - it->pos, &used) != 0)
        return -1;
    it->pos += used;
    return 1;
}

/* Validates a document and everything nested in it; counts its elements. */
FMT_API int fmt_bson_validate(const uint8_t *d, uint32_t avail, uint32_t depth, uint32_t *count)
{
    bson_iter it;
    bson_elem e;
    uint32_t n = 0;
    int r;

    if (depth > RKNN_MODEL_MAX_ATTR_DEPTH || bson_open(d, avail, &it) != 0)
        return -1;
    while ((r = bson_next(&it, &e)) == 1) {
        if (e.raw && fmt_bson_validate(e.raw, e.raw_size, depth + 1, NULL) != 0)
            return -1;
        n++;
    }
    if (r < 0)
        return -1;
    if (count)
        *count = n;
    return 0;
}

static int key_equals(const rknn_fbs_string *key, const char *s)
{
    size_t n = strlen(s);

    return key->len == n && memcmp(key->ptr, s, n) == 0;
}

/* Fills an attribute from top-level element e: {"dtype": s, "value": v}. */
static void attr_from_elem(const bson_elem *e, rknn_model_attr *out)
{
    bson_iter it;
    bson_elem inner;
    static const char empty[1] = "";

    memset(out, 0, sizeof(*out));
    out->name = e->key;
    out->dtype.ptr = empty;
    if (e->type != 0x03 || bson_open(e->raw, e->raw_size, &it) != 0) {
        /* Not the {dtype, value} form: expose the element itself. */
        out->value_type = e->type;
        out->value = e->value;
        out->value_size = e->value_size;
    } else {
        while (bson_next(&it, &inner) == 1) {
            if (key_equals(&inner.key, "dtype") && inner.type == 0x02) {
                out->dtype.ptr = (const char *)inner.value;
                out->dtype.len = inner.value_size;
            } else if (key_equals(&inner.key, "value")) {
                out->value_type = inner.type;
                out->value = inner.value;
                out->value_size = inner.value_size;
            }
        }
    }
    if (out->value_type == RKNN_MODEL_ATTR_ARRAY || out->value_type == RKNN_MODEL_ATTR_DOCUMENT)
        fmt_bson_validate(out->value, out->value_size, 0, &out->n_elems);
    else if (out->value_type != 0)
        out->n_elems = 1; /* scalars, and strings/binaries as one element */
}

/* Element i of a BSON document; 0 when found. */
static int bson_nth(const uint8_t *doc, uint32_t size, uint32_t i, bson_elem *e)
{
    bson_iter it;
    uint32_t k = 0;

    if (bson_open(doc, size, &it))
        return -1;
    while (bson_next(&it, e) == 1)
        if (k++ == i)
            return 0;
    return -1;
}

int rknn_model_node_attr(const rknn_model_node_info *node, uint32_t i, rknn_model_attr *out)
{
    bson_elem e;

    if (!node || !out || i >= node->n_attrs || bson_nth(node->attrs, node->attrs_size, i, &e))
        return RKNN_ERR_PARAM_INVALID;
    attr_from_elem(&e, out);
    return RKNN_SUCC;
}

int rknn_model_node_attr_find(const rknn_model_node_info *node, const char *name,
                              rknn_model_attr *out)
{
    bson_iter it;
    bson_elem e;

    if (!node || !name || !out || node->n_attrs == 0 ||
        bson_open(node->attrs, node->attrs_size, &it))
        return RKNN_ERR_PARAM_INVALID;
    while (bson_next(&it, &e) == 1) {
        if (key_equals(&e.key, name)) {
            attr_from_elem(&e, out);
            return RKNN_SUCC;
        }
    }
    return RKNN_ERR_PARAM_INVALID;
}

int rknn_model_attr_elem(const rknn_model_attr *attr, uint32_t i, rknn_model_attr_value *out)
{
    bson_elem e;

    if (!attr || !out || i >= attr->n_elems)
        return RKNN_ERR_PARAM_INVALID;
    if (attr->value_type != RKNN_MODEL_ATTR_ARRAY && attr->value_type != RKNN_MODEL_ATTR_DOCUMENT) {
        if (i != 0)
            return RKNN_ERR_PARAM_INVALID;
        out->type = attr->value_type;
        out->data = attr->value;
        out->size = attr->value_size;
        return RKNN_SUCC;
    }
    if (bson_nth(attr->value, attr->value_size, i, &e))
        return RKNN_ERR_PARAM_INVALID;
    out->type = e.type;
    out->data = e.value;
    out->size = e.value_size;
    return RKNN_SUCC;
}
