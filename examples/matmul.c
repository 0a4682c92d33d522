/*
 * matmul - C = A · B on the NPU through the vendor matmul API, the way an
 * application uses it: describe the product, create the context, make the
 * three memories with it, fill A and B (row-major), bind, run, read C. The
 * same code runs on the host (virtual NPU) and as firmware; it checks C
 * against the plain C product and prints one line per type.
 *
 *   host:     build/host/examples/matmul
 *   firmware: scripts/qemu-run.sh qemu-system-aarch64 cortex-a76 build/.../matmul.elf
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "rknn_api.h"
#include "rknn_matmul_api.h"

#define ROWS  64
#define DEPTH 128
#define COLS  96

/* int8 A x B -> int32 C, checked exactly. */
static int run_int8(void)
{
    static int8_t a[ROWS * DEPTH], b[DEPTH * COLS];
    rknn_matmul_info info;
    rknn_matmul_io_attr io;
    rknn_matmul_ctx ctx;
    rknn_tensor_mem *ma, *mb, *mc;
    int wrong = 0, ret;

    memset(&info, 0, sizeof info);
    info.M = ROWS;
    info.K = DEPTH;
    info.N = COLS;
    info.type = RKNN_INT8_MM_INT8_TO_INT32; /* normal (row-major) layouts */
    ret = rknn_matmul_create(&ctx, &info, &io);
    if (ret != RKNN_SUCC) {
        printf("matmul: rknn_matmul_create returned %d\n", ret);
        return -1;
    }
    for (int i = 0; i < ROWS * DEPTH; i++)
        a[i] = (int8_t)(i % 17 - 8);
    for (int i = 0; i < DEPTH * COLS; i++)
        b[i] = (int8_t)(i % 13 - 6);
    ma = rknn_create_mem(ctx, io.A.size);
    mb = rknn_create_mem(ctx, io.B.size);
    mc = rknn_create_mem(ctx, io.C.size);
    if (!ma || !mb || !mc) {
        printf("matmul: rknn_create_mem failed\n");
        rknn_matmul_destroy(ctx);
        return -1;
    }
    memcpy(ma->virt_addr, a, sizeof a);
    memcpy(mb->virt_addr, b, sizeof b);
    /* bind after filling: a normal A or B is rearranged for the NPU here */
    ret = rknn_matmul_set_io_mem(ctx, ma, &io.A);
    if (ret == RKNN_SUCC)
        ret = rknn_matmul_set_io_mem(ctx, mb, &io.B);
    if (ret == RKNN_SUCC)
        ret = rknn_matmul_set_io_mem(ctx, mc, &io.C);
    if (ret == RKNN_SUCC)
        ret = rknn_matmul_run(ctx); /* no rknn_mem_sync: the runtime does it */
    for (int m = 0; ret == RKNN_SUCC && m < ROWS; m++)
        for (int n = 0; n < COLS; n++) {
            int32_t want = 0;
            for (int k = 0; k < DEPTH; k++)
                want += a[m * DEPTH + k] * b[k * COLS + n];
            wrong += ((int32_t *)mc->virt_addr)[m * COLS + n] != want;
        }
    printf("matmul: %s %dx%dx%d: %s, %d of %d values wrong\n", get_matmul_type_string(info.type),
           ROWS, DEPTH, COLS, ret == RKNN_SUCC ? "ran" : "failed", wrong, ROWS * COLS);
    rknn_destroy_mem(ctx, ma);
    rknn_destroy_mem(ctx, mb);
    rknn_destroy_mem(ctx, mc);
    rknn_matmul_destroy(ctx);
    return ret == RKNN_SUCC && wrong == 0 ? 0 : -1;
}

int main(void)
{
    int ret = board_init();

    if (ret != RKNN_SUCC) {
        printf("matmul: FAIL (board_init %d)\n", ret);
        return 1;
    }
    if (run_int8() != 0) {
        printf("matmul: FAIL\n");
        return 1;
    }
    printf("matmul: OK\n");
    return 0;
}
