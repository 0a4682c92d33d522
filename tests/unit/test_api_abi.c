/*
 * test_api_abi.c - the public headers keep the vendor ABI.
 *
 * Compile time: sizeof / offsetof of every public struct against numbers
 * written down independently:
 *   - LP64 (x86-64, AArch64): the layouts of docs/api.md §7.2, §7.4, §7.5
 *     (measured there on the vendor headers);
 *   - 32-bit ARM (AAPCS: pointers 4 bytes, int64 8-byte aligned, enums 4
 *     bytes, rknn_context 4 bytes): worked out by hand, field by field.
 * Run time: every enum and macro value against the documented number, and
 * the strings of the get_*_string helpers.
 *
 * Build: cc -std=c11 -Wall -Wextra -Werror -Wpedantic -I rknn/include
 * (also -c with aarch64-linux-gnu-gcc and arm-none-eabi-gcc).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rknn_api.h"
#include "rknn_custom_op.h"
#include "rknn_matmul_api.h"

/* ---- Compile-time layout checks --------------------------------------- */

/* L(lp64, arm32): the expected number for the ABI being compiled. */
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8
#define L(lp64, arm32) (lp64)
#elif defined(__arm__) && defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 4
#define L(lp64, arm32) (arm32)
#else
#error "test_api_abi.c: no expected layout for this ABI (LP64 or 32-bit ARM only)"
#endif

