/*
 * test_e2e_ppocr - PP-OCRv4 text detection (rk3588_ppocrv4_det.v6.rknn, the
 * real network, float16) through the rknn_* API the way an application
 * writes it, on several core masks, with both I/O APIs:
 *
 *   the model file read into a malloc'd buffer, rknn_init, the buffer
 *   overwritten and freed; IN_OUT_NUM and the input/output attributes
 *   (plain and native) queried; then for each core mask
 *   - zero-copy: the input bound as uint8 NHWC on the native attribute
 *     (the vendor's zero-copy demo), the output bound in its native layout
 *     (float16 NC1HWC2), rknn_run, rknn_mem_sync, and the native output
 *     turned into float32 NCHW here, in plain C; on the first mask also
 *     the input bound as its native attribute says (float16 pixels, which
 *     the runtime normalises as Rockchip's does);
 *   - general: rknn_inputs_set (uint8 NHWC), rknn_run, rknn_outputs_get
 *     with want_float.
 * Every output is written as OUT_PREFIX_<api>_m<mask>.npy (float32
 * [1,1,480,480]); tests/tools/check_ppocr.py compares them with the float
 * reference of the ONNX model. This program judges the core split: the
 * virtual NPU's per-core task counters over each run must show work on
 * exactly the cores of the mask, as many tasks as the model's task group
 * for that core (see group_tasks below).
 *
 * Usage: test_e2e_ppocr MODEL INPUT_U8_NHWC.npy OUT_PREFIX [MASKS]
 *   MASKS: comma-separated core masks, default 1,3,7,2 (1, 2 and 3 cores,
 *   then core 1 alone). Exits 1 with a FAIL line on any error, naming a
 *   missing file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "board_common.h"
#include "rknn_api.h"
#include "rknpu_bm.h"
#include "test_files.h"
#include "test_ppocr.h"
#include "test_util.h"
#include "vnpu.h"

#define MAX_MASKS 8

/* Task records each core executes in one run of rk3588_ppocrv4_det.v6.rknn,
 * by number of cores, from the model's task groups as
 * `rknn-inspect --tasks MODEL` prints them:
 *   1 core(s): core0 tasks 0+383 (348 from the nodes + 35 LUT loads)
 *   2 core(s): core0 tasks 383+394 core1 tasks 777+161
 *   3 core(s): core0 tasks 938+382 core1 tasks 1320+147 core2 tasks 1467+147
 * The k-th core of the mask (counting from bit 0) runs slot k. */
static const uint64_t group_tasks[N_CORES + 1][N_CORES] = {
    {0, 0, 0}, {383, 0, 0}, {394, 161, 0}, {382, 147, 147}};

static float out_f32[OUT_ELEMS];

/* ---- files ------------------------------------------------------------------ */

/* float32 (1, 1, 480, 480) .npy, version 1.0, header padded to 64 bytes. */
static int write_npy(const char *path, const float *data)
{
    char header[128];
    FILE *f;
    int len =
        snprintf(header, sizeof header,
                 "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, %d, %d), }", SIDE, SIDE);
    int total = (10 + len + 1 + 63) / 64 * 64, hlen = total - 10, ok;

    memset(header + len, ' ', (size_t)(hlen - len - 1));
    header[hlen - 1] = '\n';
    f = fopen(path, "wb");
    if (!f) {
        printf("FAIL: cannot create %s\n", path);
        return -1;
    }
    ok = fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8 && fputc(hlen & 0xff, f) != EOF &&
         fputc(hlen >> 8, f) != EOF && fwrite(header, 1, (size_t)hlen, f) == (size_t)hlen &&
         fwrite(data, sizeof(float), OUT_ELEMS, f) == OUT_ELEMS;
    ok &= fclose(f) == 0;
    if (!ok)
        printf("FAIL: cannot write %s\n", path);
    return ok ? 0 : -1;
}

/* ---- tensors ------------------------------------------------------------------ */

static void print_attr(const char *what, const rknn_tensor_attr *a)
{
    printf("  %-14s index %u '%s' dims [", what, (unsigned)a->index, a->name);
    for (uint32_t i = 0; i < a->n_dims; i++)
        printf(i ? ",%u" : "%u", (unsigned)a->dims[i]);
    printf("] n_elems %u size %u fmt %s type %s qnt %s w_stride %u size_with_stride %u\n",
           (unsigned)a->n_elems, (unsigned)a->size, get_format_string(a->fmt),
           get_type_string(a->type), get_qnt_type_string(a->qnt_type), (unsigned)a->w_stride,
           (unsigned)a->size_with_stride);
}

