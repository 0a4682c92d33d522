/*
 * test_matmul - the matmul API as the vendor's matmul demo uses it (create,
 * memories made with the matmul context, set_io_mem, run, read C; never
 * rknn_mem_sync) over a grid of types, shapes, layouts and core masks,
 * against a C reference written here: exact int64 sums for int8, a
 * sequential fp32 sum for fp16 with a bound relative to K (the NPU's order
 * of summation is its own). The native layouts are typed out from api.md
 * §6 as index walks of their own. Host and QEMU.
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
} mm_case;

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

    v = e ? 1.0f + v : v * 2.0f;
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
    return t != RKNN_INT8_MM_INT8_TO_INT32;
}

/* Element (r, c) of a row-major R x C matrix held in `layout` at p: normal,
 * or native [C/c2][R][c2] (A and C), e bytes each. */
static size_t ac_offset(const rknn_matmul_tensor_attr *a, int native, uint32_t r, uint32_t c,
                        uint32_t cols, uint32_t rows, size_t e)
{
    if (!native)
        return ((size_t)r * cols + c) * e;
    uint32_t c2 = a->dims[2];
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

/* Wrong elements of C against the reference. */
static uint32_t compare(const mm_case *c, const rknn_matmul_io_attr *io, const uint8_t *A,
                        const uint8_t *B, const uint8_t *C)
{
    int fp16 = fp16_type(c->type), an = c->ac_layout, bn = c->b_layout;
    size_t e = fp16 ? 2u : 1u, eo = c->type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 ? 2u : 4u;
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

    memset(&info, 0, sizeof info);
    info.M = c->M;
    info.K = c->K;
    info.N = c->N;
    info.type = c->type;
    info.AC_layout = c->ac_layout;
    info.B_layout = c->b_layout;
    if (!CHECK((ret = rknn_matmul_create(&ctx, &info, &io)) == RKNN_SUCC)) {
        printf("  %s %dx%dx%d: create %d\n", get_matmul_type_string(c->type), (int)c->M, (int)c->K,
               (int)c->N, ret);
        return;
    }
    CHECK(rknn_matmul_set_core_mask(ctx, c->mask) == RKNN_SUCC);
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
    printf("  %-36s M %4d K %4d N %4d  AC %s B %s  mask %d: %lu wrong\n",
           get_matmul_type_string(c->type), (int)c->M, (int)c->K, (int)c->N,
           c->ac_layout ? "native" : "normal", c->b_layout ? "native" : "normal", (int)c->mask,
           (unsigned long)bad);
    CHECK_EQ_U(bad, 0);
    for (int i = 0; i < 3; i++)
        if (mem[i])
            rknn_destroy_mem(ctx, mem[i]);
    CHECK(rknn_matmul_destroy(ctx) == RKNN_SUCC);
}

int main(void)
{
    static const rknn_matmul_type types[] = {RKNN_INT8_MM_INT8_TO_INT32,
                                             RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32,
                                             RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16};
    /* M < 4, M around the 1020-row task limit, K of one and several
     * slices up to 8192, N of one kernel group to beyond one task */
    static const int32_t shapes[][3] = {
        {1, 32, 16},    {3, 64, 32},    {4, 96, 96},   {33, 64, 96},   {33, 8192, 32},
        {1020, 32, 16}, {1024, 96, 96}, {4, 32, 4096}, {33, 64, 4128},
    };
    static const int16_t layouts[][2] = {{0, 0}, {1, 1}, {0, 1}};
    static const rknn_core_mask masks[] = {RKNN_NPU_CORE_AUTO, RKNN_NPU_CORE_1, RKNN_NPU_CORE_2};
    unsigned n = 0;

    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("matmul");
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            mm_case c = {types[t],          shapes[s][0],      shapes[s][1], shapes[s][2],
                         layouts[n % 3][0], layouts[n % 3][1], masks[n % 3]};
            n++;
            run_case(&c);
        }
#if RKNPU_BOARD_HOST
    /* RK356x (the host serves every SoC): int8 on its own native layouts
     * (8-byte atoms, 16-kernel groups); fp16 is refused there for now */
    if (CHECK(rknpu_host_force_soc(RKNPU_SOC_RK3566) == RKNN_SUCC)) {
        rknn_matmul_info info;
        rknn_matmul_io_attr io;
        rknn_matmul_ctx ctx = 1;
        printf("RK3566:\n");
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            mm_case c = {
                RKNN_INT8_MM_INT8_TO_INT32, shapes[s][0],      shapes[s][1],      shapes[s][2],
                layouts[s % 3][0],          layouts[s % 3][1], RKNN_NPU_CORE_AUTO};
            run_case(&c);
        }
        memset(&info, 0, sizeof info);
        info.M = 4;
        info.K = 32;
        info.N = 16;
        info.type = RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
        CHECK(rknn_matmul_create(&ctx, &info, &io) == RKNN_ERR_PARAM_INVALID && ctx == 0);
        CHECK(rknpu_host_force_soc(RKNPU_SOC_RK3588) == RKNN_SUCC);
    }
#endif
    return test_report("matmul");
}
