/*
 * diff_client_matmul.c - the matmul API of rknn_matmul_api.h 1.6.0 over a
 * grid of shapes, types and layouts (diff_client.h, area "matmul").
 *
 * For every type the header offers (fp16 -> fp32, int8 -> int32, int4 ->
 * int16), shape M x K x N of the grid and layout choice (B normal or
 * native; A and C normal or native): rknn_matmul_create and the attributes
 * it answers, A and B filled with deterministic pseudo-random values (in the
 * native layouts of rknn_matmul_api.h's comments, converted here, when a
 * layout flag asks for them), a run whose submission the log marks, and C
 * as the runtime left it, checked against a CPU reference written here:
 * exact for the integer types, within fp16 rounding (2^-11 of the sum of
 * |a*b|) for fp16. What the runtime itself converted (B to its native
 * layout, A when AC_layout is 0) is in the submission log's CPU writes.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_client.h"
#include "rknn_matmul_api.h"

typedef struct {
    int m, k, n;
} mm_shape;

/* CI: small shapes and the ends of the ranges that stay cheap under
 * emulation (N 16, M 1024), every type and layout. Full: M 1..1024,
 * K 32..8192, N 16..4096. A shape a type's alignment rules out is still
 * asked: the return codes are compared too. */
static const mm_shape ci_grid[] = {{1, 32, 16},   {1, 32, 32},   {4, 64, 64},
                                   {17, 96, 128}, {64, 256, 64}, {1024, 64, 32}};
static const mm_shape full_grid[] = {
    {1, 32, 16},    {1, 32, 32},       {4, 64, 64},      {17, 96, 128},    {64, 256, 64},
    {1024, 64, 32}, {1, 8192, 32},     {33, 4096, 256},  {256, 512, 512},  {1024, 64, 64},
    {2, 128, 4096}, {1024, 1024, 256}, {128, 8192, 128}, {1024, 8192, 16}, {5, 32, 4096}};

typedef struct {
    rknn_matmul_type type;
    const char *name;
} mm_type;

static const mm_type types[] = {
    {RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, "fp16_fp32"},
    {RKNN_INT8_MM_INT8_TO_INT32, "int8_int32"},
    {RKNN_INT4_MM_INT4_TO_INT16, "int4_int16"},
};

/* The SoC as the runtime shows it: RK356x layouts when A's native int8
 * block is 8 (from the create answer), else RK3588's. */
typedef struct {
    int a_block;  /* A native: (K / a_block, M, a_block) */
    int b_nblock; /* B native: (N / b_nblock, K / b_kblock, b_nblock, b_kblock) */
    int b_kblock;
    int c_block; /* C native: (N / c_block, M, c_block) */
} mm_layout;

static int rk356x; /* set from RKNPU_STANDIN_SOC / the --matmul argument's soc */

static mm_layout layout_of(rknn_matmul_type t)
{
    mm_layout l;

    if (t == RKNN_INT4_MM_INT4_TO_INT16)
        return (mm_layout){32, 64, 32, 8};
    if (t == RKNN_INT8_MM_INT8_TO_INT32)
        l = rk356x ? (mm_layout){8, 16, 32, 4} : (mm_layout){16, 32, 32, 4};
    else
        l = rk356x ? (mm_layout){4, 8, 16, 4} : (mm_layout){8, 16, 32, 4};
    return l;
}

/* ---- elements ------------------------------------------------------------------ */

/* Logical values are ints (int8/int4) or halves (fp16), kept as int32 codes. */
static int32_t random_value(rknn_matmul_type t, uint32_t *s)
{
    uint32_t r = prng_next(s);

    if (t == RKNN_INT4_MM_INT4_TO_INT16)
        return (int32_t)(r & 15u) - 8;
    if (t == RKNN_INT8_MM_INT8_TO_INT32)
        return (int32_t)(r & 255u) - 128;
    /* a half in [-2, 2) on a grid of 1/64: products and sums stay exact enough */
    return half_from_float((float)((int32_t)(r & 255u) - 128) / 64.0f);
}

