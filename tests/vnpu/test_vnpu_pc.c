/*
 * test_vnpu_pc - the virtual NPU's program controller and MMIO face with
 * hand-assembled streams: fetch amounts, chaining, TASK_CON counts,
 * interrupt mask/status/clear, ping-pong group bits, error states for
 * unknown registers / unsupported values / DMA outside the window, every
 * fault injection, reset, multi-core independence, trace, and the RK3566 /
 * RV1106 profile differences. Expected values come from hardware.md §1-§3 (bits,
 * formulas, BSP sequence), never from the model.
 */
#include <stdio.h>
#include <string.h>

#include "npu_regcmd.h"
#include "npu_regs.h"
#include "npu_soc.h"
#include "test_util.h"
#include "vnpu.h"
#include "vnpu_test_asm.h"

#define ARENA_BYTES (1u << 20)
#define ARENA_BASE  0x40000000u

static _Alignas(64) uint8_t arena[ARENA_BYTES];
static vnpu_device dev;
static tasm_mem mem;
static tasm_task tasks[4];
static const npu_soc_profile *soc;

static void setup(rknpu_soc_id id)
{
    soc = tasm_setup(&dev, &mem, arena, ARENA_BASE, ARENA_BYTES, id);
    CHECK(soc != NULL);
}

static uint32_t rd(unsigned core, uint32_t off)
{
    return vnpu_mmio_read(&dev, core, off);
}

static void wr(unsigned core, uint32_t off, uint32_t v)
{
    vnpu_mmio_write(&dev, core, off, v);
}

static int contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

/* ---- a copy task: flying DPU, int8 in/out, every stage bypassed --------------- */

typedef struct {
    uint32_t src, dst, w, h, c;
} copy_job;

static void copy_task(tasm_task *t, copy_job *j, uint32_t w, uint32_t h, uint32_t c, uint8_t seed)
{
    uint32_t atom = soc->feature_atom_bytes;
    tasm_conv e;

    j->w = w;
    j->h = h;
    j->c = c;
    j->src = tasm_alloc(&mem, w * h * atom, 64);
    j->dst = tasm_alloc(&mem, w * h * atom, 64);
    for (uint32_t i = 0; i < w * h * atom; i++)
        tasm_host(&mem, j->src)[i] = (uint8_t)(seed + i * 7u);
    tasm_conv_defaults(&e);
    e.out_addr = j->dst;
    e.out_surf = w * h * atom;
    tasm_flying_task(t, soc, 0, w, h, c, j->src, &e, 0);
}

static int copy_done(const copy_job *j)
{
    uint32_t atom = soc->feature_atom_bytes;

    for (uint32_t p = 0; p < j->w * j->h; p++)
        for (uint32_t ch = 0; ch < j->c; ch++)
            if (tasm_host(&mem, j->dst)[p * atom + ch] != tasm_host(&mem, j->src)[p * atom + ch])
                return 0;
    return 1;
}

static int copy_untouched(const copy_job *j)
{
    uint32_t atom = soc->feature_atom_bytes;

    for (uint32_t i = 0; i < j->w * j->h * atom; i++)
        if (tasm_host(&mem, j->dst)[i] != 0)
            return 0;
    return 1;
}

/* Place one hand-written stream (words as given, no tail added) and kick it. */
static uint32_t place_words(const uint64_t *w, unsigned n)
{
    uint32_t a = tasm_alloc(&mem, n * 8u + 8u, 64);

    for (unsigned i = 0; i < n; i++)
        tasm_store64(tasm_host(&mem, a), i, w[i]);
    return a;
}

/* ---- tests ------------------------------------------------------------------ */

