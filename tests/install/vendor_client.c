/*
 * vendor_client.c - a client written the way the vendor's rknpu2 examples
 * are, built only through `pkg-config --cflags --libs rknpu-bm` against an
 * installed, ASan+UBSan-instrumented host library
 * (scripts/check-vendor-client.sh):
 *
 *   read the .rknn file into a malloc'd buffer, rknn_init(&ctx, buf, size,
 *   0, NULL), free the buffer (the vendor runtime copies the model), then
 *   malloc buffers of the same size and fill them with a garbage pattern (so
 *   without ASan the memory the allocator hands out next is overwritten);
 *   query the inputs and outputs, register the custom op where the model
 *   has one, rknn_inputs_set (general API), rknn_run, rknn_outputs_get with
 *   want_float, compare with the reference, run again, rknn_destroy.
 *
 * No environment variable is set: the SoC must come from the model.
 *
 * Usage:
 *   vendor_client MODEL.rknn multiple_input_demo DATA_DIR REFERENCE.f32
 *   vendor_client MODEL.rknn dual_residual_custom DATA_DIR
 *   vendor_client MODEL.rknn yolov8n PICTURE.bin CLASS
 * DATA_DIR holds the inputs (input1.bin/input2.bin, or
 * input_{0,1}_nhwc.npy); REFERENCE.f32 is tests/tools/onnx_ref.py's float32
 * NCHW output of test.onnx. The references are independent of the library:
 * onnx_ref.py evaluates the ONNX graph with numpy; cstDualResidual's is the
 * formula out0 = x*0.5 - y, out1 = y*0.5 - x (shared/models/README.md).
 * yolov8n (the container-4 model): PICTURE.bin is a letterboxed 640x640 RGB
 * picture (uint8 NHWC) and CLASS the COCO class it shows; the best class
 * score of the three score outputs must be that class, above 0.8, and every
 * run must give the first run's outputs bit for bit.
 *
 * Prints "vendor_client: OK" and exits 0 when every run matched; any missing
 * file is a failure that names it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_custom_op.h"

#define RUNS            4
#define GARBAGE_BUFFERS 4
#define MAX_IO          8
#define YOLO_CLASSES    80

static int failures;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL line %d: %s: ", __LINE__, #cond);                                         \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static unsigned char *load_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;

    *size = 0;
    if (!f) {
        printf("FAIL: cannot open %s\n", path);
        failures++;
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = (unsigned char *)malloc((size_t)n);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *size = (size_t)n;
    }
    fclose(f);
    if (!buf) {
        printf("FAIL: cannot read %s\n", path);
        failures++;
    }
    return buf;
}

/* ---- cstDualResidual: the application's CPU operator ------------------------ */

static float op_alpha;

static int op_init(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                   rknn_custom_op_tensor *out, uint32_t n_out)
{
    rknn_custom_op_attr a;

    (void)in, (void)out;
    if (n_in != 2 || n_out != 2)
        return -1;
    memset(&a, 0, sizeof a);
    rknn_custom_op_get_op_attr(op_ctx, "alpha", &a);
    if (a.dtype != RKNN_TENSOR_FLOAT32 || a.n_elems != 1 || !a.data)
        return -1;
    memcpy(&op_alpha, a.data, sizeof op_alpha);
    return 0;
}

static int op_prepare(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                      rknn_custom_op_tensor *out, uint32_t n_out)
{
    (void)op_ctx, (void)in, (void)n_in, (void)out, (void)n_out;
    return 0;
}

