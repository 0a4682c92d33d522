/*
 * test_matmul_api - the B layout helper against the documented formula
 * (api.md §4.6) typed out here as an index walk of its own, and bad
 * arguments and the parts not implemented yet failing clearly.
 */
#include <string.h>

#include "board.h"
#include "rknn_matmul_api.h"
#include "test_soc.h"
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

/* Each refusal of api.md §1.3 on a context that exists, one argument
 * wrong at a time: RKNN_ERR_PARAM_INVALID, and the context still runs
 * (M 4, K 32, N 32 int8 -> int8: A, B all ones, so C = 32 x sA x sB / sC). */
static void test_bad_arguments_of_a_context(void)
{
    rknn_matmul_info mi = unsupported_info(), other;
    rknn_matmul_shape shapes[2] = {{4, 32, 32}, {8, 64, 32}};
    rknn_matmul_io_attr io, dyn_io;
    rknn_matmul_ctx ctx, dyn = 0;
    rknn_tensor_mem *mem[3] = {NULL, NULL, NULL}, *small = NULL;
    rknn_quant_params q;
    float scale[2] = {1.0f, 1.0f}, negative = -1.0f, big = 1000.0f;
    int32_t zp = 1;
    rknn_matmul_tensor_attr *attr[3];

    mi.type = RKNN_INT8_MM_INT8_TO_INT8;
    other = mi;
    CHECK(rknn_matmul_create(NULL, &mi, &io) == RKNN_ERR_PARAM_INVALID);
    other.N = 48; /* not a multiple of int8 B's kernel group, 32 */
    ctx = 123;
    CHECK(rknn_matmul_create(&ctx, &other, &io) == RKNN_ERR_PARAM_INVALID && ctx == 0);
    CHECK(rknn_matmul_create_dyn_shape(&dyn, &mi, 2, shapes, &dyn_io) == RKNN_ERR_PARAM_INVALID &&
          dyn == 0); /* K differs between the shapes */
    shapes[1].K = 32;
    shapes[0].N = shapes[1].N = 48; /* shared, but not a multiple of 32 */
    CHECK(rknn_matmul_create_dyn_shape(&dyn, &mi, 2, shapes, &dyn_io) == RKNN_ERR_PARAM_INVALID &&
          dyn == 0);
    shapes[0].N = 32;
    if (!CHECK(rknn_matmul_create(&ctx, &mi, &io) == RKNN_SUCC))
        return;
    CHECK(rknn_matmul_set_core_mask(ctx, (rknn_core_mask)0x40) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_matmul_set_dynamic_shape(ctx, &shapes[0]) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_matmul_run(ctx) == RKNN_ERR_PARAM_INVALID); /* nothing bound */
    memset(&q, 0, sizeof q);
    CHECK(rknn_matmul_set_quant_params(ctx, NULL) == RKNN_ERR_PARAM_INVALID);
    strcpy(q.name, "D");
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_matmul_get_quant_params(ctx, &q, scale) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_matmul_get_quant_params(ctx, NULL, scale) == RKNN_ERR_PARAM_INVALID);
    strcpy(q.name, "A");
    q.scale = scale;
    q.scale_len = 2; /* per layer: 1 */
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_ERR_PARAM_INVALID);
    q.scale_len = 1;
    q.scale = &negative;
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_ERR_PARAM_INVALID);
    q.scale = scale;
    q.zp = &zp; /* A's zero point must be 0 */
    q.zp_len = 1;
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_ERR_PARAM_INVALID);
    attr[0] = &io.A;
    attr[1] = &io.B;
    attr[2] = &io.C;
    for (int i = 0; i < 3; i++)
        mem[i] = rknn_create_mem(ctx, attr[i]->size);
    small = rknn_create_mem(ctx, io.A.size - 1);
    if (!CHECK(mem[0] && mem[1] && mem[2] && small))
        goto out;
    CHECK(rknn_matmul_set_io_mem(ctx, NULL, &io.A) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_matmul_set_io_mem(ctx, small, &io.A) == RKNN_ERR_PARAM_INVALID);
    memset(mem[0]->virt_addr, 1, io.A.size);
    memset(mem[1]->virt_addr, 1, io.B.size);
    for (int i = 0; i < 3; i++)
        CHECK(rknn_matmul_set_io_mem(ctx, mem[i], attr[i]) == RKNN_SUCC);
    /* sA x sB / sC = 1e6: no 16-bit multiplier holds it */
    q.zp = NULL;
    q.zp_len = 0;
    q.scale = &big;
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    strcpy(q.name, "B");
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    CHECK(rknn_matmul_run(ctx) == RKNN_ERR_PARAM_INVALID);
    /* every refusal left the context working: sA 1/32, sB 1, sC 1 gives 1 */
    scale[0] = 1.0f / 32;
    q.scale = &scale[0];
    strcpy(q.name, "A");
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    q.scale = &scale[1];
    strcpy(q.name, "B");
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    strcpy(q.name, "C");
    CHECK(rknn_matmul_set_quant_params(ctx, &q) == RKNN_SUCC);
    if (CHECK(rknn_matmul_run(ctx) == RKNN_SUCC))
        CHECK(((const int8_t *)mem[2]->virt_addr)[0] == 1 &&
              ((const int8_t *)mem[2]->virt_addr)[io.C.size - 1] == 1);
out:
    for (int i = 0; i < 3; i++)
        if (mem[i])
            CHECK(rknn_destroy_mem(ctx, mem[i]) == RKNN_SUCC);
    if (small)
        CHECK(rknn_destroy_mem(ctx, small) == RKNN_SUCC);
    CHECK(rknn_matmul_destroy(ctx) == RKNN_SUCC);
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
            mi.type = (rknn_matmul_type)13; /* no such type: refused, as a NULL info */
            CHECK(rknn_B_normal_layout_to_native_layout(b, n23, K, N, &mi) ==
                  RKNN_ERR_PARAM_INVALID);
            CHECK(rknn_B_normal_layout_to_native_layout(b, n23, K, N, (rknn_matmul_info *)NULL) ==
                  RKNN_ERR_PARAM_INVALID);
            mi.type = RKNN_INT8_MM_INT8_TO_INT32;
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
    test_bad_arguments_of_a_context();
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
    /* RV1106: its CBUF's size is not known (hardware.md §2.3), so no tiling */
    test_switch_soc(RKNPU_SOC_RV1106);
    info = unsupported_info();
    info.type = RKNN_INT8_MM_INT8_TO_INT32;
    ctx = 123;
    CHECK(rknn_matmul_create(&ctx, &info, &io) == RKNN_ERR_PARAM_INVALID && ctx == 0);
    return test_report("matmul_api");
}