static void test_single_task_and_pingpong(void)
{
    copy_job j[4];

    setup(RKNPU_SOC_RK3588);
    for (int i = 0; i < 3; i++) {
        copy_task(&tasks[0], &j[i], 4, 3, 16, (uint8_t)(i * 11));
        CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0);
        CHECK(copy_done(&j[i]));
        /* the DPU executer alternates groups job after job: bit 8, 9, 8 */
        CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0); /* tasm_run cleared it */
    }
    /* look at the raw bits before clearing */
    copy_task(&tasks[0], &j[3], 2, 2, 8, 5);
    uint32_t amount, a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    /* fourth DPU task: group 1 (0, 1, 0 before) */
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x200);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_STATUS), 0x200);
    CHECK_EQ_U(tasm_fuzz(rd(0, NPU_PC_INTERRUPT_STATUS)), 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 1);
    CHECK_EQ_U(rd(0, NPU_DPU_S_POINTER) >> 16 & 1, 0); /* next task: group 0 */
    CHECK(vnpu_last_error(&dev, 0)[0] == '\0');

    /* a two-task chain ends in group 1 again (0 then 1) */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_task(&tasks[0], &j[0], 3, 1, 16, 1);
    copy_task(&tasks[1], &j[1], 5, 2, 16, 2);
    a = tasm_place_chain(&mem, tasks, 2, &amount);
    tasm_kick(&dev, 0, a, amount, 2, 0x300, 0x300);
    CHECK(copy_done(&j[0]) && copy_done(&j[1]));
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x200);
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 2);

    /* one more task (group 0) leaves the executer on group 1 ... */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_task(&tasks[0], &j[0], 1, 1, 4, 8);
    CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0);
    CHECK_EQ_U(rd(0, NPU_DPU_S_POINTER), 0x1000E);
    /* ... EXECUTER_PP_CLEAR (bit 5) restarts at group 0 */
    wr(0, NPU_DPU_S_POINTER, 0x2E);
    CHECK_EQ_U(rd(0, NPU_DPU_S_POINTER), 0xE);
    copy_task(&tasks[0], &j[0], 1, 1, 4, 9);
    /* the stream re-writes S_POINTER = 0xE (no clear): group 0 */
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x100);
}

static void test_fetch_amounts(void)
{
    copy_job j;
    uint32_t amount, a;

    setup(RKNPU_SOC_RK3588);
    copy_task(&tasks[0], &j, 2, 2, 16, 3);
    /* the body has an odd number of words: with scale 2 the fetch holds
     * body + 4 tail + 1 padding word (hardware.md §1.5) */
    if (tasks[0].n % 2 == 0)
        tasm_raw(&tasks[0], npu_regcmd_nop()); /* NOP words in a body are skipped */
    CHECK(tasks[0].n % 2 == 1);
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    CHECK_EQ_U(amount, (tasks[0].n + 4 + 1) / 2 - 1);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    CHECK(copy_done(&j));
    CHECK_EQ_U(tasm_fuzz(rd(0, NPU_PC_INTERRUPT_STATUS)), 0x300);

    /* one fetch unit short: the op-enable word is not fetched */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_task(&tasks[0], &j, 2, 2, 16, 4);
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount - 1, 1, 0x300, 0x300);
    CHECK(copy_untouched(&j));
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x3000);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_STATUS), 0); /* mask 0x300 hides the error bits */
    CHECK(contains(vnpu_last_error(&dev, 0), "task 0") &&
          contains(vnpu_last_error(&dev, 0), "no op-enable"));
    /* with the reset mask the error bits are visible in STATUS too */
    wr(0, NPU_PC_INTERRUPT_MASK, 0x1FFFF);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_STATUS), 0x3000);
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);

    /* the second task's in-stream amount one unit short */
    copy_job j2;
    copy_task(&tasks[0], &j, 2, 1, 16, 5);
    copy_task(&tasks[1], &j2, 2, 1, 16, 6);
    a = tasm_place_chain(&mem, tasks, 2, &amount);
    {
        /* patch task 0's tail word 2 (PC_DATA_AMOUNT) */
        uint8_t *w = tasm_host(&mem, a);
        uint32_t n1 = npu_pc_fetch_amount(tasks[1].n, 2) - 1;
        tasm_store64(w, tasks[0].n + 1, npu_regcmd_next_amount(n1));
    }
    tasm_kick(&dev, 0, a, amount, 2, 0x300, 0x300);
    CHECK(copy_done(&j));
    CHECK(copy_untouched(&j2));
    CHECK(contains(vnpu_last_error(&dev, 0), "task 1"));
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x3000); /* no completion bits */
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 1);
}

