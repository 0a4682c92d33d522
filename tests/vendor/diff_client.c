/*
 * diff_client.c - ask a runtime everything a vendor-API user can ask of a
 * model, and write the answers down (diff_client.h), so that Rockchip's
 * runtime and rknpu-bm can be compared answer by answer
 * (scripts/vendor-diff.sh, docs/testing.md).
 *
 *   diff_client OUTDIR MODEL.rknn [--input FILE]... [--custom-op] [--light] [--core-mask M]
 *   diff_client OUTDIR --matmul ci|full
 *
 * For a model, in this order (areas in brackets):
 *   [queries]  every rknn_query command after rknn_init, with in-range and
 *              out-of-range indexes and a short size;
 *   [inputs]   rknn_inputs_set with every type (uint8, int8, float16,
 *              float32) and layout (NHWC, NCHW), and pass-through: the
 *              return code, then a run whose submission carries the bytes
 *              the runtime left in the NPU's input buffers (the stand-in
 *              records it without executing: only the inputs matter);
 *   [outputs]  the real inputs (--input: raw .bin = uint8 NHWC, or .npy
 *              uint8/float32 NHWC), rknn_run, rknn_outputs_get with
 *              want_float 0 and 1 and a preallocated float buffer; the
 *              queries again after the run; zero-copy with native
 *              attributes (inputs converted here from the real inputs),
 *              outputs bound natively, as NCHW of the model's type and
 *              float32, and in the native NHWC layout; rknn_dup_context
 *              run after its source is destroyed;
 *   [memory]   the runtime's DMA bytes after each step.
 * --light: zero-copy with native output bindings only and no
 * rknn_dup_context run (for the real networks in CI, whose every run the
 * vendor side emulates instruction by instruction).
 * --core-mask M: instead, one run with rknn_set_core_mask(M) and its
 * outputs (a process of its own: one vendor runtime crashes on a mask).
 * --custom-op: register cstDualResidual (out0 = x*alpha - y,
 * out1 = y*alpha - x; shared/models/README.md) before running.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff_client.h"

#define MAX_IO    16
#define MAX_FILES 8

/* ---- report ------------------------------------------------------------------ */

static FILE *report_file;
static char blob_dir[4096];
static unsigned blob_count;

void report_open(const char *outdir)
{
    char path[4200];

    mkdir(outdir, 0777);
    snprintf(blob_dir, sizeof blob_dir, "%s/blobs", outdir);
    mkdir(blob_dir, 0777);
    snprintf(path, sizeof path, "%s/report.tsv", outdir);
    remove(path);
    /* appended: child processes (isolated steps) write to it too */
    report_file = fopen(path, "a");
    if (!report_file) {
        fprintf(stderr, "diff_client: cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

void report_close(void)
{
    fclose(report_file);
}

void report(const char *area, const char *key, const char *fmt, ...)
{
    va_list ap;

    fprintf(report_file, "%s\t%s\t", area, key);
    va_start(ap, fmt);
    vfprintf(report_file, fmt, ap);
    va_end(ap);
    fputc('\n', report_file);
    fflush(report_file); /* a crash later leaves every answer so far */
}

void report_blob(const char *area, const char *key, const void *data, size_t size)
{
    char path[4200];
    FILE *f;

    struct stat st;

    /* the next free number: an isolated child's blobs are not counted in
     * its parent, whose next blob would otherwise overwrite the child's */
    do
        snprintf(path, sizeof path, "%s/%u.bin", blob_dir, blob_count);
    while (stat(path, &st) == 0 && ++blob_count);
    f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size)) {
        fprintf(stderr, "diff_client: cannot write %s\n", path);
        exit(2);
    }
    fclose(f);
    report(area, key, "blob %u.bin %lu", blob_count++, (unsigned long)size);
}

void report_ret(const char *area, const char *key, int ret)
{
    report(area, key, "ret %d", ret);
}

void mark(const char *key)
{
    const char *path = getenv("RKNPU_SUBMIT_LOG");
    FILE *f;

    if (!path || !*path)
        return;
    f = fopen(path, "a");
    if (f) {
        fprintf(f, "{\"mark\":\"%s\"}\n", key);
        fclose(f);
    }
}

/* Run fn(arg) in a child process, for steps a runtime may not survive
 * (Rockchip's runtime crashes on some): the child's answers are reported
 * as they come; a crash is reported under key. The parent's context is
 * untouched by what the child did. */
void isolated(const char *area, const char *key, void (*fn)(void *), void *arg)
{
    pid_t pid;
    int status;

    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        fn(arg);
        fflush(NULL);
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        report(area, key, "fork failed");
    else if (WIFSIGNALED(status))
        report(area, key, "crash signal %d", WTERMSIG(status));
}

/* ---- names --------------------------------------------------------------------- */

static const char *type_name(rknn_tensor_type t)
{
    switch (t) {
    case RKNN_TENSOR_FLOAT32: return "float32";
    case RKNN_TENSOR_FLOAT16: return "float16";
    case RKNN_TENSOR_INT8: return "int8";
    case RKNN_TENSOR_UINT8: return "uint8";
    default: return "other";
    }
}

static const char *fmt_name(rknn_tensor_format f)
{
    switch (f) {
    case RKNN_TENSOR_NCHW: return "NCHW";
    case RKNN_TENSOR_NHWC: return "NHWC";
    case RKNN_TENSOR_NC1HWC2: return "NC1HWC2";
    default: return "UNDEFINED";
    }
}

/* ---- queries ------------------------------------------------------------------- */

/* rknn_query with arguments a runtime may not survive (an index out of
 * range, a short size), in a child process: its return code, or the signal
 * that killed it. Rockchip's runtime crashes on some of them. */
static void probe_query(rknn_context ctx, rknn_query_cmd cmd, uint32_t index, uint32_t size,
                        const char *key)
{
    pid_t pid;
    int status;

    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        uint8_t info[4096];
        memset(info, 0, sizeof info);
        memcpy(info, &index, sizeof index); /* every indexed info starts with its index */
        _exit(rknn_query(ctx, cmd, info, size) & 0xFF);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        report("queries", key, "fork failed");
        return;
    }
    if (WIFSIGNALED(status))
        report("queries", key, "crash signal %d", WTERMSIG(status));
    else
        report_ret("queries", key, (int)(int8_t)WEXITSTATUS(status));
}

