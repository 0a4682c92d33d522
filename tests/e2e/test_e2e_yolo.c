/*
 * test_e2e_yolo - the container-4 model (rk3566_yolov8n.v4.rknn, RKNN-Toolkit2
 * 1.5, format.md §5.1) through the ways users run a model, on the host's
 * virtual NPU (RK3566):
 *  - rknn_init from a buffer the test frees right after; the carve-out held
 *    stays within rknpu_model_mem_requirements() and RKNN_QUERY_MEM_SIZE
 *    counts the stream built from the register lists;
 *  - the general API (uint8 NHWC in, int8 out): the best class score of the
 *    three score outputs is the class the picture shows (COCO 21 bear on
 *    000000000285, 11 stop sign on 000000000724; the pictures, letterboxed
 *    to 640x640 by Pillow at build time, are the test's reference);
 *  - the zero-copy API (rknn_create_mem, rknn_set_io_mem with the native
 *    attributes): the same int8 values, read back from NC1HWC2, with the
 *    input bound as uint8 pixels and bound with its native attribute
 *    (int8 codes pixel - 128, as Rockchip's runtime reads them: api.md §4.1);
 *  - rknn_dup_context (the copy shares the built stream): the same outputs;
 *  - RKNN_FLAG_MODEL_BUFFER_ZERO_COPY with the file in the carve-out: the
 *    same outputs, and the file's bytes unchanged after runs (the LUT loads
 *    the loader adds copy the command stream's first 8 bytes onto
 *    themselves, format.md §5.1);
 *  - RKNN_FLAG_COLLECT_MODEL_INFO_ONLY: the queries answer, and the context
 *    holds no more than the model copy (nothing is built for a context that
 *    never runs);
 *  - everything destroyed: the carve-out is empty again.
 *
 * Usage: test_e2e_yolo MODEL PICTURE_285.bin PICTURE_724.bin (uint8 NHWC
 * 640x640x3). A missing file fails, naming it. Under ASan+UBSan
 * (RKNPU_TEST_REDUCED, scripts/run-host-sanitize.sh: an inference there
 * takes about a minute) every path still runs once, without the repeats
 * (6 inferences instead of 10); the unsanitised build runs them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "rknn_api.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_util.h"

#define SIDE      640
#define IN_BYTES  (SIDE * SIDE * 3)
#define N_OUT     6
#define CLASSES   80
#define MAX_OUT   (CLASSES * 80 * 80) /* the largest output's elements */
#define BEAR      21
#define STOP_SIGN 11

static int8_t outputs[2][N_OUT][MAX_OUT]; /* [picture][output] NCHW int8 */
static int8_t scratch[N_OUT][MAX_OUT];

static int query(rknn_context ctx, rknn_query_cmd cmd, uint32_t i, rknn_tensor_attr *a)
{
    memset(a, 0, sizeof *a);
    a->index = i;
    return rknn_query(ctx, cmd, a, sizeof *a);
}

/* General API: uint8 NHWC in, int8 NCHW out (want_float 0). */
static int run_general(rknn_context ctx, const uint8_t *pic, int8_t out[N_OUT][MAX_OUT])
{
    rknn_input in = {0};
    rknn_output o[N_OUT];
    int ret;

    in.index = 0;
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    in.size = IN_BYTES;
    in.buf = (void *)pic;
    memset(o, 0, sizeof o);
    for (uint32_t i = 0; i < N_OUT; i++)
        o[i].index = i;
    if ((ret = rknn_inputs_set(ctx, 1, &in)) != RKNN_SUCC ||
        (ret = rknn_run(ctx, NULL)) != RKNN_SUCC ||
        (ret = rknn_outputs_get(ctx, N_OUT, o, NULL)) != RKNN_SUCC) {
        printf("FAIL: general API run returned %d\n", ret);
        return -1;
    }
    for (int i = 0; i < N_OUT; i++)
        memcpy(out[i], o[i].buf, o[i].size < MAX_OUT ? o[i].size : MAX_OUT);
    return rknn_outputs_release(ctx, N_OUT, o);
}

/* The class of the highest score among the 80-channel outputs. */
static int best_class(rknn_context ctx, int8_t out[N_OUT][MAX_OUT], float *score)
{
    int best = -1;
    int8_t top = -128;
    float scale = 0;

    for (uint32_t i = 0; i < N_OUT; i++) {
        rknn_tensor_attr a;
        uint32_t plane;
        if (query(ctx, RKNN_QUERY_OUTPUT_ATTR, i, &a) != RKNN_SUCC || a.dims[1] != CLASSES)
            continue;
        plane = a.dims[2] * a.dims[3];
        for (uint32_t k = 0; k < CLASSES * plane; k++)
            if (out[i][k] > top) {
                top = out[i][k];
                best = (int)(k / plane);
                scale = a.scale * (float)(top - a.zp);
            }
    }
    *score = scale;
    return best;
}