static int query_attr(rknn_context ctx, rknn_query_cmd cmd, uint32_t index, rknn_tensor_attr *a)
{
    int ret;

    memset(a, 0, sizeof *a);
    a->index = index;
    ret = rknn_query(ctx, cmd, a, sizeof *a);
    if (ret != RKNN_SUCC)
        printf("FAIL: rknn_query(%d) of tensor %u returned %d\n", (int)cmd, (unsigned)index, ret);
    return ret;
}

static int dims_are(const rknn_tensor_attr *a, uint32_t d0, uint32_t d1, uint32_t d2, uint32_t d3)
{
    return a->n_dims == 4 && a->dims[0] == d0 && a->dims[1] == d1 && a->dims[2] == d2 &&
           a->dims[3] == d3;
}

/* IEEE 754 binary16 to float, every class (zero, subnormal, inf, NaN). */
static float fp16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
    float f;

    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | man << 13;
    } else if (exp != 0) {
        bits = sign | (exp + 112u) << 23 | man << 13;
    } else if (man == 0) {
        bits = sign;
    } else { /* subnormal: normalise */
        exp = 113;
        while (!(man & 0x400u)) {
            man <<= 1;
            exp--;
        }
        bits = sign | exp << 23 | (man & 0x3ffu) << 13;
    }
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* The native float16 output, NC1HWC2 [1, C1, H, W, C2] with row pitch
 * w_stride, or packed NHWC, into float32 NCHW [1, 1, 480, 480]. */
static int native_to_nchw(const rknn_tensor_attr *a, const uint16_t *nat, float *dst)
{
    uint32_t ws = a->w_stride ? a->w_stride : SIDE;

    if (a->type != RKNN_TENSOR_FLOAT16)
        return -1;
    if (a->fmt == RKNN_TENSOR_NC1HWC2 && a->n_dims == 5 && a->dims[1] == 1 && a->dims[2] == SIDE &&
        a->dims[3] == SIDE && a->dims[4] >= 1) {
        uint32_t c2 = a->dims[4]; /* channel 0 of group 0 */
        for (uint32_t y = 0; y < SIDE; y++)
            for (uint32_t x = 0; x < SIDE; x++)
                dst[y * SIDE + x] = fp16_to_float(nat[((size_t)y * ws + x) * c2]);
        return 0;
    }
    if ((a->fmt == RKNN_TENSOR_NHWC && dims_are(a, 1, SIDE, SIDE, 1)) ||
        (a->fmt == RKNN_TENSOR_NCHW && dims_are(a, 1, 1, SIDE, SIDE))) {
        for (uint32_t y = 0; y < SIDE; y++)
            for (uint32_t x = 0; x < SIDE; x++)
                dst[y * SIDE + x] = fp16_to_float(nat[(size_t)y * ws + x]);
        return 0;
    }
    return -1;
}

/* ---- core split ------------------------------------------------------------------ */

static void core_tasks(uint64_t tasks[N_CORES])
{
    vnpu_stats st;

    for (unsigned c = 0; c < N_CORES; c++) {
        vnpu_get_stats(board_vnpu(), c, &st);
        tasks[c] = st.tasks;
    }
}

/* Tasks per core over one run against the model's task groups. */
static int check_split(const char *label, unsigned mask, const uint64_t before[N_CORES])
{
    uint64_t after[N_CORES], want[N_CORES] = {0, 0, 0};
    unsigned n = 0, k = 0;
    int ok = 1;

    for (unsigned c = 0; c < N_CORES; c++)
        n += (mask >> c) & 1u;
    for (unsigned c = 0; c < N_CORES; c++)
        if ((mask >> c) & 1u)
            want[c] = group_tasks[n][k++];
    core_tasks(after);
    printf("  %-22s tasks per core:", label);
    for (unsigned c = 0; c < N_CORES; c++) {
        uint64_t d = after[c] - before[c];
        printf(" %llu", (unsigned long long)d);
        ok &= d == want[c] && (d > 0) == (((mask >> c) & 1u) != 0);
    }
    printf(ok ? " (= the model's %u-core task group)\n" : "\n", n);
    if (!ok)
        printf("FAIL: %s: tasks per core %llu %llu %llu, want %llu %llu %llu (mask 0x%x)\n", label,
               (unsigned long long)(after[0] - before[0]),
               (unsigned long long)(after[1] - before[1]),
               (unsigned long long)(after[2] - before[2]), (unsigned long long)want[0],
               (unsigned long long)want[1], (unsigned long long)want[2], mask);
    return CHECK(ok);
}

