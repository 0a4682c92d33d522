/*
 * bench_vnpu - int8 convolution throughput of the virtual NPU: a 3x3 conv
 * 64 x 56 x 56 -> 64 (pad 1, NC1HWC2 input, BS stream, int8 output) on one
 * RK3588 core, repeated for about a second. Prints
 *   BENCH vnpu_int8_macs_per_s <value> macs/s
 * (MACs as counted by the model: 56 * 56 * 64 * 9 * 64 per job).
 */
#include <stdio.h>
#include <string.h>

#include "hal.h"
#include "npu_soc.h"
#include "vnpu.h"
#include "vnpu_test_asm.h"

#define ARENA_BYTES (2u << 20)
#define ARENA_BASE  0x10000000u
#define C           64u
#define HW          56u
#define K           64u

static _Alignas(64) uint8_t arena[ARENA_BYTES];
static vnpu_device dev;
static tasm_mem mem;
static tasm_task task;

int main(void)
{
    const npu_soc_profile *soc = npu_soc_get(RKNPU_SOC_RK3588);
    vnpu_dma_window w = {ARENA_BASE, ARENA_BYTES, arena};
    tasm_conv c;
    uint32_t seed = 1;
    vnpu_stats st;
    uint64_t t0, t1, us;
    uint32_t regcmd, amount;
    unsigned runs = 0;

    if (vnpu_init(&dev, soc, &w) != 0)
        return 1;
    tasm_mem_init(&mem, arena, ARENA_BASE, ARENA_BYTES);
    tasm_conv_defaults(&c);
    c.hin = c.win = c.hout = c.wout = HW;
    c.cin_real = c.cin = C;
    c.nker = K;
    c.kout = K;
    c.kh = c.kw = 3;
    c.pt = c.pl = 1;
    c.pad_value = 0xFFFFFF80u;
    c.in_addr = tasm_alloc(&mem, C * HW * HW, 64);
    c.w_addr = tasm_alloc(&mem, K * C * 9, 64);
    c.bs_addr = tasm_alloc(&mem, K * 8, 64);
    c.out_surf = HW * HW * 16;
    c.out_addr = tasm_alloc(&mem, (K / 16) * c.out_surf, 64);
    for (uint32_t i = 0; i < C * HW * HW; i++)
        tasm_host(&mem, c.in_addr)[i] = (uint8_t)(seed = seed * 1103515245u + 12345u) >> 3;
    for (uint32_t i = 0; i < K * C * 9; i++)
        tasm_host(&mem, c.w_addr)[i] = (uint8_t)((seed = seed * 1103515245u + 12345u) >> 9);
    for (uint32_t i = 0; i < K * 8; i++)
        tasm_host(&mem, c.bs_addr)[i] = (uint8_t)(i * 29u);
    c.bs_cfg = 0x20140;
    c.bs_mul_cfg = 0xE01;
    c.bs_neg_shift = 14;
    c.brdma_use = 7;
    c.bs_ow_cfg = 0x125;
    c.oc_scale = 20000;
    c.oc_shift = 30;
    tasm_conv_task(&task, soc, &c);

    regcmd = tasm_place_chain(&mem, &task, 1, &amount);
    t0 = hal_time_us();
    do {
        tasm_kick(&dev, 0, regcmd, amount, 1, task.int_mask, task.int_mask);
        if (tasm_fuzz(vnpu_mmio_read(&dev, 0, NPU_PC_INTERRUPT_STATUS)) != task.int_mask) {
            printf("bench_vnpu: job failed: %s\n", vnpu_last_error(&dev, 0));
            return 1;
        }
        vnpu_mmio_write(&dev, 0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
        runs++;
        t1 = hal_time_us();
    } while ((t1 - t0 < 1000000u || runs < 3) && runs < 1000);
    vnpu_get_stats(&dev, 0, &st);
    us = t1 > t0 ? t1 - t0 : 1;
    printf("bench_vnpu: %u runs of %llu MACs in %llu us\n", runs,
           (unsigned long long)(st.macs / runs), (unsigned long long)us);
    printf("BENCH vnpu_int8_macs_per_s %llu macs/s\n",
           (unsigned long long)(st.macs * 1000000u / us));
    return 0;
}
