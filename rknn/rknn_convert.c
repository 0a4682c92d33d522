/*
 * rknn_convert.c - layout and type conversion for inputs and outputs.
 *
 * Both directions walk the logical tensor as (n, h, c, w) with w innermost,
 * so every inner loop is a constant-stride copy: a plain NCHW plane row, an
 * NHWC row (stride C) or an NC1HWC2 surface row (stride C2). 8-bit inputs
 * go through a 256-entry table per distinct channel normalisation (one
 * lookup per element, no floating point in the loop); int8 outputs through
 * a 256-entry dequantisation table.
 */
#include <string.h>

#include "rknn_convert.h"

#define MAX_LUTS 4

uint64_t rknn_layout_bytes(const rknn_layout *l)
{
    uint64_t elems;
    uint32_t esize = l->type == RKNN_TENSOR_FLOAT32 || l->type == RKNN_TENSOR_INT32 ? 4
                   : l->type == RKNN_TENSOR_FLOAT16 || l->type == RKNN_TENSOR_INT16 ? 2
                                                                                    : 1;

    switch (l->kind) {
    case RKNN_LAYOUT_NHWC: elems = (uint64_t)l->n * l->h * l->w_stride * l->c; break;
    case RKNN_LAYOUT_NC1HWC2: elems = (uint64_t)l->n * l->c1 * l->h * l->w * l->c2; break;
    default: elems = (uint64_t)l->n * l->c * l->h * l->w; break;
    }
    return elems * esize;
}

/* Strides in elements for the (n, h, w) axes and the offset of channel c. */
typedef struct {
    uint64_t sn, sh, sw;
    uint64_t plane;  /* NC1HWC2: surface size; NCHW: channel plane */
    uint32_t c2;
    rknn_layout_kind kind;
} walk;

static walk walk_of(const rknn_layout *l)
{
    walk k = {0};

    k.kind = l->kind;
    switch (l->kind) {
    case RKNN_LAYOUT_NHWC:
        k.sw = l->c;
        k.sh = (uint64_t)l->w_stride * l->c;
        k.sn = k.sh * l->h;
        break;
    case RKNN_LAYOUT_NC1HWC2:
        k.c2 = l->c2;
        k.sw = l->c2;
        k.sh = (uint64_t)l->w * l->c2;
        k.plane = k.sh * l->h;
        k.sn = k.plane * l->c1;
        break;
    default:
        k.sw = 1;
        k.sh = l->w;
        k.plane = (uint64_t)l->h * l->w;
        k.sn = k.plane * l->c;
        break;
    }
    return k;
}

static uint64_t chan_off(const walk *k, uint32_t c)
{
    switch (k->kind) {
    case RKNN_LAYOUT_NHWC: return c;
    case RKNN_LAYOUT_NC1HWC2: return (c / k->c2) * k->plane + c % k->c2;
    default: return c * k->plane;
    }
}

uint64_t rknn_layout_offset(const rknn_layout *l, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
    walk k = walk_of(l);

    return n * k.sn + h * k.sh + w * k.sw + chan_off(&k, c);
}

/* ---- fp16 ----------------------------------------------------------------- */

uint16_t rknn_f32_to_f16(float f)
{
    uint32_t x, sign, mant;
    int32_t exp;

    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    exp = (int32_t)((x >> 23) & 0xFFu) - 127 + 15;
    mant = x & 0x7FFFFFu;
    if (((x >> 23) & 0xFFu) == 0xFFu) /* inf / nan */
        return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u : 0));
    if (exp >= 31)
        return (uint16_t)(sign | 0x7C00u);
    if (exp <= 0) {
        /* subnormal: shift the implicit-one mantissa, round to nearest even */
        uint32_t m = mant | 0x800000u, shift = (uint32_t)(14 - exp);
        uint32_t half, rest, out;
        if (shift > 24)
            return (uint16_t)sign;
        out = m >> shift;
        rest = m & ((1u << shift) - 1);
        half = 1u << (shift - 1);
        if (rest > half || (rest == half && (out & 1)))
            out++;
        return (uint16_t)(sign | out);
    }
    {
        uint32_t out = ((uint32_t)exp << 10) | (mant >> 13), rest = mant & 0x1FFFu;
        if (rest > 0x1000u || (rest == 0x1000u && (out & 1)))
            out++; /* may carry into the exponent, which is the right result */
        return (uint16_t)(sign | out);
    }
}

