/*
 * vnpu_base.c - what every unit of the virtual NPU stands on: the SoC
 * configuration, the register file, error reporting and trace, and DMA
 * access through the window (vnpu_base.h). It calls no unit and not the
 * dispatcher (vnpu.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vnpu_base.h"

static vnpu_soc_cfg vnpu_soc;
static const npu_reg_info *vnpu_reg_base; /* npu_reg_at(0) */

const vnpu_soc_cfg *vnpu_cfg(void)
{
    return &vnpu_soc;
}

/* ---- register file -------------------------------------------------------- */

/* Register-file slot of a table offset, or -1 if the table has no register
 * there. */
static int vnpu_reg_slot(uint32_t table_offset)
{
    const npu_reg_info *r = npu_reg_lookup(table_offset);

    if (r == NULL || vnpu_reg_base == NULL)
        return -1;
    return (int)(r - vnpu_reg_base);
}

/* The unit (CNA 0x1000 ... PPU_RDMA 0x7000) whose two groups hold a
 * register, or -1: PC registers, other blocks and each unit's S_STATUS and
 * S_POINTER exist once. */
static int vnpu_reg_unit(uint32_t table_offset)
{
    uint32_t page = table_offset >> 12, in_page = table_offset & 0xFFFu;

    if (page < 1u || page > VNPU_UNIT_COUNT || in_page == 0x0u || in_page == 0x4u)
        return -1;
    return (int)page - 1;
}

uint32_t vnpu_reg(const vnpu_core *c, uint32_t table_offset)
{
    int slot = vnpu_reg_slot(table_offset);
    int unit = vnpu_reg_unit(table_offset);

    if (slot < 0)
        return 0u;
    return c->regs[unit < 0 ? 0 : c->executer[unit]][slot];
}

void vnpu_reg_set(vnpu_core *c, uint32_t table_offset, uint32_t value)
{
    int slot = vnpu_reg_slot(table_offset);
    int unit = vnpu_reg_unit(table_offset);

    if (slot >= 0)
        c->regs[unit < 0 ? 0 : c->pointer[unit]][slot] = value;
}

const char *vnpu_reg_name(uint32_t table_offset)
{
    const npu_reg_info *r = npu_reg_lookup(table_offset);

    return r ? r->name : "UNKNOWN";
}

/* ---- trace, errors --------------------------------------------------------- */

void vnpu_trace(const vnpu_device *dev, const char *fmt, ...)
{
    char line[224];
    va_list ap;

    if (dev == NULL || dev->trace == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    dev->trace(dev->trace_ctx, line);
}

/* Prefix of error messages: the task in the job, or the MMIO access. */
static int vnpu_error_prefix(const vnpu_task *t, char *buf, size_t cap)
{
    if (t->task == ~0u)
        return snprintf(buf, cap, "mmio: ");
    return snprintf(buf, cap, "task %u: ", t->task);
}

int vnpu_fail(vnpu_task *t, uint32_t irq_bits, const char *fmt, ...)
{
    vnpu_core *c = t->core;
    va_list ap;

    c->int_raw |= irq_bits;
    if (!t->failed) {
        int n = vnpu_error_prefix(t, c->last_error, sizeof c->last_error);
        if (n < 0)
            n = 0;
        if ((size_t)n < sizeof c->last_error) {
            va_start(ap, fmt);
            vsnprintf(c->last_error + n, sizeof c->last_error - (size_t)n, fmt, ap);
            va_end(ap);
        }
        vnpu_trace(t->dev, "vnpu%u error: %s", c->index, c->last_error);
    }
    t->failed = 1;
    return -1;
}

int vnpu_unsupported(vnpu_task *t, uint32_t table_offset, const char *what)
{
    return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                     "%s = 0x%08lx: %s not modelled", vnpu_reg_name(table_offset),
                     (unsigned long)vnpu_reg(t->core, table_offset), what);
}

int vnpu_inconsistent(vnpu_task *t, uint32_t off_a, uint32_t off_b, const char *what)
{
    return vnpu_fail(t, VNPU_INT_DMA_READ_ERROR | VNPU_INT_DMA_WRITE_ERROR,
                     "%s = 0x%08lx and %s = 0x%08lx: %s", vnpu_reg_name(off_a),
                     (unsigned long)vnpu_reg(t->core, off_a), vnpu_reg_name(off_b),
                     (unsigned long)vnpu_reg(t->core, off_b), what);
}

