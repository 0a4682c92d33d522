/*
 * test_rknn_convert - rknn_convert_output's layout changes against an index
 * formula written here (hardware.md §4.1: element (n, c, h, w) of NC1HWC2
 * lies at ((n * C1 + c / C2) * H * W + h * W + w) * C2 + c % C2; NCHW and
 * NHWC are the plain row-major orders).
 *
 * Every case converts a native NC1HWC2 buffer of pseudo-random bytes (the
 * unused lanes of the last surface included) into NCHW and into NHWC:
 *  - codes as they are (int8, uint8, float16, float32: want_float 0), float16
 *    to float32, int8 not quantised (the code is the value), and int8
 *    dequantised to float32 both ways the runtime knows ((code - zp) *
 *    scale, and code * scale - zp * scale on RK356x), evaluated here in
 *    float as written, bit for bit, with a scale where the two forms agree
 *    and one where they round differently;
 *  - a native NHWC side as well as NC1HWC2; shapes that differ refused;
 *  - channel counts on both sides of a multiple of 4 and of C2, planes
 *    with and without a multiple of 4 pixels, C2 of 8 and 16, extra
 *    surfaces, two images;
 *  - word-aligned buffers and buffers one byte off, so both the word
 *    transpose and the element copy run;
 * and the bytes after the user buffer must be untouched.
 *
 * rknn_convert_input, every user type the API takes (uint8, int8, float16,
 * float32) in NHWC and NCHW into every native input (quantised int8 and
 * float16, NHWC with a row stride and NC1HWC2), with and without mean/std
 * normalisation, against the formula of api.md §4 computed here in double:
 * the pixel (uint8 as it is, int8 as its byte + 128 mod 256, floats as
 * they are), (pixel - mean[c % 4]) / std[c % 4], then round(v / scale)
 * half to even + zp saturated to int8 (+ the store offset, mod 256), or
 * float16 to nearest even; the padding holds the zero point's code (0 for
 * float16). Means, stds and scales are small integers and powers of two,
 * so every step before the final rounding is exact.
 *
 * rknn_f32_to_f16 on its own against rounding to nearest even computed
 * here, over float32 codes of every exponent and every tie.
 */
#include <string.h>

#include "rknn_convert.h"
#include "test_float.h"
#include "test_util.h"

#define MAX_ELEMS 4096u /* of the largest case, NC1HWC2 lanes included */
#define GUARD     64u
#define FILL      0xa5u

static uint8_t src_buf[MAX_ELEMS * 2 + 8];         /* what a conversion reads */
static uint8_t dst_buf[MAX_ELEMS * 4 + GUARD + 8]; /* and writes */

static uint32_t rng_state = 12345u;

static uint8_t next_byte(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (uint8_t)(rng_state >> 16);
}

static uint32_t bytes_of(rknn_tensor_type t)
{
    return t == RKNN_TENSOR_FLOAT32 || t == RKNN_TENSOR_INT32   ? 4
           : t == RKNN_TENSOR_FLOAT16 || t == RKNN_TENSOR_INT16 ? 2
                                                                : 1;
}

static int f16_matches(float f, uint16_t got);

/* Index of element (n, c, h, w) in its layout, from the formulas above;
 * NHWC rows are w_stride pixels long (the padding past w is addressable
 * too, and so are NC1HWC2's unused lanes past c). */
static uint32_t element_index(const rknn_layout *l, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
    switch (l->kind) {
    case RKNN_LAYOUT_NC1HWC2:
        return ((n * l->c1 + c / l->c2) * l->h * l->w + h * l->w + w) * l->c2 + c % l->c2;
    case RKNN_LAYOUT_NHWC: return ((n * l->h + h) * l->w_stride + w) * l->c + c;
    default: return ((n * l->c + c) * l->h + h) * l->w + w;
    }
}

/* One output conversion: the native side's type and layout, the user's,
 * byte offsets into the buffers, and the value map (int8 to float32). */
typedef struct {
    rknn_tensor_type from_type, to_type;
    rknn_layout_kind from_kind, to_kind;
    uint32_t src_off, dst_off;
    int quantised, by_product;
    float scale;
    int32_t zp;
} out_case;

/* The value of one native element: float16 and float32 as they are, int16
 * and int32 as integers, int8 dequantised by api.md §4's formula (evaluated
 * in float, as the runtime must) or, not quantised, the code. */