static void test_chaining_and_task_con(void)
{
    copy_job j[3];
    uint32_t amount, a;

    setup(RKNPU_SOC_RK3588);
    /* TASK_NUMBER is the stop condition: 2 of 3 chained tasks run */
    for (int i = 0; i < 3; i++)
        copy_task(&tasks[i], &j[i], 3, 2, 16, (uint8_t)(40 + i));
    a = tasm_place_chain(&mem, tasks, 3, &amount);
    tasm_kick(&dev, 0, a, amount, 2, 0x300, 0x300);
    CHECK(copy_done(&j[0]) && copy_done(&j[1]) && copy_untouched(&j[2]));
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 2);
    CHECK_EQ_U(tasm_fuzz(rd(0, NPU_PC_INTERRUPT_STATUS)), 0x300);
    CHECK(vnpu_last_error(&dev, 0)[0] == '\0');

    /* the counter is cleared by TASK_COUNT_CLEAR (bit 13), as the BSP does */
    wr(0, NPU_PC_TASK_CON, 0x2000);
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 0);

    /* a NOP tail ends the chain: asking for 3 tasks of a 2-task chain is an error
     * after the 2 tasks ran (the PC would fetch from address 0) */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    for (int i = 0; i < 2; i++)
        copy_task(&tasks[i], &j[i], 2, 2, 16, (uint8_t)(50 + i));
    a = tasm_place_chain(&mem, tasks, 2, &amount);
    tasm_kick(&dev, 0, a, amount, 3, 0x300, 0x300);
    CHECK(copy_done(&j[0]) && copy_done(&j[1]));
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 2);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x1000); /* DMA read error only */
    CHECK(contains(vnpu_last_error(&dev, 0), "chain ended"));

    /* TASK_NUMBER 0 is not understood */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_task(&tasks[0], &j[0], 2, 2, 16, 60);
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount, 0, 0x300, 0x300);
    CHECK(copy_untouched(&j[0]));
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x3000);
    CHECK(contains(vnpu_last_error(&dev, 0), "PC_TASK_CON"));

    /* a dangling link on the last task is ignored */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_task(&tasks[0], &j[0], 2, 2, 16, 61);
    copy_task(&tasks[1], &j[1], 2, 2, 16, 62);
    a = tasm_place_chain(&mem, tasks, 2, &amount);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    CHECK(copy_done(&j[0]) && copy_untouched(&j[1]));
    CHECK_EQ_U(tasm_fuzz(rd(0, NPU_PC_INTERRUPT_STATUS)), 0x300);
}

static void test_interrupt_registers(void)
{
    copy_job j;
    uint32_t amount, a;

    setup(RKNPU_SOC_RK3588);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_MASK), 0x1FFFF); /* reset value */
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0);
    copy_task(&tasks[0], &j, 2, 2, 16, 70);
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_MASK), 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x100);
    wr(0, NPU_PC_INTERRUPT_MASK, 0);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_STATUS), 0);         /* status = raw & mask */
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x100); /* raw unaffected */
    wr(0, NPU_PC_INTERRUPT_MASK, 0xFFFFFFFF);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_MASK), 0x1FFFF); /* 17 bits */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x200);              /* other bit: no effect */
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_STATUS), 0x100);
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x100); /* write 1 to clear */
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0);
    wr(0, NPU_PC_INTERRUPT_STATUS, 0x1FFFF); /* read-only */
    wr(0, NPU_PC_INTERRUPT_RAW_STATUS, 0x1FFFF);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0);
    CHECK_EQ_U(rd(0, NPU_PC_VERSION), 0x46495245);         /* "FIRE", hardware.md §1.2 */
    CHECK_EQ_U(rd(0, NPU_DDMA_CFG_STATUS) & 0x100, 0x100); /* DMA idle */

    /* the BSP's pre-kick S_POINTER writes are accepted and read back */
    wr(0, NPU_CNA_S_POINTER, 0xE + 0x10000000u);
    CHECK_EQ_U(rd(0, NPU_CNA_S_POINTER) & 0xF000000Fu, 0x1000000Eu);

    /* a PPU task completes with the PPU bits (int_mask 0xC00) */
    tasm_pool p;
    memset(&p, 0, sizeof p);
    p.method = 1;
    p.win = p.hin = p.wout = p.hout = 1;
    p.c = 32;
    p.kw = p.kh = p.sw = p.sh = 1;
    p.src = tasm_alloc(&mem, 64, 64);
    p.dst = tasm_alloc(&mem, 64, 64);
    p.line = p.surf = p.dsurf = 16;
    for (int i = 0; i < 32; i++)
        tasm_host(&mem, p.src)[i] = (uint8_t)(i * 3 + 1);
    tasm_pool_task(&tasks[0], soc, &p);
    CHECK(tasm_run(&dev, 0, &mem, tasks, 1) == 0);
    CHECK(memcmp(tasm_host(&mem, p.dst), tasm_host(&mem, p.src), 32) == 0);
    tasm_kick(&dev, 0, tasm_place_chain(&mem, tasks, 1, &amount), amount, 1, 0xC00, 0xC00);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x800); /* second PPU task: group 1 */
}

