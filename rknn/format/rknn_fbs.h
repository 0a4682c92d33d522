/*
 * rknn_fbs.h - a minimal, bounds-checked FlatBuffers reader.
 *
 * Reads a FlatBuffer in place (the buffer may sit in flash; nothing is
 * copied, nothing is allocated, no alignment of the buffer itself is
 * assumed: every multi-byte value is assembled byte by byte, little endian).
 * The input is untrusted: every access checks that offsets stay inside the
 * buffer, that tables, vectors and strings start where FlatBuffers requires
 * (4-byte aligned relative to the buffer start), that vtables are well formed,
 * that "count * element size" cannot overflow, and that tables are not nested
 * deeper than RKNN_FBS_MAX_DEPTH. Errors are negative return codes; the caller
 * decides what to log (it knows which field it was reading).
 *
 * Slot numbers are vtable indices: slot i lives at vtable byte 4 + 2*i.
 */
#ifndef RKNN_FBS_H
#define RKNN_FBS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. Absent optional fields are not errors. */
#define RKNN_FBS_OK       0
#define RKNN_FBS_ABSENT   1    /* field not stored (scalars: default returned) */
#define RKNN_FBS_E_RANGE  (-1) /* offset or length points outside the buffer */
#define RKNN_FBS_E_ALIGN  (-2) /* table/vector/string/offset not 4-byte aligned */
#define RKNN_FBS_E_VTABLE (-3) /* vtable too small, odd or outside the buffer */
#define RKNN_FBS_E_SIZE   (-4) /* count * element size overflows the buffer */
#define RKNN_FBS_E_DEPTH  (-5) /* tables nested deeper than RKNN_FBS_MAX_DEPTH */
#define RKNN_FBS_E_FIELD  (-6) /* field does not fit inside its table */
#define RKNN_FBS_E_INDEX  (-7) /* vector index out of range / wrong element size */
#define RKNN_FBS_E_PARAM  (-8) /* NULL argument or buffer too large */

/* Deepest table nesting accepted (root = 0). The .rknn schema needs 3. */
#define RKNN_FBS_MAX_DEPTH 16
/* FlatBuffers use 32-bit offsets; larger buffers cannot be valid. */
#define RKNN_FBS_MAX_SIZE 0x7fffffffu

typedef struct {
    const uint8_t *data;
    uint32_t size;
} rknn_fbs_buf;

typedef struct {
    rknn_fbs_buf buf;
    uint32_t pos;         /* table start (where its soffset to the vtable is) */
    uint32_t vtable;      /* vtable start */
    uint16_t vtable_size; /* bytes, including the two u16 header fields */
    uint16_t table_size;  /* inline size of the table in bytes */
    uint8_t depth;        /* nesting depth (root table = 0) */
} rknn_fbs_table;

typedef struct {
    rknn_fbs_buf buf;
    uint32_t pos;       /* first element */
    uint32_t count;     /* number of elements */
    uint32_t elem_size; /* bytes per element (4 for offsets to tables) */
    uint8_t depth;      /* depth of the table that holds the vector */
} rknn_fbs_vector;

/* A string view: NOT necessarily NUL-terminated; use len. ptr is never NULL
 * (an absent string is "" with len 0). */
typedef struct {
    const char *ptr;
    uint32_t len;
} rknn_fbs_string;

/* Copies s into buf as a C string, cut to cap - 1 bytes (cap > 0). */
void rknn_fbs_string_copy(rknn_fbs_string s, char *buf, size_t cap);

/* ---- little-endian loads from any address -------------------------------- */

static inline uint16_t rknn_fbs_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t rknn_fbs_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t rknn_fbs_le64(const uint8_t *p)
{
    return (uint64_t)rknn_fbs_le32(p) | ((uint64_t)rknn_fbs_le32(p + 4) << 32);
}

/* ---- buffer and root ------------------------------------------------------ */

/* Wrap [data, data + size). Fails for NULL data or size > RKNN_FBS_MAX_SIZE. */
int rknn_fbs_buf_init(rknn_fbs_buf *buf, const void *data, size_t size);

/* 1 if the 4-byte file identifier at offset 4 equals id[0..3], else 0. */
int rknn_fbs_has_identifier(const rknn_fbs_buf *buf, const char id[4]);

/* The root table (u32 offset at byte 0). */
int rknn_fbs_root(const rknn_fbs_buf *buf, rknn_fbs_table *out);

/* Open the table starting at pos with the given nesting depth. */
int rknn_fbs_table_at(const rknn_fbs_buf *buf, uint32_t pos, uint32_t depth, rknn_fbs_table *out);

/* Number of slots the table's vtable describes. */
uint32_t rknn_fbs_slot_count(const rknn_fbs_table *t);

/* Position of slot's inline data of `size` bytes: RKNN_FBS_OK (pos set),
 * RKNN_FBS_ABSENT, or an error if the field does not fit in the table. */
int rknn_fbs_field_pos(const rknn_fbs_table *t, uint32_t slot, uint32_t size, uint32_t *pos);

/* ---- scalar fields: RKNN_FBS_OK, RKNN_FBS_ABSENT (def stored) or error ----
 * (the widths the .rknn parser reads; others would follow get_u32; a
 * signed field has the same bytes) */

int rknn_fbs_get_u8(const rknn_fbs_table *t, uint32_t slot, uint8_t def, uint8_t *out);
int rknn_fbs_get_u32(const rknn_fbs_table *t, uint32_t slot, uint32_t def, uint32_t *out);

/* ---- offset fields: RKNN_FBS_OK, RKNN_FBS_ABSENT (out emptied) or error --- */

/* elem_size: 1, 2, 4, 8 for scalars, the struct size for structs, 4 for
 * tables and strings. An absent vector reads as count 0. */
int rknn_fbs_get_vector(const rknn_fbs_table *t, uint32_t slot, uint32_t elem_size,
                        rknn_fbs_vector *out);
/* An absent string reads as "" with len 0. */
int rknn_fbs_get_string(const rknn_fbs_table *t, uint32_t slot, rknn_fbs_string *out);

/* ---- vector elements: RKNN_FBS_OK or RKNN_FBS_E_INDEX / error ------------- */

int rknn_fbs_vec_i32(const rknn_fbs_vector *v, uint32_t i, int32_t *out);
int rknn_fbs_vec_u32(const rknn_fbs_vector *v, uint32_t i, uint32_t *out);
int rknn_fbs_vec_f32(const rknn_fbs_vector *v, uint32_t i, float *out);
/* Pointer to element i of a vector of structs (elem_size bytes). */
int rknn_fbs_vec_struct(const rknn_fbs_vector *v, uint32_t i, const uint8_t **out);
int rknn_fbs_vec_table(const rknn_fbs_vector *v, uint32_t i, rknn_fbs_table *out);
/* The whole vector as bytes (for [ubyte] blobs). */
const uint8_t *rknn_fbs_vec_data(const rknn_fbs_vector *v);

/* Short description of an error code, for log lines (not built with
 * log_strings=false: log arguments are never evaluated there). */
const char *rknn_fbs_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* RKNN_FBS_H */
