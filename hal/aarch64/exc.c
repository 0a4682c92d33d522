/*
 * exc.c - AArch64 EL1 exception handling.
 *
 * 1. MMIO trap-and-emulate: an access to a software-modelled device window
 *    (nothing is mapped there on QEMU's virt board) raises a data abort. QEMU
 *    reports ISV=0 for aborts taken to EL1, so the faulting LDR/STR is decoded
 *    here and forwarded to the region registered with hal_mmio_register().
 * 2. SMC emulation: without EL3 (QEMU's virt board) an SMC is an undefined
 *    instruction; with an emulator installed (hal_smc_emulate) it answers
 *    as the secure firmware would, x0..x3 in, x0 out.
 * 3. Anything else is fatal: print a fault report and exit with status 99 so
 *    a crashing test fails at once instead of hanging until its timeout.
 */
#include <stdint.h>
#include <stdio.h>

#include "hal.h"

struct hal_exc_frame {
    uint64_t x[31];
    uint64_t elr;
    uint64_t spsr;
    uint64_t pad;
};
_Static_assert(sizeof(struct hal_exc_frame) == 272, "frame layout must match vectors.S");

void hal_exc_handler(struct hal_exc_frame *f, unsigned kind);

#define EC_DATA_ABORT_SAME_EL 0x25u
#define EC_UNKNOWN            0x00u       /* an undefined instruction */
#define SMC_INSN_MASK         0xFFE0001Fu /* SMC #imm16 */
#define SMC_INSN              0xD4000003u
#define VECTOR_SYNC_SPX       4u

static uint64_t frame_reg(const struct hal_exc_frame *f, unsigned r)
{
    return r == 31 ? 0 : f->x[r]; /* register 31 is XZR for loads/stores */
}

static void frame_set_reg(struct hal_exc_frame *f, unsigned r, uint64_t v)
{
    if (r != 31)
        f->x[r] = v;
}

/* Emulate one "load/store register (integer)" instruction against a region.
 * Handles unsigned-offset, unscaled, pre/post-index and register-offset
 * forms of STR/LDR (zero-extending) of 1, 2, 4 or 8 bytes. */
static int emulate_access(struct hal_exc_frame *f, uint64_t far)
{
    const hal_mmio_region *r = hal_mmio_find((uintptr_t)far);
    uint32_t insn;
    unsigned size, rt, rn, opc;
    uintptr_t off;

    if (!r)
        return 0;
    insn = *(const uint32_t *)(uintptr_t)f->elr;
    if (((insn >> 27) & 7u) != 7u || ((insn >> 26) & 1u))
        return 0; /* not an integer load/store register instruction */
    size = 1u << (insn >> 30);
    rt = insn & 31u;
    rn = (insn >> 5) & 31u;
    opc = (insn >> 22) & 3u;
    if (opc > 1)
        return 0; /* sign-extending loads and prefetches are not used on MMIO */
    off = (uintptr_t)(far - r->base);
    if (opc == 1) {
        uint64_t v = r->read32(r->ctx, off & ~(uintptr_t)3);
        if (size < 4)
            v = (v >> (8 * (off & 3))) & ((1ull << (8 * size)) - 1);
        frame_set_reg(f, rt, v);
    } else {
        uint64_t v = frame_reg(f, rt);
        if (size == 8) {
            r->write32(r->ctx, off, (uint32_t)v);
            r->write32(r->ctx, off + 4, (uint32_t)(v >> 32));
        } else {
            r->write32(r->ctx, off, (uint32_t)v);
        }
    }
    /* pre/post-indexed immediate forms write the new address back */
    if (((insn >> 24) & 3u) == 0 && !((insn >> 21) & 1u) && ((insn >> 10) & 1u)) {
        int64_t imm9 = (int64_t)((uint64_t)insn << 43) >> 55;
        frame_set_reg(f, rn, frame_reg(f, rn) + (uint64_t)imm9);
    }
    hal_mmio_trap_count++;
    f->elr += 4;
    return 1;
}

static int emulate_smc(struct hal_exc_frame *f)
{
    hal_smc_emulator fn = hal_smc_emulator_get();

    if (!fn || (*(const uint32_t *)(uintptr_t)f->elr & SMC_INSN_MASK) != SMC_INSN)
        return 0;
    f->x[0] = fn((uint32_t)f->x[0], (uintptr_t)f->x[1], (uintptr_t)f->x[2], (uintptr_t)f->x[3]);
    f->elr += 4;
    return 1;
}

void hal_exc_handler(struct hal_exc_frame *f, unsigned kind)
{
    uint64_t esr, far;
    unsigned ec;

    __asm__ volatile("mrs %0, esr_el1" : "=r"(esr));
    __asm__ volatile("mrs %0, far_el1" : "=r"(far));
    ec = (unsigned)(esr >> 26) & 0x3fu;
    if (kind == VECTOR_SYNC_SPX && ec == EC_DATA_ABORT_SAME_EL && emulate_access(f, far))
        return;
    if (kind == VECTOR_SYNC_SPX && ec == EC_UNKNOWN && emulate_smc(f))
        return;
    printf("\n*** unhandled exception: vector=%u EC=0x%02x ESR=0x%08llx FAR=0x%llx ELR=0x%llx\n",
           kind, ec, (unsigned long long)esr, (unsigned long long)far, (unsigned long long)f->elr);
    fflush(stdout);
    hal_exc_stop(99);
}
