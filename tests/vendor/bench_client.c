/*
 * bench_client.c - the CPU time of each vendor-API call a user makes, on one
 * model, for a runtime: one source built for Rockchip's runtime (armhf, run
 * under scripts/vendor-run.sh) and for rknpu-bm (DIFF_CLIENT_RKNPU_BM; armhf
 * too when scripts/bench-vendor.sh compares the two, so both run under the
 * same qemu-arm on the same machine).
 *
 *   bench_client MODEL.rknn REPS [--custom-op]
 *
 * The virtual NPU runs dry (shim_dry_run: it checks and completes every job
 * without computing) and its remaining time is subtracted where a run is
 * timed, so each figure is what the runtime itself spends on the CPU. Input
 * values are a fixed synthetic pattern (the conversions' cost does not
 * depend on them). Prints one line per figure, the median of REPS timed
 * repetitions after one untimed one:
 *   TIME <figure> <microseconds>
 *   CRASH <figure>          the runtime died in that figure (its own process)
 *   FAILED <figure> <ret>   a call returned an error
 * Figures:
 *   init, init_zero_copy        rknn_init from a heap copy of the file
 *                               (zero-copy: RKNN_FLAG_MODEL_BUFFER_ZERO_COPY;
 *                               rknpu-bm: the file in its DMA memory)
 *   inputs_set_<type>_<layout>  rknn_inputs_set of every input, uint8, int8,
 *                               float16 or float32, NHWC or NCHW
 *   path_<type>_<layout>        that, rknn_run and rknn_outputs_get of every
 *                               output as float32, minus the virtual NPU's
 *                               time: where a runtime defers the input's
 *                               conversion to rknn_run or the NPU, this
 *                               figure holds it
 *   outputs_get_float<0|1>      rknn_outputs_get of every output after a run
 *                               (want_float 0 and 1), with its release
 * A host tool: heap, stdio and processes are fine here.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "diff_client.h"

#define MAX_IO   16
#define MAX_REPS 64

typedef struct {
    const uint8_t *model;
    size_t model_size;
    int custom_op;
    unsigned reps;
    rknn_input_output_num io;
    rknn_tensor_attr in_attr[MAX_IO];
} bench;

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b = NULL;
    long n;

    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(b = malloc((size_t)n)) || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "bench_client: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static int init_ctx(const bench *b, rknn_context *ctx, const void *model, uint32_t flags)
{
    int ret = rknn_init(ctx, (void *)model, (uint32_t)b->model_size, flags, NULL);

    if (ret == RKNN_SUCC && b->custom_op)
        ret = client_register_dual_op(*ctx);
    return ret;
}

/* ---- rknn_init ----------------------------------------------------------------- */

#ifdef DIFF_CLIENT_RKNPU_BM
#define ZERO_COPY_FLAG RKNN_FLAG_MODEL_BUFFER_ZERO_COPY

/* rknpu-bm reads a zero-copy model in place: it must lie in its DMA memory. */
static void *zero_copy_model(const bench *b, rknn_tensor_mem **mem)
{
    *mem = rknn_create_mem2(0, b->model_size, RKNN_MEM_FLAG_ALLOC_NO_CONTEXT);
    if (!*mem)
        return NULL;
    memcpy((*mem)->virt_addr, b->model, b->model_size);
    return (*mem)->virt_addr;
}

static void zero_copy_model_free(rknn_tensor_mem *mem)
{
    rknn_destroy_mem(0, mem);
}
#else
/* Rockchip's 1.6.0 predates RKNN_FLAG_MODEL_BUFFER_ZERO_COPY (2.3.x; its
 * value means nothing there): its init always copies, so its zero-copy
 * figure is that init again, from a heap copy. */
#define ZERO_COPY_FLAG 0u

static void *zero_copy_model(const bench *b, rknn_tensor_mem **mem)
{
    void *copy = malloc(b->model_size);

    *mem = copy;
    if (copy)
        memcpy(copy, b->model, b->model_size);
    return copy;
}

static void zero_copy_model_free(rknn_tensor_mem *mem)
{
    free(mem);
}
#endif