static double value_of(rknn_matmul_type t, int32_t v)
{
    return t == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 ? (double)half_to_float((uint16_t)v) : v;
}

/* Store logical element number `at` of a buffer of the type. int4: two per
 * byte, the even element in the high nibble, in the normal and the native
 * layouts alike: measured, the only order that reproduces every byte of
 * the native B librknnrt 1.6.0 makes from a normal B (vnpu.md §6.3). */
static void store(uint8_t *buf, size_t at, rknn_matmul_type t, int32_t v)
{
    if (t == RKNN_INT4_MM_INT4_TO_INT16) {
        uint8_t nib = (uint8_t)(v & 15);
        buf[at / 2] =
            (uint8_t)(at & 1 ? (buf[at / 2] & 0xF0) | nib : (buf[at / 2] & 0x0F) | nib << 4);
    } else if (t == RKNN_INT8_MM_INT8_TO_INT32) {
        buf[at] = (uint8_t)(int8_t)v;
    } else {
        uint16_t h = (uint16_t)v;
        memcpy(buf + 2 * at, &h, 2);
    }
}

static size_t a_index(const mm_layout *l, int native, int m, int k, int M, int K)
{
    if (!native)
        return (size_t)m * K + k;
    return ((size_t)(k / l->a_block) * M + m) * l->a_block + k % l->a_block;
}

static size_t b_index(const mm_layout *l, int native, int k, int n, int K, int N)
{
    if (!native)
        return (size_t)k * N + n;
    return (((size_t)(n / l->b_nblock) * (K / l->b_kblock) + k / l->b_kblock) * l->b_nblock +
            n % l->b_nblock) *
               l->b_kblock +
           k % l->b_kblock;
}

static size_t c_index(const mm_layout *l, int native, int m, int n, int M, int N)
{
    if (!native)
        return (size_t)m * N + n;
    return ((size_t)(n / l->c_block) * M + m) * l->c_block + n % l->c_block;
}

static double c_value(rknn_matmul_type t, const uint8_t *c, size_t at)
{
    if (t == RKNN_INT8_MM_INT8_TO_INT32) {
        int32_t v;
        memcpy(&v, c + 4 * at, 4);
        return v;
    }
    if (t == RKNN_INT4_MM_INT4_TO_INT16) {
        int16_t v;
        memcpy(&v, c + 2 * at, 2);
        return v;
    }
    {
        float f;
        memcpy(&f, c + 4 * at, 4);
        return f;
    }
}

/* ---- one case ------------------------------------------------------------------- */

static void report_mm_attr(const char *key, const char *which, const rknn_matmul_tensor_attr *a)
{
    char k[320], dims[64] = "";
    size_t at = 0;

    for (uint32_t d = 0; d < a->n_dims && d < RKNN_MAX_DIMS; d++)
        at += (size_t)snprintf(dims + at, sizeof dims - at, "%s%u", d ? "," : "", a->dims[d]);
    snprintf(k, sizeof k, "%s/%s", key, which);
    report("matmul", k, "name '%.*s' n_dims %u dims [%s] size %u type %d", RKNN_MAX_NAME_LEN,
           a->name, a->n_dims, dims, a->size, (int)a->type);
}

/* The bytes the comparison hashes at an address (vendor_diff.py
 * CONTENT_BYTES): a memory holds at least these, so that what a register
 * names is the operand (and zeros past a small one) in both runtimes, not
 * whatever the runtime placed after it. */
#define MM_HASHED_BYTES 256u

/* A matmul memory of the attribute's size (at least MM_HASHED_BYTES): A
 * and B zeroed (the caller fills them before binding them: the runtimes
 * convert normal-layout A and B when they are bound, as the vendor's
 * matmul demo expects), C filled with 0xA5 so that the submission log
 * records what C holds before the run (zeros over a fresh zero page are
 * not recorded, and the log would name an earlier case's bytes). */