static void report_attr(const char *area, const char *key, int ret, const rknn_tensor_attr *a)
{
    char dims[160] = "";
    size_t at = 0;

    report_ret(area, key, ret);
    if (ret != RKNN_SUCC)
        return;
    for (uint32_t d = 0; d < a->n_dims && d < RKNN_MAX_DIMS; d++)
        at += (size_t)snprintf(dims + at, sizeof dims - at, "%s%u", d ? "," : "", a->dims[d]);
    report(area, key,
           "n_dims %u dims [%s] name '%.*s' n_elems %u size %u fmt %s type %s qnt_type %d fl %d "
           "zp %d scale %.9g w_stride %u size_with_stride %u pass_through %u h_stride %u",
           a->n_dims, dims, RKNN_MAX_NAME_LEN, a->name, a->n_elems, a->size, fmt_name(a->fmt),
           type_name(a->type), (int)a->qnt_type, a->fl, a->zp, (double)a->scale, a->w_stride,
           a->size_with_stride, a->pass_through, a->h_stride);
}

static void query_attrs(rknn_context ctx, const char *phase, const char *name, rknn_query_cmd cmd,
                        uint32_t count)
{
    char key[160];

    for (uint32_t i = 0; i < count; i++) {
        rknn_tensor_attr a;
        int ret;
        memset(&a, 0, sizeof a);
        a.index = i;
        ret = rknn_query(ctx, cmd, &a, sizeof a);
        snprintf(key, sizeof key, "%s/%s[%u]", phase, name, i);
        report_attr("queries", key, ret, &a);
    }
    snprintf(key, sizeof key, "%s/%s[%u]", phase, name, count);
    probe_query(ctx, cmd, count, sizeof(rknn_tensor_attr), key);
    snprintf(key, sizeof key, "%s/%s/short-size", phase, name);
    probe_query(ctx, cmd, 0, sizeof(rknn_tensor_attr) - 4, key);
}

static void query_ranges(rknn_context ctx, const char *phase, uint32_t n_input)
{
    char key[160];

    for (uint32_t i = 0; i < n_input; i++) {
        rknn_input_range r;
        int ret;
        memset(&r, 0, sizeof r);
        r.index = i;
        ret = rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &r, sizeof r);
        snprintf(key, sizeof key, "%s/INPUT_DYNAMIC_RANGE[%u]", phase, i);
        report_ret("queries", key, ret);
        if (ret == RKNN_SUCC)
            report("queries", key, "shape_number %u fmt %s name '%.*s' n_dims %u", r.shape_number,
                   fmt_name(r.fmt), RKNN_MAX_NAME_LEN, r.name, r.n_dims);
    }
}

