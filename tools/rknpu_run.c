/*
 * rknpu-run - run a .rknn model on the virtual NPU from the command line.
 *
 *   rknpu-run MODEL --input FILE [--input FILE ...] [--core-mask N]
 *             [--loops N] [--output-dir DIR] [--soc NAME]
 *
 * The virtual NPU is the SoC the model names; --soc rk3588|rk3566|rk3568|
 * rv1106 runs it on another profile instead (a model for another SoC then
 * fails, as it would on that board).
 *
 * Inputs: .npy (dtype uint8/int8/float16/float32/float64; a 4-D shape is
 * recognised as NHWC or NCHW by comparing it with the model's input) or raw
 * .bin (uint8, NHWC, exactly the input's size). Outputs: DIR/output_<i>.npy,
 * float32 in the model's output shape. Prints tensor info and timing; every
 * problem is a message and a non-zero exit status, never a crash.
 *
 * A host tool: it uses the heap and stdio; the runtime it drives does not.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rknn_api.h"
#include "rknpu_bm.h"
#include "tool_files.h"

#define MAX_INPUTS  16
#define MAX_OUTPUTS 16

typedef struct {
    void *data;
    size_t bytes;
    rknn_tensor_type type;
    uint32_t dims[8];
    uint32_t n_dims;
    int is_npy;
} input_file;

static void usage(void)
{
    fprintf(stderr,
            "usage: rknpu-run MODEL --input FILE [--input FILE ...] [--core-mask N] "
            "[--loops N] [--output-dir DIR] [--soc rk3588|rk3566|rk3568|rv1106]\n"
            "  inputs: .npy (uint8/int8/float16/float32/float64) or raw .bin (uint8 NHWC)\n"
            "  core masks: 0 auto, 1 2 4 single cores, 3 cores 0+1, 7 all three, 65535 all\n");
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- .npy --------------------------------------------------------------------- */

static int npy_dtype(const char *hdr, rknn_tensor_type *t, size_t *esize, int *is_f64)
{
    static const struct {
        const char *descr;
        rknn_tensor_type t;
        size_t size;
    } map[] = {
        {"'|u1'", RKNN_TENSOR_UINT8, 1},   {"'|i1'", RKNN_TENSOR_INT8, 1},
        {"'<f2'", RKNN_TENSOR_FLOAT16, 2}, {"'<f4'", RKNN_TENSOR_FLOAT32, 4},
        {"'<f8'", RKNN_TENSOR_FLOAT32, 8},
    };

    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strstr(hdr, map[i].descr)) {
            *t = map[i].t;
            *esize = map[i].size;
            *is_f64 = map[i].size == 8;
            return 0;
        }
    return -1;
}

static int npy_parse(const char *path, uint8_t *raw, size_t size, input_file *in)
{
    size_t hlen, offset, esize, elems = 1;
    int is_f64;
    const char *shape;
    char *hdr;

    if (size < 10 || memcmp(raw, "\x93NUMPY", 6) != 0) {
        fprintf(stderr, "rknpu-run: %s: not a .npy file\n", path);
        return -1;
    }
    hlen = raw[6] == 1 ? (size_t)(raw[8] | raw[9] << 8)
                       : (size_t)(raw[8] | raw[9] << 8 | raw[10] << 16 | (size_t)raw[11] << 24);
    offset = (raw[6] == 1 ? 10 : 12) + hlen;
    if (offset > size || hlen > 65536) {
        fprintf(stderr, "rknpu-run: %s: truncated .npy header\n", path);
        return -1;
    }
    hdr = strndup((const char *)raw + (raw[6] == 1 ? 10 : 12), hlen);
    if (!hdr || npy_dtype(hdr, &in->type, &esize, &is_f64) != 0 ||
        strstr(hdr, "'fortran_order': True") || !(shape = strstr(hdr, "'shape': ("))) {
        fprintf(stderr, "rknpu-run: %s: unsupported .npy (dtype must be u1/i1/f2/f4/f8, C order)\n",
                path);
        free(hdr);
        return -1;
    }
    for (shape += 10; *shape && *shape != ')' && in->n_dims < 8;) {
        char *end;
        unsigned long d = strtoul(shape, &end, 10);
        if (end == shape)
            break;
        in->dims[in->n_dims++] = (uint32_t)d;
        elems *= d;
        shape = end;
        while (*shape == ',' || *shape == ' ')
            shape++;
    }
    free(hdr);
    if (size - offset != elems * esize) {
        fprintf(stderr, "rknpu-run: %s: %zu data bytes, the header's shape needs %zu\n", path,
                size - offset, elems * esize);
        return -1;
    }
    in->bytes = elems * (is_f64 ? 4 : esize);
    in->data = malloc(in->bytes ? in->bytes : 1);
    if (!in->data)
        return -1;
    if (is_f64) {
        const double *d = (const double *)(raw + offset);
        for (size_t i = 0; i < elems; i++)
            ((float *)in->data)[i] = (float)d[i];
    } else {
        memcpy(in->data, raw + offset, in->bytes);
    }
    in->is_npy = 1;
    return 0;
}