static rknn_tensor_mem *create_mm(rknn_matmul_ctx ctx, const rknn_matmul_tensor_attr *a,
                                  const char *key, const char *which)
{
    uint32_t size = a->size > MM_HASHED_BYTES ? a->size : MM_HASHED_BYTES;
    rknn_tensor_mem *m = rknn_create_mem(ctx, size);
    char k[320];

    if (!m) {
        snprintf(k, sizeof k, "%s/%s/create_mem", key, which);
        report("matmul", k, "NULL");
        return NULL;
    }
    memset(m->virt_addr, strcmp(which, "C") == 0 ? 0xA5 : 0, size);
    return m;
}

static void bind_mm(rknn_matmul_ctx ctx, rknn_tensor_mem *m, rknn_matmul_tensor_attr *a,
                    const char *key, const char *which)
{
    char k[320];

    snprintf(k, sizeof k, "%s/%s/set_io_mem", key, which);
    report_ret("matmul", k, rknn_matmul_set_io_mem(ctx, m, a));
}

/* The result against the CPU: the count of elements off (integers: any
 * difference; fp16: beyond 2^-11 of the sum of |a*b|) and the largest |d|. */
static void check_result(const char *key, rknn_matmul_type t, const mm_layout *l, int ac_native,
                         const int32_t *a, const int32_t *b, const uint8_t *c, int M, int K, int N)
{
    unsigned long off = 0;
    double worst = 0;
    char k[320];

    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double sum = 0, mag = 0, got, d;
            for (int kk = 0; kk < K; kk++) {
                double p = value_of(t, a[(size_t)m * K + kk]) * value_of(t, b[(size_t)kk * N + n]);
                sum += p;
                mag += fabs(p);
            }
            got = c_value(t, c, c_index(l, ac_native, m, n, M, N));
            d = fabs(got - sum);
            worst = d > worst ? d : worst;
            if (t == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 ? d > ldexp(mag, -11) + 1e-6 : d != 0)
                off++;
        }
    snprintf(k, sizeof k, "%s/reference", key);
    report("matmul", k, "%s %lu of %d off, max |d| %.6g", off ? "MISMATCH" : "equal", off, M * N,
           worst);
}

typedef struct {
    const mm_type *ty;
    const mm_shape *s;
    int b_native, ac_native;
} mm_case;

/* The report key of a case: TYPE/MxKxN/B<layout>_AC<layout>. */
static void case_key(const mm_case *c, char *key, size_t size)
{
    snprintf(key, size, "%s/%dx%dx%d/B%s_AC%s", c->ty->name, c->s->m, c->s->k, c->s->n,
             c->b_native ? "native" : "normal", c->ac_native ? "native" : "normal");
}