static int op_compute(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *in, uint32_t n_in,
                      rknn_custom_op_tensor *out, uint32_t n_out)
{
    const float *x, *y;
    float *o0, *o1;

    (void)op_ctx;
    if (n_in != 2 || n_out != 2 || in[0].attr.type != RKNN_TENSOR_FLOAT32 ||
        in[0].attr.n_elems != in[1].attr.n_elems || out[0].attr.n_elems != in[0].attr.n_elems ||
        out[1].attr.n_elems != in[0].attr.n_elems)
        return -1;
    x = (const float *)((unsigned char *)in[0].mem.virt_addr + in[0].mem.offset);
    y = (const float *)((unsigned char *)in[1].mem.virt_addr + in[1].mem.offset);
    o0 = (float *)((unsigned char *)out[0].mem.virt_addr + out[0].mem.offset);
    o1 = (float *)((unsigned char *)out[1].mem.virt_addr + out[1].mem.offset);
    for (uint32_t i = 0; i < in[0].attr.n_elems; i++) {
        o0[i] = x[i] * op_alpha - y[i];
        o1[i] = y[i] * op_alpha - x[i];
    }
    return 0;
}

static int op_destroy(rknn_custom_op_context *op_ctx)
{
    (void)op_ctx;
    return 0;
}

/* ---- inputs ------------------------------------------------------------------- */

/* A little-endian float32 .npy holding exactly `elems` values (NHWC). */
static float *load_npy_f32(const char *path, size_t elems)
{
    size_t size, header;
    unsigned char *raw = load_file(path, &size);
    float *v;

    if (!raw)
        return NULL;
    if (size < 12 || memcmp(raw, "\x93NUMPY", 6) != 0 ||
        (header = 10 + (size_t)(raw[8] | raw[9] << 8)) > size ||
        !strstr((const char *)raw + 10, "'<f4'") || size - header != elems * sizeof(float)) {
        printf("FAIL: %s is not a float32 .npy of %lu values\n", path, (unsigned long)elems);
        failures++;
        free(raw);
        return NULL;
    }
    v = (float *)malloc(elems * sizeof(float));
    if (v)
        memcpy(v, raw + header, elems * sizeof(float));
    free(raw);
    return v;
}

/* ---- the client -------------------------------------------------------------- */

typedef enum { MID, DUAL, YOLO } model_kind;

typedef struct {
    model_kind kind;
    rknn_input_output_num io;
    rknn_tensor_attr in_attr[MAX_IO], out_attr[MAX_IO];
    void *in_buf[MAX_IO];
    size_t in_size[MAX_IO];
    rknn_tensor_type in_type;
    float *reference; /* MID: float32 NCHW of output 0 */
    size_t ref_bytes;
    float *x, *y;         /* DUAL: float32 NHWC inputs 0 and 1 */
    float *first[MAX_IO]; /* YOLO: the first run's outputs */
    int expect_class;     /* YOLO: the COCO class of the picture */
} client;

static void print_attr(const char *what, const rknn_tensor_attr *a)
{
    printf("  %s index=%u, name=%s, n_dims=%u, dims=[%u, %u, %u, %u], n_elems=%u, size=%u, "
           "fmt=%s, type=%s, qnt_type=%s, zp=%d, scale=%f\n",
           what, a->index, a->name, a->n_dims, a->dims[0], a->dims[1], a->dims[2], a->dims[3],
           a->n_elems, a->size, get_format_string(a->fmt), get_type_string(a->type),
           get_qnt_type_string(a->qnt_type), a->zp, (double)a->scale);
}