/* An S_POINTER write plus one register word, then the tail. */
static uint32_t bad_stream(uint64_t bad, unsigned *n_out)
{
    uint64_t w[8];
    unsigned n = 0;

    w[n++] = npu_regcmd_make(NPU_TARGET_DPU, NPU_DPU_S_POINTER, 0xE);
    w[n++] = bad;
    w[n++] = npu_regcmd_nop();
    w[n++] = npu_regcmd_next_amount(0);
    w[n++] = npu_regcmd_pre_enable();
    w[n++] = npu_regcmd_op_enable(0x18);
    *n_out = n;
    return place_words(w, n);
}

/* vnpu_set_dry_run: jobs complete as usual without computing; their words
 * are still checked; vnpu_init executes again. */
static void test_dry_run(void)
{
    copy_job j[2];
    unsigned n;
    uint32_t a, amount;

    setup(RKNPU_SOC_RK3588);
    vnpu_set_dry_run(&dev, 1);
    copy_task(&tasks[0], &j[0], 3, 1, 16, 1);
    copy_task(&tasks[1], &j[1], 5, 2, 16, 2);
    a = tasm_place_chain(&mem, tasks, 2, &amount);
    tasm_kick(&dev, 0, a, amount, 2, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x200); /* the last task's group, as run */
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 2);
    CHECK(copy_untouched(&j[0]) && copy_untouched(&j[1]));
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    a = bad_stream(npu_regcmd_make(NPU_TARGET_DPU, 0x4FF0, 0x1234), &n);
    tasm_kick(&dev, 0, a, npu_pc_fetch_amount(n - 4, 2), 1, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x3000);
    CHECK(contains(vnpu_last_error(&dev, 0), "unknown register"));
    vnpu_set_dry_run(&dev, 0);
    vnpu_reset(&dev, 0);
    CHECK(tasm_run(&dev, 0, &mem, tasks, 2) == 0);
    CHECK(copy_done(&j[0]) && copy_done(&j[1]));
    setup(RKNPU_SOC_RK3588);
    CHECK_EQ_U((unsigned)dev.dry_run, 0);
}