float rknn_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    uint32_t x;
    float f;

    if (exp == 0) {
        f = (float)mant * (1.0f / 16777216.0f); /* 2^-24 */
        return sign ? -f : f;
    }
    if (exp == 31)
        x = sign | 0x7F800000u | (mant << 13);
    else
        x = sign | ((exp + 112u) << 23) | (mant << 13);
    memcpy(&f, &x, 4);
    return f;
}

/* ---- element access ------------------------------------------------------- */

static float read_value(const void *buf, rknn_tensor_type t, uint64_t i)
{
    switch (t) {
    case RKNN_TENSOR_UINT8: return (float)((const uint8_t *)buf)[i];
    case RKNN_TENSOR_INT8: return (float)((const int8_t *)buf)[i];
    case RKNN_TENSOR_FLOAT16: return rknn_f16_to_f32(((const uint16_t *)buf)[i]);
    case RKNN_TENSOR_INT32: return (float)((const int32_t *)buf)[i];
    case RKNN_TENSOR_INT16: return (float)((const int16_t *)buf)[i];
    default: return ((const float *)buf)[i];
    }
}

/* round(v / scale) + zp, saturated to int8; rounds half away from zero
 * (clamped before the integer conversion, so no overflow for any float). */
static int8_t quantise(float v, const rknn_value_map *m)
{
    float q = v / m->scale;

    if (!(q > -1000.0f)) /* also catches NaN */
        q = -1000.0f;
    if (q > 1000.0f)
        q = 1000.0f;
    int32_t r = (int32_t)(q < 0 ? q - 0.5f : q + 0.5f) + m->zp;
    return (int8_t)(r < -128 ? -128 : r > 127 ? 127 : r);
}

static float normalised(float v, const rknn_value_map *m, uint32_t c)
{
    return m->normalise ? (v - m->mean[c % 4]) / m->std[c % 4] : v;
}

/* The stored code of one user value on the native side. */
static void store_native(void *dst, rknn_tensor_type t, uint64_t i, float v, const rknn_value_map *m)
{
    if (t == RKNN_TENSOR_FLOAT16)
        ((uint16_t *)dst)[i] = rknn_f32_to_f16(v);
    else
        ((int8_t *)dst)[i] = (int8_t)(quantise(v, m) + m->store_offset);
}

/* ---- input: user -> native ------------------------------------------------- */

static void fill_padding(const rknn_layout *to, void *dst, const rknn_value_map *m)
{
    uint64_t bytes = rknn_layout_bytes(to);
    int pad_rows = to->kind == RKNN_LAYOUT_NHWC && to->w_stride > to->w;
    int pad_lanes = to->kind == RKNN_LAYOUT_NC1HWC2 && (uint64_t)to->c1 * to->c2 > to->c;

    if (!pad_rows && !pad_lanes)
        return;
    if (to->type == RKNN_TENSOR_FLOAT16)
        memset(dst, 0, (size_t)bytes); /* 0.0 contributes nothing */
    else
        memset(dst, (int8_t)(m->zp + m->store_offset), (size_t)bytes); /* the zero point */
}

static int build_luts(int8_t lut[MAX_LUTS][256], uint32_t *n_luts, rknn_tensor_type from,
                      const rknn_value_map *m)
{
    *n_luts = m->normalise ? MAX_LUTS : 1;
    for (uint32_t l = 0; l < *n_luts; l++)
        for (int x = 0; x < 256; x++) {
            float v = from == RKNN_TENSOR_UINT8 ? (float)x : (float)(int8_t)(uint8_t)x;
            lut[l][x] = (int8_t)(quantise(normalised(v, m, l), m) + m->store_offset);
        }
    return 0;
}

