// test_api_cpp.cpp - the public headers compile as C++11 the way application
// code uses them (g++ -std=c++11 -Wall -Wextra -Werror). Uses only types and
// inline helpers, so it needs no library to link.
#include <stdio.h>  // C headers: arm-none-eabi-g++ ships no libstdc++ headers
#include <string.h>

#include "rknn_api.h"
#include "rknn_custom_op.h"
#include "rknn_matmul_api.h"
#include "rknpu_bm.h"

// Typical application idioms: a custom op callback, enum round trips.
static int relu_compute(rknn_custom_op_context *op_ctx, rknn_custom_op_tensor *inputs,
                        uint32_t n_inputs, rknn_custom_op_tensor *outputs, uint32_t n_outputs)
{
    (void)op_ctx;
    (void)inputs;
    (void)outputs;
    return n_inputs == 1 && n_outputs == 1 ? RKNN_SUCC : RKNN_ERR_PARAM_INVALID;
}

static rknn_custom_op *get_rknn_custom_op()
{
    static rknn_custom_op op;
    op.version = 1;
    op.target = RKNN_TARGET_TYPE_CPU;
    strncpy(op.op_type, "cstRelu", RKNN_MAX_NAME_LEN - 1);
    op.compute = relu_compute;
    return &op;
}

static int expect(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) == 0)
        return 0;
    printf("FAIL %s = \"%s\", expected \"%s\"\n", what, got, want);
    return 1;
}

int main()
{
    int failures = 0;

    rknn_context ctx = 0;
    rknn_input_output_num io_num;
    memset(&io_num, 0, sizeof io_num);

    rknn_tensor_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.index = 0;
    attr.fmt = RKNN_TENSOR_NHWC;
    attr.type = RKNN_TENSOR_INT8;
    attr.qnt_type = RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
    rknn_tensor_type t = attr.type; // enum member reads back as the enum type

    rknn_input input = rknn_input();
    input.type = RKNN_TENSOR_UINT8;
    input.fmt = RKNN_TENSOR_NHWC;

    rknn_output output = rknn_output();
    output.want_float = 1;

    rknn_run_extend run_ext = rknn_run_extend();
    run_ext.non_block = 0;
    run_ext.timeout_ms = 5000;
    rknn_init_extend init_ext = rknn_init_extend();
    init_ext.ctx = ctx;
    rknn_tensor_mem mem = rknn_tensor_mem();
    rknn_mem_sync_mode sync = RKNN_MEMORY_SYNC_BIDIRECTIONAL;
    rknn_core_mask mask = RKNN_NPU_CORE_0_1_2;
    rknn_query_cmd cmd = RKNN_QUERY_NATIVE_NC1HWC2_OUTPUT_ATTR;

    rknn_matmul_info info = rknn_matmul_info();
    info.M = 4;
    info.K = 64;
    info.N = 32;
    info.type = RKNN_INT8_MM_INT8_TO_INT32;
    rknn_matmul_io_attr io_attr = rknn_matmul_io_attr();
    rknn_quant_params qp = rknn_quant_params();
    rknn_matmul_shape shape = {4, 64, 32};
    rknn_matmul_ctx mm_ctx = ctx;

    get_custom_op_func get_op = get_rknn_custom_op;
    rknn_custom_op *op = get_op();
    rknn_custom_op_context op_ctx = rknn_custom_op_context();
    rknn_custom_op_tensor tensors[2];
    memset(tensors, 0, sizeof tensors);
    if (op->compute(&op_ctx, &tensors[0], 1, &tensors[1], 1) != RKNN_SUCC)
        failures++;

    rknpu_platform_config cfg = rknpu_platform_config();
    cfg.soc = RKNPU_SOC_RK3588;

    failures += expect("get_type_string", get_type_string(t), "INT8");
    failures += expect("get_qnt_type_string", get_qnt_type_string(attr.qnt_type), "AFFINE");
    failures += expect("get_format_string", get_format_string(attr.fmt), "NHWC");
    failures += expect("get_format_string(NC1HWC2)", get_format_string(RKNN_TENSOR_NC1HWC2), "NC1HWC2");
    failures += expect("get_type_string(MAX)", get_type_string(RKNN_TENSOR_TYPE_MAX), "UNKNOW");
    failures += expect("get_matmul_type_string", get_matmul_type_string(info.type),
                       "RKNN_INT8_MM_INT8_TO_INT32");

    // Keep every declared object used (-Wunused-variable under -Werror).
    if (io_num.n_input != 0 || input.size != 0 || output.want_float != 1 || run_ext.timeout_ms != 5000 ||
        init_ext.ctx != 0 || mem.virt_addr != nullptr || sync != 3 || mask != 7 || cmd != 9 ||
        io_attr.A.size != 0 || qp.scale != nullptr || shape.N != 32 || mm_ctx != 0 ||
        cfg.soc != RKNPU_SOC_RK3588 || RKNPU_MAX_CORES != 3)
        failures++;

    if (failures != 0) {
        printf("test_api_cpp: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_api_cpp: OK\n");
    return 0;
}