static void query_all(rknn_context ctx, const char *phase, rknn_input_output_num *io_out)
{
    char key[160];
    rknn_input_output_num io;
    rknn_perf_detail detail;
    rknn_perf_run perf;
    rknn_sdk_version ver;
    rknn_mem_size mem;
    rknn_custom_string custom;
    int ret;

    memset(&io, 0, sizeof io);
    ret = rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io);
    snprintf(key, sizeof key, "%s/IN_OUT_NUM", phase);
    report_ret("queries", key, ret);
    report("queries", key, "n_input %u n_output %u", io.n_input, io.n_output);
    if (io_out)
        *io_out = io;
    snprintf(key, sizeof key, "%s/IN_OUT_NUM/short-size", phase);
    probe_query(ctx, RKNN_QUERY_IN_OUT_NUM, 0, sizeof io - 1, key);

    query_attrs(ctx, phase, "INPUT_ATTR", RKNN_QUERY_INPUT_ATTR, io.n_input);
    query_attrs(ctx, phase, "OUTPUT_ATTR", RKNN_QUERY_OUTPUT_ATTR, io.n_output);
    query_attrs(ctx, phase, "NATIVE_INPUT_ATTR", RKNN_QUERY_NATIVE_INPUT_ATTR, io.n_input);
    query_attrs(ctx, phase, "NATIVE_OUTPUT_ATTR", RKNN_QUERY_NATIVE_OUTPUT_ATTR, io.n_output);
    query_attrs(ctx, phase, "NATIVE_NHWC_INPUT_ATTR", RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR,
                io.n_input);
    query_attrs(ctx, phase, "NATIVE_NHWC_OUTPUT_ATTR", RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR,
                io.n_output);
    query_attrs(ctx, phase, "CURRENT_INPUT_ATTR", RKNN_QUERY_CURRENT_INPUT_ATTR, io.n_input);
    query_attrs(ctx, phase, "CURRENT_OUTPUT_ATTR", RKNN_QUERY_CURRENT_OUTPUT_ATTR, io.n_output);
    query_attrs(ctx, phase, "CURRENT_NATIVE_INPUT_ATTR", RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR,
                io.n_input);
    query_attrs(ctx, phase, "CURRENT_NATIVE_OUTPUT_ATTR", RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR,
                io.n_output);
    query_ranges(ctx, phase, io.n_input);

    /* Timings and texts a runtime makes up itself: compared for presence. */
    memset(&detail, 0, sizeof detail);
    ret = rknn_query(ctx, RKNN_QUERY_PERF_DETAIL, &detail, sizeof detail);
    snprintf(key, sizeof key, "%s/PERF_DETAIL", phase);
    report_ret("queries", key, ret);
    if (ret == RKNN_SUCC)
        report("queries", key, "perf_data %s data_len %s", detail.perf_data ? "set" : "NULL",
               detail.data_len ? "non-zero" : "0");
    memset(&perf, 0, sizeof perf);
    ret = rknn_query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof perf);
    snprintf(key, sizeof key, "%s/PERF_RUN", phase);
    report_ret("queries", key, ret);
    if (ret == RKNN_SUCC)
        report("queries", key, "run_duration %s",
               perf.run_duration > 0    ? "positive"
               : perf.run_duration == 0 ? "0"
                                        : "negative");
    memset(&ver, 0, sizeof ver);
    ret = rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &ver, sizeof ver);
    snprintf(key, sizeof key, "%s/SDK_VERSION", phase);
    report_ret("queries", key, ret);
    if (ret == RKNN_SUCC)
        report("queries", key, "api_version '%.255s' drv_version '%.255s'", ver.api_version,
               ver.drv_version);
    memset(&mem, 0, sizeof mem);
    ret = rknn_query(ctx, RKNN_QUERY_MEM_SIZE, &mem, sizeof mem);
    snprintf(key, sizeof key, "%s/MEM_SIZE", phase);
    report_ret("queries", key, ret);
    if (ret == RKNN_SUCC)
        report("queries", key,
               "total_weight_size %u total_internal_size %u total_dma_allocated_size %llu "
               "total_sram_size %u free_sram_size %u",
               mem.total_weight_size, mem.total_internal_size,
               (unsigned long long)mem.total_dma_allocated_size, mem.total_sram_size,
               mem.free_sram_size);
    memset(&custom, 0, sizeof custom);
    ret = rknn_query(ctx, RKNN_QUERY_CUSTOM_STRING, &custom, sizeof custom);
    snprintf(key, sizeof key, "%s/CUSTOM_STRING", phase);
    report_ret("queries", key, ret);
    if (ret == RKNN_SUCC)
        report("queries", key, "string '%.1023s'", custom.string);
    snprintf(key, sizeof key, "%s/DEVICE_MEM_INFO", phase);
    probe_query(ctx, RKNN_QUERY_DEVICE_MEM_INFO, 0, 256, key);
    snprintf(key, sizeof key, "%s/unknown-command", phase);
    probe_query(ctx, RKNN_QUERY_CMD_MAX, 0, 256, key);
}

/* ---- tensors ------------------------------------------------------------------- */

/* A tensor's logical N, C, H, W from its attribute (4-D NHWC or NCHW; anything
 * else as 1 x 1 x 1 x n_elems). */
typedef struct {
    uint32_t n, c, h, w;
} shape4;

static shape4 logical_shape(const rknn_tensor_attr *a)
{
    if (a->n_dims == 4 && a->fmt == RKNN_TENSOR_NHWC)
        return (shape4){a->dims[0], a->dims[3], a->dims[1], a->dims[2]};
    if (a->n_dims == 4)
        return (shape4){a->dims[0], a->dims[1], a->dims[2], a->dims[3]};
    return (shape4){1, 1, 1, a->n_elems};
}

static size_t elem_size(rknn_tensor_type t)
{
    return t == RKNN_TENSOR_FLOAT32 ? 4 : t == RKNN_TENSOR_FLOAT16 ? 2 : 1;
}

/* Offset (in elements) of logical (n, c, h, w) in a buffer of layout fmt. */
static size_t layout_offset(rknn_tensor_format fmt, shape4 s, uint32_t n, uint32_t c, uint32_t h,
                            uint32_t w)
{
    if (fmt == RKNN_TENSOR_NHWC)
        return (((size_t)n * s.h + h) * s.w + w) * s.c + c;
    return (((size_t)n * s.c + c) * s.h + h) * s.w + w;
}