static int query_io(rknn_context ctx, client *c)
{
    int ret = rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &c->io, sizeof c->io);

    EXPECT(ret == RKNN_SUCC, "rknn_query(IN_OUT_NUM) returned %d", ret);
    if (ret != RKNN_SUCC)
        return -1;
    uint32_t n_in = c->kind == YOLO ? 1u : 2u;
    uint32_t n_out = c->kind == MID ? 1u : c->kind == DUAL ? 2u : 6u;

    printf("model input num: %u, output num: %u\n", c->io.n_input, c->io.n_output);
    EXPECT(c->io.n_input == n_in, "%u inputs", c->io.n_input);
    EXPECT(c->io.n_output == n_out, "%u outputs", c->io.n_output);
    if (c->io.n_input != n_in || c->io.n_output != n_out)
        return -1;
    for (uint32_t i = 0; i < c->io.n_input; i++) {
        memset(&c->in_attr[i], 0, sizeof c->in_attr[i]);
        c->in_attr[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &c->in_attr[i], sizeof c->in_attr[i]);
        EXPECT(ret == RKNN_SUCC, "rknn_query(INPUT_ATTR %u) returned %d", i, ret);
        print_attr("input", &c->in_attr[i]);
    }
    for (uint32_t i = 0; i < c->io.n_output; i++) {
        memset(&c->out_attr[i], 0, sizeof c->out_attr[i]);
        c->out_attr[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &c->out_attr[i], sizeof c->out_attr[i]);
        EXPECT(ret == RKNN_SUCC, "rknn_query(OUTPUT_ATTR %u) returned %d", i, ret);
        print_attr("output", &c->out_attr[i]);
    }
    return failures ? -1 : 0;
}

/* The input buffers the vendor demos hand to rknn_inputs_set: uint8 NHWC
 * pixels for multiple_input_demo (matched to the inputs by channel count, as
 * in tests/tools/onnx_ref.py), float32 NHWC for dual_residual_custom. */
static int prepare_inputs(client *c, const char *data_dir)
{
    char path[1024];

    if (c->kind == YOLO) { /* data_dir is the picture */
        const rknn_tensor_attr *a = &c->in_attr[0];
        c->in_buf[0] = load_file(data_dir, &c->in_size[0]);
        EXPECT(a->n_dims == 4 && c->in_size[0] == (size_t)a->dims[1] * a->dims[2] * a->dims[3],
               "%s: %lu bytes for a %u x %u x %u input", data_dir, (unsigned long)c->in_size[0],
               a->dims[1], a->dims[2], a->dims[3]);
        c->in_type = RKNN_TENSOR_UINT8;
        return c->in_buf[0] && !failures ? 0 : -1;
    }
    for (uint32_t i = 0; i < 2; i++) {
        const rknn_tensor_attr *a = &c->in_attr[i];
        EXPECT(a->n_dims == 4 && a->fmt == RKNN_TENSOR_NHWC, "input %u: %u dims, %s", i, a->n_dims,
               get_format_string(a->fmt));
        if (a->n_dims != 4)
            return -1;
        if (c->kind == MID) {
            const char *file = a->dims[3] == 1   ? "input1.bin"
                               : a->dims[3] == 3 ? "input2.bin"
                                                 : NULL;
            EXPECT(file != NULL, "input %u has %u channels", i, a->dims[3]);
            if (!file)
                return -1;
            snprintf(path, sizeof path, "%s/%s", data_dir, file);
            c->in_buf[i] = load_file(path, &c->in_size[i]);
            if (!c->in_buf[i])
                return -1;
            EXPECT(c->in_size[i] == (size_t)a->dims[1] * a->dims[2] * a->dims[3], "%s: %lu bytes",
                   path, (unsigned long)c->in_size[i]);
        } else {
            size_t elems = (size_t)a->dims[1] * a->dims[2] * a->dims[3];
            snprintf(path, sizeof path, "%s/input_%u_nhwc.npy", data_dir, i);
            c->in_buf[i] = load_npy_f32(path, elems);
            if (!c->in_buf[i])
                return -1;
            c->in_size[i] = elems * sizeof(float);
        }
    }
    c->in_type = c->kind == MID ? RKNN_TENSOR_UINT8 : RKNN_TENSOR_FLOAT32;
    if (c->kind == DUAL) {
        c->x = (float *)c->in_buf[0];
        c->y = (float *)c->in_buf[1];
    }
    return failures ? -1 : 0;
}

