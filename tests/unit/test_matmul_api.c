/*
 * test_matmul_api - the B layout helper against the documented formula
 * (api.md §4.6) typed out here as an index walk of its own, and bad
 * arguments and the parts not implemented yet failing clearly.
 */
#include <string.h>

#include "board.h"
#include "rknn_matmul_api.h"
#include "test_util.h"

/* A valid shape of a type this implementation refuses (before the macros
 * below take the field names). */
static rknn_matmul_info unsupported_info(void)
{
    rknn_matmul_info i;

    memset(&i, 0, sizeof i);
    i.M = 4;
    i.K = 32;
    i.N = 32;
    i.type = (rknn_matmul_type)13; /* no type of the headers has this value */
    return i;
}

#define K    70
#define N    40
#define SUBK 32
#define SUBN 16

int main(void)
{
    static int8_t b[K * N], native[3 * 3 * SUBN * SUBK];
    rknn_matmul_ctx ctx = 123;
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    unsigned bad = 0;

    for (int i = 0; i < K * N; i++)
        b[i] = (int8_t)(i * 7 + 3);
    memset(native, 0x55, sizeof native);
    CHECK(rknn_B_normal_layout_to_native_layout(b, native, K, N, SUBN, SUBK,
                                                RKNN_INT8_MM_INT8_TO_INT32) == RKNN_SUCC);
    /* native[nb][kb][n][k] = B[kb*SUBK + k][nb*SUBN + n], zero outside K x N */
    for (int nb = 0; nb < 3; nb++)
        for (int kb = 0; kb < 3; kb++)
            for (int n = 0; n < SUBN; n++)
                for (int k = 0; k < SUBK; k++) {
                    int row = kb * SUBK + k, col = nb * SUBN + n;
                    int8_t want = row < K && col < N ? b[row * N + col] : 0;
                    bad += native[((nb * 3 + kb) * SUBN + n) * SUBK + k] != want;
                }
    CHECK_EQ_U(bad, 0);
    CHECK(rknn_B_normal_layout_to_native_layout(
              b, native, 0, N, SUBN, SUBK, RKNN_INT8_MM_INT8_TO_INT32) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_B_normal_layout_to_native_layout(NULL, native, K, N, SUBN, SUBK,
                                                RKNN_INT8_MM_INT8_TO_INT32) ==
          RKNN_ERR_PARAM_INVALID);
    /* fp16 B: two bytes an element, the same walk */
    {
        static uint16_t b16[K * N], n16[3 * 3 * SUBN * SUBK];
        for (int i = 0; i < K * N; i++)
            b16[i] = (uint16_t)(i * 31 + 7);
        CHECK(rknn_B_normal_layout_to_native_layout(
                  b16, n16, K, N, SUBN, SUBK, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32) == RKNN_SUCC);
        bad = 0;
        for (int nb = 0; nb < 3; nb++)
            for (int kb = 0; kb < 3; kb++)
                for (int n = 0; n < SUBN; n++)
                    for (int k = 0; k < SUBK; k++) {
                        int row = kb * SUBK + k, col = nb * SUBN + n;
                        uint16_t want = row < K && col < N ? b16[row * N + col] : 0;
                        bad += n16[((nb * 3 + kb) * SUBN + n) * SUBK + k] != want;
                    }
        CHECK_EQ_U(bad, 0);
    }
    /* int4 B: [K][N] in, native out, both packed the even element in the
     * high nibble as Rockchip's runtime reads them (api.md §4.6), typed out
     * here as nibble walks */
    {
        static uint8_t p4[(K * N + 1) / 2], n4[3 * 3 * SUBN * SUBK / 2];
        for (int i = 0; i < K * N; i++)
            p4[i / 2] |= (uint8_t)(((i * 5 + 3) & 15) << (i % 2 ? 0 : 4));
        CHECK(rknn_B_normal_layout_to_native_layout(p4, n4, K, N, SUBN, SUBK,
                                                    RKNN_INT4_MM_INT4_TO_INT16) == RKNN_SUCC);
        bad = 0;
        for (int nb = 0; nb < 3; nb++)
            for (int kb = 0; kb < 3; kb++)
                for (int n = 0; n < SUBN; n++)
                    for (int k = 0; k < SUBK; k++) {
                        int row = kb * SUBK + k, col = nb * SUBN + n;
                        int at = ((nb * 3 + kb) * SUBN + n) * SUBK + k;
                        int got = (n4[at / 2] >> (at % 2 ? 0 : 4)) & 15;
                        bad += got != (row < K && col < N ? ((row * N + col) * 5 + 3) & 15 : 0);
                    }
        CHECK_EQ_U(bad, 0);
    }
    CHECK(rknn_B_normal_layout_to_native_layout(b, native, K, N, SUBN, SUBK,
                                                (rknn_matmul_type)99) == RKNN_ERR_PARAM_INVALID);
    CHECK(board_init() == RKNN_SUCC);
    /* the v2.3 signature (K, N, info) lays B out as create's io attr says,
     * the same bytes as the v2.0 one with subN, subK from io.B.dims */
    {
        static int8_t n20[3 * 3 * 32 * 32], n23[sizeof n20];
        rknn_matmul_info mi;
        rknn_matmul_io_attr mio;
        rknn_matmul_ctx mctx;
        memset(&mi, 0, sizeof mi);
        mi = unsupported_info();
        mi.type = RKNN_INT8_MM_INT8_TO_INT32;
        mi.B_layout = 1;
        if (CHECK(rknn_matmul_create(&mctx, &mi, &mio) == RKNN_SUCC)) {
            memset(n20, 0x55, sizeof n20);
            memset(n23, 0x66, sizeof n23);
            CHECK(rknn_B_normal_layout_to_native_layout(b, n20, K, N, (int)mio.B.dims[2],
                                                        (int)mio.B.dims[3], mi.type) == RKNN_SUCC);
            CHECK(rknn_B_normal_layout_to_native_layout(b, n23, K, N, &mi) == RKNN_SUCC);
            CHECK(mio.B.size <= sizeof n20 && memcmp(n20, n23, mio.B.size) == 0);
            /* the model API refuses a matmul context without harm */
            /* the memory functions take the matmul context, rknn_mem_sync too
             * (a client may call it although it need not) */
            {
                rknn_tensor_mem *m = rknn_create_mem(mctx, mio.B.size);
                if (CHECK(m != NULL)) {
                    CHECK(rknn_mem_sync(mctx, m, RKNN_MEMORY_SYNC_TO_DEVICE) == RKNN_SUCC);
                    CHECK(rknn_mem_sync(mctx, m, RKNN_MEMORY_SYNC_BIDIRECTIONAL) == RKNN_SUCC);
                    CHECK(rknn_destroy_mem(mctx, m) == RKNN_SUCC);
                }
            }
            CHECK(rknn_destroy(mctx) == RKNN_ERR_CTX_INVALID);
            CHECK(rknn_run(mctx, NULL) != RKNN_SUCC);
            CHECK(rknn_matmul_destroy(mctx) == RKNN_SUCC);
        }
    }
    /* Bad arguments and the parts not implemented yet: a clear code, a
     * zeroed handle, never a crash (test_matmul.c runs the implemented ones) */
    memset(&info, 0, sizeof info);
    CHECK(rknn_matmul_create(&ctx, &info, &io) == RKNN_ERR_PARAM_INVALID && ctx == 0);
    info = unsupported_info();
    ctx = 123;
    CHECK(rknn_matmul_create(&ctx, &info, &io) == RKNN_ERR_PARAM_INVALID && ctx == 0);
    ctx = 123;
    CHECK(rknn_matmul_create_dyn_shape(&ctx, &info, 0, NULL, NULL) == RKNN_ERR_PARAM_INVALID &&
          ctx == 0);
    ctx = 123;
    CHECK(rknn_matmul_create_dynamic_shape(&ctx, &info, 0, NULL, NULL) == RKNN_ERR_PARAM_INVALID &&
          ctx == 0);
    CHECK(rknn_matmul_set_dynamic_shape(ctx, NULL) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_matmul_set_io_mem(ctx, NULL, NULL) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_matmul_set_core_mask(ctx, RKNN_NPU_CORE_AUTO) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_matmul_set_quant_params(ctx, NULL) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_matmul_get_quant_params(ctx, NULL, NULL) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_matmul_run(ctx) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_matmul_destroy(ctx) == RKNN_ERR_CTX_INVALID);
    return test_report("matmul_api");
}