static void put_elem(uint8_t *buf, size_t at, rknn_tensor_type t, float v)
{
    switch (t) {
    case RKNN_TENSOR_FLOAT32: memcpy(buf + 4 * at, &v, 4); break;
    case RKNN_TENSOR_FLOAT16: {
        uint16_t h = half_from_float(v);
        memcpy(buf + 2 * at, &h, 2);
        break;
    }
    case RKNN_TENSOR_INT8: buf[at] = (uint8_t)(int8_t)(v < -128 ? -128 : v > 127 ? 127 : v); break;
    default: buf[at] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); break;
    }
}

/* The synthetic input of the [inputs] area: element k (NCHW order) of an
 * input whose attribute is `a`, as a value of type t. Integers walk the whole
 * type range; floats walk the input's range (the quantised range of an
 * affine int8/uint8 input, else 0..255 as pixels) with fractions of a
 * quantisation step 0, 1/4, 1/2 and 3/4, so the runtimes' rounding shows. */
static float synthetic(const rknn_tensor_attr *a, rknn_tensor_type t, size_t k, uint32_t c)
{
    uint32_t u = (uint32_t)(k * 7u + c * 13u) & 0xFFu;
    float frac = 0.25f * (float)(k & 3u);

    if (t == RKNN_TENSOR_UINT8)
        return (float)u;
    /* int8 on a pattern of its own: were it uint8's minus 128, a runtime
     * that leaves its input buffer unwritten would show the bytes an
     * earlier uint8 case left there, which equal what int8 x = pixel
     * x + 128 gives (Rockchip's does so for float16 inputs, compat.md §2) */
    if (t == RKNN_TENSOR_INT8)
        return (float)((k * 11u + c * 5u + 3u) & 0xFFu) - 128.0f;
    if ((a->type == RKNN_TENSOR_INT8 || a->type == RKNN_TENSOR_UINT8) &&
        a->qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC && a->scale > 0) {
        int lo = a->type == RKNN_TENSOR_INT8 ? -128 : 0;
        return ((float)((int)u + lo - a->zp) + frac) * a->scale;
    }
    return (float)u + frac;
}

static uint8_t *synthetic_input(const rknn_tensor_attr *a, rknn_tensor_type t,
                                rknn_tensor_format fmt, size_t *bytes)
{
    shape4 s = logical_shape(a);
    size_t count = (size_t)s.n * s.c * s.h * s.w;
    uint8_t *buf = calloc(count ? count : 1, elem_size(t));

    *bytes = count * elem_size(t);
    for (uint32_t n = 0; n < s.n; n++)
        for (uint32_t c = 0; c < s.c; c++)
            for (uint32_t h = 0; h < s.h; h++)
                for (uint32_t w = 0; w < s.w; w++) {
                    size_t k = layout_offset(RKNN_TENSOR_NCHW, s, n, c, h, w);
                    put_elem(buf, layout_offset(fmt, s, n, c, h, w), t, synthetic(a, t, k, c));
                }
    return buf;
}

/* ---- the client's state ---------------------------------------------------------- */

typedef struct {
    uint8_t *data;
    size_t bytes;
    rknn_tensor_type type; /* UINT8 or FLOAT32, NHWC */
} real_input;

typedef struct {
    const char *model_path;
    uint8_t *model;
    size_t model_size;
    real_input inputs[MAX_FILES];
    unsigned n_files;
    int custom_op;
    int light;
    rknn_input_output_num io;
    rknn_tensor_attr in_attr[MAX_IO], out_attr[MAX_IO];
} client;

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;

    if (!f) {
        fprintf(stderr, "diff_client: cannot open %s\n", path);
        exit(2);
    }
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *size = (size_t)n;
    }
    fclose(f);
    if (!buf) {
        fprintf(stderr, "diff_client: cannot read %s\n", path);
        exit(2);
    }
    return buf;
}

/* A raw .bin (uint8 NHWC) or a .npy of uint8 or float32 in NHWC order. */
static void load_input(const char *path, real_input *in)
{
    size_t size, header;
    uint8_t *raw = read_file(path, &size);

    in->type = RKNN_TENSOR_UINT8;
    if (size < 10 || memcmp(raw, "\x93NUMPY", 6) != 0) {
        in->data = raw;
        in->bytes = size;
        return;
    }
    header = 10 + (size_t)(raw[8] | raw[9] << 8);
    if (header > size ||
        (!strstr((char *)raw + 10, "'|u1'") && !strstr((char *)raw + 10, "'<f4'"))) {
        fprintf(stderr, "diff_client: %s: not a uint8 or float32 .npy\n", path);
        exit(2);
    }
    if (strstr((char *)raw + 10, "'<f4'"))
        in->type = RKNN_TENSOR_FLOAT32;
    in->bytes = size - header;
    in->data = malloc(in->bytes);
    memcpy(in->data, raw + header, in->bytes);
    free(raw);
}

static void report_memory(const char *key)
{
    report("memory", key, "dma_bytes %llu", (unsigned long long)shim_dma_bytes());
}

/* ---- steps ---------------------------------------------------------------------- */