static void test_error_states(void)
{
    copy_job j;
    unsigned n;
    uint32_t a;
    const char *e;

    setup(RKNPU_SOC_RK3588);
    /* unknown register offset in the stream */
    a = bad_stream(npu_regcmd_make(NPU_TARGET_DPU, 0x4FF0, 0x1234), &n);
    tasm_kick(&dev, 0, a, npu_pc_fetch_amount(n - 4, 2), 1, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x3000);
    e = vnpu_last_error(&dev, 0);
    CHECK(contains(e, "task 0") && contains(e, "0x4ff0") && contains(e, "unknown register"));

    /* a target writing outside its block */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    a = bad_stream(npu_regcmd_make(NPU_TARGET_CNA, NPU_DPU_BS_CFG, 0x53), &n);
    tasm_kick(&dev, 0, a, npu_pc_fetch_amount(n - 4, 2), 1, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x3000);
    CHECK(contains(vnpu_last_error(&dev, 0), "outside its block"));

    /* CMAC target on RK3588 */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    a = bad_stream(npu_regcmd_make(NPU_TARGET_CMAC, NPU_CMAC_MISC_CFG, 1), &n);
    tasm_kick(&dev, 0, a, npu_pc_fetch_amount(n - 4, 2), 1, 0x300, 0x300);
    CHECK(contains(vnpu_last_error(&dev, 0), "no CMAC"));

    /* an unsupported value: the error names task, block, register and value;
     * the chain stops, later tasks do not run */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_job j2;
    copy_task(&tasks[0], &j, 2, 2, 16, 80);
    copy_task(&tasks[1], &j2, 2, 2, 16, 81);
    copy_job j3;
    copy_task(&tasks[2], &j3, 2, 2, 16, 82);
    tasm_reg(&tasks[1], NPU_DPU_EW_CFG, 0x3A2); /* EW on, PReLU (not modelled) */
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 3), -1);
    CHECK(copy_done(&j) && copy_untouched(&j2) && copy_untouched(&j3));
    e = vnpu_last_error(&dev, 0);
    CHECK(contains(e, "task 1") && contains(e, "DPU_EW_CFG") && contains(e, "0x000003a2") &&
          contains(e, "not modelled"));
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 1);

    /* missing pre-enable word */
    uint64_t w[4] = {npu_regcmd_make(NPU_TARGET_DPU, NPU_DPU_S_POINTER, 0xE), npu_regcmd_nop(),
                     npu_regcmd_next_amount(0), npu_regcmd_op_enable(0x18)};
    a = place_words(w, 4);
    tasm_kick(&dev, 0, a, 1, 1, 0x300, 0x300);
    CHECK(contains(vnpu_last_error(&dev, 0), "pre-enable"));

    /* an op-enable that starts no complete pipeline */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    a = bad_stream(npu_regcmd_nop(), &n);
    tasm_store64(tasm_host(&mem, a), n - 1, npu_regcmd_op_enable(0x04));
    tasm_kick(&dev, 0, a, npu_pc_fetch_amount(n - 4, 2), 1, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x3000);
    CHECK(contains(vnpu_last_error(&dev, 0), "op-enable 0x4"));

    /* unknown MMIO offset, per-unit OP_EN (slave mode), unaligned kick */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    wr(0, 0x4FF0, 5);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x3000);
    CHECK(contains(vnpu_last_error(&dev, 0), "mmio") && contains(vnpu_last_error(&dev, 0), "4ff0"));
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    wr(0, NPU_DPU_OPERATION_ENABLE, 1);
    CHECK(contains(vnpu_last_error(&dev, 0), "DPU_OPERATION_ENABLE"));
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    wr(0, NPU_PC_DATA_ADDR, ARENA_BASE + 8);
    wr(0, NPU_PC_TASK_CON, 0x6001);
    wr(0, NPU_PC_OPERATION_ENABLE, 1);
    CHECK(contains(vnpu_last_error(&dev, 0), "16-byte"));
    wr(0, NPU_PC_DATA_ADDR, 1); /* slave mode */
    wr(0, NPU_PC_OPERATION_ENABLE, 1);
    CHECK(contains(vnpu_last_error(&dev, 0), "slave mode"));
}

static void test_dma_window(void)
{
    copy_job j;
    tasm_conv e;

    setup(RKNPU_SOC_RK3588);
    /* source outside: read error only */
    tasm_conv_defaults(&e);
    e.out_addr = tasm_alloc(&mem, 64, 64);
    e.out_surf = 64;
    tasm_flying_task(&tasks[0], soc, 0, 4, 1, 16, ARENA_BASE + ARENA_BYTES - 32, &e, 0);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -1);
    uint32_t amount, a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x1FFFF);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x1000);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_STATUS), 0x1000);
    CHECK(contains(vnpu_last_error(&dev, 0), "MRDMA") &&
          contains(vnpu_last_error(&dev, 0), "outside the DMA window"));

    /* destination outside: write error only */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_task(&tasks[0], &j, 2, 2, 16, 90);
    tasm_reg(&tasks[0], NPU_DPU_DST_BASE_ADDR, 0x1000);
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x2000);
    CHECK(contains(vnpu_last_error(&dev, 0), "DPU write"));

    /* regcmd fetch outside */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    tasm_kick(&dev, 0, 0x1000, 10, 1, 0x300, 0x300);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0x1000);
    CHECK(contains(vnpu_last_error(&dev, 0), "regcmd fetch"));
}

