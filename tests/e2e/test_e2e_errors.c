/*
 * test_e2e_errors - the rknn_* calls on their error paths, with the
 * multiple_input_demo sample on the virtual NPU: bad arguments, a full
 * carve-out or handle pool, and faults the virtual NPU injects into a run.
 * Each call returns the vendor error code docs/api.md names for it, keeps
 * no carve-out memory it took on the way (rknpu_mem_get_stats), and the
 * context works afterwards: its float output against the float ONNX model
 * (tests/tools/onnx_ref.py), within 1.5 output steps as in
 * test_e2e_features.
 *
 * Usage: test_e2e_errors MODELS_DIR REFERENCE_FILE. A missing file fails.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "npu_soc.h"
#include "rknn_api.h"
#include "rknn_limits.h"
#include "rknpu_bm.h"
#include "test_carve.h"
#include "test_files.h"
#include "test_mid.h"
#include "test_soc.h"
#include "test_util.h"
#include "vnpu.h"

static uint8_t model[64 * 1024];
static uint8_t image1[MID_H * MID_W], image2[MID_H * MID_W * 3];
static float reference[MID_OUT_ELEMS], out_f[MID_OUT_ELEMS];
static uint8_t wrapped[4096] __attribute__((aligned(64)));
static const char *dir;

static uint32_t allocations(void)
{
    rknpu_mem_stats st;

    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    return st.allocations;
}

static rknn_context load(const char *file, uint32_t flags)
{
    return test_load_model(dir, file, model, sizeof model, flags);
}

/* Max |error| of out_f against the ONNX model, in output steps. */
static float error_steps(void)
{
    float max = 0;

    for (int i = 0; i < MID_OUT_ELEMS; i++) {
        float d = out_f[i] - reference[i];
        d = d < 0 ? -d : d;
        max = d > max ? d : max;
    }
    return max / MID_OUT_SCALE;
}

/* Inputs set, one run, the float output compared: the context works. */
static void check_works(rknn_context ctx, const char *what)
{
    rknn_output out;
    float err;

    memset(&out, 0, sizeof out);
    out.want_float = 1;
    out.is_prealloc = 1;
    out.buf = out_f;
    out.size = sizeof out_f;
    memset(out_f, 0, sizeof out_f);
    if (!CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC) ||
        !CHECK(rknn_run(ctx, NULL) == RKNN_SUCC) ||
        !CHECK(rknn_outputs_get(ctx, 1, &out, NULL) == RKNN_SUCC))
        return;
    err = error_steps();
    printf("  %-56s max %.3f step(s) from ONNX\n", what, (double)err);
    CHECK(err <= 1.5f);
    CHECK(rknn_outputs_release(ctx, 1, &out) == RKNN_SUCC);
}

static void query_attr(rknn_context ctx, rknn_query_cmd cmd, uint32_t index, rknn_tensor_attr *a)
{
    memset(a, 0, sizeof *a);
    a->index = index;
    CHECK(rknn_query(ctx, cmd, a, sizeof *a) == RKNN_SUCC);
}

