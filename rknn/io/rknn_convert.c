/*
 * rknn_convert.c - layout and type conversion for inputs and outputs.
 *
 * The two conversions every frame of a quantised model pays for have their
 * own loops, chosen once per call:
 *  - 8-bit NHWC input into the native packed NHWC: rows are contiguous on
 *    both sides. When the quantisation is code = pixel + zero point (scale
 *    1, no normalisation, nothing saturates: the vendor's uint8 models) a
 *    row is a plain copy when the constant is 0 (uint8 pixels for the NPU's
 *    input converter, int8 pixel - 128 as codes), else a byte-wise add;
 *    otherwise one 256-entry table lookup per byte.
 *  - int8 output into float32 (want_float) or float16: each code's value
 *    from a 256-entry table made once per call with ((float)code - zp) *
 *    scale (hence the same bits as arithmetic per element); into uint8 the
 *    code + 128. NC1HWC2 to NCHW reads the surface in order. No SIMD: a
 *    load per element keeps pace with the memory traffic on silicon and is
 *    many times faster under emulation (dequant_table).
 * Every other case takes the general path: the tensor
 * walked as rows of w elements at a constant stride, (n, h, c, w) with w
 * innermost, the type dispatch outside the inner loops.
 */
#include <string.h>

#include "hal.h"
#include "rknn_convert.h"

#define MAX_LUTS  4
#define ROW_CHUNK 64u /* elements converted through one float buffer */

static uint32_t elem_bytes(rknn_tensor_type t)
{
    return t == RKNN_TENSOR_FLOAT32 || t == RKNN_TENSOR_INT32   ? 4
           : t == RKNN_TENSOR_FLOAT16 || t == RKNN_TENSOR_INT16 ? 2
                                                                : 1;
}

uint64_t rknn_layout_bytes(const rknn_layout *l)
{
    uint64_t elems;
    uint32_t esize = elem_bytes(l->type);

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
    uint64_t plane; /* NC1HWC2: surface size; NCHW: channel plane */
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
#if defined(__ARM_FP16_FORMAT_IEEE)
    /* Arm's own conversion instruction (every AArch64 CPU, and ARMv7 with
     * VFPv4 under -mfp16-format=ieee): exact, and no data-dependent branch
     * in the loops that call this */
    __fp16 x;

    memcpy(&x, &h, 2);
    return (float)x;
#else
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
#endif
}

/* ---- values ----------------------------------------------------------------- */

/* round(v / scale) + zp, saturated to int8; rounds half to even, as
 * Rockchip's runtime 1.6.0 does (api.md §4). Clamped before the integer
 * conversion, so no overflow for any float; q - r is exact below 2^23. */
static int8_t quantise(float v, const rknn_value_map *m)
{
    float q = v / m->scale, f;
    int32_t r;

    if (!(q > -1000.0f)) /* also catches NaN */
        q = -1000.0f;
    if (q > 1000.0f)
        q = 1000.0f;
    r = (int32_t)q; /* toward zero */
    f = q - (float)r;
    if (f > 0.5f || (f == 0.5f && (r & 1)))
        r++;
    else if (f < -0.5f || (f == -0.5f && (r & 1)))
        r--;
    r += m->zp;
    return (int8_t)(r < -128 ? -128 : r > 127 ? 127 : r);
}

/* The byte the native int8 buffer holds for value v: its code plus the
 * store offset (rknn_cvt.c: what the NPU's input converter reads). */
static int8_t native_code(float v, const rknn_value_map *m)
{
    return (int8_t)(quantise(v, m) + m->store_offset);
}

static float normalised(float v, const rknn_value_map *m, uint32_t c)
{
    return m->normalise ? (v - m->mean[c % 4]) / m->std[c % 4] : v;
}

/* The pixel an 8-bit input byte stands for: uint8 is the pixel, int8 the
 * pixel - 128, as Rockchip's runtime 1.6.0 reads int8 inputs on every
 * shared model, int8 or float16 (api.md §4). */
static float pixel_of(rknn_tensor_type t, uint8_t byte)
{
    return (float)(t == RKNN_TENSOR_INT8 ? byte ^ 0x80u : byte);
}

/* ---- rows through a float buffer (the general path) -------------------------- */

/* v[i] = element (i0 + i * stride) of src, n <= ROW_CHUNK: the types that
 * reach it, float16 and float32 user inputs and the natives of
 * output_supported other than int8 (8-bit data goes through input_lut and
 * output_int8_table). */