static void test_faults_and_reset(void)
{
    copy_job j;
    uint32_t amount, a;

    setup(RKNPU_SOC_RK3588);
    /* never complete: nothing is written, no bit, busy until reset */
    vnpu_inject_fault(&dev, 0, VNPU_FAULT_NEVER_COMPLETE, 1);
    copy_task(&tasks[0], &j, 3, 3, 16, 100);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -2);
    CHECK(copy_untouched(&j));
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0);
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 0);
    CHECK_EQ_U(rd(0, NPU_DPU_S_STATUS) & 3, 1); /* operating */
    CHECK(contains(vnpu_last_error(&dev, 0), "never completes"));
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -2); /* still stuck (fault count was 1) */
    vnpu_reset(&dev, 0);
    CHECK_EQ_U(rd(0, NPU_DPU_S_STATUS), 0);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_MASK), 0x1FFFF);
    CHECK_EQ_U(rd(0, NPU_DPU_S_POINTER), 0);
    CHECK(vnpu_last_error(&dev, 0)[0] == '\0');
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0); /* the next job works */
    CHECK(copy_done(&j));

    /* DMA error: output correct, completion + error bits */
    vnpu_inject_fault(&dev, 0, VNPU_FAULT_DMA_ERROR, 1);
    copy_task(&tasks[0], &j, 3, 3, 16, 101);
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    CHECK(copy_done(&j));
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS) & 0x3000, 0x3000);
    CHECK_EQ_U(tasm_fuzz(rd(0, NPU_PC_INTERRUPT_STATUS)), 0x300);
    CHECK(contains(vnpu_last_error(&dev, 0), "DMA"));
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);

    /* corrupt output: completes, output differs */
    vnpu_inject_fault(&dev, 0, VNPU_FAULT_CORRUPT_OUTPUT, 1);
    copy_task(&tasks[0], &j, 3, 3, 16, 102);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0);
    CHECK(!copy_done(&j));

    /* dropped completion: output and task counter fine, status stays 0 */
    vnpu_inject_fault(&dev, 0, VNPU_FAULT_DROP_IRQ, 1);
    copy_task(&tasks[0], &j, 3, 3, 16, 103);
    wr(0, NPU_PC_TASK_CON, 0x2000);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -2);
    CHECK(copy_done(&j));
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_STATUS), 0);
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 1);

    /* a count of 2 affects two jobs, the third is normal */
    vnpu_inject_fault(&dev, 0, VNPU_FAULT_DROP_IRQ, 2);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -2);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), -2);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0);

    /* reset drops a pending fault and the register file */
    vnpu_inject_fault(&dev, 0, VNPU_FAULT_NEVER_COMPLETE, 5);
    wr(0, NPU_DPU_BS_CFG, 0x12345);
    vnpu_reset(&dev, 0);
    CHECK_EQ_U(rd(0, NPU_DPU_BS_CFG), 0);
    copy_task(&tasks[0], &j, 2, 2, 16, 104);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0);
    CHECK(copy_done(&j));

    vnpu_stats st;
    vnpu_get_stats(&dev, 0, &st);
    CHECK(st.jobs >= 9 && st.tasks >= 6 && st.dma_bytes_read > 0 && st.dma_bytes_written > 0);
}

