/*
 * vendor_matmul_client - the matmul API used the way the vendor's
 * rknn_matmul_api_demo uses it, built against the installed headers and
 * library only (pkg-config), under clang ASan+UBSan
 * (scripts/check-vendor-client.sh): create with the info, print the io
 * attributes, set quant params, convert B to the native layout with
 * rknn_B_normal_layout_to_native_layout when asked, create the memories
 * with the matmul context, fill them, bind, run, compare C with a CPU
 * reference, destroy. It never calls rknn_mem_sync (neither does the demo).
 *
 *   vendor_matmul_client int8|fp16 M K N B_LAYOUT AC_LAYOUT
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

int main(int argc, char **argv)
{
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;
    rknn_tensor_mem *A, *B, *C;
    int fp16, M, K, N, failures = 0, ret;

    if (argc != 7) {
        printf("usage: %s int8|fp16 M K N B_LAYOUT AC_LAYOUT\n", argv[0]);
        return 2;
    }
    fp16 = strcmp(argv[1], "fp16") == 0;
    M = atoi(argv[2]);
    K = atoi(argv[3]);
    N = atoi(argv[4]);
    memset(&info, 0, sizeof info);
    info.M = M;
    info.K = K;
    info.N = N;
    info.type = fp16 ? RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 : RKNN_INT8_MM_INT8_TO_INT32;
    info.B_layout = (int16_t)atoi(argv[5]);
    info.AC_layout = (int16_t)atoi(argv[6]);
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
    if (!fp16) { /* the demo sets per-layer quant params for int8 */
        float scale = 1.0f;
        int32_t zp = 0;
        rknn_quant_params q;
        memset(&q, 0, sizeof q);
        q.scale = &scale;
        q.scale_len = 1;
        q.zp = &zp;
        q.zp_len = 1;
        for (const char *m = "ABC"; *m; m++) {
            q.name[0] = *m;
            ret = rknn_matmul_set_quant_params(ctx, &q);
            if (ret < 0) {
                printf("rknn_matmul_set_quant_params(%c) fail! ret=%d\n", *m, ret);
                failures++;
            }
        }
    }

    /* the client's matrices, row-major, and the reference */
    size_t e = fp16 ? 2u : 1u;
    unsigned char *a = malloc((size_t)M * K * e), *b = malloc((size_t)K * N * e);
    double *want = malloc((size_t)M * N * sizeof *want);
    if (!a || !b || !want) {
        printf("out of memory\n");
        return 1;
    }
    for (int i = 0; i < M * K; i++) {
        float v = (float)((i * 37 + 11) % 61 - 30) / 16.0f;
        if (fp16) {
            uint16_t h = to_half(v);
            memcpy(a + 2 * i, &h, 2);
        } else {
            ((int8_t *)a)[i] = (int8_t)((i * 37 + 11) % 255 - 127);
        }
    }
    for (int i = 0; i < K * N; i++) {
        float v = (float)((i * 53 + 7) % 47 - 23) / 8.0f;
        if (fp16) {
            uint16_t h = to_half(v);
            memcpy(b + 2 * i, &h, 2);
        } else {
            ((int8_t *)b)[i] = (int8_t)((i * 53 + 7) % 255 - 127);
        }
    }
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            double s = 0;
            for (int k = 0; k < K; k++) {
                double x, y;
                if (fp16) {
                    uint16_t hx, hy;
                    memcpy(&hx, a + 2 * ((size_t)m * K + k), 2);
                    memcpy(&hy, b + 2 * ((size_t)k * N + n), 2);
                    x = from_half(hx);
                    y = from_half(hy);
                } else {
                    x = ((int8_t *)a)[(size_t)m * K + k];
                    y = ((int8_t *)b)[(size_t)k * N + n];
                }
                s += x * y;
            }
            want[(size_t)m * N + n] = s;
        }

    A = rknn_create_mem(ctx, io.A.size);
    B = rknn_create_mem(ctx, io.B.size);
    C = rknn_create_mem(ctx, io.C.size);
    if (!A || !B || !C) {
        printf("rknn_create_mem fail!\n");
        return 1;
    }
    if (info.AC_layout == 0) {
        memcpy(A->virt_addr, a, (size_t)M * K * e);
    } else { /* native A [K/c2][M][c2], as the demo's conversion writes it */
        uint32_t c2 = io.A.dims[2];
        memset(A->virt_addr, 0, io.A.size);
        for (int m = 0; m < M; m++)
            for (int k = 0; k < K; k++)
                memcpy((unsigned char *)A->virt_addr +
                           (((size_t)(k / c2) * M + m) * c2 + k % c2) * e,
                       a + ((size_t)m * K + k) * e, e);
    }
    if (info.B_layout == 0)
        memcpy(B->virt_addr, b, (size_t)K * N * e);
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
            double got = fp16 ? ((float *)C->virt_addr)[at] : ((int32_t *)C->virt_addr)[at];
            double w = want[(size_t)m * N + n], tol = fp16 ? 1e-4 * (w < 0 ? -w : w) + 1e-3 : 0;
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
    if (failures) {
        printf("vendor_matmul_client: %d failure(s)\n", failures);
        return 1;
    }
    printf("vendor_matmul_client: OK\n");
    return 0;
}