static void read_row(const void *src, rknn_tensor_type t, size_t i0, size_t stride, uint32_t n,
                     float *v)
{
    switch (t) {
    case RKNN_TENSOR_FLOAT16:
        for (uint32_t i = 0; i < n; i++)
            v[i] = rknn_f16_to_f32(((const uint16_t *)src)[i0 + i * stride]);
        break;
    case RKNN_TENSOR_INT32:
        for (uint32_t i = 0; i < n; i++)
            v[i] = (float)((const int32_t *)src)[i0 + i * stride];
        break;
    case RKNN_TENSOR_INT16:
        for (uint32_t i = 0; i < n; i++)
            v[i] = (float)((const int16_t *)src)[i0 + i * stride];
        break;
    default:
        for (uint32_t i = 0; i < n; i++)
            v[i] = ((const float *)src)[i0 + i * stride];
        break;
    }
}

/* Native side of an input: fp16, or the int8 code (+ store offset). */
static void write_native_row(void *dst, rknn_tensor_type t, size_t i0, size_t stride, uint32_t n,
                             const float *v, const rknn_value_map *m)
{
    if (t == RKNN_TENSOR_FLOAT16) {
        for (uint32_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i0 + i * stride] = rknn_f32_to_f16(v[i]);
    } else {
        for (uint32_t i = 0; i < n; i++)
            ((int8_t *)dst)[i0 + i * stride] = native_code(v[i], m);
    }
}

/* User side of an output: fp16 or float32. */
static void write_user_row(void *dst, rknn_tensor_type t, size_t i0, size_t stride, uint32_t n,
                           const float *v)
{
    if (t == RKNN_TENSOR_FLOAT16) {
        for (uint32_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i0 + i * stride] = rknn_f32_to_f16(v[i]);
    } else {
        for (uint32_t i = 0; i < n; i++)
            ((float *)dst)[i0 + i * stride] = v[i];
    }
}

/* Codes of the native type copied as they are (want_float = 0): n elements
 * of esize bytes, ss and ds elements apart. Pointers and native-width
 * strides: a 32-bit or emulated CPU pays for a 64-bit index per element. */
static void copy_row(void *dst, size_t ds, const void *src, size_t ss, uint32_t n, uint32_t esize)
{
    switch (esize) {
    case 4:
        for (uint32_t i = 0; i < n; i++)
            ((uint32_t *)dst)[i * ds] = ((const uint32_t *)src)[i * ss];
        break;
    case 2:
        for (uint32_t i = 0; i < n; i++)
            ((uint16_t *)dst)[i * ds] = ((const uint16_t *)src)[i * ss];
        break;
    default:
        for (uint32_t i = 0; i < n; i++)
            ((uint8_t *)dst)[i * ds] = ((const uint8_t *)src)[i * ss];
        break;
    }
}

/* ---- kernels ------------------------------------------------------------------ */

/* d[i] = s[i] + k (mod 256), the whole quantisation of a pixel when the
 * code is pixel + zero point. k is 0 (a copy) on the frequent paths: uint8
 * pixels the NPU's converter takes as they are (rknn_cvt.c), int8 pixel - 128
 * as codes; the add is the fallback where the converter cannot be used. */
