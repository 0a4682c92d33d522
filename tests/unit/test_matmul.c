/*
 * test_matmul - the matmul API as the vendor's matmul demo uses it (create,
 * memories made with the matmul context, set_io_mem, run, read C; never
 * rknn_mem_sync) over a grid of types, shapes, layouts and core masks,
 * against a C reference written here: exact int64 sums for int8, a
 * sequential fp32 sum for fp16 with a bound relative to K (the NPU's order
 * of summation is its own). The native layouts are typed out from
 * api.md §4.6 as index walks of their own. Host and QEMU.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "rknn_matmul_api.h"
#include "rknpu_bm.h"
#include "test_util.h"

typedef struct {
    rknn_matmul_type type;
    int32_t M, K, N;
    int16_t ac_layout, b_layout;
    rknn_core_mask mask;
    int16_t b_per_channel; /* int8 -> int8: B scales per output channel */
} mm_case;

/* int8 -> int8 quantisation of a case: scales that spread C over int8 */
static float q_a, q_b[4128], q_c;
static int32_t q_zp;

static uint32_t seed = 12345u;

static uint32_t rnd(void)
{
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
}

/* fp16 bits to float (exact: every fp16 value is a float). */
static float h2f(uint16_t h)
{
    int e = (h >> 10) & 0x1F;
    float v = (float)(h & 0x3FF) / 1024.0f;

    if (e) /* normal: 1.mant; subnormal: 0.mant x 2^-14 */
        v += 1.0f;
    for (int i = 15; i < (e ? e : 1); i++)
        v *= 2.0f;
    for (int i = e ? e : 1; i < 15; i++)
        v /= 2.0f;
    return (h & 0x8000) ? -v : v;
}

/* A random fp16 of magnitude 1/8 .. 4 (or 0). */
static uint16_t rnd_half(void)
{
    uint32_t r = rnd();
    if (r % 16 == 0)
        return 0;
    return (uint16_t)((r & 0x8000u) | ((12u + (r >> 4) % 5u) << 10) | ((r >> 9) & 0x3FFu));
}

static int fp16_type(rknn_matmul_type t)
{
    return t != RKNN_INT8_MM_INT8_TO_INT32 && t != RKNN_INT8_MM_INT8_TO_INT8;
}

/* Element (r, c) of a row-major R x C matrix held in `layout` at p: normal,
 * or native [C/c2][R][c2] (A and C), e bytes each. A 32-bit C is
 * (N / 4, M, 4) on every SoC (rknn_matmul_api.h, matmul.md), not whatever
 * the attributes say; other natives take the attributes' C2. */
static size_t ac_offset(const rknn_matmul_tensor_attr *a, int native, uint32_t r, uint32_t c,
                        uint32_t cols, uint32_t rows, size_t e)
{
    if (!native)
        return ((size_t)r * cols + c) * e;
    uint32_t c2 = a->name[0] == 'C' && e == 4u ? 4u : a->dims[2];
    return (((size_t)(c / c2) * rows + r) * c2 + c % c2) * e;
}

/* Element (k, n) of B: normal [K][N], or native [N/subN][K/subK][subN][subK]. */
static size_t b_offset(const rknn_matmul_tensor_attr *b, int native, uint32_t k, uint32_t n,
                       uint32_t N, size_t e)
{
    if (!native)
        return ((size_t)k * N + n) * e;
    uint32_t kr = b->dims[1], subn = b->dims[2], subk = b->dims[3];
    return ((((size_t)(n / subn) * kr + k / subk) * subn + n % subn) * subk + k % subk) * e;
}

static double value_in(const uint8_t *p, int fp16)
{
    if (fp16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return h2f(h);
    }
    return (int8_t)p[0];
}