static int set_inputs(rknn_context ctx, client *c)
{
    rknn_input inputs[2];
    int ret;

    memset(inputs, 0, sizeof inputs);
    for (uint32_t i = 0; i < c->io.n_input; i++) {
        inputs[i].index = i;
        inputs[i].type = c->in_type;
        inputs[i].size = (uint32_t)c->in_size[i];
        inputs[i].fmt = RKNN_TENSOR_NHWC;
        inputs[i].buf = c->in_buf[i];
    }
    ret = rknn_inputs_set(ctx, c->io.n_input, inputs);
    EXPECT(ret == RKNN_SUCC, "rknn_inputs_set returned %d", ret);
    return ret;
}

/* Element (n=0, ch, h, w) of a float output in the layout its attribute names. */
static float out_at(const rknn_tensor_attr *a, const float *o, uint32_t ch, uint32_t h, uint32_t w)
{
    if (a->fmt == RKNN_TENSOR_NHWC)
        return o[((size_t)h * a->dims[2] + w) * a->dims[3] + ch];
    return o[((size_t)ch * a->dims[2] + h) * a->dims[3] + w];
}

/* multiple_input_demo: the int8 output, dequantised by the runtime, within one
 * quantisation step of the float reference (clamped to the int8 range), plus
 * half a step for the reference's own rounding. */
static double check_mid(const client *c, const float *o)
{
    const rknn_tensor_attr *a = &c->out_attr[0];
    uint32_t C = a->fmt == RKNN_TENSOR_NHWC ? a->dims[3] : a->dims[1];
    uint32_t H = a->dims[a->fmt == RKNN_TENSOR_NHWC ? 1 : 2];
    uint32_t W = a->dims[a->fmt == RKNN_TENSOR_NHWC ? 2 : 3];
    double lo = (-128 - a->zp) * (double)a->scale, hi = (127 - a->zp) * (double)a->scale;
    double worst = 0;

    if (c->ref_bytes != (size_t)C * H * W * sizeof(float)) {
        printf("FAIL: the reference has %lu bytes, the output %u elements\n",
               (unsigned long)c->ref_bytes, C * H * W);
        return 1e9; /* fails the caller's check */
    }
    for (uint32_t ch = 0; ch < C; ch++)
        for (uint32_t h = 0; h < H; h++)
            for (uint32_t w = 0; w < W; w++) {
                double ref = c->reference[((size_t)ch * H + h) * W + w];
                double e;
                ref = ref < lo ? lo : ref > hi ? hi : ref;
                e = fabs(out_at(a, o, ch, h, w) - ref) / (double)a->scale;
                worst = e > worst ? e : worst;
            }
    return worst; /* in quantisation steps */
}

/* dual_residual_custom: both outputs against the formula on the float inputs
 * (NHWC), in absolute units; the NPU part is float16. */
static double check_dual(const client *c, uint32_t idx, const float *o)
{
    const rknn_tensor_attr *a = &c->out_attr[idx];
    uint32_t C = a->fmt == RKNN_TENSOR_NHWC ? a->dims[3] : a->dims[1];
    uint32_t H = a->dims[a->fmt == RKNN_TENSOR_NHWC ? 1 : 2];
    uint32_t W = a->dims[a->fmt == RKNN_TENSOR_NHWC ? 2 : 3];
    double worst = 0;

    for (uint32_t ch = 0; ch < C; ch++)
        for (uint32_t h = 0; h < H; h++)
            for (uint32_t w = 0; w < W; w++) {
                size_t p = ((size_t)h * W + w) * C + ch; /* NHWC input element */
                double x = c->x[p], y = c->y[p];
                double ref = idx == 0 ? x * 0.5 - y : y * 0.5 - x;
                double e = fabs(out_at(a, o, ch, h, w) - ref);
                worst = e > worst ? e : worst;
            }
    return worst;
}

/* The highest class score of a run's class outputs (80 channels). */
typedef struct {
    float score;
    int cls;
} yolo_best;