static int npy_write(const char *path, const float *data, const rknn_tensor_attr *a)
{
    char hdr[256], shape[128] = "";
    int n = 0;
    size_t hlen;
    FILE *f;

    for (uint32_t i = 0; i < a->n_dims; i++)
        n += snprintf(shape + n, sizeof shape - (size_t)n, "%u,%s", a->dims[i],
                      i + 1 < a->n_dims ? " " : "");
    if (a->n_dims > 1)
        shape[strlen(shape) - 1] = 0; /* (a, b) not (a, b,) */
    n = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }",
                 shape);
    hlen = ((size_t)n + 10 + 1 + 63) / 64 * 64 - 10; /* pad so the data is 64-aligned */
    memset(hdr + n, ' ', hlen - (size_t)n - 1);
    hdr[hlen - 1] = '\n';
    f = fopen(path, "wb");
    if (!f)
        return -1;
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc((int)(hlen & 0xFF), f);
    fputc((int)(hlen >> 8), f);
    fwrite(hdr, 1, hlen, f);
    fwrite(data, sizeof(float), a->n_elems, f);
    return fclose(f);
}

/* ---- matching files to inputs -------------------------------------------------- */

static int load_input(const char *path, const rknn_tensor_attr *attr, input_file *in)
{
    size_t size;
    uint8_t *raw = tool_read_file(path, SIZE_MAX, &size);
    int ret = -1;

    memset(in, 0, sizeof *in);
    if (!raw) {
        fprintf(stderr, "rknpu-run: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (size >= 6 && memcmp(raw, "\x93NUMPY", 6) == 0) {
        ret = npy_parse(path, raw, size, in);
    } else if (size == attr->n_elems) { /* raw uint8 NHWC */
        in->data = raw;
        raw = NULL;
        in->bytes = size;
        in->type = RKNN_TENSOR_UINT8;
        in->n_dims = attr->n_dims;
        memcpy(in->dims, attr->dims, sizeof in->dims);
        ret = 0;
    } else {
        fprintf(stderr, "rknpu-run: %s: raw input of %zu bytes, input '%s' needs %u (uint8 NHWC)\n",
                path, size, attr->name, attr->n_elems);
    }
    free(raw);
    return ret;
}

/* NHWC if the file's shape is the model's (NHWC) shape, NCHW if it is the
 * transposed one; an error otherwise. */
static int input_format(const input_file *in, const rknn_tensor_attr *a, rknn_tensor_format *fmt)
{
    uint64_t elems = 1;

    for (uint32_t i = 0; i < in->n_dims; i++)
        elems *= in->dims[i];
    if (a->n_dims == 4 && in->n_dims == 4) {
        if (in->dims[0] == a->dims[0] && in->dims[1] == a->dims[1] && in->dims[2] == a->dims[2] &&
            in->dims[3] == a->dims[3]) {
            *fmt = RKNN_TENSOR_NHWC;
            return 0;
        }
        if (in->dims[0] == a->dims[0] && in->dims[1] == a->dims[3] && in->dims[2] == a->dims[1] &&
            in->dims[3] == a->dims[2]) {
            *fmt = RKNN_TENSOR_NCHW;
            return 0;
        }
    } else if (elems == a->n_elems) {
        *fmt = a->fmt;
        return 0;
    }
    fprintf(stderr,
            "rknpu-run: input '%s' wants NHWC [%u, %u, %u, %u]; the file's shape matches "
            "neither it nor NCHW\n",
            a->name, a->dims[0], a->dims[1], a->dims[2], a->dims[3]);
    return -1;
}

static void print_attr(const char *what, const rknn_tensor_attr *a)
{
    printf("  %s %u '%s': %s [", what, a->index, a->name, get_format_string(a->fmt));
    for (uint32_t i = 0; i < a->n_dims; i++)
        printf("%u%s", a->dims[i], i + 1 < a->n_dims ? ", " : "");
    printf("] %s", get_type_string(a->type));
    if (a->qnt_type == RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC)
        printf(" scale %g zero point %d", (double)a->scale, a->zp);
    printf("\n");
}

/* ---- main ------------------------------------------------------------------------ */

typedef struct {
    const char *model, *out_dir, *soc, *inputs[MAX_INPUTS];
    unsigned n_inputs;
    unsigned long mask, loops;
} options;

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->loops = 1;
    for (int i = 1; i < argc; i++) {
        char *end;
        if (strcmp(argv[i], "--input") == 0 && i + 1 < argc && o->n_inputs < MAX_INPUTS) {
            o->inputs[o->n_inputs++] = argv[++i];
        } else if (strcmp(argv[i], "--output-dir") == 0 && i + 1 < argc) {
            o->out_dir = argv[++i];
        } else if (strcmp(argv[i], "--soc") == 0 && i + 1 < argc) {
            o->soc = argv[++i];
        } else if ((strcmp(argv[i], "--core-mask") == 0 || strcmp(argv[i], "--loops") == 0) &&
                   i + 1 < argc) {
            unsigned long v = strtoul(argv[i + 1], &end, 0);
            if (*end || end == argv[i + 1])
                return -1;
            if (argv[i][2] == 'c')
                o->mask = v;
            else
                o->loops = v;
            i++;
        } else if (argv[i][0] != '-' && !o->model) {
            o->model = argv[i];
        } else {
            return -1;
        }
    }
    return o->model && o->n_inputs && o->loops ? 0 : -1;
}