/* ---- DMA ------------------------------------------------------------------- */

static uint8_t *vnpu_dma_map(vnpu_task *t, uint32_t addr, uint64_t len, const char *what, int write)
{
    const vnpu_dma_window *w = &t->dev->dma;
    uint64_t off = (uint64_t)addr - w->dma_base;

    if (addr < w->dma_base || off > w->size || len > (uint64_t)w->size - off) {
        vnpu_fail(t, write ? VNPU_INT_DMA_WRITE_ERROR : VNPU_INT_DMA_READ_ERROR,
                  "%s DMA %s of 0x%08lx + %llu bytes is outside the DMA window "
                  "[0x%08lx, 0x%08lx)",
                  what, write ? "write" : "read", (unsigned long)addr, (unsigned long long)len,
                  (unsigned long)w->dma_base, (unsigned long)((uint64_t)w->dma_base + w->size));
        return NULL;
    }
    if (write)
        t->core->stats.dma_bytes_written += len;
    else
        t->core->stats.dma_bytes_read += len;
    return w->host + off;
}

const uint8_t *vnpu_dma_read(vnpu_task *t, uint32_t addr, uint64_t len, const char *what)
{
    return vnpu_dma_map(t, addr, len, what, 0);
}

uint8_t *vnpu_dma_write(vnpu_task *t, uint32_t addr, uint64_t len, const char *what, int dpu)
{
    uint8_t *p = vnpu_dma_map(t, addr, len, what, 1);

    if (p != NULL && len != 0) {
        t->last_write_addr = addr;
        t->last_write_len = (uint32_t)len;
        t->last_write_dpu = (uint8_t)(dpu != 0);
    }
    return p;
}

/* ---- SoC configuration ------------------------------------------------------ */

/* ---- fp16 table (vnpu_fp.h) ---------------------------------------------- */

float vnpu_f16_table[65536];

/* Filled once: every vnpu_init after the first finds it done. */
static void vnpu_f16_table_fill(void)
{
    static int filled;

    if (filled)
        return;
    for (uint32_t h = 0; h < 65536u; h++)
        vnpu_f16_table[h] = vnpu_f16_to_f32_calc((uint16_t)h);
    filled = 1;
}

int vnpu_base_init(const npu_soc_profile *soc)
{
    int rk356x = npu_soc_is_rk356x(soc);

    vnpu_reg_base = npu_reg_at(0);
    if (npu_reg_count() > VNPU_MAX_REGS || vnpu_reg_base == NULL)
        return -1;
    vnpu_f16_table_fill();
    memset(&vnpu_soc, 0, sizeof vnpu_soc);
    vnpu_soc.atom = soc->feature_atom_bytes;
    vnpu_soc.pc_scale = soc->pc_data_amount_scale ? soc->pc_data_amount_scale : 1;
    vnpu_soc.rk356x = (uint8_t)rk356x;
    /* weight kernel groups: RK3588 32 int8 / 16 fp16 (hardware.md §4.3), RK356x
     * 16 int8 (vnpu.md §6) and 8 fp16 (by the same ratio, unverified) */
    vnpu_soc.kgroup_int8 = rk356x ? 16 : 32;
    vnpu_soc.kgroup_fp16 = rk356x ? 8 : 16;
    /* int4: RK3588's documented native matmul B is [N/64][K/32][64][32]
     * (vnpu.md §6.3); hardware.md §2.3 lists int4 for RK3588 only */
    vnpu_soc.kgroup_int4 = soc->id == RKNPU_SOC_RK3588 ? 64 : 0;
    vnpu_soc.bs_group = rk356x ? 4 : 8;         /* vnpu.md §7.1 */
    vnpu_soc.dw_slice_bytes = rk356x ? 32 : 64; /* hardware.md §4.3 (iav / Mesa) */
    vnpu_soc.cvt_bit0_enable = (uint8_t)rk356x; /* vnpu.md §5.3 reading (A) */
    vnpu_soc.task_number_bits = soc->pc_task_number_bits;
    vnpu_soc.task_number_mask = soc->pc_task_number_mask;
    return 0;
}

void vnpu_cfg_set_cvt_bit0(int enable)
{
    vnpu_soc.cvt_bit0_enable = (uint8_t)(enable != 0);
}
