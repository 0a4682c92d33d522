/*
 * rknn_fbs.c - bounds-checked FlatBuffers reader (see rknn_fbs.h).
 *
 * Positions are byte offsets from the buffer start. Sums of a position and
 * an untrusted 32-bit value are computed in 64 bits, so nothing wraps.
 */
#include "rknn_fbs.h"

#include <string.h>

static const char empty_string[1] = "";

static int in_range(const rknn_fbs_buf *b, uint64_t pos, uint64_t len)
{
    return pos <= b->size && len <= b->size - pos;
}

int rknn_fbs_buf_init(rknn_fbs_buf *buf, const void *data, size_t size)
{
    if (!buf || !data || size > RKNN_FBS_MAX_SIZE)
        return RKNN_FBS_E_PARAM;
    buf->data = (const uint8_t *)data;
    buf->size = (uint32_t)size;
    return RKNN_FBS_OK;
}

int rknn_fbs_has_identifier(const rknn_fbs_buf *buf, const char id[4])
{
    if (!buf || !id || !in_range(buf, 4, 4))
        return 0;
    return memcmp(buf->data + 4, id, 4) == 0;
}

int rknn_fbs_table_at(const rknn_fbs_buf *buf, uint32_t pos, uint32_t depth, rknn_fbs_table *out)
{
    int64_t vt;
    uint16_t vt_size, tbl_size;

    if (!buf || !out)
        return RKNN_FBS_E_PARAM;
    if (depth > RKNN_FBS_MAX_DEPTH)
        return RKNN_FBS_E_DEPTH;
    if (pos % 4 != 0)
        return RKNN_FBS_E_ALIGN;
    if (!in_range(buf, pos, 4))
        return RKNN_FBS_E_RANGE;
    /* The vtable lives at table - soffset (either side of the table). */
    vt = (int64_t)pos - (int32_t)rknn_fbs_le32(buf->data + pos);
    if (vt < 0 || !in_range(buf, (uint64_t)vt, 4))
        return RKNN_FBS_E_VTABLE;
    if (vt % 2 != 0)
        return RKNN_FBS_E_ALIGN;
    vt_size = rknn_fbs_le16(buf->data + vt);
    tbl_size = rknn_fbs_le16(buf->data + vt + 2);
    if (vt_size < 4 || vt_size % 2 != 0 || !in_range(buf, (uint64_t)vt, vt_size))
        return RKNN_FBS_E_VTABLE;
    if (tbl_size < 4)
        return RKNN_FBS_E_VTABLE;
    if (!in_range(buf, pos, tbl_size))
        return RKNN_FBS_E_RANGE;
    out->buf = *buf;
    out->pos = pos;
    out->vtable = (uint32_t)vt;
    out->vtable_size = vt_size;
    out->table_size = tbl_size;
    out->depth = (uint8_t)depth;
    return RKNN_FBS_OK;
}

int rknn_fbs_root(const rknn_fbs_buf *buf, rknn_fbs_table *out)
{
    if (!buf || !out)
        return RKNN_FBS_E_PARAM;
    if (!in_range(buf, 0, 4))
        return RKNN_FBS_E_RANGE;
    return rknn_fbs_table_at(buf, rknn_fbs_le32(buf->data), 0, out);
}

uint32_t rknn_fbs_slot_count(const rknn_fbs_table *t)
{
    return t ? (uint32_t)(t->vtable_size - 4) / 2 : 0;
}

int rknn_fbs_field_pos(const rknn_fbs_table *t, uint32_t slot, uint32_t size, uint32_t *pos)
{
    uint16_t off;

    if (!t || !pos)
        return RKNN_FBS_E_PARAM;
    if (slot >= rknn_fbs_slot_count(t))
        return RKNN_FBS_ABSENT;
    off = rknn_fbs_le16(t->buf.data + t->vtable + 4 + 2 * slot);
    if (off == 0)
        return RKNN_FBS_ABSENT;
    /* Bytes 0..3 of a table are its vtable offset; fields come after. */
    if (off < 4 || (uint32_t)off + size > t->table_size)
        return RKNN_FBS_E_FIELD;
    *pos = t->pos + off;
    return RKNN_FBS_OK;
}