/* Every output at once, as the vendor's examples fetch them (Rockchip's
 * runtime 1.6.0 reads io->n_output entries whatever the count passed):
 * float32, its range printed, written to DIR/output_<i>.npy. */
static int write_outputs(rknn_context ctx, const rknn_input_output_num *io, const char *out_dir)
{
    rknn_output out[MAX_OUTPUTS];
    double t0 = now_ms(), t_get;
    int ret;

    if (io->n_output > MAX_OUTPUTS) {
        fprintf(stderr, "rknpu-run: the model has %u outputs, at most %d are read\n", io->n_output,
                MAX_OUTPUTS);
        return RKNN_ERR_OUTPUT_INVALID;
    }
    memset(out, 0, sizeof out);
    for (uint32_t i = 0; i < io->n_output; i++) {
        out[i].index = i;
        out[i].want_float = 1;
    }
    ret = rknn_outputs_get(ctx, io->n_output, out, NULL);
    t_get = now_ms() - t0;
    if (ret != RKNN_SUCC)
        return ret;
    for (uint32_t i = 0; i < io->n_output && ret == RKNN_SUCC; i++) {
        rknn_tensor_attr a;
        char path[4096];
        const float *f = out[i].buf;
        float mn = f[0], mx = f[0];
        double sum = 0;
        memset(&a, 0, sizeof a);
        a.index = i;
        rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof a);
        print_attr("output", &a);
        for (uint32_t k = 0; k < a.n_elems; k++) {
            mn = f[k] < mn ? f[k] : mn;
            mx = f[k] > mx ? f[k] : mx;
            sum += f[k];
        }
        printf("    min %g max %g mean %g (outputs_get %.3f ms for all)\n", (double)mn, (double)mx,
               sum / a.n_elems, t_get);
        if (!out_dir)
            continue;
        snprintf(path, sizeof path, "%s/output_%u.npy", out_dir, i);
        if (npy_write(path, out[i].buf, &a) != 0) {
            fprintf(stderr, "rknpu-run: cannot write %s\n", path);
            ret = RKNN_ERR_FAIL;
        } else {
            printf("    written to %s\n", path);
        }
    }
    rknn_outputs_release(ctx, io->n_output, out);
    return ret;
}