static int init_context(client *cl, rknn_context *ctx, const char *key)
{
    /* a copy freed right after, as vendor examples do */
    uint8_t *copy = malloc(cl->model_size);
    int ret;

    memcpy(copy, cl->model, cl->model_size);
    ret = rknn_init(ctx, copy, (uint32_t)cl->model_size, 0, NULL);
    memset(copy, 0xA5, cl->model_size);
    free(copy);
    report_ret("outputs", key, ret);
    if (ret == RKNN_SUCC && cl->custom_op) {
        char k[160];
        snprintf(k, sizeof k, "%s/register_custom_ops", key);
        report_ret("outputs", k, client_register_dual_op(*ctx));
    }
    return ret;
}

static void read_attrs(client *cl, rknn_context ctx)
{
    rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &cl->io, sizeof cl->io);
    if (cl->io.n_input > MAX_IO || cl->io.n_output > MAX_IO) {
        fprintf(stderr, "diff_client: more than %d inputs or outputs\n", MAX_IO);
        exit(2);
    }
    for (uint32_t i = 0; i < cl->io.n_input; i++) {
        memset(&cl->in_attr[i], 0, sizeof cl->in_attr[i]);
        cl->in_attr[i].index = i;
        rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &cl->in_attr[i], sizeof cl->in_attr[i]);
    }
    for (uint32_t i = 0; i < cl->io.n_output; i++) {
        memset(&cl->out_attr[i], 0, sizeof cl->out_attr[i]);
        cl->out_attr[i].index = i;
        rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &cl->out_attr[i], sizeof cl->out_attr[i]);
    }
}

static void get_outputs(client *cl, rknn_context ctx, const char *key, int want_float,
                        int prealloc);

/* rknn_inputs_set of every input in one type and layout (or pass-through),
 * then a recorded run that shows what reached the NPU's input buffers. */
static void inputs_case(client *cl, rknn_context ctx, rknn_tensor_type t, rknn_tensor_format fmt,
                        int pass_through)
{
    rknn_input in[MAX_IO];
    char key[160];
    int ret;

    memset(in, 0, sizeof in);
    if (pass_through)
        snprintf(key, sizeof key, "inputs_set/pass_through");
    else
        snprintf(key, sizeof key, "inputs_set/%s/%s", type_name(t), fmt_name(fmt));
    for (uint32_t i = 0; i < cl->io.n_input; i++) {
        size_t bytes;
        in[i].index = i;
        in[i].pass_through = (uint8_t)pass_through;
        in[i].type = t;
        in[i].fmt = fmt;
        if (pass_through) {
            const rknn_tensor_attr *a = &cl->in_attr[i];
            uint32_t size = a->size_with_stride > a->size ? a->size_with_stride : a->size;
            uint8_t *b = malloc(size);
            for (uint32_t k = 0; k < size; k++)
                b[k] = (uint8_t)(k * 29u + 3u);
            in[i].buf = b;
            in[i].size = size;
            in[i].type = a->type;
            in[i].fmt = a->fmt;
        } else {
            in[i].buf = synthetic_input(&cl->in_attr[i], t, fmt, &bytes);
            in[i].size = (uint32_t)bytes;
        }
    }
    ret = rknn_inputs_set(ctx, cl->io.n_input, in);
    report_ret("inputs", key, ret);
    if (ret == RKNN_SUCC) {
        char run_key[320];
        snprintf(run_key, sizeof run_key, "%s/run", key);
        /* DIFF_CLIENT_RUN_INPUTS=TEXT (by hand, not in CI: PP-OCRv4's runs take
         * minutes under qemu-arm): the cases whose key holds TEXT run on the
         * virtual NPU and their float outputs are reported, in blobs of
         * their own (each case is a child process of its own). */
        const char *run = getenv("DIFF_CLIENT_RUN_INPUTS");
        int executed = run && strstr(key, run);
        mark(key);
        shim_record_only(!executed);
        report_ret("inputs", run_key, rknn_run(ctx, NULL));
        shim_record_only(0);
        if (executed) {
            blob_count =
                1000u * (1u + (unsigned)t) + 100u * (unsigned)fmt + 10u * (unsigned)pass_through;
            get_outputs(cl, ctx, run_key, 1, 0);
        }
    }
    for (uint32_t i = 0; i < cl->io.n_input; i++)
        free(in[i].buf);
}

typedef struct {
    client *cl;
    rknn_context ctx;
    rknn_tensor_type type;
    rknn_tensor_format fmt;
    int pass_through;
} inputs_args;

static void inputs_child(void *p)
{
    inputs_args *a = p;

    inputs_case(a->cl, a->ctx, a->type, a->fmt, a->pass_through);
}