/* yolov8n, output i: the first run's bits repeat; class scores go into best
 * (run_once judges it: the picture's class, above 0.8). */
static void check_yolo(client *c, int run, uint32_t i, const float *o, yolo_best *best)
{
    const rknn_tensor_attr *a = &c->out_attr[i];

    if (!c->first[i]) {
        c->first[i] = (float *)malloc(a->n_elems * sizeof(float));
        if (c->first[i])
            memcpy(c->first[i], o, a->n_elems * sizeof(float));
    } else {
        EXPECT(memcmp(c->first[i], o, a->n_elems * sizeof(float)) == 0,
               "run %d: output %u differs from the first run's", run, i);
    }
    if (a->dims[1] == YOLO_CLASSES && a->fmt == RKNN_TENSOR_NCHW)
        for (uint32_t ch = 0; ch < YOLO_CLASSES; ch++)
            for (uint32_t p = 0; p < a->dims[2] * a->dims[3]; p++)
                if (o[(size_t)ch * a->dims[2] * a->dims[3] + p] > best->score) {
                    best->score = o[(size_t)ch * a->dims[2] * a->dims[3] + p];
                    best->cls = (int)ch;
                }
}

static void run_once(rknn_context ctx, client *c, int run)
{
    rknn_output outputs[MAX_IO];
    yolo_best best = {0.0f, -1};
    int ret;

    if (set_inputs(ctx, c) != RKNN_SUCC)
        return;
    ret = rknn_run(ctx, NULL);
    EXPECT(ret == RKNN_SUCC, "run %d: rknn_run returned %d", run, ret);
    if (ret != RKNN_SUCC)
        return;
    memset(outputs, 0, sizeof outputs);
    for (uint32_t i = 0; i < c->io.n_output; i++) {
        outputs[i].index = i;
        outputs[i].want_float = 1;
    }
    ret = rknn_outputs_get(ctx, c->io.n_output, outputs, NULL);
    EXPECT(ret == RKNN_SUCC, "run %d: rknn_outputs_get returned %d", run, ret);
    if (ret != RKNN_SUCC)
        return;
    for (uint32_t i = 0; i < c->io.n_output; i++) {
        EXPECT(outputs[i].buf && outputs[i].size == c->out_attr[i].n_elems * sizeof(float),
               "run %d: output %u: %u bytes for %u elements", run, i, outputs[i].size,
               c->out_attr[i].n_elems);
        if (!outputs[i].buf || outputs[i].size != c->out_attr[i].n_elems * sizeof(float))
            continue;
        if (c->kind == YOLO) {
            check_yolo(c, run, i, (const float *)outputs[i].buf, &best);
        } else if (c->kind == MID) {
            double steps = check_mid(c, (const float *)outputs[i].buf);
            printf("run %d: output %u: max |error| %.3f quantisation steps against onnx_ref.py\n",
                   run, i, steps);
            EXPECT(steps <= 1.5, "run %d: %.3f steps", run, steps);
        } else {
            double err = check_dual(c, i, (const float *)outputs[i].buf);
            printf("run %d: output %u: max |error| %.5f against the cstDualResidual formula\n", run,
                   i, err);
            EXPECT(err <= 4e-3, "run %d: output %u: max |error| %.5f", run, i, err);
        }
    }
    if (c->kind == YOLO) { /* the picture's class, judged over all outputs */
        printf("run %d: best class score %.3f for class %d\n", run, (double)best.score, best.cls);
        EXPECT(best.cls == c->expect_class && best.score > 0.8f, "run %d: class %d score %.3f", run,
               best.cls, (double)best.score);
    }
    ret = rknn_outputs_release(ctx, c->io.n_output, outputs);
    EXPECT(ret == RKNN_SUCC, "run %d: rknn_outputs_release returned %d", run, ret);
}