/* api.md §1.1 and §1.2: the refusals of each call. */
static void test_bad_arguments(void)
{
    rknn_context ctx = load("rk3588_multiple_input_demo.v6.rknn", 0);
    uint32_t before = allocations();
    rknn_tensor_attr a[2], attr;
    rknn_tensor_mem *mem;
    rknn_mem_size ms;
    rknn_output out;
    rknn_input in;

    /* unknown contexts */
    query_attr(ctx, RKNN_QUERY_INPUT_ATTR, 0, &a[0]);
    query_attr(ctx, RKNN_QUERY_INPUT_ATTR, 1, &a[1]);
    CHECK(rknn_set_input_shapes(0, 2, a) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_set_batch_core_num(0, 1) == RKNN_ERR_CTX_INVALID);
    CHECK(rknn_set_batch_core_num(ctx, 2) == RKNN_ERR_PARAM_INVALID);
    CHECK(rknn_set_batch_core_num(ctx, 1) == RKNN_SUCC);
    /* an input the model does not have has no shape of its own */
    a[0].index = 7;
    CHECK(rknn_set_input_shape(ctx, &a[0]) == RKNN_ERR_PARAM_INVALID);
    a[0].index = 0;

    /* inputs: pass-through data larger than the native buffer (1 x 128 x
     * 128 x 1 int8 codes in rows of 128: 16384 bytes at most) */
    memset(&in, 0, sizeof in);
    in.index = 0;
    in.buf = image2;
    in.size = sizeof image2;
    in.pass_through = 1;
    CHECK(rknn_inputs_set(ctx, 1, &in) == RKNN_ERR_INPUT_INVALID);

    /* outputs: a bad index, NULL to release */
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
    CHECK(rknn_run(ctx, NULL) == RKNN_SUCC);
    memset(&out, 0, sizeof out);
    out.index = 1;
    CHECK(rknn_outputs_get(ctx, 1, &out, NULL) == RKNN_ERR_OUTPUT_INVALID);
    CHECK(out.buf == NULL);
    CHECK(rknn_outputs_release(ctx, 1, NULL) == RKNN_ERR_PARAM_INVALID);

    /* zero-copy memory */
    CHECK(rknn_create_mem_from_phys(0, 0x40000000u, wrapped, sizeof wrapped) == NULL);
    CHECK(rknn_create_mem_from_phys(ctx, 0x40000000u, NULL, sizeof wrapped) == NULL);
    CHECK(rknn_create_mem_from_phys(ctx, 0x40000000u, wrapped, 0) == NULL);
    mem = rknn_create_mem(ctx, MID_H * MID_W * 4u);
    if (CHECK(mem != NULL)) {
        CHECK(rknn_set_io_mem(0, mem, &a[0]) == RKNN_ERR_CTX_INVALID);
        attr = a[0];
        strcpy(attr.name, "no_such_tensor");
        CHECK(rknn_set_io_mem(ctx, mem, &attr) == RKNN_ERR_PARAM_INVALID);
        /* a converted binding (float32) must hold the model's 16384 elements */
        attr = a[0];
        attr.type = RKNN_TENSOR_FLOAT32;
        attr.n_elems = MID_H * MID_W / 2;
        CHECK(rknn_set_io_mem(ctx, mem, &attr) == RKNN_ERR_PARAM_INVALID);
        CHECK(rknn_set_weight_mem(0, mem) == RKNN_ERR_CTX_INVALID);
        CHECK(rknn_set_internal_mem(0, mem) == RKNN_ERR_CTX_INVALID);
        CHECK(rknn_destroy_mem(ctx, mem) == RKNN_SUCC);
    }
    /* memory of the size asked, for a context that made its own */
    CHECK(rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &ms, sizeof ms) == RKNN_SUCC);
    mem = rknn_create_mem(ctx, ms.total_internal_size);
    if (CHECK(mem != NULL)) {
        CHECK(rknn_set_internal_mem(ctx, mem) == RKNN_ERR_PARAM_INVALID);
        CHECK(rknn_destroy_mem(ctx, mem) == RKNN_SUCC);
    }
    CHECK_EQ_U(allocations(), before);
    check_works(ctx, "after every refused argument");
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

/* RKNN_MAX_TENSOR_MEMS handles at most (api.md §1.2: NULL for a full handle
 * pool): the carve-out block of a refused rknn_create_mem goes back. */