/* Zero-copy API with the native attributes, the input's too (native: int8
 * codes pixel - 128) or as uint8 pixels; outputs back to NCHW int8. */
static int run_zero_copy(rknn_context ctx, const uint8_t *pic, int native,
                         int8_t out[N_OUT][MAX_OUT])
{
    rknn_tensor_attr in_a, out_a[N_OUT];
    rknn_tensor_mem *in, *mem[N_OUT] = {0};
    int ret = -1;

    if (query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 0, &in_a) != RKNN_SUCC)
        return -1;
    /* every run before gave uint8 pixels, which the CNA converts: Rockchip's
     * runtime then answers the native type uint8 (compat.md §1). The native
     * binding says int8 to hand over codes. */
    CHECK(in_a.type == RKNN_TENSOR_UINT8);
    in_a.type = native ? RKNN_TENSOR_INT8 : RKNN_TENSOR_UINT8;
    in_a.fmt = RKNN_TENSOR_NHWC;
    in = rknn_create_mem(ctx, in_a.size_with_stride);
    if (!in || !CHECK(in_a.w_stride == 0 || in_a.w_stride == SIDE))
        goto done;
    for (uint32_t i = 0; i < IN_BYTES; i++)
        ((uint8_t *)in->virt_addr)[i] = (uint8_t)(native ? pic[i] - 128 : pic[i]);
    if (rknn_set_io_mem(ctx, in, &in_a) != RKNN_SUCC)
        goto done;
    for (uint32_t i = 0; i < N_OUT; i++) {
        if (query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, i, &out_a[i]) != RKNN_SUCC ||
            !(mem[i] = rknn_create_mem(ctx, out_a[i].size_with_stride)) ||
            rknn_set_io_mem(ctx, mem[i], &out_a[i]) != RKNN_SUCC)
            goto done;
    }
    if (rknn_run(ctx, NULL) != RKNN_SUCC)
        goto done;
    for (uint32_t i = 0; i < N_OUT; i++) {
        /* native NC1HWC2: [C1][H][W][C2] */
        uint32_t c1 = out_a[i].dims[1], h = out_a[i].dims[2], w = out_a[i].dims[3];
        uint32_t c2 = out_a[i].dims[4], c = c1 * c2;
        const int8_t *n = mem[i]->virt_addr;
        rknn_mem_sync(ctx, mem[i], RKNN_MEMORY_SYNC_FROM_DEVICE);
        if (!CHECK(out_a[i].fmt == RKNN_TENSOR_NC1HWC2 && c * h * w <= MAX_OUT))
            goto done;
        for (uint32_t ch = 0; ch < c; ch++)
            for (uint32_t p = 0; p < h * w; p++)
                out[i][ch * h * w + p] = n[((size_t)(ch / c2) * h * w + p) * c2 + ch % c2];
    }
    ret = 0;
done:
    if (ret)
        printf("FAIL: zero-copy binding or run\n");
    for (uint32_t i = 0; i < N_OUT; i++)
        if (mem[i])
            rknn_destroy_mem(ctx, mem[i]);
    if (in)
        rknn_destroy_mem(ctx, in);
    return ret;
}