static float native_element(const uint8_t *src, const out_case *k)
{
    float code = (float)(int8_t)src[0], f;
    uint16_t h;
    int16_t i16;
    int32_t i32;

    switch (k->from_type) {
    case RKNN_TENSOR_FLOAT16: memcpy(&h, src, 2); return (float)f16_value(h);
    case RKNN_TENSOR_FLOAT32: memcpy(&f, src, 4); return f;
    case RKNN_TENSOR_INT16: memcpy(&i16, src, 2); return (float)i16;
    case RKNN_TENSOR_INT32: memcpy(&i32, src, 4); return (float)i32;
    default: break;
    }
    if (!k->quantised)
        return code;
    if (k->by_product)
        return code * k->scale - (float)k->zp * k->scale;
    return (code - (float)k->zp) * k->scale;
}

/* Whether the user's element `got` is right for the native one at src:
 * the same type copies the bytes, uint8 from int8 is the code + 128 (the
 * same value with the zero point + 128, as Rockchip's runtime writes it),
 * float16 the value rounded to nearest even, float32 the value. */
static int element_right(const uint8_t *src, const out_case *k, const uint8_t *got)
{
    float v;
    uint16_t h;

    if (k->to_type == k->from_type)
        return memcmp(got, src, bytes_of(k->to_type)) == 0;
    if (k->to_type == RKNN_TENSOR_UINT8)
        return got[0] == (uint8_t)(src[0] + 128u);
    v = native_element(src, k);
    if (k->to_type == RKNN_TENSOR_FLOAT16) {
        memcpy(&h, got, 2);
        return f16_matches(v, h);
    }
    return memcmp(got, &v, 4) == 0;
}

typedef struct { /* unsigned: printed with %u on every target */
    unsigned n, c, h, w, c2, extra_surfaces;
} shape;

static int run_case(const shape *s, const out_case *k)
{
    rknn_layout from = {k->from_kind, s->n, s->c, s->h, s->w, s->w, s->c2, 0, k->from_type};
    rknn_layout to = {k->to_kind, s->n, s->c, s->h, s->w, s->w, 0, 0, k->to_type};
    rknn_value_map map = {0};
    uint32_t in_size = bytes_of(k->from_type), out_size = bytes_of(k->to_type), bad = 0;
    uint8_t *src = src_buf + k->src_off, *dst = dst_buf + k->dst_off;
    uint32_t native_bytes, user_bytes;

    from.c1 = (s->c + s->c2 - 1) / s->c2 + s->extra_surfaces;
    native_bytes = (uint32_t)rknn_layout_bytes(&from);
    user_bytes = s->n * s->c * s->h * s->w * out_size;
    if (native_bytes > MAX_ELEMS * 2)
        return CHECK(!"case larger than the test's buffers");
    map.quantised = k->quantised;
    map.scale = k->scale;
    map.zp = k->zp;
    map.by_product = k->by_product;
    for (uint32_t i = 0; i < native_bytes; i++) /* float16: finite values only */
        src[i] = (uint8_t)(next_byte() & (in_size == 2 && i % 2 ? 0xBFu : 0xFFu));
    memset(dst_buf, FILL, sizeof dst_buf);
    if (!CHECK(rknn_convert_output(&from, src, &to, dst, &map) == 0))
        return 0;
    for (uint32_t n = 0; n < s->n; n++)
        for (uint32_t c = 0; c < s->c; c++)
            for (uint32_t h = 0; h < s->h; h++)
                for (uint32_t w = 0; w < s->w; w++)
                    bad += !element_right(src + element_index(&from, n, c, h, w) * in_size, k,
                                          dst + element_index(&to, n, c, h, w) * out_size);
    for (uint32_t i = 0; i < GUARD; i++)
        bad += dst[user_bytes + i] != FILL;
    for (uint32_t i = 0; i < k->dst_off; i++)
        bad += dst_buf[i] != FILL;
    if (bad)
        printf("  n %u c %u h %u w %u c2 %u +%u surfaces, type %d %s -> %d %s, offsets %u/%u, "
               "quantised %d by_product %d: %u bytes wrong\n",
               s->n, s->c, s->h, s->w, s->c2, s->extra_surfaces, k->from_type,
               k->from_kind == RKNN_LAYOUT_NHWC ? "NHWC" : "NC1HWC2", k->to_type,
               k->to_kind == RKNN_LAYOUT_NHWC ? "NHWC" : "NCHW", (unsigned)k->src_off,
               (unsigned)k->dst_off, k->quantised, k->by_product, (unsigned)bad);
    return CHECK(bad == 0);
}

