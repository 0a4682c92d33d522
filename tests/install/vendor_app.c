/*
 * vendor_app.c - an application written against the vendor's rknn_api.h the
 * way the RKNN demos are, with nothing rknpu-bm specific: the model path and
 * two raw uint8 NHWC inputs on the command line, rknn_init with a file path,
 * queries, inputs_set, run, outputs_get with want_float, the first output's
 * top value printed. Built only through `pkg-config --cflags --libs
 * rknpu-bm` (scripts/check-install.sh) and run against the virtual NPU.
 * With a fourth argument, the float32 output of the source ONNX model
 * (tests/tools/onnx_ref.py), every output value must lie within 1.5
 * quantisation steps of it (scale 4.142 from the model) for the OK line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"

static unsigned char *load_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (unsigned char *)malloc((size_t)n);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

int main(int argc, char **argv)
{
    rknn_context ctx = 0;
    rknn_input_output_num io_num;
    rknn_input inputs[2];
    rknn_output outputs[1];
    rknn_sdk_version version;
    unsigned char *data[2];
    size_t size[2];
    int ret;

    if (argc != 4 && argc != 5) {
        printf("usage: %s model.rknn input1.bin input2.bin [reference.f32]\n", argv[0]);
        return 2;
    }
    ret = rknn_init(&ctx, argv[1], 0, 0, NULL);
    if (ret < 0) {
        printf("rknn_init fail! ret=%d\n", ret);
        return 1;
    }
    rknn_query(ctx, RKNN_QUERY_SDK_VERSION, &version, sizeof(version));
    printf("sdk version: %s driver version: %s\n", version.api_version, version.drv_version);
    rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io_num, sizeof(io_num));
    printf("model input num: %u, output num: %u\n", io_num.n_input, io_num.n_output);
    for (unsigned i = 0; i < io_num.n_input; i++) {
        rknn_tensor_attr attr;
        memset(&attr, 0, sizeof(attr));
        attr.index = i;
        rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &attr, sizeof(attr));
        printf("  index=%u, name=%s, n_dims=%u, dims=[%u, %u, %u, %u], fmt=%s, type=%s, qnt=%s\n",
               attr.index, attr.name, attr.n_dims, attr.dims[0], attr.dims[1], attr.dims[2],
               attr.dims[3], get_format_string(attr.fmt), get_type_string(attr.type),
               get_qnt_type_string(attr.qnt_type));
    }
    memset(inputs, 0, sizeof(inputs));
    for (int i = 0; i < 2; i++) {
        data[i] = load_file(argv[2 + i], &size[i]);
        if (!data[i]) {
            printf("cannot read %s\n", argv[2 + i]);
            return 1;
        }
        inputs[i].index = (uint32_t)i;
        inputs[i].type = RKNN_TENSOR_UINT8;
        inputs[i].size = (uint32_t)size[i];
        inputs[i].fmt = RKNN_TENSOR_NHWC;
        inputs[i].buf = data[i];
    }
    ret = rknn_inputs_set(ctx, io_num.n_input, inputs);
    if (ret == RKNN_SUCC)
        ret = rknn_run(ctx, NULL);
    memset(outputs, 0, sizeof(outputs));
    outputs[0].want_float = 1;
    if (ret == RKNN_SUCC)
        ret = rknn_outputs_get(ctx, 1, outputs, NULL);
    if (ret != RKNN_SUCC) {
        printf("inference failed: %d\n", ret);
        return 1;
    }
    {
        const float *f = (const float *)outputs[0].buf;
        unsigned top = 0;
        for (unsigned i = 1; i < outputs[0].size / sizeof(float); i++)
            if (f[i] > f[top])
                top = i;
        printf("output: %u floats, max %.3f at %u\n", (unsigned)(outputs[0].size / sizeof(float)),
               f[top], top);
        if (argc == 5) {
            size_t ref_size;
            float *ref = (float *)load_file(argv[4], &ref_size), worst = 0;
            if (!ref || ref_size != outputs[0].size) {
                printf("reference %s missing or of another size\n", argv[4]);
                return 1;
            }
            for (unsigned i = 0; i < outputs[0].size / sizeof(float); i++) {
                float d = f[i] > ref[i] ? f[i] - ref[i] : ref[i] - f[i];
                worst = d > worst ? d : worst;
            }
            printf("output vs ONNX reference: max |error| %.3f (%.2f steps)\n", worst,
                   worst / 4.142374515533447f);
            free(ref);
            if (worst > 1.5f * 4.142374515533447f)
                return 1;
        }
    }
    rknn_outputs_release(ctx, 1, outputs);
    rknn_destroy(ctx);
    free(data[0]);
    free(data[1]);
    printf("vendor_app: OK\n");
    return 0;
}
