/*
 * vendor_matmul_client - the matmul API used the way the vendor's
 * rknn_matmul_api_demo uses it, built against the installed headers and
 * library only (pkg-config), under clang ASan+UBSan
 * (scripts/check-vendor-client.sh): create with the info (the demo's type
 * numbers), print the io attributes, set quant params, pack int4 two a
 * byte, convert B to the native layout with
 * rknn_B_normal_layout_to_native_layout when asked, create the memories
 * with the matmul context, fill them, bind, run, compare C with a CPU
 * reference, destroy. It never calls rknn_mem_sync (neither does the demo).
 *
 *   vendor_matmul_client TYPE M K N B_LAYOUT AC_LAYOUT
 *   TYPE: 1 fp16->fp32, 2 int8->int32, 4 fp16->fp16, 5 fp16 x int8->fp32,
 *         7 fp16 x int4->fp32, 10 int4->int16, 11 int8 x int4->int32
 *
 * The references: exact sums for the integer types, a double sum for fp16
 * A; the hybrid types 5 and 7 scale by B's per-channel scale (0.1 here),
 * as the demo's reference does (rknpu-bm's api.md §1.3).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_matmul_api.h"

/* float -> fp16 bits, round to nearest even (the demo's own helper does the same) */
static uint16_t to_half(float f)
{
    uint32_t u, sign, mant;
    int exp;

    memcpy(&u, &f, sizeof u);
    sign = (u >> 16) & 0x8000u;
    exp = (int)((u >> 23) & 0xFFu) - 127 + 15;
    mant = u & 0x7FFFFFu;
    if (exp <= 0 || exp >= 31) /* the client's values stay in the normal range */
        return (uint16_t)sign;
    uint32_t h = sign | ((uint32_t)exp << 10) | (mant >> 13), rest = mant & 0x1FFFu;
    return (uint16_t)(h + (rest > 0x1000u || (rest == 0x1000u && (h & 1u))));
}

static float from_half(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu, u;
    float f;

    u = exp ? sign | ((exp - 15u + 127u) << 23) | (mant << 13) : sign; /* no subnormals here */
    memcpy(&f, &u, sizeof f);
    return f;
}

static void print_attr(const rknn_matmul_tensor_attr *a)
{
    printf("  %s: dims [", a->name);
    for (uint32_t i = 0; i < a->n_dims; i++)
        printf("%s%u", i ? ", " : "", a->dims[i]);
    printf("] size %u type %d\n", a->size, (int)a->type);
}

/* Element bits of a matrix, and of C, for the demo's types. */
static int a_bits(int type)
{
    return type == 10 ? 4 : type == 2 || type == 11 ? 8 : 16;
}

static int b_bits(int type)
{
    return type == 7 || type == 10 || type == 11 ? 4 : type == 2 || type == 5 ? 8 : 16;
}

/* An element i of a buffer of `bits` elements: int4 packed two a byte, the
 * even one in the high nibble (what librknnrt 1.6.0 reads, measured side by
 * side: docs/compat.md), int8, or fp16 bits. */
static void put(unsigned char *p, int bits, size_t i, int v)
{
    if (bits == 4)
        p[i / 2] =
            (unsigned char)((p[i / 2] & (i % 2 ? 0xF0 : 0x0F)) | (v & 15) << (i % 2 ? 0 : 4));
    else if (bits == 8)
        ((int8_t *)p)[i] = (int8_t)v;
    else
        memcpy(p + 2 * i, &(uint16_t){(uint16_t)v}, 2);
}

/* The value of element i (fp16 bits decoded). */
static double value(const unsigned char *p, int bits, size_t i)
{
    if (bits == 4) {
        int v = (p[i / 2] >> (i % 2 ? 0 : 4)) & 15;
        return v >= 8 ? v - 16 : v;
    }
    if (bits == 8)
        return ((const int8_t *)p)[i];
    uint16_t h;
    memcpy(&h, p + 2 * i, 2);
    return from_half(h);
}

/* A test pattern for element i: int4 -8..7, int8 -127..127, fp16 +-2. */
static int pattern(int bits, int i, int mul, int add)
{
    if (bits == 4)
        return (i * mul + add) % 16 - 8;
    if (bits == 8)
        return (i * mul + add) % 255 - 127;
    return to_half((float)((i * mul + add) % 61 - 30) / 16.0f);
}