static double value_out(const uint8_t *p, rknn_matmul_type t)
{
    if (t == RKNN_INT8_MM_INT8_TO_INT8)
        return (int8_t)p[0];
    if (t == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16)
        return value_in(p, 1);
    if (t == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    int32_t i;
    memcpy(&i, p, 4);
    return i;
}

static void fill(rknn_tensor_mem *m, const rknn_matmul_tensor_attr *a, int fp16)
{
    memset(m->virt_addr, 0, a->size);
    for (uint32_t i = 0; i < a->size / (fp16 ? 2u : 1u); i++) {
        if (fp16) {
            uint16_t h = rnd_half();
            memcpy((uint8_t *)m->virt_addr + 2u * i, &h, 2);
        } else {
            ((int8_t *)m->virt_addr)[i] = (int8_t)rnd();
        }
    }
}

/* Zero the padding a native A or B holds beyond K / N (the client's duty,
 * as the vendor demo's conversion writes zeros there). */
static void zero_padding(rknn_tensor_mem *am, const rknn_matmul_tensor_attr *a, int a_native,
                         rknn_tensor_mem *bm, const rknn_matmul_tensor_attr *b, int b_native,
                         const mm_case *c, size_t e)
{
    if (a_native)
        for (uint32_t m = 0; m < (uint32_t)c->M; m++)
            for (uint32_t k = (uint32_t)c->K; k < a->dims[0] * a->dims[2]; k++)
                memset((uint8_t *)am->virt_addr + ac_offset(a, 1, m, k, 0, (uint32_t)c->M, e), 0,
                       e);
    if (b_native)
        for (uint32_t n = 0; n < b->dims[0] * b->dims[2]; n++)
            for (uint32_t k = 0; k < b->dims[1] * b->dims[3]; k++)
                if (k >= (uint32_t)c->K || n >= (uint32_t)c->N)
                    memset((uint8_t *)bm->virt_addr + b_offset(b, 1, k, n, 0, e), 0, e);
}

/* The documented int8 -> int8 rule (api.md §1.3), typed out here: r_n =
 * sA * sB_n / sC, S the largest shift <= 30 keeping every round(r_n * 2^S)
 * below 2^15, C = sat(round_half_away(acc * m_n / 2^S) + zp_C). */
static int32_t requantised(const mm_case *c, int64_t acc, uint32_t n)
{
    double max = 0;
    int s = 30;

    for (int32_t i = 0; i < c->N; i++) {
        double r = (double)q_a * q_b[c->b_per_channel ? i : 0] / q_c;
        max = r > max ? r : max;
    }
    while (s > 0 && (int64_t)(max * (double)(1u << s) + 0.5) >= 32768)
        s--;
    int64_t m =
        (int64_t)((double)q_a * q_b[c->b_per_channel ? n : 0] / q_c * (double)(1u << s) + 0.5);
    int64_t p = acc * m, half = s ? (int64_t)1 << (s - 1) : 0;
    int64_t y = p >= 0 ? (p + half) >> s : -((-p + half) >> s);
    y += q_zp;
    return (int32_t)(y < -128 ? -128 : y > 127 ? 127 : y);
}

/* Scales for a case: C spread over about +-100 for random int8 inputs. */
static void set_quant(rknn_matmul_ctx ctx, const mm_case *c)
{
    rknn_quant_params q;
    int32_t zero = 0;
    float first = 0;

    q_a = 0.02f;
    for (int32_t n = 0; n < c->N; n++)
        q_b[n] = c->b_per_channel ? 0.01f * (float)(1 + n % 7) : 0.01f;
    /* |acc| is about sqrt(K) * 5400 for uniform int8: C about +-100, some saturated */
    uint32_t root = 1;
    while ((root + 1) * (root + 1) <= (uint32_t)c->K)
        root++;
    q_c = q_a * 0.01f * (float)root * 54.0f;
    q_zp = 3;
    memset(&q, 0, sizeof q);
    q.zp = &zero;
    q.zp_len = 1;
    q.scale_len = 1;
    q.name[0] = 'A';
    q.scale = &q_a;
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    q.name[0] = 'B';
    q.scale = q_b;
    q.scale_len = c->b_per_channel ? c->N : 1;
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    q.name[0] = 'C';
    q.scale = &q_c;
    q.scale_len = 1;
    q.zp = &q_zp;
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    /* what get_quant_params returns is what was set */
    memset(&q, 0, sizeof q);
    q.name[0] = 'B';
    CHECK(rknn_matmul_get_quant_params(ctx, &q, &first) == RKNN_SUCC);
    CHECK(q.scale_len == (c->b_per_channel ? c->N : 1) && first == q_b[0] &&
          q.scale[q.scale_len - 1] == q_b[q.scale_len - 1]);
}

/* Wrong elements of C against the reference. */
static uint32_t compare(const mm_case *c, const rknn_matmul_io_attr *io, const uint8_t *A,
                        const uint8_t *B, const uint8_t *C)
{
    int fp16 = fp16_type(c->type), an = c->ac_layout, bn = c->b_layout;
    size_t e = fp16 ? 2u : 1u;
    size_t eo = c->type == RKNN_INT8_MM_INT8_TO_INT8            ? 1u
                : c->type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 ? 2u
                                                                : 4u;
    uint32_t M = (uint32_t)c->M, K = (uint32_t)c->K, N = (uint32_t)c->N, bad = 0;

    for (uint32_t m = 0; m < M; m++)
        for (uint32_t n = 0; n < N; n++) {
            int64_t exact = 0;
            float sum = 0.0f;
            double mag = 0.0;
            for (uint32_t k = 0; k < K; k++) {
                double a = value_in(A + ac_offset(&io->A, an, m, k, K, M, e), fp16);
                double b = value_in(B + b_offset(&io->B, bn, k, n, N, e), fp16);
                if (fp16) {
                    sum += (float)a * (float)b; /* exact product, fp32 sum */
                    mag += a * b < 0 ? -a * b : a * b;
                } else {
                    exact += (int64_t)a * (int64_t)b;
                }
            }
            double got = value_out(C + ac_offset(&io->C, an, m, n, N, M, eo), c->type);
            if (c->type == RKNN_INT8_MM_INT8_TO_INT8) {
                bad += got != (double)requantised(c, exact, n);
                continue;
            }
            if (!fp16) {
                bad += got != (double)exact;
                continue;
            }
            /* two fp32 sums of K terms in different orders differ by at most
             * ~2K ulp of the magnitude sum; fp16 output adds half an fp16 ulp */
            double tol = 2.0 * K * mag / 16777216.0 + 1e-6;
            if (c->type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16)
                tol += (sum < 0 ? -sum : sum) / 2048.0 + 1.0 / 16777216.0;
            bad += got - sum > tol || sum - got > tol;
        }
    return bad;
}

/* An info as the vendor's demo fills it (the rest zero). */
static rknn_matmul_info mm_info(rknn_matmul_type type, int32_t M, int32_t K, int32_t N, int ac,
                                int b, int b_per_channel)
{
    rknn_matmul_info info;

    memset(&info, 0, sizeof info);
    info.M = M;
    info.K = K;
    info.N = N;
    info.type = type;
    info.AC_layout = (int16_t)ac;
    info.B_layout = (int16_t)b;
    info.B_quant_type = (int16_t)b_per_channel;
    return info;
}

static int create_refused(rknn_matmul_type type, int32_t M, int32_t K, int32_t N)
{
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 1;

    info = mm_info(type, M, K, N, 0, 0, 0);
    return rknn_matmul_create(&ctx, &info, &io) == RKNN_ERR_PARAM_INVALID && ctx == 0;
}

static void run_case(const mm_case *c)
{
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    rknn_tensor_mem *mem[3] = {NULL, NULL, NULL};
    int fp16 = fp16_type(c->type);
    size_t e = fp16 ? 2u : 1u;
    uint32_t bad = 0;
    int ret;

    info = mm_info(c->type, c->M, c->K, c->N, c->ac_layout, c->b_layout, c->b_per_channel);
    if (!CHECK((ret = rknn_matmul_create(&ctx, &info, &io)) == RKNN_SUCC)) {
        printf("  %s %dx%dx%d: create %d\n", get_matmul_type_string(c->type), (int)c->M, (int)c->K,
               (int)c->N, ret);
        return;
    }
    /* a 32-bit native C as the headers lay it: (N / 4, M, 4) */
    if (c->ac_layout && io.C.size == (size_t)io.C.dims[0] * io.C.dims[1] * io.C.dims[2] * 4u)
        CHECK(io.C.n_dims == 3 && io.C.dims[1] == (uint32_t)c->M && io.C.dims[2] == 4);
    CHECK(rknn_matmul_set_core_mask(ctx, c->mask) == RKNN_SUCC);
    if (c->type == RKNN_INT8_MM_INT8_TO_INT8)
        set_quant(ctx, c);
    mem[0] = rknn_create_mem(ctx, io.A.size);
    mem[1] = rknn_create_mem(ctx, io.B.size);
    mem[2] = rknn_create_mem(ctx, io.C.size);
    if (CHECK(mem[0] && mem[1] && mem[2])) {
        fill(mem[0], &io.A, fp16);
        fill(mem[1], &io.B, fp16);
        zero_padding(mem[0], &io.A, c->ac_layout, mem[1], &io.B, c->b_layout, c, e);
        memset(mem[2]->virt_addr, 0x5A, io.C.size); /* nothing stale may pass */
        CHECK(rknn_matmul_set_io_mem(ctx, mem[0], &io.A) == RKNN_SUCC);
        CHECK(rknn_matmul_set_io_mem(ctx, mem[1], &io.B) == RKNN_SUCC);
        CHECK(rknn_matmul_set_io_mem(ctx, mem[2], &io.C) == RKNN_SUCC);
        if (CHECK((ret = rknn_matmul_run(ctx)) == RKNN_SUCC))
            bad = compare(c, &io, mem[0]->virt_addr, mem[1]->virt_addr, mem[2]->virt_addr);
        else
            printf("  run returned %d\n", ret);
    }
    printf("  %-36s M %4d K %4d N %4d  AC %s B %s%s  mask %d: %lu wrong\n",
           get_matmul_type_string(c->type), (int)c->M, (int)c->K, (int)c->N,
           c->ac_layout ? "native" : "normal", c->b_layout ? "native" : "normal",
           c->type != RKNN_INT8_MM_INT8_TO_INT8 ? ""
           : c->b_per_channel                   ? " per-channel"
                                                : " per-layer",
           (int)c->mask, (unsigned long)bad);
    CHECK_EQ_U(bad, 0);
    for (int i = 0; i < 3; i++)
        if (mem[i])
            rknn_destroy_mem(ctx, mem[i]);
    CHECK(rknn_matmul_destroy(ctx) == RKNN_SUCC);
}

/* Dynamic shapes as the vendor's flow has them: create with the shape list,
 * memories of the largest sizes, then per shape set_dynamic_shape, bind
 * with that shape's attrs, run, compare. */
static void run_dynamic(rknn_matmul_type type)
{
    static const rknn_matmul_shape shapes[] = {{33, 64, 96}, {1, 64, 96}, {256, 64, 96}};
    rknn_matmul_shape list[3];
    rknn_matmul_io_attr io[3];
    rknn_matmul_info info;
    rknn_matmul_ctx ctx;
    rknn_tensor_mem *mem[3];
    uint32_t size[3] = {0, 0, 0};
    int fp16 = fp16_type(type);

    memcpy(list, shapes, sizeof list);
    memset(&info, 0, sizeof info);
    info.type = type;
    if (!CHECK(rknn_matmul_create_dyn_shape(&ctx, &info, 3, list, io) == RKNN_SUCC))
        return;
    for (int i = 0; i < 3; i++) {
        size[0] = io[i].A.size > size[0] ? io[i].A.size : size[0];
        size[1] = io[i].B.size > size[1] ? io[i].B.size : size[1];
        size[2] = io[i].C.size > size[2] ? io[i].C.size : size[2];
    }
    for (int i = 0; i < 3; i++)
        mem[i] = rknn_create_mem(ctx, size[i]);
    for (int i = 0; CHECK(mem[0] && mem[1] && mem[2]) && i < 3; i++) {
        mm_case c = {type, shapes[i].M, shapes[i].K, shapes[i].N, 0, 0, RKNN_NPU_CORE_AUTO, 0};
        uint32_t bad = 0;
        CHECK(rknn_matmul_set_dynamic_shape(ctx, &list[i]) == RKNN_SUCC);
        fill(mem[0], &io[i].A, fp16);
        fill(mem[1], &io[i].B, fp16);
        CHECK(rknn_matmul_set_io_mem(ctx, mem[0], &io[i].A) == RKNN_SUCC);
        CHECK(rknn_matmul_set_io_mem(ctx, mem[1], &io[i].B) == RKNN_SUCC);
        CHECK(rknn_matmul_set_io_mem(ctx, mem[2], &io[i].C) == RKNN_SUCC);
        if (CHECK(rknn_matmul_run(ctx) == RKNN_SUCC))
            bad = compare(&c, &io[i], mem[0]->virt_addr, mem[1]->virt_addr, mem[2]->virt_addr);
        printf("  dynamic %-28s M %4d K %4d N %4d: %lu wrong\n", get_matmul_type_string(type),
               (int)c.M, (int)c.K, (int)c.N, (unsigned long)bad);
        CHECK_EQ_U(bad, 0);
    }
    rknn_matmul_shape other = {2, 64, 96};
    CHECK(rknn_matmul_set_dynamic_shape(ctx, &other) == RKNN_ERR_PARAM_INVALID);
    for (int i = 0; i < 3; i++)
        if (mem[i])
            rknn_destroy_mem(ctx, mem[i]);
    CHECK(rknn_matmul_destroy(ctx) == RKNN_SUCC);
}

/* ---- int4 types (api.md §4.6): packed two a byte, typed out here ---------- */

/* Nibble i of p: two a byte, the even element in the high nibble, in every
 * layout (what Rockchip's runtime 1.6.0 reads, measured: vnpu.md §6.3). */
static int nib_get(const uint8_t *p, size_t i)
{
    int v = (p[i / 2] >> (i % 2 ? 0 : 4)) & 15;
    return v >= 8 ? v - 16 : v;
}

static void nib_set(uint8_t *p, size_t i, int v)
{
    int shift = i % 2 ? 0 : 4;
    p[i / 2] = (uint8_t)((p[i / 2] & ~(15 << shift)) | ((v & 15) << shift));
}

typedef struct {
    rknn_matmul_type type;
    int32_t M, K, N;
    int16_t ac, b;
    int extreme; /* every A and B element -8: sums beyond int16 saturate */
} int4_case;

/* Where element (m, k) of A is: int4 [M][K] or [K/32][M][32] nibbles, int8
 * [M][K] or [K/16][M][16] bytes. */
static size_t a_index(const int4_case *c, uint32_t m, uint32_t k)
{
    uint32_t c2 = c->type == RKNN_INT4_MM_INT4_TO_INT16 ? 32 : 16;
    return c->ac ? ((size_t)(k / c2) * (uint32_t)c->M + m) * c2 + k % c2 : (size_t)m * c->K + k;
}

/* Element (k, n) of B: [K][N] nibbles, or [N/64][Kp/32][64][32] (nibbles as above). */
static size_t b_index(const int4_case *c, uint32_t k, uint32_t n)
{
    uint32_t kr = ((uint32_t)c->K + 31) / 32;
    return c->b ? (((size_t)(n / 64) * kr + k / 32) * 64 + n % 64) * 32 + k % 32
                : (size_t)k * c->N + n;
}

static void run_int4_case(const int4_case *c)
{
    int int4_a = c->type == RKNN_INT4_MM_INT4_TO_INT16;
    uint32_t M = (uint32_t)c->M, K = (uint32_t)c->K, N = (uint32_t)c->N, bad = 0;
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    rknn_tensor_mem *mem[3] = {NULL, NULL, NULL};
    size_t kp = (K + 31) / 32 * 32, np = (N + 63) / 64 * 64;

    info = mm_info(c->type, c->M, c->K, c->N, c->ac, c->b, 0);
    if (!CHECK(rknn_matmul_create(&ctx, &info, &io) == RKNN_SUCC))
        return;
    /* the io attributes as the vendor's demo reads them */
    CHECK(io.A.type == (int4_a ? RKNN_TENSOR_INT4 : RKNN_TENSOR_INT8) &&
          io.B.type == RKNN_TENSOR_INT4 &&
          io.C.type == (int4_a ? RKNN_TENSOR_INT16 : RKNN_TENSOR_INT32));
    CHECK_EQ_U(io.A.size,
               c->ac ? (int4_a ? kp * M / 2 : kp * M) : (int4_a ? (M * K + 1) / 2 : M * K));
    CHECK_EQ_U(io.B.size, c->b ? np * kp / 2 : (K * N + 1) / 2);
    if (c->b)
        CHECK(io.B.n_dims == 4 && io.B.dims[0] == np / 64 && io.B.dims[2] == 64 &&
              io.B.dims[3] == 32);
    for (int i = 0; i < 3; i++) {
        const rknn_matmul_tensor_attr *a = i == 0 ? &io.A : i == 1 ? &io.B : &io.C;
        mem[i] = rknn_create_mem(ctx, a->size);
        if (!CHECK(mem[i]))
            goto out;
        memset(mem[i]->virt_addr, i == 2 ? 0x5A : 0, a->size); /* padding zero, C poisoned */
    }
    for (uint32_t m = 0; m < M; m++)
        for (uint32_t k = 0; k < K; k++) {
            int v = c->extreme ? -8 : int4_a ? (int)(rnd() % 16) - 8 : (int8_t)rnd();
            if (int4_a)
                nib_set(mem[0]->virt_addr, a_index(c, m, k), v);
            else
                ((int8_t *)mem[0]->virt_addr)[a_index(c, m, k)] = (int8_t)v;
        }
    for (uint32_t k = 0; k < K; k++)
        for (uint32_t n = 0; n < N; n++)
            nib_set(mem[1]->virt_addr, b_index(c, k, n), c->extreme ? -8 : (int)(rnd() % 16) - 8);
    CHECK(rknn_matmul_set_io_mem(ctx, mem[0], &io.A) == RKNN_SUCC);
    CHECK(rknn_matmul_set_io_mem(ctx, mem[1], &io.B) == RKNN_SUCC);
    CHECK(rknn_matmul_set_io_mem(ctx, mem[2], &io.C) == RKNN_SUCC);
    if (!CHECK(rknn_matmul_run(ctx) == RKNN_SUCC))
        goto out;
    for (uint32_t m = 0; m < M; m++)
        for (uint32_t n = 0; n < N; n++) {
            int64_t sum = 0, got;
            for (uint32_t k = 0; k < K; k++) {
                size_t ai = a_index(c, m, k);
                int a = int4_a ? nib_get(mem[0]->virt_addr, ai) : ((int8_t *)mem[0]->virt_addr)[ai];
                sum += (int64_t)a * nib_get(mem[1]->virt_addr, b_index(c, k, n));
            }
            if (int4_a) { /* int16, saturated (api.md §1.3) */
                size_t ci = c->ac ? ((size_t)(n / 8) * M + m) * 8 + n % 8 : (size_t)m * N + n;
                got = ((int16_t *)mem[2]->virt_addr)[ci];
                sum = sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum;
            } else {
                size_t ci = c->ac ? ((size_t)(n / 4) * M + m) * 4 + n % 4 : (size_t)m * N + n;
                got = ((int32_t *)mem[2]->virt_addr)[ci];
            }
            bad += got != sum;
        }
out:
    printf("  %-36s M %4d K %4d N %4d  AC %s B %s%s: %lu wrong\n", get_matmul_type_string(c->type),
           (int)c->M, (int)c->K, (int)c->N, c->ac ? "native" : "normal", c->b ? "native" : "normal",
           c->extreme ? " (all -8)" : "", (unsigned long)bad);
    CHECK_EQ_U(bad, 0);
    for (int i = 0; i < 3; i++)
        if (mem[i])
            rknn_destroy_mem(ctx, mem[i]);
    rknn_matmul_destroy(ctx);
}

static void run_int4(void)
{
    /* M < 4, N of one and several 64-kernel groups, K of one and several
     * slices and K split */
    static const int32_t shapes[][3] = {
        {1, 32, 64}, {3, 64, 64}, {33, 96, 192}, {5, 8224, 128}, {4, 20008, 64}};
    static const int16_t layouts[][2] = {{0, 0}, {1, 1}, {0, 1}, {1, 0}};
    static const rknn_matmul_type types[] = {RKNN_INT4_MM_INT4_TO_INT16,
                                             RKNN_INT8_MM_INT4_TO_INT32};
    unsigned n = 0;

    printf("int4:\n");
    for (size_t t = 0; t < 2; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, n++) {
            int4_case c = {types[t],
                           shapes[s][0],
                           shapes[s][1],
                           shapes[s][2],
                           layouts[n % 4][0],
                           layouts[n % 4][1],
                           0};
            run_int4_case(&c);
        }
    {
        int4_case c = {RKNN_INT4_MM_INT4_TO_INT16, 4, 1024, 64, 0, 0, 1};
        run_int4_case(&c); /* 1024 x 64 = 65536: saturates */
    }
    for (int16_t b = 0; b < 2; b++) { /* a normal A of K odd, not whole slices: copied */
        int4_case c = {RKNN_INT4_MM_INT4_TO_INT16, 3, 45, 64, 0, b, 0};
        run_int4_case(&c);
    }
}

/* ---- the dequantising types (api.md §1.3) ----------------------------------- */

/* bfloat16 bits to float (exact). */
static float bf2f(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* C_n = sA * sB_n * sum_k A_mk B_kn (sA only for an int8 A): B's (and an
 * int8 A's) integers dequantised by their scales, the reference the
 * vendor's demo computes for its hybrid types. The sum: exact for an int8
 * A, else fp32 in order with a bound relative to K; then one rounding to
 * fp32 and one to the output type. */
static void run_dequant_case(rknn_matmul_type type, int32_t M, int32_t K, int32_t N, int ac, int bl,
                             int per_channel)
{
    int a8 = type == RKNN_INT8_MM_INT8_TO_FLOAT32 || type == RKNN_INT8_MM_INT4_TO_FLOAT16;
    int b4 = type == RKNN_FLOAT16_MM_INT4_TO_FLOAT32 || type == RKNN_FLOAT16_MM_INT4_TO_FLOAT16 ||
             type == RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 || type == RKNN_INT8_MM_INT4_TO_FLOAT16;
    rknn_tensor_type ct =
        type == RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 ? RKNN_TENSOR_BFLOAT16
        : (type == RKNN_FLOAT16_MM_INT8_TO_FLOAT16 || type == RKNN_FLOAT16_MM_INT4_TO_FLOAT16 ||
           type == RKNN_INT8_MM_INT4_TO_FLOAT16)
            ? RKNN_TENSOR_FLOAT16
            : RKNN_TENSOR_FLOAT32;
    uint32_t ea = a8 ? 1 : 2, c2a = 16 / ea, ec = ct == RKNN_TENSOR_FLOAT32 ? 4 : 2, c2c = 16 / ec;
    uint32_t g = b4 ? 64 : 32, kr = ((uint32_t)K + 31) / 32, bad = 0;
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    rknn_tensor_mem *mem[3] = {NULL, NULL, NULL};
    rknn_quant_params q;
    static float scale[4128];
    float sa = a8 ? 0.03125f : 1.0f;
    int32_t zero = 0;

    info = mm_info(type, M, K, N, ac, bl, per_channel);
    if (!CHECK(rknn_matmul_create(&ctx, &info, &io) == RKNN_SUCC))
        return;
    CHECK(io.A.type == (a8 ? RKNN_TENSOR_INT8 : RKNN_TENSOR_FLOAT16) && io.C.type == ct &&
          io.B.type == (b4 ? RKNN_TENSOR_INT4 : RKNN_TENSOR_INT8));
    for (int32_t n = 0; n < N; n++)
        scale[n] = per_channel ? 0.001f * (float)(1 + n % 13) : 0.0625f;
    memset(&q, 0, sizeof q);
    q.zp = &zero;
    q.zp_len = 1;
    q.name[0] = 'A';
    q.scale = &sa;
    q.scale_len = 1;
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    q.name[0] = 'B';
    q.scale = scale;
    q.scale_len = per_channel ? N : 1;
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    for (int i = 0; i < 3; i++) {
        const rknn_matmul_tensor_attr *a = i == 0 ? &io.A : i == 1 ? &io.B : &io.C;
        mem[i] = rknn_create_mem(ctx, a->size);
        if (!CHECK(mem[i]))
            goto out;
        memset(mem[i]->virt_addr, i == 2 ? 0x5A : 0, a->size);
    }
    for (uint32_t m = 0; m < (uint32_t)M; m++)
        for (uint32_t k = 0; k < (uint32_t)K; k++) {
            uint16_t h = rnd_half();
            size_t at =
                ac ? ((size_t)(k / c2a) * (uint32_t)M + m) * c2a + k % c2a : (size_t)m * K + k;
            if (a8)
                ((int8_t *)mem[0]->virt_addr)[at] = (int8_t)rnd();
            else
                memcpy((uint8_t *)mem[0]->virt_addr + 2 * at, &h, 2);
        }
    for (uint32_t k = 0; k < (uint32_t)K; k++)
        for (uint32_t n = 0; n < (uint32_t)N; n++) {
            size_t at = bl ? (((size_t)(n / g) * kr + k / 32) * g + n % g) * 32 + k % 32
                           : (size_t)k * N + n;
            if (b4)
                nib_set(mem[1]->virt_addr, at, (int)(rnd() % 16) - 8);
            else
                ((int8_t *)mem[1]->virt_addr)[at] = (int8_t)rnd();
        }
    CHECK(rknn_matmul_set_io_mem(ctx, mem[0], &io.A) == RKNN_SUCC);
    CHECK(rknn_matmul_set_io_mem(ctx, mem[1], &io.B) == RKNN_SUCC);
    CHECK(rknn_matmul_set_io_mem(ctx, mem[2], &io.C) == RKNN_SUCC);
    if (!CHECK(rknn_matmul_run(ctx) == RKNN_SUCC))
        goto out;
    for (uint32_t m = 0; m < (uint32_t)M; m++)
        for (uint32_t n = 0; n < (uint32_t)N; n++) {
            float sum = 0.0f, got;
            double mag = 0.0, want, tol;
            uint16_t h;
            size_t ci =
                ac ? ((size_t)(n / c2c) * (uint32_t)M + m) * c2c + n % c2c : (size_t)m * N + n;
            for (uint32_t k = 0; k < (uint32_t)K; k++) {
                size_t ai =
                    ac ? ((size_t)(k / c2a) * (uint32_t)M + m) * c2a + k % c2a : (size_t)m * K + k;
                size_t bi = bl ? (((size_t)(n / g) * kr + k / 32) * g + n % g) * 32 + k % 32
                               : (size_t)k * N + n;
                double a = a8 ? ((int8_t *)mem[0]->virt_addr)[ai]
                              : value_in((uint8_t *)mem[0]->virt_addr + 2 * ai, 1);
                int b = b4 ? nib_get(mem[1]->virt_addr, bi) : ((int8_t *)mem[1]->virt_addr)[bi];
                sum += (float)a * (float)b; /* exact for int8 A: |sum| < 2^24 here */
                mag += a * b < 0 ? -a * b : a * b;
            }
            want = (double)sum * sa * scale[per_channel ? n : 0];
            tol = (a8 ? 0 : 2.0 * K * mag / 16777216.0 + 1e-6) * sa * scale[per_channel ? n : 0] +
                  (want < 0 ? -want : want) * 3 / 16777216.0;
            if (ct == RKNN_TENSOR_FLOAT32) {
                memcpy(&got, (uint8_t *)mem[2]->virt_addr + 4 * ci, 4);
            } else {
                memcpy(&h, (uint8_t *)mem[2]->virt_addr + 2 * ci, 2);
                got = ct == RKNN_TENSOR_BFLOAT16 ? bf2f(h) : (float)value_in((uint8_t *)&h, 1);
                /* half an ulp of the output type, and fp16's smallest step */
                tol += (want < 0 ? -want : want) / (ct == RKNN_TENSOR_BFLOAT16 ? 256.0 : 2048.0) +
                       1.0 / 16777216.0;
            }
            bad += got - want > tol || want - got > tol;
        }
out:
    printf("  %-36s M %4d K %4d N %4d  AC %s B %s %s: %lu wrong\n", get_matmul_type_string(type),
           (int)M, (int)K, (int)N, ac ? "native" : "normal", bl ? "native" : "normal",
           per_channel ? "per-channel" : "per-layer", (unsigned long)bad);
    CHECK_EQ_U(bad, 0);
    for (int i = 0; i < 3; i++)
        if (mem[i])
            rknn_destroy_mem(ctx, mem[i]);
    rknn_matmul_destroy(ctx);
}

static void run_dequant(void)
{
    static const rknn_matmul_type types[] = {
        RKNN_FLOAT16_MM_INT8_TO_FLOAT32, RKNN_FLOAT16_MM_INT8_TO_FLOAT16,
        RKNN_FLOAT16_MM_INT4_TO_FLOAT32, RKNN_FLOAT16_MM_INT4_TO_FLOAT16,
        RKNN_INT8_MM_INT8_TO_FLOAT32,    RKNN_FLOAT16_MM_INT4_TO_BFLOAT16,
        RKNN_INT8_MM_INT4_TO_FLOAT16};
    static const int32_t shapes[][3] = {{1, 32, 64}, {3, 64, 64}, {33, 96, 192}, {5, 8224, 128}};
    unsigned n = 0;

    printf("dequantising types:\n");
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, n++)
            /* the long K once for an fp16 and once for an int8 A (QEMU time) */
            if (shapes[s][1] < 8192 || t == 1 || t == 4)
                run_dequant_case(types[t], shapes[s][0], shapes[s][1], shapes[s][2], (int)(n % 2),
                                 (int)(n / 2 % 2), (int)(n % 3 != 0));
}

/* K beyond one task (RK3588: one kernel group of K fp16 or int8 channels
 * and four rows must fit the CBUF): the DPU adds the segments' sums; an
 * int8 C is requantised by the CPU from the int32 sums (the same rule). */
static void run_k_split(const rknn_matmul_type *types, size_t n_types, const int16_t (*layouts)[2])
{
    static const int32_t shapes[][3] = {{5, 20008, 64}, {1, 12288, 64}};

    printf("K splitting:\n");
    for (size_t t = 0; t < n_types; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            mm_case c = {types[t],
                         shapes[s][0],
                         shapes[s][1],
                         shapes[s][2],
                         layouts[(t + s) % 3][0],
                         layouts[(t + s) % 3][1],
                         RKNN_NPU_CORE_AUTO,
                         0};
            c.b_per_channel = (int16_t)(s % 2);
            run_case(&c);
        }
}

/* M < 4, M around the 1020-row task limit, K of one and several slices up
 * to 8224, N of one kernel group to beyond one task */
static const int32_t grid_shapes[][3] = {
    {1, 32, 32},    {3, 64, 32},    {4, 96, 96},   {33, 64, 96},   {33, 8192, 32},
    {1020, 32, 32}, {1024, 96, 96}, {4, 32, 4096}, {33, 64, 4128}, {33, 8224, 32},
};
#define GRID_SHAPES (sizeof grid_shapes / sizeof grid_shapes[0])
static const rknn_matmul_type grid_types[] = {RKNN_INT8_MM_INT8_TO_INT32, RKNN_INT8_MM_INT8_TO_INT8,
                                              RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32,
                                              RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16};
static const int16_t grid_layouts[][2] = {{0, 0}, {1, 1}, {0, 1}};

/* RK356x: int8 and fp16 on its own native layouts (8-byte atoms, 16 int8 /
 * 8 fp16 kernel groups, fp16 B in 16-channel slices as the vendor
 * documents [N/8, K/16, 8, 16]); the int4 and dequantising types and K
 * splitting are RK3588's. */
static void run_rk356x(void)
{
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;

    printf("RK356x:\n");
    for (size_t t = 0; t < sizeof grid_types / sizeof grid_types[0]; t++)
        for (size_t k = 0; k < GRID_SHAPES; k++) {
            mm_case c = {grid_types[t],      grid_shapes[k][0],      grid_shapes[k][1],
                         grid_shapes[k][2],  grid_layouts[k % 3][0], grid_layouts[k % 3][1],
                         RKNN_NPU_CORE_AUTO, (int16_t)(k % 2)};
            /* fp16 K above 8,192 would need K splitting (RK3588 only) */
            if (fp16_type(c.type) && c.K > 8192)
                CHECK(create_refused(c.type, c.M, c.K, c.N));
            else
                run_case(&c);
        }
    info = mm_info(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 5, 70, 24, 1, 1, 0);
    if (CHECK(rknn_matmul_create(&ctx, &info, &io) == RKNN_SUCC)) {
        CHECK(io.A.dims[0] == 96 / 4 && io.A.dims[1] == 5 && io.A.dims[2] == 4);
        CHECK(io.B.dims[0] == 24 / 8 && io.B.dims[1] == 96 / 16 && io.B.dims[2] == 8 &&
              io.B.dims[3] == 16);
        CHECK(rknn_matmul_destroy(ctx) == RKNN_SUCC);
    }
    CHECK(create_refused(RKNN_INT4_MM_INT4_TO_INT16, 4, 32, 16));
    CHECK(create_refused(RKNN_FLOAT16_MM_INT8_TO_FLOAT32, 4, 32, 16));
    CHECK(create_refused(RKNN_INT8_MM_INT8_TO_INT32, 4, 20008, 16)); /* K split */
    /* N of partial kernel groups (16 int8, 8 fp16 here) */
    CHECK(create_refused(RKNN_INT8_MM_INT8_TO_INT32, 4, 32, 8));
    CHECK(create_refused(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 4, 32, 20));
}

int main(void)
{
    static const rknn_core_mask masks[] = {RKNN_NPU_CORE_AUTO, RKNN_NPU_CORE_1, RKNN_NPU_CORE_2};
    unsigned n = 0;

    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("matmul");
    /* firmware built for an RK356x SoC (meson -Dsoc=rk3566) runs its grid */
    if (rknpu_platform_get()->soc == RKNPU_SOC_RK3566 ||
        rknpu_platform_get()->soc == RKNPU_SOC_RK3568) {
        run_rk356x();
        return test_report("matmul");
    }
    for (size_t t = 0; t < sizeof grid_types / sizeof grid_types[0]; t++)
        for (size_t s = 0; s < GRID_SHAPES; s++) {
            mm_case c = {grid_types[t],     grid_shapes[s][0],      grid_shapes[s][1],
                         grid_shapes[s][2], grid_layouts[n % 3][0], grid_layouts[n % 3][1],
                         masks[n % 3],      (int16_t)(n % 2)};
            n++;
            run_case(&c);
        }
    run_dynamic(RKNN_INT8_MM_INT8_TO_INT32);
    run_dynamic(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32);
    run_k_split(grid_types, sizeof grid_types / sizeof grid_types[0], grid_layouts);
    run_int4();
    run_dequant();
    CHECK(create_refused((rknn_matmul_type)13, 4, 32, 16)); /* no type of the headers */
    /* N of partial kernel groups, refused as by Rockchip's runtime ("N must
     * be align with 32"): 32 int8, 16 fp16, 64 int4 B */
    CHECK(create_refused(RKNN_INT8_MM_INT8_TO_INT32, 1, 32, 16));
    CHECK(create_refused(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 1, 32, 8));
    CHECK(create_refused(RKNN_INT4_MM_INT4_TO_INT16, 1, 32, 32));
    CHECK(create_refused(RKNN_FLOAT16_MM_INT4_TO_FLOAT32, 4, 64, 96));
#if RKNPU_BOARD_HOST
    /* the host serves every SoC */
    if (CHECK(rknpu_host_force_soc(RKNPU_SOC_RK3566) == RKNN_SUCC)) {
        run_rk356x();
        CHECK(rknpu_host_force_soc(RKNPU_SOC_RK3588) == RKNN_SUCC);
    }
#endif
    return test_report("matmul");
}