/* rknn_run, then the cores' task counts against the model's groups. */
static int run_split(rknn_context ctx, const char *label, unsigned mask)
{
    uint64_t before[N_CORES];
    int ret;

    core_tasks(before);
    if (!CHECK((ret = rknn_run(ctx, NULL)) == RKNN_SUCC)) {
        printf("FAIL: %s: rknn_run returned %d\n", label, ret);
        return -1;
    }
    check_split(label, mask, before);
    return 0;
}

/* ---- the two APIs ------------------------------------------------------------------- */

static const char *out_prefix;

static int save(const char *api, unsigned mask, const float *data)
{
    char path[1024];

    snprintf(path, sizeof path, "%s_%s_m%u.npy", out_prefix, api, mask);
    return CHECK(write_npy(path, data) == 0);
}

/* General API: rknn_inputs_set (uint8 NHWC), rknn_run, rknn_outputs_get as
 * float32 into a buffer the runtime allocates. */
static void run_general(rknn_context ctx, unsigned mask, const uint8_t *img)
{
    rknn_input in;
    rknn_output out;
    char label[64];
    int ret;

    snprintf(label, sizeof label, "general   mask 0x%x", mask);
    memset(&in, 0, sizeof in);
    in.index = 0;
    in.buf = (void *)(uintptr_t)img;
    in.size = IN_BYTES;
    in.type = RKNN_TENSOR_UINT8;
    in.fmt = RKNN_TENSOR_NHWC;
    if (!CHECK((ret = rknn_set_core_mask(ctx, (rknn_core_mask)mask)) == RKNN_SUCC) ||
        !CHECK((ret = rknn_inputs_set(ctx, 1, &in)) == RKNN_SUCC)) {
        printf("FAIL: %s: rknn_set_core_mask / rknn_inputs_set returned %d\n", label, ret);
        return;
    }
    if (run_split(ctx, label, mask) != 0)
        return;
    memset(&out, 0, sizeof out);
    out.index = 0;
    out.want_float = 1;
    if (!CHECK((ret = rknn_outputs_get(ctx, 1, &out, NULL)) == RKNN_SUCC)) {
        printf("FAIL: %s: rknn_outputs_get returned %d\n", label, ret);
        return;
    }
    if (CHECK(out.buf != NULL && out.size == OUT_ELEMS * sizeof(float)))
        save("general", mask, out.buf);
    else
        printf("FAIL: %s: rknn_outputs_get gave %u bytes, want %u\n", label, (unsigned)out.size,
               (unsigned)(OUT_ELEMS * sizeof(float)));
    if (!CHECK((ret = rknn_outputs_release(ctx, 1, &out)) == RKNN_SUCC))
        printf("FAIL: %s: rknn_outputs_release returned %d\n", label, ret);
}

typedef struct {
    rknn_tensor_attr in_attr, out_attr; /* as bound */
    rknn_tensor_mem *in, *out;
} zc_bound;

/* A pixel value as float16 (0..255 are exact). */
static uint16_t pixel_to_fp16(uint8_t v)
{
    unsigned e = 0;

    if (v == 0)
        return 0;
    while ((v >> (e + 1)) != 0)
        e++;
    return (uint16_t)((e + 15u) << 10 | (((unsigned)v << (10u - e)) & 0x3ffu));
}

/* Zero-copy binding as the vendor's demo makes it: the native input
 * attribute with type uint8 and layout NHWC, the image copied in row by row
 * at w_stride; the output in its native attribute. With `fp16`, the native
 * attribute as queried (float16): the pixels as float16 values, which the
 * runtime normalises with the model's mean/std as the vendor's does. */