static void test_multicore(void)
{
    copy_job j[3];

    setup(RKNPU_SOC_RK3588);
    CHECK(dev.cores[0] && dev.cores[1] && dev.cores[2]);
    /* a register written on one core is not seen on another */
    wr(1, NPU_DPU_BS_ALU_CFG, 0xABCD);
    CHECK_EQ_U(rd(1, NPU_DPU_BS_ALU_CFG), 0xABCD);
    CHECK_EQ_U(rd(0, NPU_DPU_BS_ALU_CFG), 0);
    CHECK_EQ_U(rd(2, NPU_DPU_BS_ALU_CFG), 0);
    /* three jobs, one per core; core 1 also gets a failing job */
    for (unsigned c = 0; c < 3; c++) {
        copy_task(&tasks[0], &j[c], 4, 2, 16, (uint8_t)(120 + c));
        CHECK_EQ_U(tasm_run(&dev, c, &mem, tasks, 1), 0);
        CHECK(copy_done(&j[c]));
    }
    tasm_kick(&dev, 1, 0x1000, 3, 1, 0x300, 0x300);
    CHECK_EQ_U(rd(1, NPU_PC_INTERRUPT_RAW_STATUS), 0x1000);
    CHECK_EQ_U(rd(0, NPU_PC_INTERRUPT_RAW_STATUS), 0);
    CHECK_EQ_U(rd(2, NPU_PC_INTERRUPT_RAW_STATUS), 0);
    CHECK(vnpu_last_error(&dev, 0)[0] == '\0' && vnpu_last_error(&dev, 1)[0] != '\0');
    /* a fault on core 2 leaves core 0 alone */
    vnpu_inject_fault(&dev, 2, VNPU_FAULT_NEVER_COMPLETE, 1);
    CHECK_EQ_U(tasm_run(&dev, 2, &mem, tasks, 1), -2);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0);
    vnpu_reset(&dev, 2);
    CHECK_EQ_U(tasm_run(&dev, 2, &mem, tasks, 1), 0);
    vnpu_stats s0, s1;
    vnpu_get_stats(&dev, 0, &s0);
    vnpu_get_stats(&dev, 1, &s1);
    CHECK_EQ_U(s0.jobs, 2);
    CHECK_EQ_U(s1.jobs, 2);
    /* RK3566 has one core */
    setup(RKNPU_SOC_RK3566);
    CHECK(dev.cores[0] != NULL && dev.cores[1] == NULL && dev.cores[2] == NULL);
    CHECK_EQ_U(rd(1, NPU_PC_INTERRUPT_MASK), 0);
}