static void inputs_area(client *cl, rknn_context ctx)
{
    static const rknn_tensor_type types[] = {RKNN_TENSOR_UINT8, RKNN_TENSOR_INT8,
                                             RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT32};
    static const rknn_tensor_format fmts[] = {RKNN_TENSOR_NHWC, RKNN_TENSOR_NCHW};
    char key[160];

    for (unsigned t = 0; t <= sizeof types / sizeof types[0]; t++)
        for (unsigned f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
            int pt = t == sizeof types / sizeof types[0]; /* last: pass-through */
            inputs_args a = {cl, ctx, pt ? RKNN_TENSOR_UINT8 : types[t], fmts[f], pt};
            if (pt && f > 0)
                break;
            if (pt)
                snprintf(key, sizeof key, "inputs_set/pass_through");
            else
                snprintf(key, sizeof key, "inputs_set/%s/%s", type_name(types[t]),
                         fmt_name(fmts[f]));
            isolated("inputs", key, inputs_child, &a);
        }
}

static int set_real_inputs(client *cl, rknn_context ctx, const char *key)
{
    rknn_input in[MAX_IO];
    int ret;

    memset(in, 0, sizeof in);
    if (cl->n_files != cl->io.n_input) {
        fprintf(stderr, "diff_client: the model has %u inputs, %u --input given\n", cl->io.n_input,
                cl->n_files);
        exit(2);
    }
    for (uint32_t i = 0; i < cl->io.n_input; i++) {
        in[i].index = i;
        in[i].buf = cl->inputs[i].data;
        in[i].size = (uint32_t)cl->inputs[i].bytes;
        in[i].type = cl->inputs[i].type;
        in[i].fmt = RKNN_TENSOR_NHWC;
    }
    ret = rknn_inputs_set(ctx, cl->io.n_input, in);
    report_ret("outputs", key, ret);
    return ret;
}

/* rknn_outputs_get of every output; want_float 0/1, or float into buffers of ours. */
static void get_outputs(client *cl, rknn_context ctx, const char *key, int want_float, int prealloc)
{
    rknn_output out[MAX_IO];
    char k[320];
    int ret;

    memset(out, 0, sizeof out);
    for (uint32_t i = 0; i < cl->io.n_output; i++) {
        out[i].index = i;
        out[i].want_float = (uint8_t)want_float;
        if (prealloc) {
            out[i].is_prealloc = 1;
            out[i].size = cl->out_attr[i].n_elems * 4u;
            out[i].buf = calloc(1, out[i].size);
        }
    }
    ret = rknn_outputs_get(ctx, cl->io.n_output, out, NULL);
    snprintf(k, sizeof k, "%s/outputs_get", key);
    report_ret("outputs", k, ret);
    for (uint32_t i = 0; i < cl->io.n_output && ret == RKNN_SUCC; i++) {
        snprintf(k, sizeof k, "%s/out%u", key, i);
        report_blob("outputs", k, out[i].buf, out[i].size);
    }
    if (prealloc)
        for (uint32_t i = 0; i < cl->io.n_output; i++)
            free(out[i].buf);
    else if (ret == RKNN_SUCC)
        rknn_outputs_release(ctx, cl->io.n_output, out);
}

static int run_marked(rknn_context ctx, const char *area, const char *key)
{
    char k[320];
    int ret;

    mark(key);
    ret = rknn_run(ctx, NULL);
    snprintf(k, sizeof k, "%s/run", key);
    report_ret(area, k, ret);
    return ret;
}

/* ---- zero-copy ------------------------------------------------------------------ */

/* Element e of the real input as a value of the native type: uint8 pixels
 * become int8 by the -128 shift vendor zero-copy examples use, half or float
 * as they are; float inputs are quantised with the native scale. */
static float native_value(const real_input *r, size_t e, const rknn_tensor_attr *na)
{
    float v = r->type == RKNN_TENSOR_FLOAT32 ? ((const float *)r->data)[e] : (float)r->data[e];

    if (na->type == RKNN_TENSOR_INT8 && r->type == RKNN_TENSOR_UINT8)
        return v - 128.0f;
    if ((na->type == RKNN_TENSOR_INT8 || na->type == RKNN_TENSOR_UINT8) && na->scale > 0)
        return roundf(v / na->scale) + (float)na->zp;
    return v;
}

/* The real input (NHWC) written into a buffer of the native attribute's
 * layout (NHWC with w_stride, NC1HWC2, or NCHW); padding stays zero. */
static void fill_native(const real_input *r, const rknn_tensor_attr *logical,
                        const rknn_tensor_attr *na, uint8_t *dst)
{
    shape4 s = logical_shape(logical);
    uint32_t ws = na->w_stride ? na->w_stride : s.w;

    for (uint32_t n = 0; n < s.n; n++)
        for (uint32_t h = 0; h < s.h; h++)
            for (uint32_t w = 0; w < s.w; w++)
                for (uint32_t c = 0; c < s.c; c++) {
                    size_t e = layout_offset(RKNN_TENSOR_NHWC, s, n, c, h, w), at;
                    if (na->fmt == RKNN_TENSOR_NC1HWC2) {
                        uint32_t c2 = na->dims[4], c1 = na->dims[1];
                        at = ((((size_t)n * c1 + c / c2) * s.h + h) * ws + w) * c2 + c % c2;
                    } else if (na->fmt == RKNN_TENSOR_NHWC) {
                        uint32_t cs = na->n_dims == 4 ? na->dims[3] : s.c;
                        at = (((size_t)n * s.h + h) * ws + w) * cs + c;
                    } else {
                        at = (((size_t)n * s.c + c) * s.h + h) * s.w + w;
                    }
                    put_elem(dst, at, na->type, native_value(r, e, na));
                }
}