static void test_handle_pool(void)
{
    rknn_context ctx = load("rk3588_multiple_input_demo.v6.rknn", 0);
    rknn_tensor_mem *mems[RKNN_MAX_TENSOR_MEMS + 1];
    uint32_t before = allocations(), n = 0;

    while (n <= RKNN_MAX_TENSOR_MEMS &&
           (mems[n] = rknn_create_mem_from_phys(ctx, 0x40000000u, wrapped, sizeof wrapped)))
        n++;
    CHECK_EQ_U(n, RKNN_MAX_TENSOR_MEMS);
    CHECK(rknn_create_mem(ctx, 4096) == NULL);
    CHECK_EQ_U(allocations(), before);
    while (n)
        CHECK(rknn_destroy_mem(ctx, mems[--n]) == RKNN_SUCC);
    mems[0] = rknn_create_mem(ctx, 4096);
    CHECK(mems[0] != NULL);
    CHECK(mems[0] && rknn_destroy_mem(ctx, mems[0]) == RKNN_SUCC);
    CHECK_EQ_U(allocations(), before);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

/* A full carve-out: rknn_create_mem gives NULL, rknn_outputs_get (its own
 * buffer) and an async rknn_run (the snapshot of the frame before)
 * RKNN_ERR_MALLOC_FAIL, keeping nothing; with the memory back they work. */
static void test_carveout_full(void)
{
    rknn_context ctx = load("rk3588_multiple_input_demo.v6.rknn", 0);
    uint32_t before;
    rknn_output out;

    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
    CHECK(rknn_run(ctx, NULL) == RKNN_SUCC);
    before = allocations();
    /* the float output needs 8 x 128 x 128 x 4 bytes; one byte block less */
    CHECK(test_carve_fill(MID_OUT_ELEMS * 4u - 64) == 0);
    CHECK(rknn_create_mem(ctx, MID_OUT_ELEMS * 4u) == NULL);
    memset(&out, 0, sizeof out);
    out.want_float = 1;
    CHECK(rknn_outputs_get(ctx, 1, &out, NULL) == RKNN_ERR_MALLOC_FAIL);
    CHECK(out.buf == NULL);
    CHECK_EQ_U(allocations(), before + test_n_hogs);
    test_carve_release();
    CHECK(rknn_outputs_get(ctx, 1, &out, NULL) == RKNN_SUCC);
    CHECK(out.buf != NULL && out.size == MID_OUT_ELEMS * 4u);
    CHECK(rknn_outputs_release(ctx, 1, &out) == RKNN_SUCC);
    CHECK_EQ_U(allocations(), before);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);

    /* async: the first get is empty (api.md §1.1: size 0, no buffer); the
     * second run keeps the first frame's outputs in a snapshot it
     * allocates, refused while the carve-out is full */
    ctx = load("rk3588_multiple_input_demo.v6.rknn", RKNN_FLAG_ASYNC_MASK);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
    CHECK(rknn_run(ctx, NULL) == RKNN_SUCC);
    memset(&out, 0, sizeof out);
    out.want_float = 1;
    out.buf = image1;
    out.size = 1234;
    CHECK(rknn_outputs_get(ctx, 1, &out, NULL) == RKNN_SUCC);
    CHECK(out.buf == NULL && out.size == 0);
    before = allocations();
    CHECK(test_carve_fill(0) == 0);
    CHECK(rknn_run(ctx, NULL) == RKNN_ERR_MALLOC_FAIL);
    CHECK_EQ_U(allocations(), before + test_n_hogs);
    test_carve_release();
    CHECK(rknn_run(ctx, NULL) == RKNN_SUCC);
    CHECK(rknn_wait(ctx, NULL) == RKNN_SUCC);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
}

/* A run in flight that hangs: the next call that waits for it gets the
 * timeout (rknn_run: api.md §1.1), rknn_destroy_mem and rknn_destroy settle
 * it and succeed, keeping nothing. */
static void test_hang_in_flight(void)
{
    rknn_context ctx = load("rk3588_multiple_input_demo.v6.rknn", 0);
    rknn_run_extend ext;
    rknn_tensor_mem *mem;
    rknn_tensor_attr attr;

    CHECK(rknpu_set_job_timeout(20000) == RKNN_SUCC);
    CHECK(rknn_set_core_mask(ctx, RKNN_NPU_CORE_0) == RKNN_SUCC);
    memset(&ext, 0, sizeof ext);
    ext.non_block = 1;
    vnpu_inject_fault(board_vnpu(), 0, VNPU_FAULT_NEVER_COMPLETE, 1);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
    CHECK(rknn_run(ctx, &ext) == RKNN_SUCC);
    CHECK(rknn_run(ctx, NULL) == RKNN_ERR_TIMEOUT);
    check_works(ctx, "after a run that hung in flight");

    /* a bound output memory destroyed while the run hangs */
    query_attr(ctx, RKNN_QUERY_OUTPUT_ATTR, 0, &attr);
    attr.type = RKNN_TENSOR_FLOAT32;
    mem = rknn_create_mem(ctx, MID_OUT_ELEMS * 4u);
    if (CHECK(mem != NULL) && CHECK(rknn_set_io_mem(ctx, mem, &attr) == RKNN_SUCC)) {
        vnpu_inject_fault(board_vnpu(), 0, VNPU_FAULT_NEVER_COMPLETE, 1);
        CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
        CHECK(rknn_run(ctx, &ext) == RKNN_SUCC);
        CHECK(rknn_destroy_mem(ctx, mem) == RKNN_SUCC);
        check_works(ctx, "after destroying a binding under a hung run");
    }

    vnpu_inject_fault(board_vnpu(), 0, VNPU_FAULT_NEVER_COMPLETE, 1);
    CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
    CHECK(rknn_run(ctx, &ext) == RKNN_SUCC);
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    CHECK_EQ_U(allocations(), 0);
    CHECK(rknpu_set_job_timeout(1000000) == RKNN_SUCC);
}