/* Reads `size` (1..8) little-endian bytes of a scalar field into *raw. */
static int get_scalar(const rknn_fbs_table *t, uint32_t slot, uint32_t size, uint64_t *raw)
{
    uint32_t pos = 0;
    int ret = rknn_fbs_field_pos(t, slot, size, &pos);

    if (ret != RKNN_FBS_OK)
        return ret;
    *raw = 0;
    for (uint32_t i = 0; i < size; i++)
        *raw |= (uint64_t)t->buf.data[pos + i] << (8 * i);
    return RKNN_FBS_OK;
}

int rknn_fbs_get_u8(const rknn_fbs_table *t, uint32_t slot, uint8_t def, uint8_t *out)
{
    uint64_t raw = 0;
    int ret = get_scalar(t, slot, 1, &raw);

    if (out)
        *out = ret == RKNN_FBS_OK ? (uint8_t)raw : def;
    return ret;
}

int rknn_fbs_get_u32(const rknn_fbs_table *t, uint32_t slot, uint32_t def, uint32_t *out)
{
    uint64_t raw = 0;
    int ret = get_scalar(t, slot, 4, &raw);

    if (out)
        *out = ret == RKNN_FBS_OK ? (uint32_t)raw : def;
    return ret;
}

/* Follows the uoffset stored at pos (4 readable bytes) to an absolute,
 * in-buffer, 4-aligned position. */
static int follow_uoffset(const rknn_fbs_buf *b, uint32_t pos, uint32_t *target)
{
    uint64_t dest = (uint64_t)pos + rknn_fbs_le32(b->data + pos);

    if (dest >= b->size)
        return RKNN_FBS_E_RANGE;
    if (dest % 4 != 0)
        return RKNN_FBS_E_ALIGN;
    *target = (uint32_t)dest;
    return RKNN_FBS_OK;
}

/* Resolves the uoffset stored at slot into an absolute, 4-aligned position. */
static int get_offset_target(const rknn_fbs_table *t, uint32_t slot, uint32_t *target)
{
    uint32_t pos = 0;
    int ret = rknn_fbs_field_pos(t, slot, 4, &pos);

    if (ret != RKNN_FBS_OK)
        return ret;
    if (pos % 4 != 0)
        return RKNN_FBS_E_ALIGN;
    return follow_uoffset(&t->buf, pos, target);
}

/* Opens the vector whose u32 length prefix is at `pos`. */
static int vector_at(const rknn_fbs_buf *buf, uint32_t pos, uint32_t elem_size, uint32_t depth,
                     rknn_fbs_vector *out)
{
    uint32_t count;

    if (pos % 4 != 0)
        return RKNN_FBS_E_ALIGN;
    if (!in_range(buf, pos, 4))
        return RKNN_FBS_E_RANGE;
    count = rknn_fbs_le32(buf->data + pos);
    /* count * elem_size < 2^64, so this comparison cannot overflow. */
    if ((uint64_t)count * elem_size > (uint64_t)buf->size - pos - 4)
        return RKNN_FBS_E_SIZE;
    out->buf = *buf;
    out->pos = pos + 4;
    out->count = count;
    out->elem_size = elem_size;
    out->depth = (uint8_t)depth;
    return RKNN_FBS_OK;
}

int rknn_fbs_get_vector(const rknn_fbs_table *t, uint32_t slot, uint32_t elem_size,
                        rknn_fbs_vector *out)
{
    uint32_t target = 0;
    int ret;

    if (!t || !out || elem_size == 0)
        return RKNN_FBS_E_PARAM;
    memset(out, 0, sizeof(*out));
    out->buf = t->buf;
    out->elem_size = elem_size;
    out->depth = t->depth;
    ret = get_offset_target(t, slot, &target);
    if (ret != RKNN_FBS_OK)
        return ret;
    return vector_at(&t->buf, target, elem_size, t->depth, out);
}

static int string_at(const rknn_fbs_buf *buf, uint32_t pos, rknn_fbs_string *out)
{
    rknn_fbs_vector v;
    int ret = vector_at(buf, pos, 1, 0, &v);

    if (ret != RKNN_FBS_OK)
        return ret;
    out->ptr = (const char *)(buf->data + v.pos);
    out->len = v.count;
    return RKNN_FBS_OK;
}

