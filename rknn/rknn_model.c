/*
 * rknn_model.c - .rknn (container v6) parser: container check, FlatBuffer
 * walk, validation of every table the runtime reads, on-demand accessors.
 * Format: shared/docs/rknn-format.md (section numbers below refer to it).
 */
#include "rknn_model.h"

#include <string.h>

#include "hal.h"
#include "rknn_api.h"

/* Container header (§2): magic, u32 zero, u64 version, u64 payload size,
 * 40 reserved bytes, then the payload and a u64-length-prefixed JSON. */
#define CONTAINER_MIN_HEADER 24
#define CONTAINER_HEADER 64
#define CONTAINER_JSON_LEN_SIZE 8

/* Model slots (§3.1). */
enum {
    M_SCHEMA = 0,
    M_NPU_FAMILY = 1,
    M_GRAPHS = 2,
    M_GENERATOR = 3,
    M_COMPILER_CODE = 6,
    M_COMPILER = 7,
    M_TARGET = 8,
    M_SOURCE = 9,
    M_CUSTOM_STRING = 11,
    M_INPUT_JSON = 12,
    M_OUTPUT_JSON = 13,
    M_SHAPE_MODE = 16,
    M_BLOBS = 20,
    M_CUSTOM_OP_TYPES = 21,
};

/* Graph slots (§3.2). */
enum { G_TENSORS = 0, G_NODES = 1, G_INPUTS = 2, G_OUTPUTS = 3, G_NORMS = 4, G_RELOCS = 7 };

/* Node slots (§3.3). */
enum {
    N_TYPE = 1,
    N_NAME = 2,
    N_EXECUTOR = 3,
    N_INPUTS = 4,
    N_OUTPUTS = 5,
    N_ATTRS = 9,
    N_TASKS_PER_SLOT = 10,
};

/* Tensor slots (§3.4). */
enum {
    T_DTYPE = 0,
    T_LAYOUT = 1,
    T_KIND = 2,
    T_NATIVE_SHAPE = 3,
    T_SHAPE = 4,
    T_NAME = 5,
    T_QMETHOD = 6,
    T_QDTYPE = 7,
    T_QSCALE = 10,
    T_QZP = 11,
    T_SIZE = 12,
    T_OFFSET = 13,
    T_COMPRESSED = 14,
    T_BLOB = 18,
};

enum { BLOB_DATA = 0 };                            /* Blob slots (§3.1) */
enum { RELOC_NAME = 0, RELOC_ENTRIES = 1 };        /* Reloc slots (§4.3) */
enum { NORM_MEAN = 0, NORM_STD = 1, NORM_ORDER = 2 }; /* Norm slots (§3.2) */

#define RELOC_ENTRY_SIZE 8 /* {u32 addend, u32 word_index} */

/* ---- logging helpers: each returns RKNN_ERR_MODEL_INVALID ---------------- */

/* A FlatBuffer access failed: say which item, which field, which table. */
static int fb_error(const char *item, uint32_t index, const char *field,
                    const rknn_fbs_table *table, int err)
{
    HAL_LOG_ERR("rknn model: %s %lu: %s (table at payload offset 0x%lx): %s", item,
                (unsigned long)index, field, (unsigned long)(table ? table->pos : 0),
                rknn_fbs_strerror(err));
    return RKNN_ERR_MODEL_INVALID;
}

/* Element `index` of a vector of tables could not be opened. */
static int elem_error(const char *item, uint32_t index, const rknn_fbs_vector *vec, int err)
{
    HAL_LOG_ERR("rknn model: %s %lu: table (offset stored at payload offset 0x%lx): %s", item,
                (unsigned long)index, (unsigned long)(vec->pos + 4ul * index),
                rknn_fbs_strerror(err));
    return RKNN_ERR_MODEL_INVALID;
}

/* A count exceeds a documented limit. */
static int limit_error(const char *what, uint32_t count, uint32_t limit)
{
    HAL_LOG_ERR("rknn model: %s = %lu exceeds the limit %lu", what, (unsigned long)count,
                (unsigned long)limit);
    return RKNN_ERR_MODEL_INVALID;
}

static int is_error(int fbs_ret)
{
    return fbs_ret < 0;
}

/* ---- container (§2) ------------------------------------------------------- */

static void log_unsupported_version(uint64_t version)
{
    if (version >= 1 && version <= 5)
        HAL_LOG_ERR("rknn model: container version %lu is not supported: only version 6 "
                    "(RKNN-Toolkit2 >= 1.6) carries the regcmd stream, task array and "
                    "relocation table; re-export the model with a newer toolkit",
                    (unsigned long)version);
    else
        HAL_LOG_ERR("rknn model: unknown container version 0x%08lx%08lx (only 6 is supported)",
                    (unsigned long)(version >> 32), (unsigned long)(version & 0xffffffffu));
}