/* Every output case on one shape and user layout. */
static void check_outputs_of(const shape *s, rknn_layout_kind to_kind)
{
    static const rknn_tensor_type same[] = {RKNN_TENSOR_INT8,    RKNN_TENSOR_UINT8,
                                            RKNN_TENSOR_INT16,   RKNN_TENSOR_INT32,
                                            RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT32};
    static const rknn_tensor_type wider[] = {RKNN_TENSOR_FLOAT16, RKNN_TENSOR_INT16,
                                             RKNN_TENSOR_INT32};
    static const rknn_tensor_type from_int8[] = {RKNN_TENSOR_FLOAT32, RKNN_TENSOR_FLOAT16,
                                                 RKNN_TENSOR_UINT8};
    out_case k = {0};

    k.to_kind = to_kind;
    k.from_kind = RKNN_LAYOUT_NC1HWC2;
    for (size_t t = 0; t < sizeof same / sizeof same[0]; t++)
        for (uint32_t off = 0; off < 2; off++) {
            k.from_type = k.to_type = same[t];
            k.src_off = 0;
            k.dst_off = off * bytes_of(same[t]);
            run_case(s, &k);
            k.src_off = off * (bytes_of(same[t]) == 4 ? 4 : 2); /* off words, not elements */
            k.dst_off = 0;
            run_case(s, &k);
        }
    k.src_off = k.dst_off = 0;
    k.to_type = RKNN_TENSOR_FLOAT32;
    for (size_t t = 0; t < sizeof wider / sizeof wider[0]; t++) {
        k.from_type = wider[t];
        run_case(s, &k);
    }
    k.from_type = RKNN_TENSOR_FLOAT32; /* float32 into a float16 binding */
    k.to_type = RKNN_TENSOR_FLOAT16;
    run_case(s, &k);
    k.from_type = RKNN_TENSOR_INT8;
    for (size_t t = 0; t < sizeof from_int8 / sizeof from_int8[0]; t++) {
        k.to_type = from_int8[t];
        k.quantised = 0;
        run_case(s, &k); /* not quantised: the code is the value */
        k.quantised = 1;
        k.zp = 3;
        for (k.by_product = 0; k.by_product < 2; k.by_product++) {
            k.scale = 0.5f; /* exact both ways */
            run_case(s, &k);
            k.scale = 0.1f; /* the two forms round differently */
            run_case(s, &k);
        }
    }
    /* a native NHWC side: copied and dequantised the same */
    k.from_kind = RKNN_LAYOUT_NHWC;
    k.to_type = RKNN_TENSOR_FLOAT32;
    k.by_product = 0;
    run_case(s, &k);
    k.from_type = k.to_type = RKNN_TENSOR_INT8;
    run_case(s, &k);
}

/* Every (native, user) type pair outside the list of api.md's "Outputs"
 * (the same type; float32 from int8, float16, int16 and int32; float16 from
 * int8 and float32; uint8 from int8) refused, nothing written; int64 and
 * the rest converted to nothing. */
static void check_refused_types(void)
{
    static const uint8_t copies[] = {RKNN_TENSOR_INT8,  RKNN_TENSOR_UINT8,   RKNN_TENSOR_INT16,
                                     RKNN_TENSOR_INT32, RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT32};
    static const uint8_t converts[][2] = {
        {RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT32},  {RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT32},
        {RKNN_TENSOR_INT16, RKNN_TENSOR_FLOAT32}, {RKNN_TENSOR_INT32, RKNN_TENSOR_FLOAT32},
        {RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT16},  {RKNN_TENSOR_FLOAT32, RKNN_TENSOR_FLOAT16},
        {RKNN_TENSOR_INT8, RKNN_TENSOR_UINT8},
    };
    rknn_layout a = {RKNN_LAYOUT_NCHW, 1, 2, 2, 2, 2, 0, 0, RKNN_TENSOR_INT8};
    rknn_layout b = a;
    rknn_value_map map = {0};
    uint32_t wrong = 0;

    for (int from = 0; from < RKNN_TENSOR_TYPE_MAX; from++)
        for (int to = 0; to < RKNN_TENSOR_TYPE_MAX; to++) {
            int want = 0;
            for (size_t i = 0; i < sizeof copies; i++)
                want |= from == to && copies[i] == from;
            for (size_t i = 0; i < sizeof converts / sizeof converts[0]; i++)
                want |= converts[i][0] == from && converts[i][1] == to;
            a.type = (rknn_tensor_type)from;
            b.type = (rknn_tensor_type)to;
            memset(dst_buf, FILL, sizeof dst_buf);
            if ((rknn_convert_output(&a, src_buf, &b, dst_buf, &map) == 0) != want ||
                (!want && dst_buf[0] != FILL)) {
                printf("  output %d -> %d: %s\n", from, to, want ? "refused" : "converted");
                wrong++;
            }
        }
    CHECK_EQ_U(wrong, 0);
}

