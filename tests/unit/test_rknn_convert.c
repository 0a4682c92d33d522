/*
 * test_rknn_convert - rknn_convert_output's layout changes against an index
 * formula written here (hardware.md §4.1: element (n, c, h, w) of NC1HWC2
 * lies at ((n * C1 + c / C2) * H * W + h * W + w) * C2 + c % C2; NCHW and
 * NHWC are the plain row-major orders).
 *
 * Every case converts a native NC1HWC2 buffer of pseudo-random bytes (the
 * unused lanes of the last surface included) into NCHW and into NHWC:
 *  - codes as they are (int8, uint8, float16: want_float 0), and int8
 *    dequantised to float32 both ways the runtime knows ((code - zp) *
 *    scale, and code * scale - zp * scale on RK356x), with values exact in
 *    float so the comparison is bit for bit;
 *  - channel counts on both sides of a multiple of 4 and of C2, planes
 *    with and without a multiple of 4 pixels, C2 of 8 and 16, extra
 *    surfaces, two images;
 *  - word-aligned buffers and buffers one byte off, so both the word
 *    transpose and the element copy run;
 * and the bytes after the user buffer must be untouched.
 */
#include <string.h>

#include "rknn_convert.h"
#include "test_util.h"

#define MAX_ELEMS 4096u /* of the largest case, NC1HWC2 lanes included */
#define GUARD     64u
#define FILL      0xa5u

static uint8_t native[MAX_ELEMS * 2 + 8];
static uint8_t user[MAX_ELEMS * 4 + GUARD + 8];

static uint32_t rng_state = 12345u;

static uint8_t next_byte(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (uint8_t)(rng_state >> 16);
}

static uint32_t bytes_of(rknn_tensor_type t)
{
    return t == RKNN_TENSOR_FLOAT32 ? 4 : t == RKNN_TENSOR_FLOAT16 ? 2 : 1;
}

/* Index of element (n, c, h, w) in each layout, from the formulas above. */
static uint32_t native_index(const rknn_layout *l, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
    return ((n * l->c1 + c / l->c2) * l->h * l->w + h * l->w + w) * l->c2 + c % l->c2;
}

static uint32_t user_index(const rknn_layout *l, uint32_t n, uint32_t c, uint32_t h, uint32_t w)
{
    if (l->kind == RKNN_LAYOUT_NHWC)
        return ((n * l->h + h) * l->w + w) * l->c + c;
    return ((n * l->c + c) * l->h + h) * l->w + w;
}

/* What the user buffer must hold for one element, as bytes. */
static void expected_bytes(const uint8_t *src, uint32_t esize, rknn_tensor_type to,
                           const rknn_value_map *map, uint8_t *out)
{
    if (to == RKNN_TENSOR_FLOAT32) {
        float code = (float)(int8_t)src[0], v;
        v = map->by_product ? code * map->scale - (float)map->zp * map->scale
                            : (code - (float)map->zp) * map->scale;
        memcpy(out, &v, 4);
    } else {
        memcpy(out, src, esize);
    }
}

typedef struct {
    uint32_t n, c, h, w, c2, extra_surfaces;
} shape;

static int run_case(const shape *s, rknn_tensor_type from_type, rknn_tensor_type to_type,
                    rknn_layout_kind to_kind, uint32_t src_off, uint32_t dst_off, int by_product)
{
    rknn_layout from = {RKNN_LAYOUT_NC1HWC2, s->n, s->c, s->h, s->w, s->w, s->c2, 0, from_type};
    rknn_layout to = {to_kind, s->n, s->c, s->h, s->w, s->w, 0, 0, to_type};
    rknn_value_map map = {0};
    uint32_t in_size = bytes_of(from_type), out_size = bytes_of(to_type), bad = 0;
    uint8_t *src = native + src_off, *dst = user + dst_off, want[4];
    uint32_t native_elems, user_bytes;

    from.c1 = (s->c + s->c2 - 1) / s->c2 + s->extra_surfaces;
    native_elems = s->n * from.c1 * s->h * s->w * s->c2;
    user_bytes = s->n * s->c * s->h * s->w * out_size;
    if (native_elems > MAX_ELEMS)
        return CHECK(!"case larger than the test's buffers");
    map.quantised = to_type == RKNN_TENSOR_FLOAT32;
    map.scale = 0.5f; /* (code - 3) * 0.5 and its product form are exact */
    map.zp = 3;
    map.by_product = by_product;
    for (uint32_t i = 0; i < native_elems * in_size; i++)
        src[i] = next_byte();
    memset(user, FILL, sizeof user);
    if (!CHECK(rknn_convert_output(&from, src, &to, dst, &map) == 0))
        return 0;
    for (uint32_t n = 0; n < s->n; n++)
        for (uint32_t c = 0; c < s->c; c++)
            for (uint32_t h = 0; h < s->h; h++)
                for (uint32_t w = 0; w < s->w; w++) {
                    const uint8_t *e = src + native_index(&from, n, c, h, w) * in_size;
                    expected_bytes(e, in_size, to_type, &map, want);
                    bad +=
                        memcmp(dst + user_index(&to, n, c, h, w) * out_size, want, out_size) != 0;
                }
    for (uint32_t i = 0; i < GUARD; i++)
        bad += dst[user_bytes + i] != FILL;
    for (uint32_t i = 0; i < dst_off; i++)
        bad += user[i] != FILL;
    if (bad)
        printf("  n %u c %u h %u w %u c2 %u +%u surfaces, type %d -> %d, %s, offsets %u/%u, "
               "by_product %d: %u bytes wrong\n",
               s->n, s->c, s->h, s->w, s->c2, s->extra_surfaces, from_type, to_type,
               to_kind == RKNN_LAYOUT_NHWC ? "NHWC" : "NCHW", src_off, dst_off, by_product, bad);
    return CHECK(bad == 0);
}

int main(void)
{
    static const shape shapes[] = {
        {1, 1, 1, 1, 16, 0},   {1, 3, 1, 5, 16, 0},  {1, 4, 2, 2, 16, 0},  {1, 5, 3, 4, 16, 0},
        {2, 8, 2, 6, 8, 0},    {1, 16, 4, 4, 16, 0}, {1, 17, 3, 3, 16, 1}, {2, 20, 2, 4, 8, 0},
        {1, 33, 1, 12, 16, 0}, {1, 12, 5, 4, 8, 1},  {1, 64, 2, 8, 16, 0},
    };
    static const rknn_tensor_type same[] = {RKNN_TENSOR_INT8, RKNN_TENSOR_UINT8,
                                            RKNN_TENSOR_FLOAT16};

    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int kind = 0; kind < 2; kind++) {
            rknn_layout_kind to_kind = kind ? RKNN_LAYOUT_NHWC : RKNN_LAYOUT_NCHW;
            for (size_t t = 0; t < sizeof same / sizeof same[0]; t++)
                for (uint32_t off = 0; off < 2; off++) {
                    run_case(&shapes[i], same[t], same[t], to_kind, 0, off * bytes_of(same[t]), 0);
                    run_case(&shapes[i], same[t], same[t], to_kind, off * 2, 0, 0);
                }
            for (int by_product = 0; by_product < 2; by_product++)
                run_case(&shapes[i], RKNN_TENSOR_INT8, RKNN_TENSOR_FLOAT32, to_kind, 0, 0,
                         by_product);
        }
    return test_report("rknn_convert");
}