static rknn_tensor_mem *bind(rknn_context ctx, rknn_tensor_attr *a, uint32_t size, const char *key)
{
    rknn_tensor_mem *m = rknn_create_mem(ctx, size);
    char k[320];

    snprintf(k, sizeof k, "%s/create_mem", key);
    report("outputs", k, "%s", m ? "ok" : "NULL");
    if (!m)
        return NULL;
    memset(m->virt_addr, 0, size);
    snprintf(k, sizeof k, "%s/set_io_mem", key);
    report_ret("outputs", k, rknn_set_io_mem(ctx, m, a));
    return m;
}

/* Outputs bound as `how`: "native", "nchw" (the output attribute),
 * "float32" (NCHW float) or "nhwc" (the native NHWC attribute). */
static void zero_copy_outputs(client *cl, rknn_context ctx, const char *how, rknn_tensor_mem **mems,
                              rknn_tensor_attr *attrs)
{
    char key[200];

    for (uint32_t i = 0; i < cl->io.n_output; i++) {
        rknn_tensor_attr *a = &attrs[i];
        uint32_t size;
        memset(a, 0, sizeof *a);
        a->index = i;
        if (strcmp(how, "native") == 0)
            rknn_query(ctx, RKNN_QUERY_NATIVE_OUTPUT_ATTR, a, sizeof *a);
        else if (strcmp(how, "nhwc") == 0)
            rknn_query(ctx, RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, a, sizeof *a);
        else
            rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, a, sizeof *a);
        if (strcmp(how, "float32") == 0) {
            a->type = RKNN_TENSOR_FLOAT32;
            a->size = a->n_elems * 4u;
            a->size_with_stride = a->size;
        }
        size = a->size_with_stride > a->size ? a->size_with_stride : a->size;
        snprintf(key, sizeof key, "zero_copy/%s/out%u", how, i);
        mems[i] = bind(ctx, a, size, key);
    }
}

static void read_zero_copy_outputs(client *cl, rknn_context ctx, const char *how,
                                   rknn_tensor_mem **mems, const rknn_tensor_attr *attrs)
{
    char key[200];

    for (uint32_t i = 0; i < cl->io.n_output; i++) {
        uint32_t size =
            attrs[i].size_with_stride > attrs[i].size ? attrs[i].size_with_stride : attrs[i].size;
        if (!mems[i])
            continue;
        rknn_mem_sync(ctx, mems[i], RKNN_MEMORY_SYNC_FROM_DEVICE);
        snprintf(key, sizeof key, "zero_copy/%s/out%u", how, i);
        report_blob("outputs", key, mems[i]->virt_addr, size);
        rknn_destroy_mem(ctx, mems[i]);
        mems[i] = NULL;
    }
}

typedef struct {
    client *cl;
    rknn_context ctx;
    const char *how;
    rknn_tensor_mem **mems;
    rknn_tensor_attr *attrs;
} zero_copy_args;

/* One way of binding the outputs, its run and what the outputs hold. */
static void zero_copy_child(void *p)
{
    zero_copy_args *a = p;
    char key[200];

    zero_copy_outputs(a->cl, a->ctx, a->how, a->mems, a->attrs);
    snprintf(key, sizeof key, "zero_copy/%s", a->how);
    if (run_marked(a->ctx, "outputs", key) == RKNN_SUCC)
        read_zero_copy_outputs(a->cl, a->ctx, a->how, a->mems, a->attrs);
}

static void zero_copy_area(client *cl)
{
    static const char *const hows[] = {"native", "nchw", "float32", "nhwc"};
    rknn_tensor_mem *in_mem[MAX_IO], *out_mem[MAX_IO];
    rknn_tensor_attr in_na[MAX_IO], out_a[MAX_IO];
    rknn_context ctx;
    char key[200];

    if (init_context(cl, &ctx, "zero_copy/init") != RKNN_SUCC)
        return;
    for (uint32_t i = 0; i < cl->io.n_input; i++) {
        rknn_tensor_attr *na = &in_na[i];
        memset(na, 0, sizeof *na);
        na->index = i;
        rknn_query(ctx, RKNN_QUERY_NATIVE_INPUT_ATTR, na, sizeof *na);
        snprintf(key, sizeof key, "zero_copy/in%u", i);
        in_mem[i] =
            bind(ctx, na, na->size_with_stride > na->size ? na->size_with_stride : na->size, key);
        if (in_mem[i]) {
            fill_native(&cl->inputs[i], &cl->in_attr[i], na, in_mem[i]->virt_addr);
            rknn_mem_sync(ctx, in_mem[i], RKNN_MEMORY_SYNC_TO_DEVICE);
        }
    }
    report_memory("zero_copy/after_bind_inputs");
    for (unsigned h = 0; h < (cl->light ? 1u : sizeof hows / sizeof hows[0]); h++) {
        zero_copy_args a = {cl, ctx, hows[h], out_mem, out_a};
        snprintf(key, sizeof key, "zero_copy/%s", hows[h]);
        isolated("outputs", key, zero_copy_child, &a);
    }
    for (uint32_t i = 0; i < cl->io.n_input; i++)
        if (in_mem[i])
            rknn_destroy_mem(ctx, in_mem[i]);
    report_ret("outputs", "zero_copy/destroy", rknn_destroy(ctx));
}