/* ---- inputs ----------------------------------------------------------------- */

static double round_half_even(double x)
{
    double r, f;

    if (x >= pow2(52) || x <= -pow2(52)) /* an integer already, and beyond long long's range */
        return x;
    r = (double)(long long)x; /* toward zero */
    f = x - r;

    if (f > 0.5 || (f == 0.5 && ((long long)r & 1)))
        r += 1.0;
    else if (f < -0.5 || (f == -0.5 && ((long long)r & 1)))
        r -= 1.0;
    return r;
}

static double to_f16_nearest(double x) /* |x| below 65504 */
{
    double a = x < 0 ? -x : x, ulp = pow2(-24);
    int k = 0;

    if (a >= pow2(-14)) {
        while (a >= pow2(k + 1))
            k++;
        while (a < pow2(k))
            k--;
        ulp = pow2(k - 10);
    }
    return round_half_even(x / ulp) * ulp;
}

/* The pixel a user element stands for. */
static double user_value(const uint8_t *src, rknn_tensor_type t, uint32_t i)
{
    float f;
    uint16_t h;

    switch (t) {
    case RKNN_TENSOR_UINT8: return src[i];
    case RKNN_TENSOR_INT8: return (uint8_t)(src[i] + 128u);
    case RKNN_TENSOR_FLOAT16: memcpy(&h, src + 2 * i, 2); return f16_value(h);
    default: memcpy(&f, src + 4 * i, 4); return f;
    }
}

/* big: every fifth float32 far outside int8's range and int32's (saturation
 * before any integer conversion). */
static void fill_user(uint8_t *src, rknn_tensor_type t, uint32_t elems, int big)
{
    for (uint32_t i = 0; i < elems; i++) {
        if (t == RKNN_TENSOR_FLOAT32 && big && i % 5 == 0) {
            float f = (i % 2 ? -1.0f : 1.0f) * (3.0e9f + 1024.0f * (float)i); /* > 2^31 */
            memcpy(src + 4 * i, &f, 4);
            continue;
        }
        if (t == RKNN_TENSOR_FLOAT16) { /* finite, 2^-5 .. 2^7 and their negatives */
            uint16_t h = (uint16_t)((next_byte() & 0x80u) << 8 | (10u + next_byte() % 13u) << 10 |
                                    (next_byte() << 2 & 0x3FCu) | (next_byte() & 3u));
            memcpy(src + 2 * i, &h, 2);
        } else if (t == RKNN_TENSOR_FLOAT32) { /* k / 8, |k| <= 2000 */
            float f = (float)((int)(next_byte() << 8 | next_byte()) % 4001 - 2000) / 8.0f;
            memcpy(src + 4 * i, &f, 4);
        } else {
            src[i] = next_byte();
        }
    }
}

/* What native element (n, c, h, w) must hold, as float16's value or the
 * int8 code's. */
static double expected_native(double pixel, uint32_t c, rknn_tensor_type to,
                              const rknn_value_map *m)
{
    double v = m->normalise ? (pixel - m->mean[c % 4]) / m->std[c % 4] : pixel, q;

    if (to == RKNN_TENSOR_FLOAT16)
        return to_f16_nearest(v);
    q = round_half_even(v / m->scale) + m->zp;
    q = q < -128 ? -128 : q > 127 ? 127 : q;
    return (int8_t)(uint8_t)((int)q + m->store_offset);
}