static void bench_init(const bench *b, int zero_copy)
{
    const char *name = zero_copy ? "init_zero_copy" : "init";
    double t[MAX_REPS];

    for (unsigned r = 0; r <= b->reps; r++) {
        rknn_tensor_mem *mem = NULL;
        rknn_context ctx = 0;
        void *model = zero_copy ? zero_copy_model(b, &mem) : malloc(b->model_size);
        double t0;
        int ret;

        if (!zero_copy && model)
            memcpy(model, b->model, b->model_size);
        if (!model) {
            printf("FAILED %s no-memory\n", name);
            return;
        }
        t0 = now_us();
        ret = init_ctx(b, &ctx, model, zero_copy ? ZERO_COPY_FLAG : 0);
        if (r > 0)
            t[r - 1] = now_us() - t0;
        if (ret != RKNN_SUCC) {
            printf("FAILED %s %d\n", name, ret);
            return;
        }
        rknn_destroy(ctx);
        if (zero_copy)
            zero_copy_model_free(mem);
        else
            free(model);
    }
    printf("TIME %s %.1f\n", name, median(t, b->reps));
}

/* ---- inputs, runs, outputs -------------------------------------------------------- */

static size_t elem_bytes(rknn_tensor_type t)
{
    return t == RKNN_TENSOR_FLOAT32 ? 4 : t == RKNN_TENSOR_FLOAT16 ? 2 : 1;
}

/* Every input in one type and layout, a synthetic pattern of valid values. */
static void make_inputs(const bench *b, rknn_input *in, rknn_tensor_type type,
                        rknn_tensor_format fmt)
{
    memset(in, 0, sizeof *in * b->io.n_input);
    for (uint32_t i = 0; i < b->io.n_input; i++) {
        uint32_t n = b->in_attr[i].n_elems;
        uint8_t *p = malloc((size_t)n * elem_bytes(type));

        if (!p) {
            fprintf(stderr, "bench_client: out of memory\n");
            exit(2);
        }
        for (uint32_t k = 0; k < n; k++) {
            if (type == RKNN_TENSOR_FLOAT32)
                ((float *)p)[k] = (float)(k * 29u % 251u);
            else if (type == RKNN_TENSOR_FLOAT16)
                ((uint16_t *)p)[k] = half_from_float((float)(k * 29u % 251u));
            else
                p[k] = (uint8_t)(k * 29u + 3u);
        }
        in[i].index = i;
        in[i].type = type;
        in[i].fmt = fmt;
        in[i].buf = p;
        in[i].size = n * (uint32_t)elem_bytes(type);
    }
}

static void free_inputs(const bench *b, rknn_input *in)
{
    for (uint32_t i = 0; i < b->io.n_input; i++)
        free(in[i].buf);
}

/* rknn_outputs_get of every output, then its release; the call's status. */
static int get_outputs(const bench *b, rknn_context ctx, int want_float)
{
    rknn_output out[MAX_IO];
    int ret;

    memset(out, 0, sizeof out);
    for (uint32_t i = 0; i < b->io.n_output; i++) {
        out[i].index = i;
        out[i].want_float = (uint8_t)want_float;
    }
    ret = rknn_outputs_get(ctx, b->io.n_output, out, NULL);
    if (ret == RKNN_SUCC)
        ret = rknn_outputs_release(ctx, b->io.n_output, out);
    return ret;
}

typedef struct {
    const bench *b;
    rknn_context ctx;
    rknn_tensor_type type;
    rknn_tensor_format fmt;
} input_case;

static const char *type_name(rknn_tensor_type t)
{
    return t == RKNN_TENSOR_UINT8     ? "uint8"
           : t == RKNN_TENSOR_INT8    ? "int8"
           : t == RKNN_TENSOR_FLOAT16 ? "float16"
                                      : "float32";
}

/* inputs_set_<type>_<layout> and path_<type>_<layout>. */
static void bench_input_case(const input_case *c)
{
    const bench *b = c->b;
    const char *fmt = c->fmt == RKNN_TENSOR_NHWC ? "nhwc" : "nchw";
    double set[MAX_REPS], path[MAX_REPS];
    rknn_input in[MAX_IO];
    int ret = RKNN_SUCC;

    make_inputs(b, in, c->type, c->fmt);
    for (unsigned r = 0; r <= b->reps && ret == RKNN_SUCC; r++) {
        double t0 = now_us(), t1;
        uint64_t npu0 = shim_vnpu_us();

        ret = rknn_inputs_set(c->ctx, b->io.n_input, in);
        t1 = now_us();
        if (ret == RKNN_SUCC)
            ret = rknn_run(c->ctx, NULL);
        if (ret == RKNN_SUCC)
            ret = get_outputs(b, c->ctx, 1);
        if (r > 0) {
            set[r - 1] = t1 - t0;
            path[r - 1] = now_us() - t0 - (double)(shim_vnpu_us() - npu0);
        }
    }
    if (ret != RKNN_SUCC)
        printf("FAILED inputs_set_%s_%s %d\nFAILED path_%s_%s %d\n", type_name(c->type), fmt, ret,
               type_name(c->type), fmt, ret);
    else {
        printf("TIME inputs_set_%s_%s %.1f\n", type_name(c->type), fmt, median(set, b->reps));
        printf("TIME path_%s_%s %.1f\n", type_name(c->type), fmt, median(path, b->reps));
    }
    free_inputs(b, in);
}

