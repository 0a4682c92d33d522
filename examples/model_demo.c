/*
 * model_demo - run your own .rknn model, linked into the image at build
 * time, on the board (or on the host): the vendor demo's flow
 * (rknn_init -> query -> inputs_set -> run -> outputs_get) with timing.
 *
 * Build it with your files:
 *   meson setup build/demo --cross-file boards/qemu-virt/aarch64.ini \
 *     -Dmodel=/path/model.rknn -Dinputs=/path/in0.bin,/path/in1.npy
 * Inputs: raw uint8 NHWC bytes, or .npy (uint8 or float32, NHWC or NCHW
 * recognised from the shape). Missing inputs are filled with zeros.
 *
 * With a directory as its last argument (on QEMU: the semihosting command
 * line, `qemu-run.sh ... model_demo.elf DIR`) it also writes each output as
 * DIR/output_<i>.npy, float32 in the output attribute's shape, through the C
 * library's files (semihosting on QEMU; a board without files reports it).
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "rknn_api.h"
#include "rknpu_bm.h"

/* Blobs placed by model_blobs.S (generated from -Dmodel / -Dinputs). */
extern const uint8_t demo_model[], demo_model_end[];
extern const uint8_t *const demo_inputs[], *const demo_inputs_end[];
extern const unsigned demo_input_count;

#define MAX_IO 16

static uint64_t now_us(void)
{
    return rknpu_hook_time_us();
}

/* A .npy header: data offset, dtype and 4-D shape (or -1). */
static int npy_header(const uint8_t *p, size_t n, size_t *offset, rknn_tensor_type *type,
                      uint32_t *dims)
{
    const char *shape;
    char hdr[256];
    size_t hlen;

    if (n < 10 || memcmp(p, "\x93NUMPY", 6) != 0 || p[6] != 1)
        return -1;
    hlen = (size_t)(p[8] | p[9] << 8);
    if (10 + hlen > n || hlen >= sizeof hdr)
        return -1;
    memcpy(hdr, p + 10, hlen);
    hdr[hlen] = 0;
    *type = strstr(hdr, "'|u1'")   ? RKNN_TENSOR_UINT8
            : strstr(hdr, "'<f4'") ? RKNN_TENSOR_FLOAT32
                                   : RKNN_TENSOR_TYPE_MAX;
    shape = strstr(hdr, "'shape': (");
    if (*type == RKNN_TENSOR_TYPE_MAX || !shape)
        return -1;
    shape += 10;
    for (int i = 0; i < 4; i++) {
        dims[i] = 0;
        while (*shape >= '0' && *shape <= '9')
            dims[i] = dims[i] * 10 + (uint32_t)(*shape++ - '0');
        while (*shape == ',' || *shape == ' ')
            shape++;
    }
    *offset = 10 + hlen;
    return 0;
}

static int fill_input(rknn_input *in, const rknn_tensor_attr *a, unsigned i)
{
    static uint8_t zeros[64 * 1024];
    const uint8_t *p = i < demo_input_count ? demo_inputs[i] : NULL;
    size_t n = p ? (size_t)(demo_inputs_end[i] - p) : 0, off;
    uint32_t d[4];

    memset(in, 0, sizeof *in);
    in->index = i;
    in->fmt = RKNN_TENSOR_NHWC;
    in->type = RKNN_TENSOR_UINT8;
    if (p && npy_header(p, n, &off, &in->type, d) == 0) {
        /* NCHW if the .npy is [N, C, H, W] of the model's NHWC [N, H, W, C] */
        if (a->n_dims == 4 && d[1] == a->dims[3] && d[2] == a->dims[1] && d[3] == a->dims[2] &&
            d[1] != a->dims[1])
            in->fmt = RKNN_TENSOR_NCHW;
        in->buf = (void *)(uintptr_t)(p + off);
        in->size = (uint32_t)(n - off);
    } else if (p) {
        in->buf = (void *)(uintptr_t)p;
        in->size = (uint32_t)n;
    } else if (a->n_elems <= sizeof zeros) {
        printf("  input %u: no data given, using zeros\n", i);
        in->buf = zeros;
        in->size = a->n_elems;
    } else {
        printf("  input %u: no data given and too large for the zero buffer\n", i);
        return -1;
    }
    return 0;
}

static void summarise(const rknn_tensor_attr *a, const float *f)
{
    float mn = f[0], mx = f[0], sum = 0;
    uint32_t top = 0;

    for (uint32_t k = 0; k < a->n_elems; k++) {
        mn = f[k] < mn ? f[k] : mn;
        if (f[k] > mx) {
            mx = f[k];
            top = k;
        }
        sum += f[k];
    }
    printf("  output %u '%s': %u values, min %.4f max %.4f (at %u) mean %.4f\n", (unsigned)a->index,
           a->name, (unsigned)a->n_elems, (double)mn, (double)mx, (unsigned)top,
           (double)(sum / (float)a->n_elems));
}

