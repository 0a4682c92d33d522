/*
 * test_mid.h - the vendor multiple_input_demo sample as the end-to-end tests
 * use it: its inputs (uint8 NHWC 128x128x1 and 128x128x3), its output facts
 * (int8, scale and zero point from rknn_inspect.py) and the float ONNX
 * reference tests/tools/onnx_ref.py computes (float32 NCHW [1, 8, 128, 128]).
 */
#ifndef TEST_MID_H
#define TEST_MID_H

#include <stdio.h>
#include <string.h>

#include "rknn_api.h"
#include "test_files.h"

#define MID_H         128
#define MID_W         128
#define MID_OUT_C     8
#define MID_OUT_ELEMS (MID_OUT_C * MID_H * MID_W)
#define MID_OUT_SCALE 4.142374515533447f
#define MID_OUT_ZP    20

/* Both inputs, NHWC, of `type` (1 byte an element, 4 for FLOAT32). */
static inline int test_mid_set_inputs(rknn_context ctx, rknn_tensor_type type, const void *in0,
                                      const void *in1, uint8_t pass_through)
{
    rknn_input in[2];
    uint32_t esize = type == RKNN_TENSOR_FLOAT32 ? 4u : 1u;

    memset(in, 0, sizeof in);
    in[0].index = 0;
    in[0].buf = (void *)(uintptr_t)in0;
    in[0].size = MID_H * MID_W * esize;
    in[0].type = type;
    in[0].fmt = RKNN_TENSOR_NHWC;
    in[0].pass_through = pass_through;
    in[1] = in[0];
    in[1].index = 1;
    in[1].buf = (void *)(uintptr_t)in1;
    in[1].size = MID_H * MID_W * 3 * esize;
    return rknn_inputs_set(ctx, 2, in);
}

/* The ONNX reference and the two input images; 0, or 1 with a FAIL line
 * naming the missing file. */
static inline int test_mid_load(const char *dir, const char *ref_path, float *reference,
                                uint8_t *image1, uint8_t *image2)
{
    char path[512];

    if (test_read_file(ref_path, (uint8_t *)reference, MID_OUT_ELEMS * 4u) != MID_OUT_ELEMS * 4u) {
        printf("FAIL: missing ONNX reference %s (tests/tools/onnx_ref.py makes it)\n", ref_path);
        return 1;
    }
    if (test_read_file(test_path(path, sizeof path, dir, "multiple_input_demo/input1.bin"), image1,
                       MID_H * MID_W) != MID_H * MID_W ||
        test_read_file(test_path(path, sizeof path, dir, "multiple_input_demo/input2.bin"), image2,
                       MID_H * MID_W * 3) != MID_H * MID_W * 3) {
        printf("FAIL: missing or short input file %s\n", path);
        return 1;
    }
    return 0;
}

#endif