/* One case in a child process: a runtime that crashes on it (Rockchip's
 * on YOLOv8n's int8 NCHW input, compat.md §2) loses that figure only. */
static void isolated_case(const input_case *c)
{
    pid_t pid;
    int status;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        bench_input_case(c);
        fflush(stdout);
        _exit(0);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        const char *fmt = c->fmt == RKNN_TENSOR_NHWC ? "nhwc" : "nchw";
        printf("CRASH inputs_set_%s_%s\nCRASH path_%s_%s\n", type_name(c->type), fmt,
               type_name(c->type), fmt);
    }
}

/* A run before each (untimed): Rockchip's runtime keeps what it converted
 * for a run, so a second get of the same run costs it nothing. */
static void bench_outputs(const bench *b, rknn_context ctx, int want_float)
{
    double t[MAX_REPS];
    int ret = RKNN_SUCC;

    for (unsigned r = 0; r <= b->reps && ret == RKNN_SUCC; r++) {
        double t0;
        if ((ret = rknn_run(ctx, NULL)) != RKNN_SUCC)
            break;
        t0 = now_us();
        ret = get_outputs(b, ctx, want_float);
        if (r > 0)
            t[r - 1] = now_us() - t0;
    }
    if (ret != RKNN_SUCC)
        printf("FAILED outputs_get_float%d %d\n", want_float, ret);
    else
        printf("TIME outputs_get_float%d %.1f\n", want_float, median(t, b->reps));
}

static int bench_io(bench *b)
{
    static const rknn_tensor_type types[] = {RKNN_TENSOR_UINT8, RKNN_TENSOR_INT8,
                                             RKNN_TENSOR_FLOAT16, RKNN_TENSOR_FLOAT32};
    rknn_context ctx = 0;
    int ret = init_ctx(b, &ctx, b->model, 0);

    if (ret == RKNN_SUCC)
        ret = rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &b->io, sizeof b->io);
    if (ret != RKNN_SUCC || b->io.n_input > MAX_IO || b->io.n_output > MAX_IO) {
        printf("FAILED init %d\n", ret);
        return 1;
    }
    for (uint32_t i = 0; i < b->io.n_input && ret == RKNN_SUCC; i++) {
        b->in_attr[i].index = i;
        ret = rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &b->in_attr[i], sizeof b->in_attr[i]);
    }
    for (unsigned t = 0; t < sizeof types / sizeof types[0]; t++)
        for (int f = 0; f < 2; f++) {
            input_case c = {b, ctx, types[t], f ? RKNN_TENSOR_NCHW : RKNN_TENSOR_NHWC};
            isolated_case(&c);
        }
    {
        /* the outputs of a run of uint8 NHWC data, the usual input */
        rknn_input in[MAX_IO];
        make_inputs(b, in, RKNN_TENSOR_UINT8, RKNN_TENSOR_NHWC);
        ret = rknn_inputs_set(ctx, b->io.n_input, in);
        free_inputs(b, in);
    }
    if (ret != RKNN_SUCC)
        printf("FAILED outputs_get_float0 %d\nFAILED outputs_get_float1 %d\n", ret, ret);
    else {
        bench_outputs(b, ctx, 0);
        bench_outputs(b, ctx, 1);
    }
    rknn_destroy(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    bench b;
    long reps;

    memset(&b, 0, sizeof b);
    if (argc < 3 || (reps = strtol(argv[2], NULL, 10)) < 1 || reps > MAX_REPS ||
        (argc == 4 && strcmp(argv[3], "--custom-op") != 0) || argc > 4) {
        fprintf(stderr, "usage: bench_client MODEL.rknn REPS(1..%d) [--custom-op]\n", MAX_REPS);
        return 2;
    }
    b.reps = (unsigned)reps;
    b.custom_op = argc == 4;
    b.model = read_file(argv[1], &b.model_size);
    shim_dry_run(1);
    printf("RUNTIME %s\n", shim_name());
    bench_init(&b, 0);
    bench_init(&b, 1);
    return bench_io(&b);
}