static int parse_container(const uint8_t *d, size_t size, rknn_model_view *v)
{
    uint64_t version, payload, rest, json_len;

    if (size >= 8 && memcmp(d, "CYPTRKNN", 8) == 0) {
        HAL_LOG_ERR("rknn model: encrypted model (CYPTRKNN magic) cannot be loaded");
        return RKNN_ERR_MODEL_INVALID;
    }
    if (size < 4 || memcmp(d, "RKNN", 4) != 0) {
        HAL_LOG_ERR("rknn model: no RKNN magic at offset 0 (file of %lu bytes)",
                    (unsigned long)size);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (size < CONTAINER_MIN_HEADER) {
        HAL_LOG_ERR("rknn model: truncated header (%lu of %d bytes)", (unsigned long)size,
                    CONTAINER_MIN_HEADER);
        return RKNN_ERR_MODEL_INVALID;
    }
    version = rknn_fbs_le64(d + 8);
    if (version != RKNN_MODEL_CONTAINER_VERSION) {
        log_unsupported_version(version);
        return RKNN_ERR_MODEL_INVALID;
    }
    payload = rknn_fbs_le64(d + 16);
    if (size < CONTAINER_HEADER) {
        HAL_LOG_ERR("rknn model: truncated header (%lu of %d bytes)", (unsigned long)size,
                    CONTAINER_HEADER);
        return RKNN_ERR_MODEL_INVALID;
    }
    rest = size - CONTAINER_HEADER;
    if (payload == 0 || payload > RKNN_FBS_MAX_SIZE || payload > rest ||
        rest - payload < CONTAINER_JSON_LEN_SIZE) {
        HAL_LOG_ERR("rknn model: payload size field (offset 16) = 0x%08lx%08lx does not fit a "
                    "file of %lu bytes",
                    (unsigned long)(payload >> 32), (unsigned long)(payload & 0xffffffffu),
                    (unsigned long)size);
        return RKNN_ERR_MODEL_INVALID;
    }
    rest -= payload + CONTAINER_JSON_LEN_SIZE;
    json_len = rknn_fbs_le64(d + CONTAINER_HEADER + payload);
    if (json_len > rest) {
        HAL_LOG_ERR("rknn model: JSON length field (offset 0x%lx) = 0x%08lx%08lx exceeds the "
                    "%lu bytes left in the file",
                    (unsigned long)(CONTAINER_HEADER + payload), (unsigned long)(json_len >> 32),
                    (unsigned long)(json_len & 0xffffffffu), (unsigned long)rest);
        return RKNN_ERR_MODEL_INVALID;
    }
    v->file = d;
    v->file_size = size;
    v->container_version = (uint32_t)version;
    v->header_size = CONTAINER_HEADER;
    v->payload_offset = CONTAINER_HEADER;
    v->payload_size = (size_t)payload;
    v->json_offset = (size_t)(CONTAINER_HEADER + payload + CONTAINER_JSON_LEN_SIZE);
    v->json_size = (size_t)json_len;
    v->json = (const char *)d + v->json_offset;
    v->trailing_bytes = (size_t)(rest - json_len);
    return RKNN_SUCC;
}

/* ---- small decoding helpers ------------------------------------------------ */

/* Opens a vector field and checks its length against a limit. */
static int get_vector_limited(const rknn_fbs_table *t, uint32_t slot, uint32_t elem_size,
                              uint32_t limit, rknn_fbs_vector *out, const char *item,
                              uint32_t index, const char *field)
{
    int ret = rknn_fbs_get_vector(t, slot, elem_size, out);

    if (is_error(ret))
        return fb_error(item, index, field, t, ret);
    if (out->count > limit) {
        HAL_LOG_ERR("rknn model: %s %lu: %s has %lu entries, limit %lu", item,
                    (unsigned long)index, field, (unsigned long)out->count,
                    (unsigned long)limit);
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

static int get_string_field(const rknn_fbs_table *t, uint32_t slot, rknn_fbs_string *out,
                            const char *item, uint32_t index, const char *field)
{
    int ret = rknn_fbs_get_string(t, slot, out);

    return is_error(ret) ? fb_error(item, index, field, t, ret) : RKNN_SUCC;
}

/* Copies a [int] shape into dims[]; more than RKNN_MODEL_MAX_DIMS is invalid. */
static int get_shape(const rknn_fbs_table *t, uint32_t slot, uint32_t index, const char *field,
                     int32_t *dims, uint32_t *n_dims)
{
    rknn_fbs_vector v;
    int ret = get_vector_limited(t, slot, 4, RKNN_MODEL_MAX_DIMS, &v, "tensor", index, field);

    if (ret != RKNN_SUCC)
        return ret;
    for (uint32_t i = 0; i < v.count; i++) {
        ret = rknn_fbs_vec_i32(&v, i, &dims[i]);
        if (is_error(ret))
            return fb_error("tensor", index, field, t, ret);
    }
    *n_dims = v.count;
    return RKNN_SUCC;
}

static int check_view(const rknn_model_view *view)
{
    return view && view->fb.data && view->container_version == RKNN_MODEL_CONTAINER_VERSION;
}

/* ---- blobs (§3.1) ---------------------------------------------------------- */

int rknn_model_blob(const rknn_model_view *view, uint32_t i, const uint8_t **data,
                    uint32_t *size)
{
    rknn_fbs_table blob;
    rknn_fbs_vector bytes;
    int ret;

    if (!check_view(view) || !data || !size || i >= view->n_blobs)
        return RKNN_ERR_PARAM_INVALID;
    *data = NULL;
    *size = 0;
    ret = rknn_fbs_vec_table(&view->blobs, i, &blob);
    if (is_error(ret))
        return elem_error("blob", i, &view->blobs, ret);
    ret = rknn_fbs_get_vector(&blob, BLOB_DATA, 1, &bytes);
    if (is_error(ret))
        return fb_error("blob", i, "bytes (slot 0)", &blob, ret);
    if (ret == RKNN_FBS_OK) {
        *data = rknn_fbs_vec_data(&bytes);
        *size = bytes.count;
    }
    return RKNN_SUCC;
}

/* ---- tensors (§3.4) -------------------------------------------------------- */

static int tensor_has_blob(int8_t kind)
{
    return kind == RKNN_MODEL_KIND_CONST || kind == RKNN_MODEL_KIND_GENERATED_CONST ||
           kind == RKNN_MODEL_KIND_REGCMD || kind == RKNN_MODEL_KIND_TASKS;
}

static int tensor_scalars(const rknn_fbs_table *t, uint32_t index, rknn_model_tensor_info *out)
{
    int ret;

    if (is_error(ret = rknn_fbs_get_i8(t, T_DTYPE, 0, &out->dtype)))
        return fb_error("tensor", index, "dtype (slot 0)", t, ret);
    if (is_error(ret = rknn_fbs_get_i8(t, T_LAYOUT, 0, &out->layout_class)))
        return fb_error("tensor", index, "layout class (slot 1)", t, ret);
    if (is_error(ret = rknn_fbs_get_i8(t, T_KIND, 0, &out->kind)))
        return fb_error("tensor", index, "kind (slot 2)", t, ret);
    if (is_error(ret = rknn_fbs_get_u32(t, T_SIZE, 0, &out->size)))
        return fb_error("tensor", index, "size (slot 12)", t, ret);
    if (is_error(ret = rknn_fbs_get_u32(t, T_OFFSET, 0, &out->arena_offset)))
        return fb_error("tensor", index, "arena offset (slot 13)", t, ret);
    if (is_error(ret = rknn_fbs_get_u8(t, T_COMPRESSED, 0, &out->compressed)))
        return fb_error("tensor", index, "compressed flag (slot 14)", t, ret);
    if (is_error(ret = rknn_fbs_get_u32(t, T_BLOB, 0, &out->blob_index)))
        return fb_error("tensor", index, "blob index (slot 18)", t, ret);
    return RKNN_SUCC;
}

static int tensor_quant(const rknn_fbs_table *t, uint32_t index, rknn_model_tensor_info *out)
{
    int ret;

    ret = get_string_field(t, T_QMETHOD, &out->quant_method, "tensor", index,
                           "quant method (slot 6)");
    if (ret == RKNN_SUCC)
        ret = get_string_field(t, T_QDTYPE, &out->quant_dtype, "tensor", index,
                               "quant dtype (slot 7)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(t, T_QSCALE, 4, RKNN_MODEL_MAX_QUANT, &out->scales, "tensor",
                                 index, "scale (slot 10)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(t, T_QZP, 4, RKNN_MODEL_MAX_QUANT, &out->zero_points, "tensor",
                                 index, "zero point (slot 11)");
    out->n_scales = out->scales.count;
    out->n_zero_points = out->zero_points.count;
    return ret;
}

static int tensor_blob(const rknn_model_view *view, uint32_t index, rknn_model_tensor_info *out)
{
    if (!tensor_has_blob(out->kind))
        return RKNN_SUCC;
    if (out->blob_index >= view->n_blobs) {
        HAL_LOG_ERR("rknn model: tensor %lu: blob index (slot 18) %lu >= blob count %lu",
                    (unsigned long)index, (unsigned long)out->blob_index,
                    (unsigned long)view->n_blobs);
        return RKNN_ERR_MODEL_INVALID;
    }
    return rknn_model_blob(view, out->blob_index, &out->data, &out->data_size);
}

int rknn_model_tensor(const rknn_model_view *view, uint32_t index, rknn_model_tensor_info *out)
{
    rknn_fbs_table t;
    int ret;

    if (!check_view(view) || !out || index >= view->n_tensors)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    ret = rknn_fbs_vec_table(&view->tensors, index, &t);
    if (is_error(ret))
        return elem_error("tensor", index, &view->tensors, ret);
    ret = tensor_scalars(&t, index, out);
    if (ret == RKNN_SUCC)
        ret = get_shape(&t, T_NATIVE_SHAPE, index, "native shape (slot 3)", out->native_dims,
                        &out->n_native_dims);
    if (ret == RKNN_SUCC)
        ret = get_shape(&t, T_SHAPE, index, "shape (slot 4)", out->dims, &out->n_dims);
    if (ret == RKNN_SUCC)
        ret = get_string_field(&t, T_NAME, &out->name, "tensor", index, "name (slot 5)");
    if (ret == RKNN_SUCC)
        ret = tensor_quant(&t, index, out);
    if (ret == RKNN_SUCC)
        ret = tensor_blob(view, index, out);
    return ret;
}

int rknn_model_tensor_scale(const rknn_model_tensor_info *t, uint32_t i, float *out)
{
    if (!t || !out || i >= t->n_scales)
        return RKNN_ERR_PARAM_INVALID;
    return is_error(rknn_fbs_vec_f32(&t->scales, i, out)) ? RKNN_ERR_PARAM_INVALID : RKNN_SUCC;
}

int rknn_model_tensor_zero_point(const rknn_model_tensor_info *t, uint32_t i, int32_t *out)
{
    if (!t || !out || i >= t->n_zero_points)
        return RKNN_ERR_PARAM_INVALID;
    return is_error(rknn_fbs_vec_i32(&t->zero_points, i, out)) ? RKNN_ERR_PARAM_INVALID
                                                               : RKNN_SUCC;
}

static int tensor_name(const rknn_model_view *view, uint32_t index, rknn_fbs_string *name)
{
    rknn_fbs_table t;
    int ret = rknn_fbs_vec_table(&view->tensors, index, &t);

    if (is_error(ret))
        return elem_error("tensor", index, &view->tensors, ret);
    return get_string_field(&t, T_NAME, name, "tensor", index, "name (slot 5)");
}

int rknn_model_find_tensor(const rknn_model_view *view, const char *name, uint32_t len,
                           uint32_t *index)
{
    rknn_fbs_string s;
    int ret;

    if (!check_view(view) || !name || !index)
        return RKNN_ERR_PARAM_INVALID;
    for (uint32_t i = 0; i < view->n_tensors; i++) {
        ret = tensor_name(view, i, &s);
        if (ret != RKNN_SUCC)
            return ret;
        if (s.len == len && memcmp(s.ptr, name, len) == 0) {
            *index = i;
            return RKNN_SUCC;
        }
    }
    return RKNN_ERR_PARAM_INVALID;
}

/* ---- operator attributes: a BSON document in Node slot 9 (inferred) ------- */

typedef struct {
    const uint8_t *doc;
    uint32_t size;   /* whole document incl. length and terminating NUL */
    uint32_t pos;    /* next element */
} bson_iter;

typedef struct {
    uint8_t type;
    rknn_fbs_string key;
    const uint8_t *value;  /* strings: the characters; binary: the bytes */
    uint32_t value_size;
    const uint8_t *raw;    /* documents/arrays: the embedded document */
    uint32_t raw_size;
} bson_elem;

/* 1 if bytes look like a BSON document: int32 total length == avail, ends in NUL. */
static int bson_is_document(const uint8_t *d, uint32_t avail)
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
    case 0x12: /* int64 */
        return 8;
    case 0x10: /* int32 */
        return 4;
    case 0x08: /* bool */
        return 1;
    case 0x0a: /* null */
        return 0;
    case 0x07: /* object id */
        return 12;
    case 0x13: /* decimal128 */
        return 16;
    default:
        return -1;
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
    default:
        return -1;
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
static int bson_validate(const uint8_t *d, uint32_t avail, uint32_t depth, uint32_t *count)
{
    bson_iter it;
    bson_elem e;
    uint32_t n = 0;
    int r;

    if (depth > RKNN_MODEL_MAX_ATTR_DEPTH || bson_open(d, avail, &it) != 0)
        return -1;
    while ((r = bson_next(&it, &e)) == 1) {
        if (e.raw && bson_validate(e.raw, e.raw_size, depth + 1, NULL) != 0)
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
        bson_validate(out->value, out->value_size, 0, &out->n_elems);
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

/* ---- nodes (§3.3) ---------------------------------------------------------- */

static int node_index_list(const rknn_fbs_table *t, uint32_t slot, uint32_t index,
                           const char *field, uint32_t tensor_limit, rknn_fbs_vector *out)
{
    int32_t idx;
    int ret = get_vector_limited(t, slot, 4, RKNN_MODEL_MAX_NODE_IO, out, "node", index, field);

    for (uint32_t i = 0; ret == RKNN_SUCC && i < out->count; i++) {
        ret = rknn_fbs_vec_i32(out, i, &idx);
        if (is_error(ret))
            return fb_error("node", index, field, t, ret);
        if (idx < 0 || (uint32_t)idx >= tensor_limit) {
            HAL_LOG_ERR("rknn model: node %lu: %s entry %lu = %ld is not a tensor index (< %lu)",
                        (unsigned long)index, field, (unsigned long)i, (long)idx,
                        (unsigned long)tensor_limit);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    return ret;
}

/* Node slot 10: tasks per core slot (§3.3). */
static int node_task_counts(const rknn_fbs_table *t, uint32_t index, uint32_t *counts,
                            uint32_t *n_slots)
{
    rknn_fbs_vector v;
    int ret = get_vector_limited(t, N_TASKS_PER_SLOT, 4, RKNN_MODEL_MAX_CORE_SLOTS, &v, "node",
                                 index, "tasks per core slot (slot 10)");

    for (uint32_t i = 0; ret == RKNN_SUCC && i < v.count; i++) {
        ret = rknn_fbs_vec_u32(&v, i, &counts[i]);
        if (is_error(ret))
            return fb_error("node", index, "tasks per core slot (slot 10)", t, ret);
        if (counts[i] > RKNN_MODEL_MAX_TASKS)
            return limit_error("tasks of one node in one core slot", counts[i],
                               RKNN_MODEL_MAX_TASKS);
    }
    *n_slots = v.count;
    return ret;
}

static int node_attrs(const rknn_fbs_table *t, uint32_t index, rknn_model_node_info *out)
{
    rknn_fbs_vector v;
    const uint8_t *d;
    int ret = rknn_fbs_get_vector(t, N_ATTRS, 1, &v);

    if (is_error(ret))
        return fb_error("node", index, "attributes (slot 9)", t, ret);
    d = rknn_fbs_vec_data(&v);
    /* Output operators keep 16 other bytes here: only a BSON-shaped blob counts. */
    if (ret != RKNN_FBS_OK || !bson_is_document(d, v.count))
        return RKNN_SUCC;
    if (bson_validate(d, v.count, 0, &out->n_attrs) != 0) {
        HAL_LOG_ERR("rknn model: node %lu: attributes (slot 9, %lu bytes at payload offset "
                    "0x%lx) are not a well-formed BSON document",
                    (unsigned long)index, (unsigned long)v.count, (unsigned long)v.pos);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (out->n_attrs > RKNN_MODEL_MAX_ATTRS)
        return limit_error("attributes of one node", out->n_attrs, RKNN_MODEL_MAX_ATTRS);
    out->attrs = d;
    out->attrs_size = v.count;
    return RKNN_SUCC;
}

int rknn_model_node(const rknn_model_view *view, uint32_t index, rknn_model_node_info *out)
{
    rknn_fbs_table t;
    int ret;

    if (!check_view(view) || !out || index >= view->n_nodes)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    out->tensor_limit = view->n_tensors;
    ret = rknn_fbs_vec_table(&view->nodes, index, &t);
    if (is_error(ret))
        return elem_error("node", index, &view->nodes, ret);
    ret = get_string_field(&t, N_TYPE, &out->op_type, "node", index, "op type (slot 1)");
    if (ret == RKNN_SUCC)
        ret = get_string_field(&t, N_NAME, &out->name, "node", index, "name (slot 2)");
    if (ret == RKNN_SUCC) {
        int fret = rknn_fbs_get_u8(&t, N_EXECUTOR, 0, &out->executor);
        if (is_error(fret))
            ret = fb_error("node", index, "executor (slot 3)", &t, fret);
    }
    if (ret == RKNN_SUCC)
        ret = node_index_list(&t, N_INPUTS, index, "inputs (slot 4)", view->n_tensors,
                              &out->inputs);
    if (ret == RKNN_SUCC)
        ret = node_index_list(&t, N_OUTPUTS, index, "outputs (slot 5)", view->n_tensors,
                              &out->outputs);
    if (ret == RKNN_SUCC)
        ret = node_task_counts(&t, index, out->tasks_per_slot, &out->n_core_slots);
    if (ret == RKNN_SUCC)
        ret = node_attrs(&t, index, out);
    out->n_inputs = out->inputs.count;
    out->n_outputs = out->outputs.count;
    return ret;
}

static int index_from_list(const rknn_fbs_vector *v, uint32_t i, uint32_t limit, uint32_t *out)
{
    int32_t idx;

    if (!out || is_error(rknn_fbs_vec_i32(v, i, &idx)) || idx < 0 || (uint32_t)idx >= limit)
        return RKNN_ERR_PARAM_INVALID;
    *out = (uint32_t)idx;
    return RKNN_SUCC;
}

int rknn_model_node_input(const rknn_model_node_info *node, uint32_t i, uint32_t *tensor)
{
    if (!node)
        return RKNN_ERR_PARAM_INVALID;
    return index_from_list(&node->inputs, i, node->tensor_limit, tensor);
}

int rknn_model_node_output(const rknn_model_node_info *node, uint32_t i, uint32_t *tensor)
{
    if (!node)
        return RKNN_ERR_PARAM_INVALID;
    return index_from_list(&node->outputs, i, node->tensor_limit, tensor);
}

int rknn_model_input(const rknn_model_view *view, uint32_t i, uint32_t *tensor)
{
    if (!check_view(view))
        return RKNN_ERR_PARAM_INVALID;
    return index_from_list(&view->inputs, i, view->n_tensors, tensor);
}

int rknn_model_output(const rknn_model_view *view, uint32_t i, uint32_t *tensor)
{
    if (!check_view(view))
        return RKNN_ERR_PARAM_INVALID;
    return index_from_list(&view->outputs, i, view->n_tensors, tensor);
}

/* ---- normalisation (§3.2 Graph slot 4) ------------------------------------ */

int rknn_model_norm(const rknn_model_view *view, uint32_t i, rknn_model_norm_info *out)
{
    rknn_fbs_table t;
    int ret;

    if (!check_view(view) || !out || i >= view->n_norms)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    ret = rknn_fbs_vec_table(&view->norms, i, &t);
    if (is_error(ret))
        return elem_error("norm", i, &view->norms, ret);
    ret = get_vector_limited(&t, NORM_MEAN, 4, RKNN_MODEL_MAX_NORM_CHANNELS, &out->mean, "norm",
                             i, "mean (slot 0)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(&t, NORM_STD, 4, RKNN_MODEL_MAX_NORM_CHANNELS, &out->std,
                                 "norm", i, "std (slot 1)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(&t, NORM_ORDER, 4, RKNN_MODEL_MAX_NORM_CHANNELS, &out->order,
                                 "norm", i, "channel order (slot 2)");
    if (ret == RKNN_SUCC && out->mean.count != out->std.count) {
        HAL_LOG_ERR("rknn model: norm %lu: %lu mean values but %lu std values", (unsigned long)i,
                    (unsigned long)out->mean.count, (unsigned long)out->std.count);
        ret = RKNN_ERR_MODEL_INVALID;
    }
    out->n_channels = out->mean.count;
    return ret;
}

int rknn_model_norm_mean(const rknn_model_norm_info *norm, uint32_t c, float *out)
{
    if (!norm || !out || c >= norm->n_channels)
        return RKNN_ERR_PARAM_INVALID;
    return is_error(rknn_fbs_vec_f32(&norm->mean, c, out)) ? RKNN_ERR_PARAM_INVALID : RKNN_SUCC;
}

int rknn_model_norm_std(const rknn_model_norm_info *norm, uint32_t c, float *out)
{
    if (!norm || !out || c >= norm->n_channels)
        return RKNN_ERR_PARAM_INVALID;
    return is_error(rknn_fbs_vec_f32(&norm->std, c, out)) ? RKNN_ERR_PARAM_INVALID : RKNN_SUCC;
}

/* ---- relocations (§4.3) ----------------------------------------------------- */

int rknn_model_reloc(const rknn_model_view *view, uint32_t i, rknn_model_reloc_info *out)
{
    rknn_fbs_table t;
    int ret;

    if (!check_view(view) || !out || i >= view->n_relocs)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    out->word_limit = view->n_regcmd_words;
    ret = rknn_fbs_vec_table(&view->relocs, i, &t);
    if (is_error(ret))
        return elem_error("relocation", i, &view->relocs, ret);
    ret = get_string_field(&t, RELOC_NAME, &out->tensor_name, "relocation", i,
                           "tensor name (slot 0)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(&t, RELOC_ENTRIES, RELOC_ENTRY_SIZE,
                                 RKNN_MODEL_MAX_RELOC_ENTRIES, &out->entries, "relocation", i,
                                 "entries (slot 1)");
    if (ret != RKNN_SUCC)
        return ret;
    out->n_entries = out->entries.count;
    if (out->tensor_name.len == 0) {
        HAL_LOG_ERR("rknn model: relocation %lu has an empty tensor name", (unsigned long)i);
        return RKNN_ERR_MODEL_INVALID;
    }
    ret = rknn_model_find_tensor(view, out->tensor_name.ptr, out->tensor_name.len,
                                 &out->tensor_index);
    if (ret == RKNN_ERR_PARAM_INVALID) {
        HAL_LOG_ERR("rknn model: relocation %lu names tensor \"%.*s\", which does not exist",
                    (unsigned long)i, (int)(out->tensor_name.len > 64 ? 64 : out->tensor_name.len),
                    out->tensor_name.ptr);
        ret = RKNN_ERR_MODEL_INVALID;
    }
    return ret;
}

int rknn_model_reloc_entry(const rknn_model_reloc_info *reloc, uint32_t i, uint32_t *addend,
                           uint32_t *word_index)
{
    const uint8_t *e;
    uint32_t word;

    if (!reloc || !addend || !word_index || i >= reloc->n_entries ||
        is_error(rknn_fbs_vec_struct(&reloc->entries, i, &e)))
        return RKNN_ERR_PARAM_INVALID;
    word = rknn_fbs_le32(e + 4);
    if (word >= reloc->word_limit) {
        HAL_LOG_ERR("rknn model: relocation of \"%.*s\" entry %lu patches regcmd word %lu of %lu",
                    (int)(reloc->tensor_name.len > 64 ? 64 : reloc->tensor_name.len),
                    reloc->tensor_name.ptr, (unsigned long)i, (unsigned long)word,
                    (unsigned long)reloc->word_limit);
        return RKNN_ERR_MODEL_INVALID;
    }
    *addend = rknn_fbs_le32(e);
    *word_index = word;
    return RKNN_SUCC;
}

/* ---- tasks (§4.2) ----------------------------------------------------------- */

int rknn_model_task(const rknn_model_view *view, uint32_t i, rknn_model_task_info *out)
{
    const uint8_t *r;

    if (!check_view(view) || !out || i >= view->n_tasks || !view->task_data)
        return RKNN_ERR_PARAM_INVALID;
    r = view->task_data + (size_t)i * RKNN_MODEL_TASK_RECORD_SIZE;
    out->flags = rknn_fbs_le32(r + NPU_TASK_FLAGS);
    out->op_idx = rknn_fbs_le32(r + NPU_TASK_OP_IDX);
    out->enable_mask = rknn_fbs_le32(r + NPU_TASK_ENABLE_MASK);
    out->int_mask = rknn_fbs_le32(r + NPU_TASK_INT_MASK);
    out->int_clear = rknn_fbs_le32(r + NPU_TASK_INT_CLEAR);
    out->int_status = rknn_fbs_le32(r + NPU_TASK_INT_STATUS);
    out->regcfg_amount = rknn_fbs_le32(r + NPU_TASK_REGCFG_AMOUNT);
    out->regcfg_offset = rknn_fbs_le32(r + NPU_TASK_REGCFG_OFFSET);
    out->regcmd_addr = rknn_fbs_le64(r + NPU_TASK_REGCMD_ADDR);
    return RKNN_SUCC;
}

int rknn_model_task_group(const rknn_model_view *view, uint32_t n_cores, uint32_t core,
                          rknn_model_task_range *out)
{
    uint32_t slot;

    if (!check_view(view) || !out || n_cores == 0 || n_cores > view->max_cores ||
        core >= n_cores)
        return RKNN_ERR_PARAM_INVALID;
    /* Slots: 1-core config first, then the 2-core pair, then the 3-core trio. */
    slot = n_cores * (n_cores - 1) / 2 + core;
    if (slot >= view->n_core_slots)
        return RKNN_ERR_PARAM_INVALID;
    *out = view->groups[slot];
    return RKNN_SUCC;
}

/* ---- whole-model validation ----------------------------------------------- */

static int parse_model_strings(rknn_model_view *v)
{
    const struct {
        uint32_t slot;
        rknn_fbs_string *dst;
        const char *field;
    } fields[] = {
        {M_NPU_FAMILY, &v->npu_family, "NPU family (slot 1)"},
        {M_GENERATOR, &v->generator, "generator (slot 3)"},
        {M_COMPILER, &v->compiler, "compiler (slot 7)"},
        {M_TARGET, &v->target_platform, "target platform (slot 8)"},
        {M_SOURCE, &v->source_framework, "source framework (slot 9)"},
        {M_CUSTOM_STRING, &v->custom_string, "custom string (slot 11)"},
        {M_INPUT_JSON, &v->input_json, "input JSON (slot 12)"},
        {M_OUTPUT_JSON, &v->output_json, "output JSON (slot 13)"},
        {M_SHAPE_MODE, &v->shape_mode, "shape mode (slot 16)"},
        {M_CUSTOM_OP_TYPES, &v->custom_op_types, "custom op types (slot 21)"},
    };

    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        int ret = get_string_field(&v->model, fields[i].slot, fields[i].dst, "model", 0,
                                   fields[i].field);
        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}

static int parse_model_table(rknn_model_view *v)
{
    int ret;

    if (!rknn_fbs_has_identifier(&v->fb, "RKNN")) {
        HAL_LOG_ERR("rknn model: payload (file offset 0x%lx) has no \"RKNN\" FlatBuffer "
                    "identifier at +4", (unsigned long)v->payload_offset);
        return RKNN_ERR_MODEL_INVALID;
    }
    ret = rknn_fbs_root(&v->fb, &v->model);
    if (is_error(ret)) {
        HAL_LOG_ERR("rknn model: FlatBuffer root table: %s", rknn_fbs_strerror(ret));
        return RKNN_ERR_MODEL_INVALID;
    }
    if (is_error(ret = rknn_fbs_get_i32(&v->model, M_SCHEMA, 0, &v->schema_generation)))
        return fb_error("model", 0, "schema generation (slot 0)", &v->model, ret);
    if (v->schema_generation != RKNN_MODEL_SCHEMA_GENERATION) {
        HAL_LOG_ERR("rknn model: schema generation (Model slot 0) is %ld, only %d is supported",
                    (long)v->schema_generation, RKNN_MODEL_SCHEMA_GENERATION);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (is_error(ret = rknn_fbs_get_u32(&v->model, M_COMPILER_CODE, 0, &v->compiler_code)))
        return fb_error("model", 0, "compiler version code (slot 6)", &v->model, ret);
    return parse_model_strings(v);
}

static int parse_blobs(rknn_model_view *v)
{
    const uint8_t *data;
    uint32_t size;
    int ret = get_vector_limited(&v->model, M_BLOBS, 4, RKNN_MODEL_MAX_BLOBS, &v->blobs, "model",
                                 0, "blob table (slot 20)");

    if (ret != RKNN_SUCC)
        return ret;
    v->n_blobs = v->blobs.count;
    if (v->n_blobs == 0) {
        HAL_LOG_ERR("rknn model: no blob table (Model slot 20): not a v6 model");
        return RKNN_ERR_MODEL_INVALID;
    }
    for (uint32_t i = 0; i < v->n_blobs; i++) {
        ret = rknn_model_blob(v, i, &data, &size);
        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}

static int open_graph(rknn_model_view *v)
{
    rknn_fbs_vector graphs;
    int ret = get_vector_limited(&v->model, M_GRAPHS, 4, RKNN_MODEL_MAX_GRAPHS, &graphs, "model",
                                 0, "graphs (slot 2)");

    if (ret != RKNN_SUCC)
        return ret;
    v->n_graphs = graphs.count;
    if (graphs.count == 0) {
        HAL_LOG_ERR("rknn model: the model has no graph (Model slot 2 empty)");
        return RKNN_ERR_MODEL_INVALID;
    }
    ret = rknn_fbs_vec_table(&graphs, 0, &v->graph);
    return is_error(ret) ? elem_error("graph", 0, &graphs, ret) : RKNN_SUCC;
}

static int parse_graph_vectors(rknn_model_view *v)
{
    const rknn_fbs_table *g = &v->graph;
    int ret;

    ret = get_vector_limited(g, G_TENSORS, 4, RKNN_MODEL_MAX_TENSORS, &v->tensors, "graph", 0,
                             "tensors (slot 0)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(g, G_NODES, 4, RKNN_MODEL_MAX_NODES, &v->nodes, "graph", 0,
                                 "nodes (slot 1)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(g, G_INPUTS, 4, RKNN_MODEL_MAX_IO, &v->inputs, "graph", 0,
                                 "inputs (slot 2)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(g, G_OUTPUTS, 4, RKNN_MODEL_MAX_IO, &v->outputs, "graph", 0,
                                 "outputs (slot 3)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(g, G_NORMS, 4, RKNN_MODEL_MAX_IO, &v->norms, "graph", 0,
                                 "norms (slot 4)");
    if (ret == RKNN_SUCC)
        ret = get_vector_limited(g, G_RELOCS, 4, RKNN_MODEL_MAX_RELOCS, &v->relocs, "graph", 0,
                                 "relocations (slot 7)");
    v->n_tensors = v->tensors.count;
    v->n_nodes = v->nodes.count;
    v->n_inputs = v->inputs.count;
    v->n_outputs = v->outputs.count;
    v->n_norms = v->norms.count;
    v->n_relocs = v->relocs.count;
    return ret;
}

/* Remembers the single regcmd (kind 9) and task (kind 10) tensor. */
static int note_exec_tensor(uint32_t index, uint32_t *slot, const char *what)
{
    if (*slot != UINT32_MAX) {
        HAL_LOG_ERR("rknn model: tensors %lu and %lu are both %s tensors", (unsigned long)*slot,
                    (unsigned long)index, what);
        return RKNN_ERR_MODEL_INVALID;
    }
    *slot = index;
    return RKNN_SUCC;
}

static int validate_tensors(rknn_model_view *v)
{
    rknn_model_tensor_info t;
    int ret;

    v->regcmd_tensor = UINT32_MAX;
    v->task_tensor = UINT32_MAX;
    for (uint32_t i = 0; i < v->n_tensors; i++) {
        ret = rknn_model_tensor(v, i, &t);
        if (ret != RKNN_SUCC)
            return ret;
        if (t.kind == RKNN_MODEL_KIND_INPUT || t.kind == RKNN_MODEL_KIND_OUTPUT ||
            t.kind == RKNN_MODEL_KIND_INTERNAL) {
            uint64_t end = (uint64_t)t.arena_offset + t.size;
            if (end > v->arena_size)
                v->arena_size = end;
        } else if (t.kind == RKNN_MODEL_KIND_REGCMD) {
            ret = note_exec_tensor(i, &v->regcmd_tensor, "regcmd");
            v->regcmd_blob = t.blob_index;
            v->regcmd = t.data;
            v->regcmd_size = t.data_size;
        } else if (t.kind == RKNN_MODEL_KIND_TASKS) {
            ret = note_exec_tensor(i, &v->task_tensor, "task");
            v->task_blob = t.blob_index;
            v->task_data = t.data;
            v->n_tasks = t.data_size / RKNN_MODEL_TASK_RECORD_SIZE;
            if (t.data_size % RKNN_MODEL_TASK_RECORD_SIZE != 0) {
                HAL_LOG_ERR("rknn model: task blob %lu has %lu bytes, not a multiple of %d",
                            (unsigned long)t.blob_index, (unsigned long)t.data_size,
                            RKNN_MODEL_TASK_RECORD_SIZE);
                return RKNN_ERR_MODEL_INVALID;
            }
        }
        if (ret != RKNN_SUCC)
            return ret;
    }
    if (v->regcmd_tensor == UINT32_MAX || v->task_tensor == UINT32_MAX) {
        HAL_LOG_ERR("rknn model: no %s tensor (kind %d): not a v6 execution payload",
                    v->regcmd_tensor == UINT32_MAX ? "regcmd" : "task",
                    v->regcmd_tensor == UINT32_MAX ? RKNN_MODEL_KIND_REGCMD
                                                   : RKNN_MODEL_KIND_TASKS);
        return RKNN_ERR_MODEL_INVALID;
    }
    if (v->regcmd_size % RKNN_MODEL_REGCMD_WORD_SIZE != 0) {
        HAL_LOG_ERR("rknn model: regcmd blob has %lu bytes, not a multiple of 8",
                    (unsigned long)v->regcmd_size);
        return RKNN_ERR_MODEL_INVALID;
    }
    v->n_regcmd_words = v->regcmd_size / RKNN_MODEL_REGCMD_WORD_SIZE;
    if (v->n_tasks > RKNN_MODEL_MAX_TASKS)
        return limit_error("task count", v->n_tasks, RKNN_MODEL_MAX_TASKS);
    return RKNN_SUCC;
}

static int validate_graph_io(rknn_model_view *v)
{
    uint32_t idx;

    for (uint32_t i = 0; i < v->n_inputs; i++) {
        if (rknn_model_input(v, i, &idx) != RKNN_SUCC) {
            HAL_LOG_ERR("rknn model: graph input %lu (Graph slot 2) is not a tensor index",
                        (unsigned long)i);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    for (uint32_t i = 0; i < v->n_outputs; i++) {
        if (rknn_model_output(v, i, &idx) != RKNN_SUCC) {
            HAL_LOG_ERR("rknn model: graph output %lu (Graph slot 3) is not a tensor index",
                        (unsigned long)i);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    for (uint32_t i = 0; i < v->n_norms; i++) {
        rknn_model_norm_info n;
        int ret = rknn_model_norm(v, i, &n);

        if (ret != RKNN_SUCC)
            return ret;
    }
    return RKNN_SUCC;
}

/* Core slots: 1 -> one core (RK356x), 3 -> up to two, 6 -> up to three (RK3588). */
static uint32_t cores_for_slots(uint32_t n_slots)
{
    switch (n_slots) {
    case 1:
        return 1;
    case 3:
        return 2;
    case 6:
        return 3;
    default:
        return 0;
    }
}

/* Validates every node and sums Node slot 10 into the task groups. */
static int validate_nodes(rknn_model_view *v)
{
    rknn_model_node_info n;
    uint64_t sums[RKNN_MODEL_MAX_CORE_SLOTS] = {0};
    uint64_t total = 0;
    int ret;

    for (uint32_t i = 0; i < v->n_nodes; i++) {
        ret = rknn_model_node(v, i, &n);
        if (ret != RKNN_SUCC)
            return ret;
        if (n.n_core_slots == 0)
            continue;
        if (v->n_core_slots == 0)
            v->n_core_slots = n.n_core_slots;
        if (n.n_core_slots != v->n_core_slots || cores_for_slots(n.n_core_slots) == 0) {
            HAL_LOG_ERR("rknn model: node %lu: %lu core slots (slot 10), expected 1, 3 or 6 and "
                        "the same on every node (%lu)",
                        (unsigned long)i, (unsigned long)n.n_core_slots,
                        (unsigned long)v->n_core_slots);
            return RKNN_ERR_MODEL_INVALID;
        }
        for (uint32_t s = 0; s < n.n_core_slots; s++)
            sums[s] += n.tasks_per_slot[s];
    }
    for (uint32_t s = 0; s < v->n_core_slots; s++) {
        v->groups[s].first = (uint32_t)(total < UINT32_MAX ? total : UINT32_MAX);
        v->groups[s].count = (uint32_t)(sums[s] < UINT32_MAX ? sums[s] : UINT32_MAX);
        total += sums[s];
    }
    v->max_cores = cores_for_slots(v->n_core_slots);
    if (total != v->n_tasks) {
        HAL_LOG_ERR("rknn model: node task counts (slot 10) add up to %lu tasks but the task "
                    "blob holds %lu records",
                    (unsigned long)(total < UINT32_MAX ? total : UINT32_MAX),
                    (unsigned long)v->n_tasks);
        return RKNN_ERR_MODEL_INVALID;
    }
    return RKNN_SUCC;
}

static int validate_tasks(const rknn_model_view *v)
{
    rknn_model_task_info t;

    for (uint32_t i = 0; i < v->n_tasks; i++) {
        rknn_model_task(v, i, &t);
        if (t.op_idx >= v->n_nodes) {
            HAL_LOG_ERR("rknn model: task %lu: op_idx %lu >= node count %lu", (unsigned long)i,
                        (unsigned long)t.op_idx, (unsigned long)v->n_nodes);
            return RKNN_ERR_MODEL_INVALID;
        }
        if (t.regcmd_addr % RKNN_MODEL_REGCMD_WORD_SIZE != 0 ||
            t.regcmd_addr > v->regcmd_size ||
            (uint64_t)t.regcfg_amount * RKNN_MODEL_REGCMD_WORD_SIZE >
                v->regcmd_size - t.regcmd_addr) {
            HAL_LOG_ERR("rknn model: task %lu: %lu register words at regcmd offset 0x%lx do not "
                        "fit the %lu-byte regcmd blob",
                        (unsigned long)i, (unsigned long)t.regcfg_amount,
                        (unsigned long)t.regcmd_addr, (unsigned long)v->regcmd_size);
            return RKNN_ERR_MODEL_INVALID;
        }
    }
    return RKNN_SUCC;
}

/* Checks that, group by group, tasks belong to the nodes whose slot-10 counts
 * cover them (true for every sample). Only a warning: the runtime uses the
 * group boundaries, op_idx is informational. */
static void check_task_order(rknn_model_view *v)
{
    rknn_fbs_table t;
    uint32_t counts[RKNN_MODEL_MAX_CORE_SLOTS];
    uint32_t n_slots, task = 0;
    rknn_model_task_info rec;

    v->tasks_in_node_order = 1;
    for (uint32_t s = 0; s < v->n_core_slots; s++) {
        for (uint32_t k = 0; k < v->n_nodes; k++) {
            n_slots = 0;
            if (is_error(rknn_fbs_vec_table(&v->nodes, k, &t)) ||
                node_task_counts(&t, k, counts, &n_slots) != RKNN_SUCC || s >= n_slots)
                continue;
            for (uint32_t j = 0; j < counts[s] && task < v->n_tasks; j++, task++) {
                rknn_model_task(v, task, &rec);
                if (rec.op_idx != k && v->tasks_in_node_order) {
                    HAL_LOG_WARN("rknn model: task %lu has op_idx %lu, expected node %lu from the "
                                 "slot-10 counts", (unsigned long)task,
                                 (unsigned long)rec.op_idx, (unsigned long)k);
                    v->tasks_in_node_order = 0;
                }
            }
        }
    }
}

static int validate_relocs(rknn_model_view *v)
{
    rknn_model_reloc_info r;
    uint32_t addend, word;
    uint64_t total = 0;
    int ret;

    for (uint32_t i = 0; i < v->n_relocs; i++) {
        ret = rknn_model_reloc(v, i, &r);
        if (ret != RKNN_SUCC)
            return ret;
        total += r.n_entries;
        if (total > RKNN_MODEL_MAX_RELOC_ENTRIES)
            return limit_error("relocation entries", (uint32_t)total,
                               RKNN_MODEL_MAX_RELOC_ENTRIES);
        for (uint32_t j = 0; j < r.n_entries; j++) {
            ret = rknn_model_reloc_entry(&r, j, &addend, &word);
            if (ret != RKNN_SUCC)
                return RKNN_ERR_MODEL_INVALID;
        }
    }
    v->n_reloc_entries = (uint32_t)total;
    return RKNN_SUCC;
}

static int parse_all(const uint8_t *d, size_t size, rknn_model_view *v)
{
    int ret = parse_container(d, size, v);

    if (ret != RKNN_SUCC)
        return ret;
    if (rknn_fbs_buf_init(&v->fb, d + v->payload_offset, v->payload_size) != RKNN_FBS_OK)
        return RKNN_ERR_MODEL_INVALID;
    if ((ret = parse_model_table(v)) != RKNN_SUCC || (ret = parse_blobs(v)) != RKNN_SUCC ||
        (ret = open_graph(v)) != RKNN_SUCC || (ret = parse_graph_vectors(v)) != RKNN_SUCC ||
        (ret = validate_tensors(v)) != RKNN_SUCC || (ret = validate_graph_io(v)) != RKNN_SUCC ||
        (ret = validate_nodes(v)) != RKNN_SUCC || (ret = validate_tasks(v)) != RKNN_SUCC ||
        (ret = validate_relocs(v)) != RKNN_SUCC)
        return ret;
    check_task_order(v);
    return RKNN_SUCC;
}

int rknn_model_parse(const void *data, size_t size, rknn_model_view *out)
{
    int ret;

    if (!data || !out)
        return RKNN_ERR_PARAM_INVALID;
    memset(out, 0, sizeof(*out));
    ret = parse_all((const uint8_t *)data, size, out);
    if (ret != RKNN_SUCC) {
        memset(out, 0, sizeof(*out));
        return ret == RKNN_ERR_PARAM_INVALID ? RKNN_ERR_MODEL_INVALID : ret;
    }
    return RKNN_SUCC;
}

/* ---- moving a view to a copy of its file ----------------------------------- */

typedef struct {
    uintptr_t old_base;
    size_t size;
    const uint8_t *new_base;
} rebase_map;

/* The same byte in the copy; pointers outside the file (NULL, the reader's
 * static "" for absent strings) stay as they are. */
static const void *moved(const rebase_map *r, const void *p)
{
    uintptr_t off = (uintptr_t)p - r->old_base;

    return p && (uintptr_t)p >= r->old_base && off < r->size ? r->new_base + off : p;
}

void rknn_model_rebase(rknn_model_view *v, const void *copy)
{
    rebase_map r = {(uintptr_t)v->file, v->file_size, copy};
    rknn_fbs_string *strings[] = {
        &v->npu_family,       &v->generator,     &v->compiler,   &v->target_platform,
        &v->source_framework, &v->custom_string, &v->input_json, &v->output_json,
        &v->shape_mode,       &v->custom_op_types,
    };
    rknn_fbs_vector *vectors[] = {&v->blobs,   &v->tensors, &v->nodes, &v->inputs,
                                  &v->outputs, &v->norms,   &v->relocs};

    v->file = copy;
    v->json = moved(&r, v->json);
    v->fb.data = moved(&r, v->fb.data);
    v->model.buf.data = moved(&r, v->model.buf.data);
    v->graph.buf.data = moved(&r, v->graph.buf.data);
    v->regcmd = moved(&r, v->regcmd);
    v->task_data = moved(&r, v->task_data);
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        strings[i]->ptr = moved(&r, strings[i]->ptr);
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        vectors[i]->buf.data = moved(&r, vectors[i]->buf.data);
}