int rknn_fbs_get_string(const rknn_fbs_table *t, uint32_t slot, rknn_fbs_string *out)
{
    uint32_t target = 0;
    int ret;

    if (!t || !out)
        return RKNN_FBS_E_PARAM;
    out->ptr = empty_string;
    out->len = 0;
    ret = get_offset_target(t, slot, &target);
    if (ret != RKNN_FBS_OK)
        return ret;
    ret = string_at(&t->buf, target, out);
    if (ret != RKNN_FBS_OK) {
        out->ptr = empty_string;
        out->len = 0;
    }
    return ret;
}

void rknn_fbs_string_copy(rknn_fbs_string s, char *buf, size_t cap)
{
    size_t n = s.len < cap - 1 ? s.len : cap - 1;

    memcpy(buf, s.ptr, n);
    buf[n] = 0;
}

/* Position of element i after checking the index and the element size. */
static int elem_pos(const rknn_fbs_vector *v, uint32_t i, uint32_t elem_size, uint32_t *pos)
{
    if (!v)
        return RKNN_FBS_E_PARAM;
    if (i >= v->count || v->elem_size != elem_size)
        return RKNN_FBS_E_INDEX;
    /* vector_at() proved pos + count * elem_size <= size. */
    *pos = v->pos + i * elem_size;
    return RKNN_FBS_OK;
}

int rknn_fbs_vec_u32(const rknn_fbs_vector *v, uint32_t i, uint32_t *out)
{
    uint32_t pos = 0;
    int ret = elem_pos(v, i, 4, &pos);

    if (ret == RKNN_FBS_OK && out)
        *out = rknn_fbs_le32(v->buf.data + pos);
    return ret;
}

int rknn_fbs_vec_i32(const rknn_fbs_vector *v, uint32_t i, int32_t *out)
{
    uint32_t u = 0;
    int ret = rknn_fbs_vec_u32(v, i, &u);

    if (ret == RKNN_FBS_OK && out)
        *out = (int32_t)u;
    return ret;
}

int rknn_fbs_vec_f32(const rknn_fbs_vector *v, uint32_t i, float *out)
{
    uint32_t u = 0;
    int ret = rknn_fbs_vec_u32(v, i, &u);

    if (ret == RKNN_FBS_OK && out)
        memcpy(out, &u, sizeof(*out));
    return ret;
}

int rknn_fbs_vec_struct(const rknn_fbs_vector *v, uint32_t i, const uint8_t **out)
{
    uint32_t pos = 0;
    int ret;

    if (!v || !out)
        return RKNN_FBS_E_PARAM;
    ret = elem_pos(v, i, v->elem_size, &pos);
    if (ret == RKNN_FBS_OK)
        *out = v->buf.data + pos;
    return ret;
}

/* Absolute position an offset element of a vector points to. */
static int elem_target(const rknn_fbs_vector *v, uint32_t i, uint32_t *target)
{
    uint32_t pos = 0;
    int ret = elem_pos(v, i, 4, &pos);

    return ret != RKNN_FBS_OK ? ret : follow_uoffset(&v->buf, pos, target);
}

int rknn_fbs_vec_table(const rknn_fbs_vector *v, uint32_t i, rknn_fbs_table *out)
{
    uint32_t target = 0;
    int ret;

    if (!out)
        return RKNN_FBS_E_PARAM;
    ret = elem_target(v, i, &target);
    if (ret != RKNN_FBS_OK)
        return ret;
    return rknn_fbs_table_at(&v->buf, target, (uint32_t)v->depth + 1, out);
}

const uint8_t *rknn_fbs_vec_data(const rknn_fbs_vector *v)
{
    if (!v || !v->buf.data)
        return NULL;
    return v->buf.data + v->pos;
}

#if !defined(HAL_LOG_STRINGS) || HAL_LOG_STRINGS /* else only log arguments name it */
const char *rknn_fbs_strerror(int err)
{
    switch (err) {
    case RKNN_FBS_OK: return "ok";
    case RKNN_FBS_ABSENT: return "field absent";
    case RKNN_FBS_E_RANGE: return "offset out of range";
    case RKNN_FBS_E_ALIGN: return "misaligned offset";
    case RKNN_FBS_E_VTABLE: return "malformed vtable";
    case RKNN_FBS_E_SIZE: return "vector length exceeds buffer";
    case RKNN_FBS_E_DEPTH: return "tables nested too deep";
    case RKNN_FBS_E_FIELD: return "field outside its table";
    case RKNN_FBS_E_INDEX: return "index out of range";
    case RKNN_FBS_E_PARAM: return "invalid argument";
    default: return "unknown error";
    }
}
#endif