int rknn_convert_input(const rknn_layout *from, const void *src, const rknn_layout *to, void *dst,
                       const rknn_value_map *map)
{
    walk a = walk_of(from), b = walk_of(to);
    int8_t lut[MAX_LUTS][256];
    uint32_t n_luts = 0;
    int use_lut = (from->type == RKNN_TENSOR_UINT8 || from->type == RKNN_TENSOR_INT8) &&
                  to->type == RKNN_TENSOR_INT8 && map->quantised;

    if (from->n != to->n || from->c != to->c || from->h != to->h || from->w != to->w)
        return -1;
    if (use_lut)
        build_luts(lut, &n_luts, from->type, map);
    fill_padding(to, dst, map);
    for (uint32_t n = 0; n < from->n; n++)
        for (uint32_t h = 0; h < from->h; h++)
            for (uint32_t c = 0; c < from->c; c++) {
                uint64_t sa = n * a.sn + h * a.sh + chan_off(&a, c);
                uint64_t sb = n * b.sn + h * b.sh + chan_off(&b, c);
                if (use_lut) {
                    const uint8_t *s = (const uint8_t *)src + sa;
                    int8_t *d = (int8_t *)dst + sb;
                    const int8_t *t = lut[n_luts == 1 ? 0 : c % MAX_LUTS];
                    for (uint32_t w = 0; w < from->w; w++)
                        d[w * b.sw] = t[s[w * a.sw]];
                } else {
                    for (uint32_t w = 0; w < from->w; w++)
                        store_native(dst, to->type, sb + w * b.sw,
                                     normalised(read_value(src, from->type, sa + w * a.sw), map, c),
                                     map);
                }
            }
    return 0;
}

/* ---- output: native -> user ------------------------------------------------ */

static void write_user(void *dst, rknn_tensor_type t, uint64_t i, float v)
{
    if (t == RKNN_TENSOR_FLOAT16)
        ((uint16_t *)dst)[i] = rknn_f32_to_f16(v);
    else
        ((float *)dst)[i] = v;
}

int rknn_convert_output(const rknn_layout *from, const void *src, const rknn_layout *to, void *dst,
                        const rknn_value_map *map)
{
    walk a = walk_of(from), b = walk_of(to);
    float dequant[256];
    int int8_to_float = from->type == RKNN_TENSOR_INT8 && to->type == RKNN_TENSOR_FLOAT32;
    int same_type = from->type == to->type;
    uint32_t esize = to->type == RKNN_TENSOR_FLOAT32 || to->type == RKNN_TENSOR_INT32 ? 4
                   : to->type == RKNN_TENSOR_FLOAT16 || to->type == RKNN_TENSOR_INT16 ? 2
                                                                                      : 1;

    if (from->n != to->n || from->c != to->c || from->h != to->h || from->w != to->w)
        return -1;
    if (int8_to_float)
        for (int x = 0; x < 256; x++)
            dequant[x] = map->quantised ? ((float)(int8_t)(uint8_t)x - (float)map->zp) * map->scale
                                        : (float)(int8_t)(uint8_t)x;
    for (uint32_t n = 0; n < from->n; n++)
        for (uint32_t c = 0; c < from->c; c++)
            for (uint32_t h = 0; h < from->h; h++) {
                uint64_t sa = n * a.sn + h * a.sh + chan_off(&a, c);
                uint64_t sb = n * b.sn + h * b.sh + chan_off(&b, c);
                if (int8_to_float) {
                    const uint8_t *s = (const uint8_t *)src + sa;
                    float *d = (float *)dst + sb;
                    for (uint32_t w = 0; w < from->w; w++)
                        d[w * b.sw] = dequant[s[w * a.sw]];
                } else if (same_type) {
                    for (uint32_t w = 0; w < from->w; w++)
                        memcpy((uint8_t *)dst + (sb + w * b.sw) * esize,
                               (const uint8_t *)src + (sa + w * a.sw) * esize, esize);
                } else {
                    for (uint32_t w = 0; w < from->w; w++)
                        write_user(dst, to->type, sb + w * b.sw,
                                   read_value(src, from->type, sa + w * a.sw));
                }
            }
    return 0;
}