static void add_bytes(uint8_t *d, const uint8_t *s, size_t n, uint8_t k)
{
    if (k == 0) {
        memcpy(d, s, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)(s[i] + k);
}

/* d[i] = t[s[i]]: the general 8-bit quantisation of one contiguous run. */
static void lookup_bytes(int8_t *d, const uint8_t *s, size_t n, const int8_t *t)
{
    for (size_t i = 0; i < n; i++)
        d[i] = t[s[i]];
}

/* Dequantisation of an int8 -> float32 output: ((float)code - zp) * scale
 * - zp_scaled, one of zp and zp_scaled 0 (rknn_value_map's by_product). */
typedef struct {
    float zp, scale, zp_scaled;
} dequant;

static inline float dequant1(int8_t code, const dequant *q)
{
    return ((float)code - q->zp) * q->scale - q->zp_scaled;
}

/* The 256 values an int8 output's codes dequantise to, indexed by the
 * code's byte: one load per element instead of float arithmetic, the same
 * bits. Emulated CPUs (Rockchip's runtime is compared with ours under
 * qemu-arm, README "Performance") run float arithmetic, scalar or NEON,
 * through slow helpers and loads at native speed; on silicon a load per
 * element keeps up with the output's memory bandwidth. */
static void dequant_table(float *t, const dequant *q)
{
    for (int c = -128; c < 128; c++)
        t[(uint8_t)c] = dequant1((int8_t)c, q);
}

/* ---- input: user -> native ------------------------------------------------- */

/* Only the bytes no element lands on: row tails (NHWC w_stride > w) and the
 * unused channel lanes of NC1HWC2 surfaces get the zero point (0.0 for fp16). */
static void fill_padding(const rknn_layout *to, void *dst, const rknn_value_map *m)
{
    walk b = walk_of(to);
    uint32_t esize = elem_bytes(to->type);
    int fill = to->type == RKNN_TENSOR_FLOAT16 ? 0 : (int8_t)(m->zp + m->store_offset);
    uint8_t *d = dst;

    if (to->kind == RKNN_LAYOUT_NHWC && to->w_stride > to->w) {
        for (uint64_t row = 0; row < (uint64_t)to->n * to->h; row++)
            memset(d + (row * b.sh + (uint64_t)to->w * to->c) * esize, fill,
                   (size_t)((uint64_t)(to->w_stride - to->w) * to->c * esize));
    } else if (to->kind == RKNN_LAYOUT_NC1HWC2 && (uint64_t)to->c1 * to->c2 > to->c) {
        uint32_t first = to->c / to->c2; /* the first surface with unused lanes */
        for (uint32_t n = 0; n < to->n; n++)
            memset(d + (n * b.sn + first * b.plane) * esize, fill,
                   (size_t)((to->c1 - first) * b.plane * esize));
    }
}

static void build_luts(int8_t (*lut)[256], uint32_t n_luts, rknn_tensor_type from,
                       const rknn_value_map *m)
{
    for (uint32_t l = 0; l < n_luts; l++)
        for (int x = 0; x < 256; x++) {
            lut[l][x] = native_code(normalised(pixel_of(from, (uint8_t)x), m, l), m);
        }
}

/* code = pixel + zp exactly, for every pixel: scale 1, no normalisation and
 * the zero point -128 that maps 0..255 onto int8 without saturating. The
 * stored byte is then (byte + pixel_of's shift + zp + store_offset) mod 256. */
static int is_byte_shift(rknn_tensor_type from, const rknn_value_map *m, uint8_t *k)
{
    if (m->normalise || m->scale != 1.0f || m->zp != -128)
        return 0;
    *k = (uint8_t)(m->zp + m->store_offset + (from == RKNN_TENSOR_INT8 ? 128 : 0));
    return 1;
}

int rknn_convert_pixel_offset(const rknn_value_map *m, int32_t *offset)
{
    int8_t lut[MAX_LUTS][256];

    if (!m->quantised)
        return 0;
    build_luts(lut, MAX_LUTS, RKNN_TENSOR_UINT8, m);
    *offset = lut[0][0];
    for (uint32_t l = 0; l < MAX_LUTS; l++)
        for (int x = 0; x < 256; x++)
            if (lut[l][x] != *offset + x)
                return 0;
    return 1;
}

/* 8-bit NHWC into native NHWC of the same channels: contiguous rows. */
static void input_nhwc_rows(const rknn_layout *from, const uint8_t *src, const rknn_layout *to,
                            int8_t *dst, const rknn_value_map *map)
{
    walk a = walk_of(from), b = walk_of(to);
    uint64_t row = (uint64_t)from->w * from->c, rows = (uint64_t)from->n * from->h;
    int8_t lut[1][256];
    uint8_t k = 0;
    int shift = is_byte_shift(from->type, map, &k);

    if (!shift)
        build_luts(lut, 1, from->type, map);
    if (shift && a.sh == row && b.sh == row) {
        add_bytes((uint8_t *)dst, src, (size_t)(rows * row), k); /* one block */
        return;
    }
    for (uint64_t r = 0; r < rows; r++) {
        const uint8_t *s = src + (r / from->h) * a.sn + (r % from->h) * a.sh;
        int8_t *d = dst + (r / from->h) * b.sn + (r % from->h) * b.sh;
        if (shift)
            add_bytes((uint8_t *)d, s, (size_t)row, k);
        else
            lookup_bytes(d, s, (size_t)row, lut[0]);
    }
}

/* 8-bit input into quantised int8 or into fp16 codes (normalised when the
 * model says so), any layouts: one table per channel normalisation (c % 4),
 * the same value per (pixel, channel mod 4) as the general path, one lookup
 * per element. */
static void input_lut(const rknn_layout *from, const uint8_t *src, const rknn_layout *to, void *dst,
                      const rknn_value_map *map)
{
    walk a = walk_of(from), b = walk_of(to);
    uint16_t lut[MAX_LUTS][256];
    uint32_t n_luts = map->normalise ? MAX_LUTS : 1;
    int fp16 = to->type == RKNN_TENSOR_FLOAT16;

    for (uint32_t l = 0; l < n_luts; l++)
        for (int x = 0; x < 256; x++) {
            float v = normalised(pixel_of(from->type, (uint8_t)x), map, l);
            lut[l][x] = fp16 ? rknn_f32_to_f16(v) : (uint8_t)native_code(v, map);
        }
    for (uint32_t n = 0; n < from->n; n++)
        for (uint32_t h = 0; h < from->h; h++)
            for (uint32_t c = 0; c < from->c; c++) {
                const uint8_t *sp = src + n * a.sn + h * a.sh + chan_off(&a, c);
                size_t at = n * b.sn + h * b.sh + chan_off(&b, c);
                const uint16_t *t = lut[c % n_luts];
                if (fp16)
                    for (uint32_t w = 0; w < from->w; w++)
                        ((uint16_t *)dst)[at + w * b.sw] = t[sp[w * a.sw]];
                else
                    for (uint32_t w = 0; w < from->w; w++)
                        ((uint8_t *)dst)[at + w * b.sw] = (uint8_t)t[sp[w * a.sw]];
            }
}

/* Any supported types and layouts, through a float row buffer. */
static void input_general(const rknn_layout *from, const void *src, const rknn_layout *to,
                          void *dst, const rknn_value_map *map)
{
    walk a = walk_of(from), b = walk_of(to);
    float v[ROW_CHUNK];

    for (uint32_t n = 0; n < from->n; n++)
        for (uint32_t h = 0; h < from->h; h++)
            for (uint32_t c = 0; c < from->c; c++) {
                uint64_t sa = n * a.sn + h * a.sh + chan_off(&a, c);
                uint64_t sb = n * b.sn + h * b.sh + chan_off(&b, c);
                for (uint32_t w = 0; w < from->w; w += ROW_CHUNK) {
                    uint32_t len = from->w - w < ROW_CHUNK ? from->w - w : ROW_CHUNK;
                    read_row(src, from->type, sa + w * a.sw, a.sw, len, v);
                    if (map->normalise)
                        for (uint32_t i = 0; i < len; i++)
                            v[i] = normalised(v[i], map, c);
                    write_native_row(dst, to->type, sb + w * b.sw, b.sw, len, v, map);
                }
            }
}

int rknn_convert_input(const rknn_layout *from, const void *src, const rknn_layout *to, void *dst,
                       const rknn_value_map *map)
{
    int from_8bit = from->type == RKNN_TENSOR_UINT8 || from->type == RKNN_TENSOR_INT8;
    int lut_ok = from_8bit && to->type == RKNN_TENSOR_INT8 && map->quantised;

    if (from->n != to->n || from->c != to->c || from->h != to->h || from->w != to->w)
        return -1;
    fill_padding(to, dst, map);
    if (lut_ok && !map->normalise && from->kind == RKNN_LAYOUT_NHWC && to->kind == RKNN_LAYOUT_NHWC)
        input_nhwc_rows(from, src, to, dst, map);
    else if (lut_ok || (from_8bit && to->type == RKNN_TENSOR_FLOAT16))
        input_lut(from, src, to, dst, map);
    else
        input_general(from, src, to, dst, map);
    return 0;
}

/* ---- output: native -> user ------------------------------------------------ */

/* A word that may hold any bytes: read and written in place of int8 data. */
typedef uint32_t byte_word __attribute__((may_alias));

/* Four channels of an NC1HWC2 surface into four NCHW planes, both
 * word-aligned (the caller checks): four pixels' words (channel k in byte
 * k) transposed in registers, so each word moved is one load and one store
 * where a byte loop needs four of each. */
static void transpose_by4(const byte_word *s, byte_word *d, size_t plane, size_t c2)
{
    size_t step = c2 / 4, rows = plane / 4;

    for (size_t p = 0; p < rows; p++, s += 4 * step) {
        uint32_t w0 = s[0], w1 = s[step], w2 = s[2 * step], w3 = s[3 * step], t;
        /* bytes between pixel pairs, then byte pairs between the pairs */
        t = ((w0 >> 8) ^ w1) & 0x00ff00ffu;
        w0 ^= t << 8;
        w1 ^= t;
        t = ((w2 >> 8) ^ w3) & 0x00ff00ffu;
        w2 ^= t << 8;
        w3 ^= t;
        t = ((w0 >> 16) ^ w2) & 0xffffu;
        w0 ^= t << 16;
        w2 ^= t;
        t = ((w1 >> 16) ^ w3) & 0xffffu;
        w1 ^= t << 16;
        w3 ^= t;
        d[p] = w0;
        d[rows + p] = w1;
        d[2 * rows + p] = w2;
        d[3 * rows + p] = w3;
    }
}

/* One channel of 16-bit codes from an NC1HWC2 surface into its NCHW plane,
 * two pixels to a word store (the plane word-aligned: the caller checks). */
static void pack_by2(const uint16_t *s, byte_word *d, size_t plane, size_t c2)
{
    for (size_t p = 0; p < plane / 2; p++, s += 2 * c2)
        d[p] = s[0] | (uint32_t)s[c2] << 16;
}

/* NC1HWC2 -> NCHW of codes as they are (want_float 0) in whole words where
 * they line up: 8-bit codes four channels at a time, 16-bit ones a channel
 * at a time. Returns how many channels of each image it moved: the rest go
 * through the row copy. */
static uint32_t output_words(const rknn_layout *from, const void *src, const rknn_layout *to,
                             void *dst)
{
    walk a = walk_of(from);
    size_t plane = (size_t)from->h * from->w, c2 = from->c2;
    uint32_t esize = elem_bytes(to->type), done = esize == 1 ? from->c & ~3u : from->c;

    if (!HAL_LITTLE_ENDIAN || esize > 2 || from->type != to->type ||
        from->kind != RKNN_LAYOUT_NC1HWC2 || to->kind != RKNN_LAYOUT_NCHW || plane % 4 || c2 % 4 ||
        ((uintptr_t)src | (uintptr_t)dst) % 4)
        return 0;
    for (uint32_t n = 0; n < from->n; n++)
        for (uint32_t c = 0; c < done; c += esize == 1 ? 4 : 1) {
            const uint8_t *s = (const uint8_t *)src + (n * a.sn + chan_off(&a, c)) * esize;
            byte_word *d =
                (byte_word *)((uint8_t *)dst + ((size_t)n * from->c + c) * plane * esize);
            if (esize == 1)
                transpose_by4((const byte_word *)s, d, plane, c2);
            else
                pack_by2((const uint16_t *)s, d, plane, c2);
        }
    return done;
}

/* int8 -> float32 or float16 through the table t of the user's element for
 * each code's byte (esize bytes each), or uint8 (the code + 128, t unused),
 * any layouts, a row at a time. The inner loops step pointers: no index
 * products, which emulated and 32-bit CPUs pay dearly for. */
static void output_int8_table(const rknn_layout *from, const int8_t *src, const rknn_layout *to,
                              void *dst, const void *t, uint32_t esize)
{
    walk a = walk_of(from), b = walk_of(to);

    for (uint32_t n = 0; n < from->n; n++)
        for (uint32_t c = 0; c < from->c; c++)
            for (uint32_t h = 0; h < from->h; h++) {
                const int8_t *s = src + n * a.sn + h * a.sh + chan_off(&a, c);
                const int8_t *end = s + (size_t)from->w * a.sw;
                size_t at = n * b.sn + h * b.sh + chan_off(&b, c);
                if (esize == 4)
                    for (float *d = (float *)dst + at; s < end; s += a.sw, d += b.sw)
                        *d = ((const float *)t)[(uint8_t)*s];
                else if (esize == 2)
                    for (uint16_t *d = (uint16_t *)dst + at; s < end; s += a.sw, d += b.sw)
                        *d = ((const uint16_t *)t)[(uint8_t)*s];
                else /* uint8: code + 128 */
                    for (uint8_t *d = (uint8_t *)dst + at; s < end; s += a.sw, d += b.sw)
                        *d = (uint8_t)(*s ^ 0x80);
            }
}

/* int8 -> float32 or float16 (the dequantised value, as Rockchip's runtime
 * writes a float16 binding of an int8 output: api.md §4) through a table of
 * the 256 answers, or uint8 (the code + 128, the same value with the zero
 * point + 128, as it writes a uint8 binding). */
static void output_from_int8(const rknn_layout *from, const int8_t *src, const rknn_layout *to,
                             void *dst, const rknn_value_map *map)
{
    /* (float)code exactly; without quantisation the code is the value */
    dequant q = {0.0f, 1.0f, 0.0f};
    union {
        float f32[256];
        uint16_t f16[256];
    } t;

    if (map->quantised && map->by_product) {
        q.scale = map->scale;
        q.zp_scaled = (float)map->zp * map->scale;
    } else if (map->quantised) {
        q.zp = (float)map->zp;
        q.scale = map->scale;
    }
    /* built for uint8 too, which ignores it: skipping it costs more text
     * than the 64 KiB gate leaves, and 256 products are nothing per call */
    dequant_table(t.f32, &q);
    if (to->type == RKNN_TENSOR_FLOAT16)
        for (int c = 0; c < 256; c++) /* in place: entry c is read before it is written */
            t.f16[c] = rknn_f32_to_f16(t.f32[c]);
    output_int8_table(from, src, to, dst, &t, elem_bytes(to->type));
}

#define TYPE_BIT(t) (1u << RKNN_TENSOR_##t)

/* The user types each native output type converts to, a bit a type. */
static int output_supported(rknn_tensor_type native, rknn_tensor_type user)
{
    static const uint16_t to_of[] = {
        [RKNN_TENSOR_FLOAT32] = TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT16),
        [RKNN_TENSOR_FLOAT16] = TYPE_BIT(FLOAT16) | TYPE_BIT(FLOAT32),
        [RKNN_TENSOR_INT8] =
            TYPE_BIT(INT8) | TYPE_BIT(FLOAT32) | TYPE_BIT(FLOAT16) | TYPE_BIT(UINT8),
        [RKNN_TENSOR_UINT8] = TYPE_BIT(UINT8),
        [RKNN_TENSOR_INT16] = TYPE_BIT(INT16) | TYPE_BIT(FLOAT32),
        [RKNN_TENSOR_INT32] = TYPE_BIT(INT32) | TYPE_BIT(FLOAT32),
    };

    return (unsigned)native < sizeof to_of / sizeof to_of[0] && (unsigned)user < 16u &&
           (to_of[native] >> user & 1u);
}