static int zc_bind(rknn_context ctx, const uint8_t *img, int fp16, zc_bound *b)
{
    uint32_t w, ws, c;
    uint8_t *dst;
    int ret;

    memset(b, 0, sizeof *b);
    if (query_attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 0, &b->in_attr) != RKNN_SUCC ||
        query_attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, 0, &b->out_attr) != RKNN_SUCC)
        return -1;
    if (fp16 && b->in_attr.type != RKNN_TENSOR_FLOAT16) {
        printf("FAIL: native input is %s, not float16\n", get_type_string(b->in_attr.type));
        return -1;
    }
    if (!fp16)
        b->in_attr.type = RKNN_TENSOR_UINT8;
    b->in_attr.fmt = RKNN_TENSOR_NHWC;
    b->in = rknn_create_mem(ctx, b->in_attr.size_with_stride);
    b->out = rknn_create_mem(ctx, b->out_attr.size_with_stride);
    if (!b->in || !b->out) {
        printf("FAIL: rknn_create_mem(%u / %u bytes) returned NULL\n",
               (unsigned)b->in_attr.size_with_stride, (unsigned)b->out_attr.size_with_stride);
        return -1;
    }
    w = b->in_attr.dims[2];
    ws = b->in_attr.w_stride ? b->in_attr.w_stride : w;
    c = b->in_attr.dims[3];
    if (!dims_are(&b->in_attr, 1, SIDE, SIDE, IN_C)) {
        printf("FAIL: native input is not [1,480,480,3] NHWC\n");
        return -1;
    }
    dst = b->in->virt_addr;
    if (fp16)
        for (uint32_t y = 0; y < SIDE; y++)
            for (uint32_t x = 0; x < (size_t)w * c; x++)
                ((uint16_t *)(void *)dst)[(size_t)y * ws * c + x] =
                    pixel_to_fp16(img[(size_t)y * w * c + x]);
    else if (ws == w)
        memcpy(dst, img, IN_BYTES);
    else
        for (uint32_t y = 0; y < SIDE; y++)
            memcpy(dst + (size_t)y * ws * c, img + (size_t)y * w * c, (size_t)w * c);
    if ((ret = rknn_mem_sync(ctx, b->in, RKNN_MEMORY_SYNC_TO_DEVICE)) != RKNN_SUCC ||
        (ret = rknn_set_io_mem(ctx, b->in, &b->in_attr)) != RKNN_SUCC ||
        (ret = rknn_set_io_mem(ctx, b->out, &b->out_attr)) != RKNN_SUCC) {
        printf("FAIL: zero-copy binding: rknn_mem_sync / rknn_set_io_mem returned %d\n", ret);
        return -1;
    }
    return 0;
}

static void run_zero_copy(rknn_context ctx, unsigned mask, zc_bound *b, const char *api)
{
    char label[64];
    int ret;

    snprintf(label, sizeof label, "%s mask 0x%x", api, mask);
    /* a stale output cannot pass: float16 0xffff is a NaN */
    memset(b->out->virt_addr, 0xff, b->out_attr.size_with_stride);
    if (!CHECK((ret = rknn_mem_sync(ctx, b->out, RKNN_MEMORY_SYNC_TO_DEVICE)) == RKNN_SUCC) ||
        !CHECK((ret = rknn_set_core_mask(ctx, (rknn_core_mask)mask)) == RKNN_SUCC)) {
        printf("FAIL: %s: rknn_mem_sync / rknn_set_core_mask returned %d\n", label, ret);
        return;
    }
    if (run_split(ctx, label, mask) != 0)
        return;
    if (!CHECK((ret = rknn_mem_sync(ctx, b->out, RKNN_MEMORY_SYNC_FROM_DEVICE)) == RKNN_SUCC)) {
        printf("FAIL: %s: rknn_mem_sync returned %d\n", label, ret);
        return;
    }
    if (!CHECK(native_to_nchw(&b->out_attr, b->out->virt_addr, out_f32) == 0)) {
        printf("FAIL: %s: no float16 NC1HWC2/NHWC [1,1,480,480] output layout to convert\n", label);
        return;
    }
    save(api, mask, out_f32);
}

static void zc_unbind(rknn_context ctx, zc_bound *b)
{
    if (b->in)
        CHECK(rknn_destroy_mem(ctx, b->in) == RKNN_SUCC);
    if (b->out)
        CHECK(rknn_destroy_mem(ctx, b->out) == RKNN_SUCC);
    b->in = b->out = NULL;
}

/* ---- main ------------------------------------------------------------------------ */

