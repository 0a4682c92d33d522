/*
 * npu_regcmd.h - encode/decode of one 64-bit regcmd word and the 4-word PC
 * tail that ends every task's stream (hardware.md §1.5).
 *
 *   bits 63:48  target id (enum npu_regcmd_target)
 *   bits 47:16  32-bit register value
 *   bits 15:0   register offset inside the core window
 *
 * Task stream = body words + tail:
 *   1  PC DATA_ADDR   = DMA address of the next task's stream (NOP on the last)
 *   2  PC DATA_AMOUNT = fetch amount of the next task (0 on the last)
 *   3  0x0041_0000_0000_0000 (pre-enable)
 *   4  0x0081 word, reg 0x0008, value = unit enable mask
 */
#ifndef NPU_REGCMD_H
#define NPU_REGCMD_H

#include <stdint.h>

#include "npu_regs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RKNPU_PC_DATA_EXTRA_AMOUNT: words of the tail after each task's body. */
#define NPU_PC_TAIL_WORDS 4u

/* S_POINTER value of every block's ping-pong arming (hardware.md §1.3): the
 * POINTER_PP_EN | EXECUTER_PP_EN | POINTER_PP_MODE fields, bits 1-3 in each
 * block. The driver adds the core in CORE_INDEX. */
#define NPU_S_POINTER_PP_ARM 0xEu

/* One rknpu_task record (format.md, the task blob): 40 bytes of
 * little-endian words at these offsets. The PC never reads it; the driver,
 * the builder and the model parser do. */
#define NPU_TASK_RECORD_SIZE 40u
enum npu_task_field {
    NPU_TASK_FLAGS = 0,
    NPU_TASK_OP_IDX = 4,
    NPU_TASK_ENABLE_MASK = 8,
    NPU_TASK_INT_MASK = 12,
    NPU_TASK_INT_CLEAR = 16,
    NPU_TASK_INT_STATUS = 20,
    NPU_TASK_REGCFG_AMOUNT = 24,
    NPU_TASK_REGCFG_OFFSET = 28,
    NPU_TASK_REGCMD_ADDR = 32, /* 64 bits */
};

/* Unit bits of the op-enable value (= GLOBAL OPERATION_ENABLE, hardware.md §1.3). */
enum npu_unit_mask {
    NPU_UNIT_CNA = 1u << NPU_GLOBAL_OPERATION_ENABLE_CNA_EN_SHIFT,
    NPU_UNIT_CMAC = 1u << NPU_GLOBAL_OPERATION_ENABLE_CMAC_EN_SHIFT, /* reserved on RK3588 */
    NPU_UNIT_CORE = 1u << NPU_GLOBAL_OPERATION_ENABLE_CORE_EN_SHIFT,
    NPU_UNIT_DPU = 1u << NPU_GLOBAL_OPERATION_ENABLE_DPU_EN_SHIFT,
    NPU_UNIT_DPU_RDMA = 1u << NPU_GLOBAL_OPERATION_ENABLE_DPU_RDMA_EN_SHIFT,
    NPU_UNIT_PPU = 1u << NPU_GLOBAL_OPERATION_ENABLE_PPU_EN_SHIFT,
    NPU_UNIT_PPU_RDMA = 1u << NPU_GLOBAL_OPERATION_ENABLE_PPU_RDMA_EN_SHIFT,
    NPU_UNIT_ALL = 0x7F,
};

/* rknpu_task.int_mask of a task the DPU ends (either ping-pong group). */
#define NPU_INT_DPU_DONE (NPU_PC_INTERRUPT_MASK_DPU_GROUP0(1) | NPU_PC_INTERRUPT_MASK_DPU_GROUP1(1))
/* ... of a pooling task the PPU ends. */
#define NPU_INT_PPU_DONE (NPU_PC_INTERRUPT_MASK_PPU_GROUP0(1) | NPU_PC_INTERRUPT_MASK_PPU_GROUP1(1))

/* ---- One word ------------------------------------------------------------- */

static inline uint64_t npu_regcmd_make(uint16_t target, uint16_t reg, uint32_t value)
{
    return ((uint64_t)target << 48) | ((uint64_t)value << 16) | (uint64_t)reg;
}

static inline uint16_t npu_regcmd_target(uint64_t word)
{
    return (uint16_t)(word >> 48);
}

static inline uint16_t npu_regcmd_reg(uint64_t word)
{
    return (uint16_t)(word & 0xFFFFu);
}

static inline uint32_t npu_regcmd_value(uint64_t word)
{
    return (uint32_t)(word >> 16);
}

/* ---- Special words and the PC tail ---------------------------------------- */

static inline uint64_t npu_regcmd_nop(void)
{
    return 0;
}

static inline int npu_regcmd_is_nop(uint64_t word)
{
    return npu_regcmd_target(word) == NPU_TARGET_NOP;
}

/* Tail word 1: where the PC fetches the next task from (16-byte aligned). */
static inline uint64_t npu_regcmd_next_address(uint32_t next_stream_dma)
{
    return npu_regcmd_make(NPU_TARGET_PC, NPU_PC_DATA_ADDR, next_stream_dma);
}

/* Tail word 2: fetch amount of the next task (npu_pc_fetch_amount()). */
static inline uint64_t npu_regcmd_next_amount(uint32_t amount)
{
    return npu_regcmd_make(NPU_TARGET_PC, NPU_PC_DATA_AMOUNT, amount);
}

/* Tail word 3: the TRM requires it before the op-enable word. */
static inline uint64_t npu_regcmd_pre_enable(void)
{
    return npu_regcmd_make(NPU_TARGET_PRE_ENABLE, 0, 0);
}

static inline int npu_regcmd_is_pre_enable(uint64_t word)
{
    return npu_regcmd_target(word) == NPU_TARGET_PRE_ENABLE;
}

/* Tail word 4: start every unit in `unit_mask` (enum npu_unit_mask bits). */
static inline uint64_t npu_regcmd_op_enable(uint32_t unit_mask)
{
    return npu_regcmd_make(NPU_TARGET_OP_ENABLE_ALL, NPU_PC_OPERATION_ENABLE, unit_mask);
}

static inline int npu_regcmd_is_op_enable(uint64_t word)
{
    return npu_regcmd_target(word) == NPU_TARGET_OP_ENABLE_ALL;
}

/* ---- Fetch amount (hardware.md §1.5, §3.2) -------------------------------------- */

/*
 * PC_DATA_AMOUNT for a task whose body has `body_words` words (the 4-word
 * tail excluded, i.e. rknpu_task.regcfg_amount):
 *     ceil((body_words + 4) / scale) - 1
 * `scale` is the profile's pc_data_amount_scale (RK356x 1, others 2); 0 is
 * treated as 1 so that the function is total. The result may exceed the
 * 16-bit register field; callers check against the field width.
 */
static inline uint32_t npu_pc_fetch_amount(uint32_t body_words, uint32_t scale)
{
    uint64_t words = (uint64_t)body_words + NPU_PC_TAIL_WORDS;
    uint64_t unit = scale ? scale : 1u;
    return (uint32_t)((words + unit - 1u) / unit - 1u);
}

/* Words the PC fetches for a given amount: (amount + 1) * scale. */
static inline uint64_t npu_pc_fetch_words(uint32_t amount, uint32_t scale)
{
    uint64_t unit = scale ? scale : 1u;
    return ((uint64_t)amount + 1u) * unit;
}

#ifdef __cplusplus
}
#endif

#endif /* NPU_REGCMD_H */