/* Conversions around a run that fail: an input bound in a layout the CPU
 * does not convert (rknn_set_io_mem accepts it; the run is refused with
 * RKNN_ERR_INPUT_INVALID, api.md §1.1), and on RK3566 an output bound as
 * float32 NCHW whose OutputOperator job (after the model's 2 tasks) meets
 * a DMA error: the driver's RKNN_ERR_FAIL. The next run is whole. */
static void test_conversion_failures(void)
{
    rknn_context ctx = load("rk3588_multiple_input_demo.v6.rknn", 0);
    rknn_tensor_attr attr;
    rknn_tensor_mem *mem;

    query_attr(ctx, RKNN_QUERY_INPUT_ATTR, 0, &attr);
    attr.type = RKNN_TENSOR_UINT8;
    attr.fmt = RKNN_TENSOR_NC1HWC2;
    mem = rknn_create_mem(ctx, MID_H * MID_W);
    if (CHECK(mem != NULL) && CHECK(rknn_set_io_mem(ctx, mem, &attr) == RKNN_SUCC)) {
        CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
        CHECK(rknn_run(ctx, NULL) == RKNN_ERR_INPUT_INVALID);
    }
    CHECK(mem && rknn_destroy_mem(ctx, mem) == RKNN_SUCC); /* unbinds */
    check_works(ctx, "after a bound input that did not convert");
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);

    test_switch_soc(RKNPU_SOC_RK3566);
    ctx = load("rk3566_multiple_input_demo.v6.rknn", 0);
    query_attr(ctx, RKNN_QUERY_OUTPUT_ATTR, 0, &attr);
    attr.type = RKNN_TENSOR_FLOAT32;
    attr.size = attr.size_with_stride = MID_OUT_ELEMS * 4u;
    mem = rknn_create_mem(ctx, attr.size);
    if (CHECK(mem != NULL) && CHECK(rknn_set_io_mem(ctx, mem, &attr) == RKNN_SUCC)) {
        CHECK(vnpu_inject_fault_at_task(board_vnpu(), 0, VNPU_FAULT_DMA_ERROR, 2) == 0);
        CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
        CHECK(rknn_run(ctx, NULL) == RKNN_ERR_FAIL);
        CHECK(test_mid_set_inputs(ctx, RKNN_TENSOR_UINT8, image1, image2, 0) == RKNN_SUCC);
        CHECK(rknn_run(ctx, NULL) == RKNN_SUCC);
        memcpy(out_f, mem->virt_addr, sizeof out_f);
        printf("  %-56s max %.3f step(s) from ONNX\n", "RK3566 float32 binding after a DMA error",
               (double)error_steps());
        CHECK(error_steps() <= 1.5f);
    }
    CHECK(mem && rknn_destroy_mem(ctx, mem) == RKNN_SUCC);
    check_works(ctx, "RK3566, unbound again");
    CHECK(rknn_destroy(ctx) == RKNN_SUCC);
    test_switch_soc(RKNPU_SOC_RK3588);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        printf("FAIL: usage: test_e2e_errors MODELS_DIR REFERENCE_FILE\n");
        return 1;
    }
    dir = argv[argc - 2];
    if (test_mid_load(dir, argv[argc - 1], reference, image1, image2))
        return 1;
    if (!CHECK(board_init() == RKNN_SUCC))
        return test_report("e2e_errors");
    test_switch_soc(RKNPU_SOC_RK3588);
    test_bad_arguments();
    test_handle_pool();
    test_carveout_full();
    test_hang_in_flight();
    test_conversion_failures();
    CHECK_EQ_U(allocations(), 0);
    return test_report("e2e_errors");
}