static double native_value(const uint8_t *dst, rknn_tensor_type t, uint32_t i)
{
    uint16_t h;

    if (t == RKNN_TENSOR_FLOAT16) {
        memcpy(&h, dst + 2 * i, 2);
        return f16_value(h);
    }
    return (int8_t)dst[i];
}

/* One input conversion: user type and layout, native type and layout, the
 * native rows' extra pixels (NHWC), the value map's parameters. */
typedef struct {
    rknn_tensor_type from_type, to_type;
    rknn_layout_kind from_kind, to_kind;
    uint32_t row_pad;
    int normalise, big;
    int32_t store_offset, zp;
    float scale;
} in_case;

static int run_input_case(const shape *s, const in_case *k)
{
    rknn_layout from = {k->from_kind, s->n, s->c, s->h, s->w, s->w, 0, 0, k->from_type};
    rknn_layout to = {k->to_kind, s->n, s->c, s->h, s->w, s->w + k->row_pad, 0, 0, k->to_type};
    rknn_value_map map = {{3.0f, 7.0f, 0.0f, 100.0f},
                          {1.0f, 2.0f, 0.5f, 4.0f},
                          k->normalise,
                          k->scale,
                          k->zp,
                          k->to_type == RKNN_TENSOR_INT8,
                          k->store_offset,
                          0};
    uint32_t lanes, w_end, bad = 0;
    double pad =
        k->to_type == RKNN_TENSOR_FLOAT16 ? 0.0 : (int8_t)(uint8_t)(k->zp + k->store_offset);

    to.c2 = k->to_type == RKNN_TENSOR_FLOAT16 ? 8 : 16;
    to.c1 = (s->c + to.c2 - 1) / to.c2;
    lanes = k->to_kind == RKNN_LAYOUT_NC1HWC2 ? to.c1 * to.c2 : s->c;
    w_end = k->to_kind == RKNN_LAYOUT_NHWC ? to.w_stride : s->w;
    if ((uint64_t)rknn_layout_bytes(&to) > sizeof dst_buf)
        return CHECK(!"case larger than the test's buffers");
    fill_user(src_buf, k->from_type, s->n * s->c * s->h * s->w, k->big);
    memset(dst_buf, FILL, sizeof dst_buf);
    if (!CHECK(rknn_convert_input(&from, src_buf, &to, dst_buf, &map) == 0))
        return 0;
    for (uint32_t n = 0; n < s->n; n++)
        for (uint32_t c = 0; c < lanes; c++)
            for (uint32_t h = 0; h < s->h; h++)
                for (uint32_t w = 0; w < w_end; w++) {
                    double want = pad;
                    if (c < s->c && w < s->w)
                        want = expected_native(
                            user_value(src_buf, k->from_type, element_index(&from, n, c, h, w)), c,
                            k->to_type, &map);
                    bad +=
                        native_value(dst_buf, k->to_type, element_index(&to, n, c, h, w)) != want;
                }
    bad += dst_buf[rknn_layout_bytes(&to)] != FILL; /* nothing past the buffer */
    if (bad)
        printf("  input n %u c %u h %u w %u, type %d %s -> %d %s +%u, normalise %d, scale %g zp "
               "%d store offset %d: %u elements wrong\n",
               s->n, s->c, s->h, s->w, k->from_type,
               k->from_kind == RKNN_LAYOUT_NHWC ? "NHWC" : "NCHW", k->to_type,
               k->to_kind == RKNN_LAYOUT_NHWC ? "NHWC" : "NC1HWC2", (unsigned)k->row_pad,
               k->normalise, (double)k->scale, (int)k->zp, (int)k->store_offset, (unsigned)bad);
    return CHECK(bad == 0);
}