static int run(const options *o)
{
    rknn_input inputs[MAX_INPUTS];
    input_file files[MAX_INPUTS];
    rknn_input_output_num io;
    rknn_context ctx = 0;
    rknn_perf_run perf;
    double t0, t_init, t_set = 0, t_run = 0;
    int ret;

    t0 = now_ms();
    ret = rknn_init(&ctx, (void *)(uintptr_t)o->model, 0, 0, NULL);
    t_init = now_ms() - t0;
    if (ret != RKNN_SUCC) {
        fprintf(stderr, "rknpu-run: rknn_init(%s) failed: %d\n", o->model, ret);
        return 1;
    }
    if (rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) != RKNN_SUCC ||
        io.n_input != o->n_inputs) {
        fprintf(stderr, "rknpu-run: the model has %u input(s), %u --input given\n", io.n_input,
                o->n_inputs);
        rknn_destroy(ctx);
        return 1;
    }
    if (o->mask && rknn_set_core_mask(ctx, (rknn_core_mask)o->mask) != RKNN_SUCC) {
        rknn_destroy(ctx);
        return 1;
    }
    printf("%s: %u input(s), %u output(s), rknn_init %.2f ms, virtual NPU %s\n", o->model,
           io.n_input, io.n_output, t_init, rknpu_soc_name(rknpu_platform_get()->soc));
    memset(files, 0, sizeof files);
    memset(inputs, 0, sizeof inputs);
    for (uint32_t i = 0; i < io.n_input && ret == RKNN_SUCC; i++) {
        rknn_tensor_attr a;
        rknn_tensor_format fmt;
        memset(&a, 0, sizeof a);
        a.index = i;
        rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a);
        print_attr("input ", &a);
        if (load_input(o->inputs[i], &a, &files[i]) != 0 ||
            input_format(&files[i], &a, &fmt) != 0) {
            ret = RKNN_ERR_INPUT_INVALID;
            break;
        }
        inputs[i].index = i;
        inputs[i].buf = files[i].data;
        inputs[i].size = (uint32_t)files[i].bytes;
        inputs[i].type = files[i].type;
        inputs[i].fmt = fmt;
    }
    for (unsigned long l = 0; l < o->loops && ret == RKNN_SUCC; l++) {
        t0 = now_ms();
        ret = rknn_inputs_set(ctx, io.n_input, inputs);
        t_set += now_ms() - t0;
        t0 = now_ms();
        if (ret == RKNN_SUCC)
            ret = rknn_run(ctx, NULL);
        t_run += now_ms() - t0;
    }
    if (ret == RKNN_SUCC) {
        rknn_query(ctx, RKNN_QUERY_PERF_RUN, &perf, sizeof perf);
        printf("  %lu run(s): inputs_set %.3f ms, rknn_run %.3f ms per run (NPU %lld us)\n",
               o->loops, t_set / (double)o->loops, t_run / (double)o->loops,
               (long long)perf.run_duration);
    }
    if (ret == RKNN_SUCC)
        ret = write_outputs(ctx, &io, o->out_dir);
    for (unsigned i = 0; i < MAX_INPUTS; i++)
        free(files[i].data);
    rknn_destroy(ctx);
    if (ret != RKNN_SUCC)
        fprintf(stderr, "rknpu-run: failed with %d\n", ret);
    return ret == RKNN_SUCC ? 0 : 1;
}

/* --soc NAME: the virtual NPU's profile instead of the model's own. */
static int force_soc(const char *name)
{
    for (int id = 0; id < RKNPU_SOC_COUNT; id++) {
        const char *s = rknpu_soc_name((rknpu_soc_id)id);
        size_t i = 0;
        while (s[i] && name[i] && (s[i] | 0x20) == (name[i] | 0x20))
            i++;
        if (!s[i] && !name[i])
            return rknpu_host_force_soc((rknpu_soc_id)id) == RKNN_SUCC ? 0 : -1;
    }
    fprintf(stderr, "rknpu-run: unknown --soc '%s' (rk3588, rk3566, rk3568, rv1106)\n", name);
    return -1;
}

int main(int argc, char **argv)
{
    options o;

    if (parse_args(argc, argv, &o) != 0) {
        usage();
        return 2;
    }
    if (o.soc && force_soc(o.soc) != 0)
        return 2;
    return run(&o);
}