/* ---- the whole model ---------------------------------------------------------- */

static void general_area(client *cl, rknn_context ctx)
{
    if (set_real_inputs(cl, ctx, "general/inputs_set") != RKNN_SUCC)
        return;
    if (run_marked(ctx, "outputs", "general") != RKNN_SUCC)
        return;
    report_memory("after_run");
    get_outputs(cl, ctx, "general/want_float0", 0, 0);
    get_outputs(cl, ctx, "general/want_float1", 1, 0);
    get_outputs(cl, ctx, "general/want_float1_prealloc", 1, 1);
    query_all(ctx, "after_run", NULL);
}

static void dup_area(client *cl, rknn_context *ctx)
{
    rknn_context copy = 0;
    int ret = rknn_dup_context(ctx, &copy);

    report_ret("outputs", "dup/dup_context", ret);
    /* right after the dup, like after_init, the vendor holds part of what
     * a run needs (compat.md §2); after its first run, all of it */
    report_memory("after_dup");
    if (ret != RKNN_SUCC)
        return;
    ret = set_real_inputs(cl, copy, "dup/inputs_set");
    if (ret == RKNN_SUCC)
        ret = run_marked(copy, "outputs", "dup");
    report_memory("after_dup_run");
    /* the copy's outputs must outlive its source */
    report_ret("outputs", "dup/destroy_source", rknn_destroy(*ctx));
    *ctx = 0;
    if (ret == RKNN_SUCC)
        get_outputs(cl, copy, "dup/want_float0", 0, 0);
    report_ret("outputs", "dup/destroy_copy", rknn_destroy(copy));
}

static int model_main(client *cl)
{
    rknn_context ctx = 0;

    report("memory", "before_init", "dma_bytes %llu", (unsigned long long)shim_dma_bytes());
    mark("init");
    if (init_context(cl, &ctx, "init") != RKNN_SUCC)
        return 0;
    report_memory("after_init");
    query_all(ctx, "init", &cl->io);
    read_attrs(cl, ctx);
    inputs_area(cl, ctx);
    if (cl->n_files) { /* the parts that need the model's real inputs */
        general_area(cl, ctx);
        zero_copy_area(cl);
        report_memory("after_zero_copy");
        if (!cl->light)
            dup_area(cl, &ctx);
    }
    if (ctx)
        rknn_destroy(ctx);
    report_memory("after_destroy");
    return 0;
}

static int core_mask_main(client *cl, unsigned mask)
{
    rknn_context ctx = 0;
    char key[64];

    snprintf(key, sizeof key, "core_mask%u", mask);
    if (init_context(cl, &ctx, "init") != RKNN_SUCC)
        return 0;
    read_attrs(cl, ctx);
    snprintf(key, sizeof key, "core_mask%u/set_core_mask", mask);
    report_ret("outputs", key, rknn_set_core_mask(ctx, (rknn_core_mask)mask));
    snprintf(key, sizeof key, "core_mask%u/inputs_set", mask);
    if (set_real_inputs(cl, ctx, key) == RKNN_SUCC) {
        snprintf(key, sizeof key, "core_mask%u", mask);
        if (run_marked(ctx, "outputs", key) == RKNN_SUCC) {
            snprintf(key, sizeof key, "core_mask%u/want_float0", mask);
            get_outputs(cl, ctx, key, 0, 0);
        }
    }
    rknn_destroy(ctx);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: diff_client OUTDIR MODEL.rknn [--input FILE]... [--custom-op] "
                    "[--light] [--core-mask M]\n"
                    "       diff_client OUTDIR --matmul ci|full\n");
    exit(2);
}

int main(int argc, char **argv)
{
    client cl;
    long mask = -1;
    int ret;

    if (argc < 3)
        usage();
    report_open(argv[1]);
    report("runtime", "name", "%s", shim_name());
    if (strcmp(argv[2], "--matmul") == 0) {
        if (argc != 4)
            usage();
        ret = matmul_main(argv[3]);
        report("runtime", "finished", "yes");
        report_close();
        return ret;
    }
    memset(&cl, 0, sizeof cl);
    cl.model_path = argv[2];
    cl.model = read_file(cl.model_path, &cl.model_size);
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--input") == 0 && i + 1 < argc && cl.n_files < MAX_FILES)
            load_input(argv[++i], &cl.inputs[cl.n_files++]);
        else if (strcmp(argv[i], "--custom-op") == 0)
            cl.custom_op = 1;
        else if (strcmp(argv[i], "--light") == 0)
            cl.light = 1;
        else if (strcmp(argv[i], "--core-mask") == 0 && i + 1 < argc)
            mask = strtol(argv[++i], NULL, 0);
        else
            usage();
    }
    ret = mask >= 0 ? core_mask_main(&cl, (unsigned)mask) : model_main(&cl);
    report("runtime", "finished", "yes");
    report_close();
    return ret;
}