static void check_inputs(void)
{
    static const shape shapes[] = {{1, 1, 2, 3, 0, 0},
                                   {1, 3, 2, 5, 0, 0},
                                   {2, 4, 1, 3, 0, 0},
                                   {1, 5, 2, 2, 0, 0},
                                   {1, 17, 1, 2, 0, 0}};
    static const rknn_tensor_type users[] = {RKNN_TENSOR_UINT8, RKNN_TENSOR_INT8,
                                             RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT32};
    static const rknn_tensor_type natives[] = {RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT16};
    in_case k = {0};

    k.scale = 0.5f;
    k.zp = -5;
    k.row_pad = 2;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t u = 0; u < sizeof users / sizeof users[0]; u++)
            for (int from = 0; from < 2; from++)
                for (size_t t = 0; t < sizeof natives / sizeof natives[0]; t++)
                    for (int to = 0; to < 2; to++)
                        for (k.normalise = 0; k.normalise < 2; k.normalise++) {
                            k.from_type = users[u];
                            k.from_kind = from ? RKNN_LAYOUT_NCHW : RKNN_LAYOUT_NHWC;
                            k.to_type = natives[t];
                            k.to_kind = to ? RKNN_LAYOUT_NC1HWC2 : RKNN_LAYOUT_NHWC;
                            k.store_offset = natives[t] == RKNN_TENSOR_INT8 && i == 1 ? 128 : 0;
                            k.big = natives[t] == RKNN_TENSOR_INT8;
                            run_input_case(&shapes[i], &k);
                        }
    /* 8-bit pixels whose int8 code is the byte plus a constant (scale 1):
     * the byte-shift paths, a whole buffer (no row padding) or row by row */
    k.normalise = 0;
    k.big = 0;
    k.scale = 1.0f;
    k.to_type = RKNN_TENSOR_INT8;
    k.to_kind = k.from_kind = RKNN_LAYOUT_NHWC;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (size_t u = 0; u < 2; u++)
            for (k.row_pad = 0; k.row_pad < 2; k.row_pad++)
                for (k.zp = -128; k.zp <= 0; k.zp += 64) {
                    k.from_type = users[u];
                    k.store_offset = k.zp == -128 && i == 1 ? 128 : 0;
                    run_input_case(&shapes[i], &k);
                }
}

/* rknn_convert_pixel_offset: 1 and the offset exactly when every uint8
 * pixel of every channel becomes the code offset + pixel by the formula
 * (expected_native), found here by trying all 4 x 256; 0 otherwise. */
static void check_pixel_offset(void)
{
    static const struct {
        float scale, mean0, std0;
        int32_t zp, store_offset;
        int normalise, quantised, channel0_only; /* mean0/std0 on channel 0, else all */
    } maps[] = {
        {1.0f, 0, 1, -128, 0, 0, 1, 0},    {1.0f, 0, 1, -128, 128, 0, 1, 0},
        {1.0f, 0, 1, -100, 0, 0, 1, 0},    {0.5f, 0, 1, -128, 0, 0, 1, 0},
        {1.0f, 0, 1, -128, 0, 0, 0, 0},    {1.0f, 0, 1, -128, 0, 1, 1, 0},
        {1.0f, 128, 1, 0, 0, 1, 1, 0},     {1.0f, 3, 1, -125, 0, 1, 1, 0},
        {2.0f, 0, 2, -128, 0, 1, 1, 0},    {1.0f, 0, 0.5f, -128, 0, 1, 1, 0},
        {1.0f, 0, 0.5f, -128, 0, 1, 1, 1},
    };

    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        rknn_value_map m = {{0}, {1.0f, 1.0f, 1.0f, 1.0f}, 0, 1.0f, 0, 0, 0, 0};
        int32_t offset = 12345, want_offset;
        int want = 1, got;
        m.scale = maps[i].scale;
        m.zp = maps[i].zp;
        m.store_offset = maps[i].store_offset;
        m.normalise = maps[i].normalise;
        m.quantised = maps[i].quantised;
        for (int c = 0; c < 4; c++) {
            m.mean[c] = c == 0 || !maps[i].channel0_only ? maps[i].mean0 : 0.0f;
            m.std[c] = c == 0 || !maps[i].channel0_only ? maps[i].std0 : 1.0f;
        }
        want_offset = (int32_t)expected_native(0, 0, RKNN_TENSOR_INT8, &m);
        for (uint32_t c = 0; c < 4; c++)
            for (int x = 0; x < 256; x++)
                want &= expected_native(x, c, RKNN_TENSOR_INT8, &m) == want_offset + x;
        want &= m.quantised;
        got = rknn_convert_pixel_offset(&m, &offset);
        if (!CHECK(got == want && (!want || offset == want_offset)))
            printf("  pixel offset map %u: got %d (offset %ld), want %d (offset %ld)\n",
                   (unsigned)i, got, (long)offset, want, (long)want_offset);
    }
}