int main(int argc, char **argv)
{
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;
    rknn_tensor_mem *A, *B, *C;
    int type, M, K, N, ab, bb, failures = 0, ret;

    if (argc != 7) {
        printf("usage: %s TYPE M K N B_LAYOUT AC_LAYOUT\n", argv[0]);
        return 2;
    }
    type = atoi(argv[1]);
    M = atoi(argv[2]);
    K = atoi(argv[3]);
    N = atoi(argv[4]);
    ab = a_bits(type);
    bb = b_bits(type);
    memset(&info, 0, sizeof info);
    info.M = M;
    info.K = K;
    info.N = N;
    info.type = (rknn_matmul_type)type;
    info.B_layout = (int16_t)atoi(argv[5]);
    info.AC_layout = (int16_t)atoi(argv[6]);
    if (type == 5 || type == 7 || type == 11)
        info.B_quant_type = 1; /* the demo: hybrid quantisation is per channel */
    memset(&io, 0, sizeof io);
    ret = rknn_matmul_create(&ctx, &info, &io);
    if (ret < 0) {
        printf("rknn_matmul_create fail! ret=%d\n", ret);
        return 1;
    }
    printf("%s M %d K %d N %d B_layout %d AC_layout %d\n", get_matmul_type_string(info.type), M, K,
           N, info.B_layout, info.AC_layout);
    print_attr(&io.A);
    print_attr(&io.B);
    print_attr(&io.C);
    float *bscale = malloc((size_t)N * sizeof *bscale);
    int32_t *bzp = calloc((size_t)N, sizeof *bzp);
    if (!bscale || !bzp) {
        printf("out of memory\n");
        return 1;
    }
    for (int n = 0; n < N; n++)
        bscale[n] = 0.1f;
    if (type == 2 || type == 5 || type == 7 || type == 11) { /* the demo's quant params */
        float one = 1.0f;
        int32_t zp = 0;
        rknn_quant_params q;
        memset(&q, 0, sizeof q);
        q.name[0] = 'B';
        q.scale = info.B_quant_type ? bscale : &one;
        q.scale_len = info.B_quant_type ? N : 1;
        q.zp = info.B_quant_type ? bzp : &zp;
        q.zp_len = q.scale_len;
        ret = rknn_matmul_set_quant_params(ctx, &q);
        if (ret < 0) {
            printf("rknn_matmul_set_quant_params(B) fail! ret=%d\n", ret);
            failures++;
        }
    }

    /* the client's matrices, row-major (int4 packed), and the reference */
    size_t asz = ((size_t)M * K * ab + 7) / 8, bsz = ((size_t)K * N * bb + 7) / 8;
    unsigned char *a = calloc(asz, 1), *b = calloc(bsz, 1);
    double *want = malloc((size_t)M * N * sizeof *want);
    if (!a || !b || !want) {
        printf("out of memory\n");
        return 1;
    }
    for (int i = 0; i < M * K; i++)
        put(a, ab, (size_t)i, pattern(ab, i, 37, 11));
    for (int i = 0; i < K * N; i++)
        put(b, bb, (size_t)i, pattern(bb, i, 53, 7));
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double s = 0;
            for (int k = 0; k < K; k++)
                s += value(a, ab, (size_t)m * K + k) * value(b, bb, (size_t)k * N + n);
            want[(size_t)m * N + n] = s * (type == 5 || type == 7 ? bscale[n] : 1.0);
        }

    A = rknn_create_mem(ctx, io.A.size);
    B = rknn_create_mem(ctx, io.B.size);
    C = rknn_create_mem(ctx, io.C.size);
    if (!A || !B || !C) {
        printf("rknn_create_mem fail!\n");
        return 1;
    }
    if (info.AC_layout == 0) {
        memcpy(A->virt_addr, a, asz);
    } else { /* native A [K/c2][M][c2], as the demo's conversion writes it */
        uint32_t c2 = io.A.dims[2];
        memset(A->virt_addr, 0, io.A.size);
        for (int m = 0; m < M; m++)
            for (int k = 0; k < K; k++) {
                size_t at = ((size_t)(k / c2) * M + m) * c2 + k % c2, from = (size_t)m * K + k;
                if (ab == 4)
                    put(A->virt_addr, 4, at, (int)value(a, 4, from));
                else
                    memcpy((unsigned char *)A->virt_addr + at * (ab / 8), a + from * (ab / 8),
                           ab / 8);
            }
    }
    if (info.B_layout == 0)
        memcpy(B->virt_addr, b, bsz);
    else if ((ret = rknn_B_normal_layout_to_native_layout(b, B->virt_addr, K, N, (int)io.B.dims[2],
                                                          (int)io.B.dims[3], info.type)) < 0) {
        printf("rknn_B_normal_layout_to_native_layout fail! ret=%d\n", ret);
        failures++;
    }
    ret = rknn_matmul_set_io_mem(ctx, A, &io.A);
    ret = ret < 0 ? ret : rknn_matmul_set_io_mem(ctx, B, &io.B);
    ret = ret < 0 ? ret : rknn_matmul_set_io_mem(ctx, C, &io.C);
    if (ret < 0) {
        printf("rknn_matmul_set_io_mem fail! ret=%d\n", ret);
        return 1;
    }
    ret = rknn_matmul_run(ctx);
    if (ret < 0) {
        printf("rknn_matmul_run fail! ret=%d\n", ret);
        return 1;
    }
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            size_t at = (size_t)m * N + n;
            if (info.AC_layout == 1) { /* native C [N/c2][M][c2] */
                uint32_t c2 = io.C.dims[2];
                at = ((size_t)(n / c2) * M + m) * c2 + n % c2;
            }
            double got;
            if (io.C.type == RKNN_TENSOR_FLOAT32)
                got = ((float *)C->virt_addr)[at];
            else if (io.C.type == RKNN_TENSOR_FLOAT16)
                got = value(C->virt_addr, 16, at);
            else if (io.C.type == RKNN_TENSOR_INT16)
                got = ((int16_t *)C->virt_addr)[at];
            else
                got = ((int32_t *)C->virt_addr)[at];
            double w = want[(size_t)m * N + n];
            double tol =
                ab == 16
                    ? (io.C.type == RKNN_TENSOR_FLOAT16 ? 1e-3 : 1e-4) * (w < 0 ? -w : w) + 1e-3
                    : 0;
            if (got - w > tol || w - got > tol) {
                if (failures < 5)
                    printf("C[%d][%d] = %f, want %f\n", m, n, got, w);
                failures++;
            }
        }
    rknn_destroy_mem(ctx, A);
    rknn_destroy_mem(ctx, B);
    rknn_destroy_mem(ctx, C);
    ret = rknn_matmul_destroy(ctx);
    if (ret < 0) {
        printf("rknn_matmul_destroy fail! ret=%d\n", ret);
        failures++;
    }
    free(a);
    free(b);
    free(want);
    free(bscale);
    free(bzp);
    if (failures) {
        printf("vendor_matmul_client: %d failure(s)\n", failures);
        return 1;
    }
    printf("vendor_matmul_client: OK\n");
    return 0;
}