int rknn_convert_output(const rknn_layout *from, const void *src, const rknn_layout *to, void *dst,
                        const rknn_value_map *map)
{
    walk a = walk_of(from), b = walk_of(to);
    uint32_t esize = elem_bytes(to->type), words;
    float v[ROW_CHUNK];

    if (from->n != to->n || from->c != to->c || from->h != to->h || from->w != to->w ||
        !output_supported(from->type, to->type))
        return -1;
    if (from->type == RKNN_TENSOR_INT8 && to->type != RKNN_TENSOR_INT8) {
        output_from_int8(from, src, to, dst, map);
        return 0;
    }
    words = output_words(from, src, to, dst);
    for (uint32_t n = 0; n < from->n; n++)
        for (uint32_t c = words; c < from->c; c++)
            for (uint32_t h = 0; h < from->h; h++) {
                uint64_t sa = n * a.sn + h * a.sh + chan_off(&a, c);
                uint64_t sb = n * b.sn + h * b.sh + chan_off(&b, c);
                for (uint32_t w = 0; w < from->w; w += ROW_CHUNK) {
                    uint32_t len = from->w - w < ROW_CHUNK ? from->w - w : ROW_CHUNK;
                    if (from->type == to->type) {
                        copy_row((uint8_t *)dst + (size_t)(sb + w * b.sw) * esize, (size_t)b.sw,
                                 (const uint8_t *)src + (size_t)(sa + w * a.sw) * esize,
                                 (size_t)a.sw, len, esize);
                    } else if (to->type == RKNN_TENSOR_FLOAT32 && b.sw == 1) {
                        read_row(src, from->type, sa + w * a.sw, a.sw, len, (float *)dst + sb + w);
                    } else {
                        read_row(src, from->type, sa + w * a.sw, a.sw, len, v);
                        write_user_row(dst, to->type, sb + w * b.sw, b.sw, len, v);
                    }
                }
            }
    return 0;
}