/* Every output's real channels equal (the general API's shapes: NCHW). */
static int same_outputs(rknn_context ctx, int8_t a[N_OUT][MAX_OUT], int8_t b[N_OUT][MAX_OUT])
{
    for (uint32_t i = 0; i < N_OUT; i++) {
        rknn_tensor_attr attr;
        if (query(ctx, RKNN_QUERY_OUTPUT_ATTR, i, &attr) != RKNN_SUCC ||
            memcmp(a[i], b[i], attr.n_elems) != 0) {
            printf("  output %u differs\n", i);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    static uint8_t pics[2][IN_BYTES];
    const int want[2] = {BEAR, STOP_SIGN};
    rknn_context ctx = 0, dup = 0, zc = 0;
    rknpu_model_mem need;
    rknpu_mem_stats st;
    rknn_mem_size ms;
    rknn_tensor_mem *file_mem = NULL;
    uint8_t *file;
    size_t size;
    float score;
    int ret, reduced;

    if (argc != 4) {
        printf("FAIL: usage: test_e2e_yolo MODEL PICTURE_285.bin PICTURE_724.bin\n");
        return 1;
    }
    for (int p = 0; p < 2; p++)
        if (test_read_file(argv[2 + p], pics[p], IN_BYTES) != IN_BYTES) {
            printf("FAIL: missing input file %s (or not %d bytes)\n", argv[2 + p], IN_BYTES);
            return 1;
        }
    reduced = getenv("RKNPU_TEST_REDUCED") != NULL;
    if (!(file = test_load_file(argv[1], &size)))
        return 1;
    if (!CHECK((ret = board_init()) == RKNN_SUCC))
        return test_report("e2e_yolo");
    CHECK(rknpu_model_mem_requirements(file, size, &need) == RKNN_SUCC);

    /* default mode: the caller's buffer is gone right after rknn_init */
    {
        uint8_t *copy = malloc(size);
        if (!copy)
            return 1;
        memcpy(copy, file, size);
        ret = rknn_init(&ctx, copy, (uint32_t)size, 0, NULL);
        memset(copy, 0xA5, size);
        free(copy);
    }
    if (!CHECK(ret == RKNN_SUCC)) {
        printf("FAIL: rknn_init returned %d\n", ret);
        return test_report("e2e_yolo");
    }
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    printf("carve-out after init %lu bytes, rknpu_model_mem_requirements peak %llu\n",
           (unsigned long)st.used_bytes, (unsigned long long)need.carveout_bytes);
    CHECK(st.peak_used_bytes <= need.carveout_bytes);
    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    /* the copy, the arena and the payload built from the lists, whose stream
     * the first context relocates where it lies (format.md §4.4) */
    CHECK(ms.total_dma_allocated_size >=
          need.model_copy_bytes + need.regcmd_bytes + need.internal_bytes);

    for (int p = 0; p < 2; p++) {
        int cls;
        if (!CHECK(run_general(ctx, pics[p], outputs[p]) == 0))
            continue;
        cls = best_class(ctx, outputs[p], &score);
        printf("picture %d: best class %d score %.3f (want %d)\n", p, cls, (double)score, want[p]);
        CHECK(cls == want[p] && score > 0.8f);
        if (!reduced) /* the same context again: the same outputs */
            CHECK(run_general(ctx, pics[p], scratch) == 0 &&
                  same_outputs(ctx, outputs[p], scratch));
    }
    printf("zero-copy API, input bound as uint8 and with its native attribute:\n");
    CHECK(run_zero_copy(ctx, pics[0], 0, scratch) == 0 && same_outputs(ctx, outputs[0], scratch));
    CHECK(run_zero_copy(ctx, pics[0], 1, scratch) == 0 && same_outputs(ctx, outputs[0], scratch));

    printf("rknn_dup_context:\n");
    if (CHECK(rknn_dup_context(&ctx, &dup) == RKNN_SUCC)) {
        if (!reduced)
            CHECK(run_general(dup, pics[1], scratch) == 0 &&
                  same_outputs(dup, outputs[1], scratch));
        CHECK(rknn_destroy(ctx) == RKNN_SUCC); /* the copy keeps the shared stream */
        ctx = 0;
        CHECK(run_general(dup, pics[0], scratch) == 0 && same_outputs(dup, outputs[0], scratch));
        CHECK(rknn_destroy(dup) == RKNN_SUCC);
    }

    printf("RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, file in the carve-out:\n");
    file_mem = rknn_create_mem2(0, size, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
    if (CHECK(file_mem != NULL)) {
        memcpy(file_mem->virt_addr, file, size);
        ret = rknn_init(&zc, file_mem->virt_addr, (uint32_t)size, RKNN_FLAG_MODEL_BUFFER_ZERO_COPY,
                        NULL);
        if (CHECK(ret == RKNN_SUCC)) {
            for (int p = 0; p < (reduced ? 1 : 2); p++)
                CHECK(run_general(zc, pics[p], scratch) == 0 &&
                      same_outputs(zc, outputs[p], scratch));
            CHECK(memcmp(file_mem->virt_addr, file, size) == 0);
            CHECK(rknn_destroy(zc) == RKNN_SUCC);
        }
        CHECK(rknn_destroy_mem(0, file_mem) == RKNN_SUCC);
    }
    printf("RKNN_FLAG_COLLECT_MODEL_INFO_ONLY:\n");
    if (CHECK(rknn_init(&zc, file, (uint32_t)size, RKNN_FLAG_COLLECT_MODEL_INFO_ONLY, NULL) ==
              RKNN_SUCC)) {
        rknn_input_output_num io;
        rknn_tensor_attr a;
        CHECK(rknn_query(zc, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) == RKNN_SUCC &&
              io.n_input == 1 && io.n_output == N_OUT);
        CHECK(query(zc, RKNN_QUERY_OUTPUT_ATTR, 5, &a) == RKNN_SUCC && a.dims[1] == CLASSES);
        CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
        printf("  carve-out %lu bytes, model copy %lu\n", (unsigned long)st.used_bytes,
               (unsigned long)need.model_copy_bytes);
        CHECK(st.used_bytes <= need.model_copy_bytes + 64u * 1024u);
        CHECK(rknn_run(zc, NULL) == RKNN_ERR_CTX_INVALID);
        CHECK(rknn_destroy(zc) == RKNN_SUCC);
    }
    free(file);
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.allocations, 0);
    return test_report("e2e_yolo");
}