#define SIZE(type, lp64, arm32) _Static_assert(sizeof(type) == L(lp64, arm32), "sizeof(" #type ")")
#define OFF(type, field, lp64, arm32)                                                              \
    _Static_assert(offsetof(type, field) == L(lp64, arm32), "offsetof(" #type ", " #field ")")

/* Scalar types the layouts depend on. */
SIZE(rknn_context, 8, 4);
SIZE(rknn_custom_op_interal_context, 8, 4);
SIZE(rknn_matmul_ctx, 8, 4);
/* Enums that are struct members stay 4 bytes even where the compiler
 * shortens enums by default (arm-none-eabi); rknn_core_mask needs 4 anyway. */
SIZE(rknn_tensor_type, 4, 4);
SIZE(rknn_tensor_qnt_type, 4, 4);
SIZE(rknn_tensor_format, 4, 4);
SIZE(rknn_core_mask, 4, 4);
SIZE(rknn_matmul_type, 4, 4);
SIZE(rknn_target_type, 4, 4);

/* api.md §7.2 rknn_api.h */
SIZE(rknn_input_output_num, 8, 8);
OFF(rknn_input_output_num, n_input, 0, 0);
OFF(rknn_input_output_num, n_output, 4, 4);

/* No pointers: identical on both ABIs. */
SIZE(rknn_tensor_attr, 376, 376);
OFF(rknn_tensor_attr, index, 0, 0);
OFF(rknn_tensor_attr, n_dims, 4, 4);
OFF(rknn_tensor_attr, dims, 8, 8);
OFF(rknn_tensor_attr, name, 72, 72);
OFF(rknn_tensor_attr, n_elems, 328, 328);
OFF(rknn_tensor_attr, size, 332, 332);
OFF(rknn_tensor_attr, fmt, 336, 336);
OFF(rknn_tensor_attr, type, 340, 340);
OFF(rknn_tensor_attr, qnt_type, 344, 344);
OFF(rknn_tensor_attr, fl, 348, 348);
OFF(rknn_tensor_attr, zp, 352, 352);
OFF(rknn_tensor_attr, scale, 356, 356);
OFF(rknn_tensor_attr, w_stride, 360, 360);
OFF(rknn_tensor_attr, size_with_stride, 364, 364);
OFF(rknn_tensor_attr, pass_through, 368, 368);
OFF(rknn_tensor_attr, h_stride, 372, 372);

SIZE(rknn_input_range, 33040, 33040);
OFF(rknn_input_range, index, 0, 0);
OFF(rknn_input_range, shape_number, 4, 4);
OFF(rknn_input_range, fmt, 8, 8);
OFF(rknn_input_range, name, 12, 12);
OFF(rknn_input_range, dyn_range, 268, 268);
OFF(rknn_input_range, n_dims, 33036, 33036);

/* arm32: char* @0 (4 B), uint64 aligned to 8 -> @8, size 16. */
SIZE(rknn_perf_detail, 16, 16);
OFF(rknn_perf_detail, perf_data, 0, 0);
OFF(rknn_perf_detail, data_len, 8, 8);

SIZE(rknn_perf_run, 8, 8);
OFF(rknn_perf_run, run_duration, 0, 0);

SIZE(rknn_sdk_version, 512, 512);
OFF(rknn_sdk_version, api_version, 0, 0);
OFF(rknn_sdk_version, drv_version, 256, 256);

SIZE(rknn_mem_size, 64, 64);
OFF(rknn_mem_size, total_weight_size, 0, 0);
OFF(rknn_mem_size, total_internal_size, 4, 4);
OFF(rknn_mem_size, total_dma_allocated_size, 8, 8);
OFF(rknn_mem_size, total_sram_size, 16, 16);
OFF(rknn_mem_size, free_sram_size, 20, 20);
OFF(rknn_mem_size, reserved, 24, 24);

SIZE(rknn_custom_string, 1024, 1024);
OFF(rknn_custom_string, string, 0, 0);

/* arm32: virt_addr @0 (4), phys_addr 8-aligned @8, fd @16, offset @20,
 * size @24, flags @28, priv_data @32 (4) -> 36, rounded to 8 -> 40. */
SIZE(rknn_tensor_mem, 40, 40);
SIZE(struct _rknn_tensor_memory, 40, 40);
OFF(rknn_tensor_mem, virt_addr, 0, 0);
OFF(rknn_tensor_mem, phys_addr, 8, 8);
OFF(rknn_tensor_mem, fd, 16, 16);
OFF(rknn_tensor_mem, offset, 20, 20);
OFF(rknn_tensor_mem, size, 24, 24);
OFF(rknn_tensor_mem, flags, 28, 28);
OFF(rknn_tensor_mem, priv_data, 32, 32);

/* arm32: index @0, buf @4, size @8, pass_through @12, type @16, fmt @20 -> 24. */
SIZE(rknn_input, 32, 24);
OFF(rknn_input, index, 0, 0);
OFF(rknn_input, buf, 8, 4);
OFF(rknn_input, size, 16, 8);
OFF(rknn_input, pass_through, 20, 12);
OFF(rknn_input, type, 24, 16);
OFF(rknn_input, fmt, 28, 20);

/* arm32: want_float @0, is_prealloc @1, index @4, buf @8, size @12 -> 16. */
SIZE(rknn_output, 24, 16);
OFF(rknn_output, want_float, 0, 0);
OFF(rknn_output, is_prealloc, 1, 1);
OFF(rknn_output, index, 4, 4);
OFF(rknn_output, buf, 8, 8);
OFF(rknn_output, size, 16, 12);

/* arm32: ctx is uint32 -> real_model_offset @4, real_model_size @8,
 * model_buffer_fd @12, model_buffer_flags @16, reserved[112] @20 -> 132. */
SIZE(rknn_init_extend, 136, 132);
OFF(rknn_init_extend, ctx, 0, 0);
OFF(rknn_init_extend, real_model_offset, 8, 4);
OFF(rknn_init_extend, real_model_size, 12, 8);
OFF(rknn_init_extend, model_buffer_fd, 16, 12);
OFF(rknn_init_extend, model_buffer_flags, 20, 16);
OFF(rknn_init_extend, reserved, 24, 20);

/* uint64 first, 3 x int32 -> 20, rounded to 8 -> 24 on both. */
SIZE(rknn_run_extend, 24, 24);
OFF(rknn_run_extend, frame_id, 0, 0);
OFF(rknn_run_extend, non_block, 8, 8);
OFF(rknn_run_extend, timeout_ms, 12, 12);
OFF(rknn_run_extend, fence_fd, 16, 16);

SIZE(rknn_output_extend, 8, 8);
OFF(rknn_output_extend, frame_id, 0, 0);

/* api.md §7.4 rknn_matmul_api.h */
SIZE(rknn_matmul_tensor_attr, 332, 332);
OFF(rknn_matmul_tensor_attr, name, 0, 0);
OFF(rknn_matmul_tensor_attr, n_dims, 256, 256);
OFF(rknn_matmul_tensor_attr, dims, 260, 260);
OFF(rknn_matmul_tensor_attr, size, 324, 324);
OFF(rknn_matmul_tensor_attr, type, 328, 328);

SIZE(rknn_matmul_io_attr, 996, 996);
OFF(rknn_matmul_io_attr, A, 0, 0);
OFF(rknn_matmul_io_attr, B, 332, 332);
OFF(rknn_matmul_io_attr, C, 664, 664);

/* arm32: name @0, scale @256, scale_len @260, zp @264, zp_len @268 -> 272. */
SIZE(rknn_quant_params, 288, 272);
OFF(rknn_quant_params, name, 0, 0);
OFF(rknn_quant_params, scale, 256, 256);
OFF(rknn_quant_params, scale_len, 264, 260);
OFF(rknn_quant_params, zp, 272, 264);
OFF(rknn_quant_params, zp_len, 280, 268);

SIZE(rknn_matmul_shape, 12, 12);
OFF(rknn_matmul_shape, M, 0, 0);
OFF(rknn_matmul_shape, K, 4, 4);
OFF(rknn_matmul_shape, N, 8, 8);

SIZE(rknn_matmul_info, 64, 64);
SIZE(struct rknn_matmul_info_t, 64, 64);
OFF(rknn_matmul_info, M, 0, 0);
OFF(rknn_matmul_info, K, 4, 4);
OFF(rknn_matmul_info, N, 8, 8);
OFF(rknn_matmul_info, type, 12, 12);
OFF(rknn_matmul_info, B_layout, 16, 16);
OFF(rknn_matmul_info, B_quant_type, 18, 18);
OFF(rknn_matmul_info, AC_layout, 20, 20);
OFF(rknn_matmul_info, AC_quant_type, 22, 22);
OFF(rknn_matmul_info, iommu_domain_id, 24, 24);
OFF(rknn_matmul_info, reserved, 28, 28);
_Static_assert(sizeof(((rknn_matmul_info *)0)->reserved) == 36, "matmul_info.reserved[36]");

/* api.md §7.5 rknn_custom_op.h */
SIZE(rknn_gpu_op_context, 24, 12);
OFF(rknn_gpu_op_context, cl_context, 0, 0);
OFF(rknn_gpu_op_context, cl_command_queue, 8, 4);
OFF(rknn_gpu_op_context, cl_kernel, 16, 8);

/* arm32: target @0, internal_ctx (uint32) @4, gpu_ctx (12) @8, priv_data @20 -> 24. */
SIZE(rknn_custom_op_context, 48, 24);
OFF(rknn_custom_op_context, target, 0, 0);
OFF(rknn_custom_op_context, internal_ctx, 8, 4);
OFF(rknn_custom_op_context, gpu_ctx, 16, 8);
OFF(rknn_custom_op_context, priv_data, 40, 20);

/* attr (376, 4-aligned) then mem (8-aligned; 376 is a multiple of 8) -> 416. */
SIZE(rknn_custom_op_tensor, 416, 416);
OFF(rknn_custom_op_tensor, attr, 0, 0);
OFF(rknn_custom_op_tensor, mem, 376, 376);

/* arm32: data @264 (4) -> 268. */
SIZE(rknn_custom_op_attr, 272, 268);
OFF(rknn_custom_op_attr, name, 0, 0);
OFF(rknn_custom_op_attr, dtype, 256, 256);
OFF(rknn_custom_op_attr, n_elems, 260, 260);
OFF(rknn_custom_op_attr, data, 264, 264);

/* arm32: cl_kernel_source @520 (4) -> 524, cl_source_size 8-aligned @528,
 * cl_build_options @536..792, five 4-byte callbacks @792..812, rounded to
 * 8 -> 816. */
SIZE(rknn_custom_op, 832, 816);
OFF(rknn_custom_op, version, 0, 0);
OFF(rknn_custom_op, target, 4, 4);
OFF(rknn_custom_op, op_type, 8, 8);
OFF(rknn_custom_op, cl_kernel_name, 264, 264);
OFF(rknn_custom_op, cl_kernel_source, 520, 520);
OFF(rknn_custom_op, cl_source_size, 528, 528);
OFF(rknn_custom_op, cl_build_options, 536, 536);
OFF(rknn_custom_op, init, 792, 792);
OFF(rknn_custom_op, prepare, 800, 796);
OFF(rknn_custom_op, compute, 808, 800);
OFF(rknn_custom_op, compute_native, 816, 804);
OFF(rknn_custom_op, destroy, 824, 808);

/* ---- Run-time value checks -------------------------------------------- */

typedef struct {
    const char *name;
    long long value;    /* what the header says */
    long long expected; /* what the documentation says */
} value_check;

#define V(name, expected)                                                                          \
    {                                                                                              \
#name, (long long)(name), (expected)                                                       \
    }

static const value_check k_values[] = {
    /* init flags (api.md §7.1) */
    V(RKNN_FLAG_PRIOR_HIGH, 0x00000000),
    V(RKNN_FLAG_PRIOR_MEDIUM, 0x00000001),
    V(RKNN_FLAG_PRIOR_LOW, 0x00000002),
    V(RKNN_FLAG_ASYNC_MASK, 0x00000004),
    V(RKNN_FLAG_COLLECT_PERF_MASK, 0x00000008),
    V(RKNN_FLAG_MEM_ALLOC_OUTSIDE, 0x00000010),
    V(RKNN_FLAG_SHARE_WEIGHT_MEM, 0x00000020),
    V(RKNN_FLAG_FENCE_IN_OUTSIDE, 0x00000040),
    V(RKNN_FLAG_FENCE_OUT_OUTSIDE, 0x00000080),
    V(RKNN_FLAG_COLLECT_MODEL_INFO_ONLY, 0x00000100),
    V(RKNN_FLAG_INTERNAL_ALLOC_OUTSIDE, 0x00000200),
    V(RKNN_FLAG_EXECUTE_FALLBACK_PRIOR_DEVICE_GPU, 0x00000400),
    V(RKNN_FLAG_ENABLE_SRAM, 0x00000800),
    V(RKNN_FLAG_SHARE_SRAM, 0x00001000),
    V(RKNN_FLAG_DISABLE_PROC_HIGH_PRIORITY, 0x00002000),
    V(RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE, 0x00004000),
    V(RKNN_FLAG_DISABLE_FLUSH_OUTPUT_MEM_CACHE, 0x00008000),
    V(RKNN_FLAG_MODEL_BUFFER_ZERO_COPY, 0x00010000),
    V(RKNN_MEM_FLAG_ALLOC_NO_CONTEXT, 0x00020000),
    /* error codes (api.md §3.10, §7.1) */
    V(RKNN_SUCC, 0),
    V(RKNN_ERR_FAIL, -1),
    V(RKNN_ERR_TIMEOUT, -2),
    V(RKNN_ERR_DEVICE_UNAVAILABLE, -3),
    V(RKNN_ERR_MALLOC_FAIL, -4),
    V(RKNN_ERR_PARAM_INVALID, -5),
    V(RKNN_ERR_MODEL_INVALID, -6),
    V(RKNN_ERR_CTX_INVALID, -7),
    V(RKNN_ERR_INPUT_INVALID, -8),
    V(RKNN_ERR_OUTPUT_INVALID, -9),
    V(RKNN_ERR_DEVICE_UNMATCH, -10),
    V(RKNN_ERR_INCOMPATILE_PRE_COMPILE_MODEL, -11),
    V(RKNN_ERR_INCOMPATILE_OPTIMIZATION_LEVEL_VERSION, -12),
    V(RKNN_ERR_TARGET_PLATFORM_UNMATCH, -13),
    /* size constants */
    V(RKNN_MAX_DIMS, 16),
    V(RKNN_MAX_NUM_CHANNEL, 15),
    V(RKNN_MAX_NAME_LEN, 256),
    V(RKNN_MAX_DYNAMIC_SHAPE_NUM, 512),
    /* rknn_query_cmd */
    V(RKNN_QUERY_IN_OUT_NUM, 0),
    V(RKNN_QUERY_INPUT_ATTR, 1),
    V(RKNN_QUERY_OUTPUT_ATTR, 2),
    V(RKNN_QUERY_PERF_DETAIL, 3),
    V(RKNN_QUERY_PERF_RUN, 4),
    V(RKNN_QUERY_SDK_VERSION, 5),
    V(RKNN_QUERY_MEM_SIZE, 6),
    V(RKNN_QUERY_CUSTOM_STRING, 7),
    V(RKNN_QUERY_NATIVE_INPUT_ATTR, 8),
    V(RKNN_QUERY_NATIVE_OUTPUT_ATTR, 9),
    V(RKNN_QUERY_NATIVE_NC1HWC2_INPUT_ATTR, 8),
    V(RKNN_QUERY_NATIVE_NC1HWC2_OUTPUT_ATTR, 9),
    V(RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR, 10),
    V(RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, 11),
    V(RKNN_QUERY_DEVICE_MEM_INFO, 12),
    V(RKNN_QUERY_INPUT_DYNAMIC_RANGE, 13),
    V(RKNN_QUERY_CURRENT_INPUT_ATTR, 14),
    V(RKNN_QUERY_CURRENT_OUTPUT_ATTR, 15),
    V(RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR, 16),
    V(RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR, 17),
    V(RKNN_QUERY_CMD_MAX, 18),
    /* rknn_tensor_type (v2.3.x) */
    V(RKNN_TENSOR_FLOAT32, 0),
    V(RKNN_TENSOR_FLOAT16, 1),
    V(RKNN_TENSOR_INT8, 2),
    V(RKNN_TENSOR_UINT8, 3),
    V(RKNN_TENSOR_INT16, 4),
    V(RKNN_TENSOR_UINT16, 5),
    V(RKNN_TENSOR_INT32, 6),
    V(RKNN_TENSOR_UINT32, 7),
    V(RKNN_TENSOR_INT64, 8),
    V(RKNN_TENSOR_BOOL, 9),
    V(RKNN_TENSOR_INT4, 10),
    V(RKNN_TENSOR_BFLOAT16, 11),
    V(RKNN_TENSOR_TYPE_MAX, 12),
    /* rknn_tensor_qnt_type */
    V(RKNN_TENSOR_QNT_NONE, 0),
    V(RKNN_TENSOR_QNT_DFP, 1),
    V(RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC, 2),
    V(RKNN_TENSOR_QNT_MAX, 3),
    /* rknn_tensor_format */
    V(RKNN_TENSOR_NCHW, 0),
    V(RKNN_TENSOR_NHWC, 1),
    V(RKNN_TENSOR_NC1HWC2, 2),
    V(RKNN_TENSOR_UNDEFINED, 3),
    V(RKNN_TENSOR_FORMAT_MAX, 4),
    /* rknn_core_mask */
    V(RKNN_NPU_CORE_AUTO, 0),
    V(RKNN_NPU_CORE_0, 1),
    V(RKNN_NPU_CORE_1, 2),
    V(RKNN_NPU_CORE_2, 4),
    V(RKNN_NPU_CORE_0_1, 3),
    V(RKNN_NPU_CORE_0_1_2, 7),
    V(RKNN_NPU_CORE_ALL, 0xffff),
    V(RKNN_NPU_CORE_UNDEFINED, 0x10000),
    /* rknn_tensor_mem_flags */
    V(RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE, 1),
    V(RKNN_TENSOR_MEMORY_FLAGS_FROM_FD, 2),
    V(RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS, 3),
    V(RKNN_TENSOR_MEMORY_FLAGS_UNKNOWN, 4),
    /* rknn_mem_alloc_flags */
    V(RKNN_FLAG_MEMORY_FLAGS_DEFAULT, 0),
    V(RKNN_FLAG_MEMORY_CACHEABLE, 1),
    V(RKNN_FLAG_MEMORY_NON_CACHEABLE, 2),
    V(RKNN_FLAG_MEMORY_TRY_ALLOC_SRAM, 4),
    /* rknn_mem_sync_mode */
    V(RKNN_MEMORY_SYNC_TO_DEVICE, 1),
    V(RKNN_MEMORY_SYNC_FROM_DEVICE, 2),
    V(RKNN_MEMORY_SYNC_BIDIRECTIONAL, 3),
    /* rknn_matmul_type (v2.0.0b0 + v2.3.x 9, 12, 15) */
    V(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, 1),
    V(RKNN_INT8_MM_INT8_TO_INT32, 2),
    V(RKNN_INT8_MM_INT8_TO_INT8, 3),
    V(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16, 4),
    V(RKNN_FLOAT16_MM_INT8_TO_FLOAT32, 5),
    V(RKNN_FLOAT16_MM_INT8_TO_FLOAT16, 6),
    V(RKNN_FLOAT16_MM_INT4_TO_FLOAT32, 7),
    V(RKNN_FLOAT16_MM_INT4_TO_FLOAT16, 8),
    V(RKNN_INT8_MM_INT8_TO_FLOAT32, 9),
    V(RKNN_INT4_MM_INT4_TO_INT16, 10),
    V(RKNN_INT8_MM_INT4_TO_INT32, 11),
    V(RKNN_FLOAT16_MM_INT4_TO_BFLOAT16, 12),
    V(RKNN_INT8_MM_INT4_TO_FLOAT16, 15),
    /* v2.3.x matmul layout / quant selectors */
    V(RKNN_MM_LAYOUT_NORM, 0),
    V(RKNN_MM_LAYOUT_NATIVE, 1),
    V(RKNN_MM_LAYOUT_TP_NORM, 2),
    V(RKNN_QUANT_TYPE_PER_LAYER_SYM, 0),
    V(RKNN_QUANT_TYPE_PER_LAYER_ASYM, 1),
    V(RKNN_QUANT_TYPE_PER_CHANNEL_SYM, 2),
    V(RKNN_QUANT_TYPE_PER_CHANNEL_ASYM, 3),
    V(RKNN_QUANT_TYPE_PER_GROUP_SYM, 4),
    V(RKNN_QUANT_TYPE_PER_GROUP_ASYM, 5),
    /* custom op (api.md §7.5) */
    V(RKNN_WARNING_SKIP_CUSTOM_OP_COMPUTE, -14),
    V(RKNN_CUSTOM_OP_MAX_STR_LEN, 64),
    V(RKNN_CUSTOM_OP_MAX_VALUE_LEN, 32),
    V(RKNN_TARGET_TYPE_CPU, 1),
    V(RKNN_TARGET_TYPE_GPU, 2),
    V(RKNN_TARGET_TYPE_MAX, 3),
};

typedef struct {
    const char *call;
    const char *value;
    const char *expected;
} string_check;

#define S(call, expected)                                                                          \
    {                                                                                              \
#call, (call), (expected)                                                                  \
    }

static const char *matmul_name(int type)
{
    return get_matmul_type_string((rknn_matmul_type)type);
}

static int check_strings(void)
{
    const string_check checks[] = {
        S(get_type_string(RKNN_TENSOR_FLOAT32), "FP32"),
        S(get_type_string(RKNN_TENSOR_FLOAT16), "FP16"),
        S(get_type_string(RKNN_TENSOR_INT8), "INT8"),
        S(get_type_string(RKNN_TENSOR_UINT8), "UINT8"),
        S(get_type_string(RKNN_TENSOR_INT16), "INT16"),
        S(get_type_string(RKNN_TENSOR_UINT16), "UINT16"),
        S(get_type_string(RKNN_TENSOR_INT32), "INT32"),
        S(get_type_string(RKNN_TENSOR_UINT32), "UINT32"),
        S(get_type_string(RKNN_TENSOR_INT64), "INT64"),
        S(get_type_string(RKNN_TENSOR_BOOL), "BOOL"),
        S(get_type_string(RKNN_TENSOR_INT4), "INT4"),
        S(get_type_string(RKNN_TENSOR_BFLOAT16), "BF16"),
        S(get_type_string(RKNN_TENSOR_TYPE_MAX), "UNKNOW"),
        S(get_type_string((rknn_tensor_type)99), "UNKNOW"),
        S(get_qnt_type_string(RKNN_TENSOR_QNT_NONE), "NONE"),
        S(get_qnt_type_string(RKNN_TENSOR_QNT_DFP), "DFP"),
        S(get_qnt_type_string(RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC), "AFFINE"),
        S(get_qnt_type_string(RKNN_TENSOR_QNT_MAX), "UNKNOW"),
        S(get_format_string(RKNN_TENSOR_NCHW), "NCHW"),
        S(get_format_string(RKNN_TENSOR_NHWC), "NHWC"),
        S(get_format_string(RKNN_TENSOR_NC1HWC2), "NC1HWC2"),
        S(get_format_string(RKNN_TENSOR_UNDEFINED), "UNDEFINED"),
        S(get_format_string(RKNN_TENSOR_FORMAT_MAX), "UNKNOW"),
        S(matmul_name(1), "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32"),
        S(matmul_name(11), "RKNN_INT8_MM_INT4_TO_INT32"),
        S(matmul_name(15), "RKNN_INT8_MM_INT4_TO_FLOAT16"),
        S(matmul_name(13), "UNKNOW"),
        S(RKNN_CSTOP_PLUGIN_PREFIX, "librkcst_"),
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        if (strcmp(checks[i].value, checks[i].expected) != 0) {
            printf("FAIL %s = \"%s\", expected \"%s\"\n", checks[i].call, checks[i].value,
                   checks[i].expected);
            failures++;
        }
    }
    return failures;
}

static int check_values(void)
{
    int failures = 0;
    for (size_t i = 0; i < sizeof k_values / sizeof k_values[0]; i++) {
        if (k_values[i].value != k_values[i].expected) {
            printf("FAIL %s = %lld, expected %lld\n", k_values[i].name, k_values[i].value,
                   k_values[i].expected);
            failures++;
        }
    }
    return failures;
}

int main(void)
{
    int failures = check_values() + check_strings();
    if (failures != 0) {
        printf("test_api_abi: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_api_abi: %zu values, all layouts and strings OK\n",
           sizeof k_values / sizeof k_values[0]);
    return 0;
}