static void one_case(const mm_type *ty, const mm_shape *s, int b_native, int ac_native)
{
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx = 0;
    rknn_tensor_mem *ma, *mb, *mc;
    mm_layout l = layout_of(ty->type);
    uint32_t seed = (uint32_t)(s->m * 7919 + s->k * 104729 + s->n * 31 + (int)ty->type) | 1u;
    int32_t *a, *b;
    char key[160];
    int ret;

    case_key(&(mm_case){ty, s, b_native, ac_native}, key, sizeof key);
    if (getenv("DIFF_CLIENT_MATMUL_ONLY") && !strstr(key, getenv("DIFF_CLIENT_MATMUL_ONLY")))
        return;
    memset(&info, 0, sizeof info);
    memset(&io, 0, sizeof io);
    info.M = s->m;
    info.K = s->k;
    info.N = s->n;
    info.type = ty->type;
    info.B_layout = b_native;
    info.AC_layout = ac_native;
    ret = rknn_matmul_create(&ctx, &info, &io);
    report_ret("matmul", key, ret);
    if (ret != RKNN_SUCC)
        return;
    report_mm_attr(key, "A", &io.A);
    report_mm_attr(key, "B", &io.B);
    report_mm_attr(key, "C", &io.C);
    a = malloc(sizeof *a * (size_t)s->m * s->k);
    b = malloc(sizeof *b * (size_t)s->k * s->n);
    ma = create_mm(ctx, &io.A, key, "A");
    mb = create_mm(ctx, &io.B, key, "B");
    mc = create_mm(ctx, &io.C, key, "C");
    if (ma && mb && mc) {
        for (int m = 0; m < s->m; m++)
            for (int k = 0; k < s->k; k++) {
                a[(size_t)m * s->k + k] = random_value(ty->type, &seed);
                store(ma->virt_addr, a_index(&l, ac_native, m, k, s->m, s->k), ty->type,
                      a[(size_t)m * s->k + k]);
            }
        for (int k = 0; k < s->k; k++)
            for (int n = 0; n < s->n; n++) {
                b[(size_t)k * s->n + n] = random_value(ty->type, &seed);
                store(mb->virt_addr, b_index(&l, b_native, k, n, s->k, s->n), ty->type,
                      b[(size_t)k * s->n + n]);
            }
        bind_mm(ctx, ma, &io.A, key, "A");
        bind_mm(ctx, mb, &io.B, key, "B");
        bind_mm(ctx, mc, &io.C, key, "C");
        mark(key);
        ret = rknn_matmul_run(ctx);
        {
            char k[320];
            snprintf(k, sizeof k, "%s/run", key);
            report_ret("matmul", k, ret);
            snprintf(k, sizeof k, "%s/C", key);
            if (ret == RKNN_SUCC) {
                report_blob("matmul", k, mc->virt_addr, io.C.size);
                check_result(key, ty->type, &l, ac_native, a, b, mc->virt_addr, s->m, s->k, s->n);
            }
        }
    }
    if (ma)
        rknn_destroy_mem(ctx, ma);
    if (mb)
        rknn_destroy_mem(ctx, mb);
    if (mc)
        rknn_destroy_mem(ctx, mc);
    rknn_matmul_destroy(ctx);
    free(a);
    free(b);
}

static void case_child(void *p)
{
    const mm_case *c = p;

    one_case(c->ty, c->s, c->b_native, c->ac_native);
}

/* DIFF_CLIENT_MATMUL_ONLY=TEXT runs only the cases whose key contains TEXT;
 * grid "M,K,N" is that one shape (for investigating one case). */
int matmul_main(const char *grid)
{
    const char *soc = getenv("RKNPU_STANDIN_SOC");
    mm_shape one;
    const mm_shape *shapes = strcmp(grid, "full") == 0 ? full_grid : ci_grid;
    size_t n = strcmp(grid, "full") == 0 ? sizeof full_grid / sizeof full_grid[0]
                                         : sizeof ci_grid / sizeof ci_grid[0];

    if (sscanf(grid, "%d,%d,%d", &one.m, &one.k, &one.n) == 3) {
        shapes = &one;
        n = 1;
    }

    /* the client learns the SoC the way the script chose it for both runtimes */
    soc = getenv("DIFF_CLIENT_SOC") ? getenv("DIFF_CLIENT_SOC") : soc;
    rk356x = soc && (strcmp(soc, "rk3566") == 0 || strcmp(soc, "rk3568") == 0);
    shim_select_soc(rk356x ? "rk3566" : "rk3588");
    report("matmul", "grid", "%s soc %s", grid, rk356x ? "rk356x" : "rk3588");
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t i = 0; i < n; i++)
            for (int bl = 0; bl < 2; bl++)
                for (int acl = 0; acl < 2; acl++) {
                    mm_case c = {&types[t], &shapes[i], bl, acl};
                    char key[160];
                    case_key(&c, key, sizeof key);
                    /* librknnrt 1.6.0 dies of SIGFPE in rknn_matmul_create on some int4
                     * shapes: each case in a process of its own */
                    isolated("matmul", key, case_child, &c);
                }
    return 0;
}