static void test_rk3566_profile(void)
{
    copy_job j;
    uint32_t amount, a;

    setup(RKNPU_SOC_RK3566);
    /* fetch unit = 1 word: amount = body + 4 - 1 */
    copy_task(&tasks[0], &j, 3, 2, 8, 130);
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    CHECK_EQ_U(amount, tasks[0].n + 3);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    CHECK(copy_done(&j));
    CHECK_EQ_U(tasm_fuzz(rd(0, NPU_PC_INTERRUPT_STATUS)), 0x300);
    /* the RK3588 amount (scale 2) under-fetches on RK3566 */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_task(&tasks[0], &j, 3, 2, 8, 131);
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, npu_pc_fetch_amount(tasks[0].n, 2), 1, 0x300, 0x300);
    CHECK(copy_untouched(&j));
    CHECK(contains(vnpu_last_error(&dev, 0), "no op-enable"));

    /* shifted CORE map: MISC_CFG at 0x300C, DATAOUT_SIZE_0 at 0x3010 */
    wr(0, 0x300C, 0x2000);
    wr(0, 0x3010, 0x00070009);
    CHECK_EQ_U(rd(0, 0x300C), 0x2000);
    CHECK_EQ_U(rd(0, 0x3010), 0x00070009);
    CHECK_EQ_U(rd(0, 0x3004), 0); /* S_POINTER stays put */
    /* CMAC target accepted */
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    unsigned n;
    a = bad_stream(npu_regcmd_make(NPU_TARGET_CMAC, NPU_CMAC_MISC_CFG, 1), &n);
    tasm_store64(tasm_host(&mem, a), n - 1, npu_regcmd_op_enable(0x18));
    /* the flying task registers are stale from the earlier copy, in the
     * register group that copy ran (its DPU and DPU_RDMA have since moved to
     * the other group): point them back, and it runs again */
    wr(0, NPU_DPU_S_POINTER,
       NPU_DPU_S_POINTER_POINTER_PP_CLEAR(1) | NPU_DPU_S_POINTER_EXECUTER_PP_CLEAR(1));
    wr(0, NPU_DPU_RDMA_S_POINTER,
       NPU_DPU_RDMA_S_POINTER_POINTER_PP_CLEAR(1) | NPU_DPU_RDMA_S_POINTER_EXECUTER_PP_CLEAR(1));
    tasm_kick(&dev, 0, a, (uint32_t)n - 1, 1, 0x300, 0x300);
    CHECK(vnpu_last_error(&dev, 0)[0] == '\0');
    CHECK_EQ_U(rd(0, NPU_CMAC_MISC_CFG), 1);
    CHECK_EQ_U(tasm_fuzz(rd(0, NPU_PC_INTERRUPT_STATUS)), 0x300);

    /* RV1106: 16-bit TASK_NUMBER, DDMA words on target 0x0401 */
    setup(RKNPU_SOC_RV1106);
    wr(0, NPU_PC_INTERRUPT_CLEAR, 0x1FFFF);
    copy_task(&tasks[0], &j, 2, 2, 16, 140);
    tasm_raw(&tasks[0], npu_regcmd_make(NPU_TARGET_CMAC, NPU_DDMA_CFG_DMA_WR_CFG, 0xC));
    a = tasm_place_chain(&mem, tasks, 1, &amount);
    tasm_kick(&dev, 0, a, amount, 1, 0x300, 0x300);
    CHECK(copy_done(&j));
    CHECK(vnpu_last_error(&dev, 0)[0] == '\0');
    CHECK_EQ_U(rd(0, NPU_DDMA_CFG_DMA_WR_CFG), 0xC);
    CHECK_EQ_U(npu_soc_task_con(soc, 1, false), 0x60001);
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 1);
    wr(0, NPU_PC_TASK_CON, 0x20000); /* TASK_COUNT_CLEAR moved up by 4 */
    CHECK_EQ_U(rd(0, NPU_PC_TASK_STATUS), 0);
}

static unsigned trace_lines, trace_hits;
static void sink(void *ctx, const char *line)
{
    (void)ctx;
    trace_lines++;
    if (strstr(line, "DPU_S_POINTER") || strstr(line, "task 0: op-enable 0x18 group 0") ||
        strstr(line, "job done"))
        trace_hits++;
}

static void test_trace(void)
{
    copy_job j;

    setup(RKNPU_SOC_RK3588);
    vnpu_set_trace(&dev, sink, NULL);
    copy_task(&tasks[0], &j, 2, 2, 16, 150);
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0);
    CHECK(trace_lines > tasks[0].n);
    CHECK_EQ_U(trace_hits, 3);
    vnpu_set_trace(&dev, NULL, NULL);
    trace_lines = 0;
    CHECK_EQ_U(tasm_run(&dev, 0, &mem, tasks, 1), 0);
    CHECK_EQ_U(trace_lines, 0);
}

static void test_bad_arguments(void)
{
    vnpu_dma_window w = {ARENA_BASE, ARENA_BYTES, arena};

    CHECK(vnpu_init(NULL, npu_soc_get(RKNPU_SOC_RK3588), &w) == -1);
    CHECK(vnpu_init(&dev, NULL, &w) == -1);
    CHECK(vnpu_init(&dev, npu_soc_get(RKNPU_SOC_RK3588), NULL) == -1);
    setup(RKNPU_SOC_RK3588);
    CHECK_EQ_U(vnpu_mmio_read(&dev, 7, 0), 0);
    vnpu_mmio_write(&dev, 7, NPU_PC_OPERATION_ENABLE, 1); /* ignored */
    CHECK(vnpu_last_error(&dev, 9)[0] == '\0');
}

int main(void)
{
    test_single_task_and_pingpong();
    test_fetch_amounts();
    test_chaining_and_task_con();
    test_interrupt_registers();
    test_error_states();
    test_dry_run();
    test_dma_window();
    test_faults_and_reset();
    test_multicore();
    test_rk3566_profile();
    test_trace();
    test_bad_arguments();
    return test_report("vnpu_pc");
}