/* rknn_f32_to_f16 against rounding to nearest even computed here: a
 * million float32 codes spread over all 2^32 (normal, subnormal and
 * overflowing results, infinities, NaNs), and every tie between two
 * adjacent finite float16 values with the float32 codes either side of it. */
static int f16_matches(float f, uint16_t got)
{
    double x = f, want, ulp = pow2(-24), a = x < 0 ? -x : x;
    int k = 0;

    if (x != x) /* NaN: any NaN */
        return (got & 0x7C00u) == 0x7C00u && (got & 0x3FFu) != 0;
    if (a >= pow2(-14)) {
        while (k < 16 && a >= pow2(k + 1))
            k++;
        while (a < pow2(k))
            k--;
        ulp = pow2(k - 10);
    }
    want = round_half_even(a / ulp) * ulp; /* a above 2^16 is Inf however it rounds */
    if (k >= 16 || want >= 65536.0)
        return got == ((x < 0 ? 0x8000u : 0) | 0x7C00u);
    return (got & 0x7C00u) != 0x7C00u && f16_value(got) == (x < 0 ? -want : want) &&
           (got >> 15) == (x < 0 || (x == 0 && 1 / x < 0));
}

static void check_f32_to_f16(void)
{
    uint32_t wrong = 0, first = 0, bits;
    float f;

    for (uint32_t i = 0; i < (1u << 20) + 4; i++) {
        /* every exponent, varied low bits; then both infinities and two NaNs */
        static const uint32_t special[] = {0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFF800001u};
        bits = i < (1u << 20) ? i * 4099u + (i >> 8) : special[i - (1u << 20)];
        memcpy(&f, &bits, 4);
        if (!f16_matches(f, rknn_f32_to_f16(f)) && wrong++ == 0)
            first = bits;
    }
    for (uint32_t h = 0; h < 0x7BFFu; h++) { /* halfway to the next code and a float32 */
        uint32_t mid;                        /* step either side, each sign */
        f = (float)((f16_value((uint16_t)h) + f16_value((uint16_t)(h + 1))) / 2);
        memcpy(&mid, &f, 4);
        for (bits = mid - 1; bits <= mid + 1; bits++) {
            memcpy(&f, &bits, 4);
            if ((!f16_matches(f, rknn_f32_to_f16(f)) || !f16_matches(-f, rknn_f32_to_f16(-f))) &&
                wrong++ == 0)
                first = bits;
        }
    }
    CHECK_EQ_U(wrong, 0);
    if (wrong)
        printf("  float32 0x%08lx is the first converted wrongly\n", (unsigned long)first);
}

int main(void)
{
    static const shape shapes[] = {
        {1, 1, 1, 1, 16, 0},   {1, 3, 1, 5, 16, 0},  {1, 4, 2, 2, 16, 0},  {1, 5, 3, 4, 16, 0},
        {2, 8, 2, 6, 8, 0},    {1, 16, 4, 4, 16, 0}, {1, 17, 3, 3, 16, 1}, {2, 20, 2, 4, 8, 0},
        {1, 33, 1, 12, 16, 0}, {1, 12, 5, 4, 8, 1},  {1, 64, 2, 8, 16, 0}, {1, 2, 2, 3, 8, 0},
    };
    rknn_layout a = {RKNN_LAYOUT_NC1HWC2, 1, 3, 2, 2, 2, 16, 1, RKNN_TENSOR_INT8};
    rknn_layout b = {RKNN_LAYOUT_NCHW, 1, 4, 2, 2, 2, 0, 0, RKNN_TENSOR_INT8};
    rknn_value_map map = {0};

    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        check_outputs_of(&shapes[i], RKNN_LAYOUT_NCHW);
        check_outputs_of(&shapes[i], RKNN_LAYOUT_NHWC);
    }
    /* shapes that differ: refused, nothing written */
    memset(dst_buf, FILL, sizeof dst_buf);
    CHECK(rknn_convert_output(&a, src_buf, &b, dst_buf, &map) == -1 && dst_buf[0] == FILL);
    CHECK(rknn_convert_input(&b, src_buf, &a, dst_buf, &map) == -1 && dst_buf[0] == FILL);
    check_refused_types();
    check_inputs();
    check_pixel_offset();
    check_f32_to_f16();
    return test_report("rknn_convert");
}