#ifndef BOARD_NO_FILE_SYSTEM
/* A float32 .npy of the output's dims, as numpy writes it. */
static int write_npy(const char *dir, const rknn_tensor_attr *a, const float *f)
{
    char path[256], shape[96] = "", hdr[128];
    size_t len = 0, hlen;
    FILE *out;
    int ok;

    for (uint32_t d = 0; d < a->n_dims && d < RKNN_MAX_DIMS; d++)
        len += (size_t)snprintf(shape + len, sizeof shape - len, "%u, ", (unsigned)a->dims[d]);
    hlen = (size_t)snprintf(hdr, sizeof hdr,
                            "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", shape);
    while ((10 + hlen + 1) % 64 != 0 && hlen < sizeof hdr - 2)
        hdr[hlen++] = ' ';
    hdr[hlen++] = '\n';
    snprintf(path, sizeof path, "%s/output_%u.npy", dir, (unsigned)a->index);
    out = fopen(path, "wb");
    if (out == NULL) {
        printf("model demo: cannot write %s\n", path);
        return -1;
    }
    const uint8_t magic[10] = {0x93, 'N', 'U', 'M',           'P',
                               'Y',  1,   0,   (uint8_t)hlen, (uint8_t)(hlen >> 8)};
    ok = fwrite(magic, 1, sizeof magic, out) == sizeof magic && fwrite(hdr, 1, hlen, out) == hlen &&
         fwrite(f, sizeof *f, a->n_elems, out) == a->n_elems;
    ok = fclose(out) == 0 && ok;
    if (!ok)
        printf("model demo: short write to %s\n", path);
    else
        printf("  output %u written to %s\n", (unsigned)a->index, path);
    return ok ? 0 : -1;
}
#else
/* Firmware that U-Boot started has no file system: outputs are only summarised. */
static int write_npy(const char *dir, const rknn_tensor_attr *a, const float *f)
{
    (void)f;
    printf("model demo: no file system to write %s/output_%u.npy\n", dir, (unsigned)a->index);
    return -1;
}
#endif

int main(int argc, char **argv)
{
    /* the last argument, unless it is the image itself (picolibc's argv[1]) */
    const char *out_dir = argc > 1 && !strstr(argv[argc - 1], ".elf") ? argv[argc - 1] : NULL;
    int write_failed = 0;
    rknn_input inputs[MAX_IO];
    rknn_output outputs[MAX_IO];
    rknn_input_output_num io;
    rknn_context ctx;
    uint64_t t0, t_init, t_set, t_run, t_get;
    int ret = board_init();

    if (ret != RKNN_SUCC) {
        printf("model demo: FAIL (board_init %d)\n", ret);
        return 1;
    }
    t0 = now_us();
    ret = rknn_init(&ctx, (void *)(uintptr_t)demo_model, (uint32_t)(demo_model_end - demo_model), 0,
                    NULL);
    t_init = now_us() - t0;
    if (ret != RKNN_SUCC || rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof io) != RKNN_SUCC ||
        io.n_input > MAX_IO || io.n_output > MAX_IO) {
        printf("model demo: FAIL (rknn_init %d)\n", ret);
        return 1;
    }
    printf("model demo: %u input(s), %u output(s)\n", (unsigned)io.n_input, (unsigned)io.n_output);
    for (unsigned i = 0; i < io.n_input; i++) {
        rknn_tensor_attr a;
        memset(&a, 0, sizeof a);
        a.index = i;
        rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &a, sizeof a);
        if (fill_input(&inputs[i], &a, i) != 0)
            return 1;
    }
    t0 = now_us();
    ret = rknn_inputs_set(ctx, io.n_input, inputs);
    t_set = now_us() - t0;
    t0 = now_us();
    if (ret == RKNN_SUCC)
        ret = rknn_run(ctx, NULL);
    t_run = now_us() - t0;
    memset(outputs, 0, sizeof outputs);
    for (unsigned i = 0; i < io.n_output; i++) {
        outputs[i].index = i;
        outputs[i].want_float = 1;
    }
    t0 = now_us();
    if (ret == RKNN_SUCC)
        ret = rknn_outputs_get(ctx, io.n_output, outputs, NULL);
    t_get = now_us() - t0;
    if (ret != RKNN_SUCC) {
        printf("model demo: FAIL (%d)\n", ret);
        rknn_destroy(ctx);
        return 1;
    }
    for (unsigned i = 0; i < io.n_output; i++) {
        rknn_tensor_attr a;
        memset(&a, 0, sizeof a);
        a.index = i;
        rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &a, sizeof a);
        summarise(&a, outputs[i].buf);
        if (out_dir != NULL && write_npy(out_dir, &a, outputs[i].buf) != 0)
            write_failed = 1;
    }
    rknn_outputs_release(ctx, io.n_output, outputs);
    rknn_destroy(ctx);
    if (write_failed) {
        printf("model demo: FAIL (outputs not written)\n");
        return 1;
    }
    printf("model demo: OK (init %llu us, inputs_set %llu us, run %llu us, outputs_get %llu us)\n",
           (unsigned long long)t_init, (unsigned long long)t_set, (unsigned long long)t_run,
           (unsigned long long)t_get);
    return 0;
}