int main(int argc, char **argv)
{
    client c;
    rknn_custom_op op; /* rknn_custom_op.h: valid until rknn_destroy, as in the vendor demo */
    rknn_context ctx = 0;
    rknn_sdk_version version;
    unsigned char *model, *garbage[GARBAGE_BUFFERS];
    size_t model_size;
    int ret;

    setvbuf(stdout, NULL, _IONBF, 0); /* in order with the sanitizers' reports */
    memset(&c, 0, sizeof c);
    if (argc == 5 && strcmp(argv[2], "multiple_input_demo") == 0) {
        c.kind = MID;
        c.reference = (float *)load_file(argv[4], &c.ref_bytes);
        if (!c.reference)
            return 1;
    } else if (argc == 4 && strcmp(argv[2], "dual_residual_custom") == 0) {
        c.kind = DUAL;
    } else if (argc == 5 && strcmp(argv[2], "yolov8n") == 0) {
        c.kind = YOLO;
        c.expect_class = atoi(argv[4]);
    } else {
        printf("usage: %s MODEL.rknn multiple_input_demo DATA_DIR REFERENCE.f32\n"
               "       %s MODEL.rknn dual_residual_custom DATA_DIR\n"
               "       %s MODEL.rknn yolov8n PICTURE.bin CLASS\n",
               argv[0], argv[0], argv[0]);
        return 2;
    }

    /* As the vendor examples do: the model in a heap buffer, freed after init. */
    model = load_file(argv[1], &model_size);
    if (!model) {
        free(c.reference);
        return 1;
    }
    ret = rknn_init(&ctx, model, (uint32_t)model_size, 0, NULL);
    free(model);
    if (ret < 0) {
        printf("FAIL: rknn_init(%s) returned %d\n", argv[1], ret);
        free(c.reference);
        return 1;
    }
    /* The next allocations of that size get a garbage pattern (without ASan
     * they are likely the very memory the model was in). */
    for (int i = 0; i < GARBAGE_BUFFERS; i++) {
        garbage[i] = (unsigned char *)malloc(model_size);
        if (garbage[i])
            memset(garbage[i], 0xA5 ^ i, model_size);
    }

    ret = rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &version, sizeof version);
    EXPECT(ret == RKNN_SUCC, "rknn_query(SDK_VERSION) returned %d", ret);
    if (ret == RKNN_SUCC)
        printf("sdk version: %s driver version: %s\n", version.api_version, version.drv_version);
    if (query_io(ctx, &c) == 0 && prepare_inputs(&c, argv[3]) == 0) {
        if (c.kind == DUAL) {
            memset(&op, 0, sizeof op);
            op.version = 1;
            op.target = RKNN_TARGET_TYPE_CPU;
            strncpy(op.op_type, "cstDualResidual", RKNN_MAX_NAME_LEN - 1);
            op.init = op_init;
            op.prepare = op_prepare;
            op.compute = op_compute;
            op.destroy = op_destroy;
            ret = rknn_register_custom_ops(ctx, &op, 1);
            EXPECT(ret == RKNN_SUCC, "rknn_register_custom_ops returned %d", ret);
            EXPECT(op_alpha == 0.5f, "alpha %f from the model", (double)op_alpha);
        }
        /* the detector is 1,000 times the toy models' work: two runs show repeatability */
        for (int run = 0; run < (c.kind == YOLO ? 2 : RUNS) && !failures; run++)
            run_once(ctx, &c, run);
    }
    ret = rknn_destroy(ctx);
    EXPECT(ret == RKNN_SUCC, "rknn_destroy returned %d", ret);

    for (int i = 0; i < GARBAGE_BUFFERS; i++)
        free(garbage[i]);
    free(c.in_buf[0]);
    free(c.in_buf[1]);
    for (int i = 0; i < MAX_IO; i++)
        free(c.first[i]);
    free(c.reference);
    if (failures) {
        printf("vendor_client: %d failure(s)\n", failures);
        return 1;
    }
    printf("vendor_client: OK\n");
    return 0;
}