/* "1,3,7,2" into masks; the count, or 0 with a FAIL line. */
static unsigned parse_masks(const char *list, unsigned *masks)
{
    const char *s = list;
    unsigned n = 0;

    while (*s && n < MAX_MASKS) {
        char *end;
        unsigned long m = strtoul(s, &end, 0);
        if (end == s || m == 0 || m > 7 || (*end && *end != ',')) {
            printf("FAIL: bad core mask list '%s' (e.g. 1,3,7,2)\n", list);
            return 0;
        }
        masks[n++] = (unsigned)m;
        s = *end ? end + 1 : end;
    }
    if (*s) {
        printf("FAIL: more than %d core masks in '%s'\n", MAX_MASKS, list);
        return 0;
    }
    return n;
}

int main(int argc, char **argv)
{
    unsigned masks[MAX_MASKS], n_masks;
    static uint8_t img[IN_BYTES];
    rknn_input_output_num io;
    rknn_tensor_attr in_attr, out_attr, nin_attr, nout_attr;
    rknpu_mem_stats st;
    rknn_context ctx = 0;
    zc_bound zc;
    int ret;

    if (argc != 4 && argc != 5) {
        printf("FAIL: usage: test_e2e_ppocr MODEL INPUT_U8_NHWC.npy OUT_PREFIX [MASKS]\n");
        return 1;
    }
    out_prefix = argv[3];
    n_masks = parse_masks(argc == 5 ? argv[4] : "1,3,7,2", masks);
    if (!n_masks || load_image(argv[2], img) != 0)
        return 1;
    if (!CHECK((ret = board_init()) == RKNN_SUCC) || !CHECK(board_vnpu() != NULL)) {
        printf("FAIL: board_init returned %d or there is no virtual NPU\n", ret);
        return test_report("e2e_ppocr");
    }
    if (!CHECK(init_model(argv[1], &ctx) == 0))
        return test_report("e2e_ppocr");

    if (!CHECK((ret = rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io)) == RKNN_SUCC) ||
        !CHECK(io.n_input == 1 && io.n_output == 1) ||
        !CHECK(query_attr(ctx, RKNN_QUERY_INPUT_ATTR, 0, &in_attr) == RKNN_SUCC) ||
        !CHECK(query_attr(ctx, RKNN_QUERY_OUTPUT_ATTR, 0, &out_attr) == RKNN_SUCC) ||
        !CHECK(query_attr(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, 0, &nin_attr) == RKNN_SUCC) ||
        !CHECK(query_attr(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, 0, &nout_attr) == RKNN_SUCC)) {
        printf("FAIL: querying the model's inputs and outputs (%d)\n", ret);
        CHECK(rknn_destroy(ctx) == RKNN_SUCC);
        return test_report("e2e_ppocr");
    }
    printf("%s: %u input, %u output\n", argv[1], (unsigned)io.n_input, (unsigned)io.n_output);
    print_attr("input", &in_attr);
    print_attr("output", &out_attr);
    print_attr("native input", &nin_attr);
    print_attr("native output", &nout_attr);
    /* the general API's shapes: uint8 NHWC in, float32 NCHW out */
    CHECK(in_attr.n_elems == IN_BYTES && out_attr.n_elems == OUT_ELEMS);
    CHECK(dims_are(&out_attr, 1, 1, SIDE, SIDE) && out_attr.fmt == RKNN_TENSOR_NCHW);

    printf("zero-copy API (input uint8 NHWC, output native %s %s):\n",
           get_type_string(nout_attr.type), get_format_string(nout_attr.fmt));
    if (CHECK(zc_bind(ctx, img, 0, &zc) == 0))
        for (unsigned i = 0; i < n_masks; i++)
            run_zero_copy(ctx, masks[i], &zc, "zerocopy");
    zc_unbind(ctx, &zc); /* the context goes back to its own buffers */
    printf("zero-copy API (input native float16 NHWC, first mask):\n");
    if (CHECK(zc_bind(ctx, img, 1, &zc) == 0))
        run_zero_copy(ctx, masks[0], &zc, "zerocopyfp16");
    zc_unbind(ctx, &zc);

    printf("general API (rknn_inputs_set uint8 NHWC, rknn_outputs_get want_float):\n");
    for (unsigned i = 0; i < n_masks; i++)
        run_general(ctx, masks[i], img);

    CHECK((ret = rknn_destroy(ctx)) == RKNN_SUCC);
    CHECK(rknpu_mem_get_stats(&st) == RKNN_SUCC);
    CHECK_EQ_U(st.allocations, 0); /* everything returned */
    return test_report("e2e_ppocr");
}
