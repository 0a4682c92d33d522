/*
 * exc.c - ARMv7-A exception handler: MMIO trap-and-emulate for data aborts
 * on registered software device windows, and a fatal report for everything
 * else.
 *
 * QEMU's virt board has nothing at the NPU's addresses, so a driver access
 * there raises a synchronous external abort. The abort does not say which
 * register was involved (no syndrome for AArch32 aborts taken to PL1), so
 * the faulting instruction is decoded here: its address must match DFAR,
 * then the access is forwarded to the region's read32/write32 callbacks, the
 * destination / base registers in the saved frame are updated and execution
 * resumes after the instruction.
 *
 * Decoded: A32 LDR/STR/LDRB/STRB (immediate and register offset, offset /
 * pre-indexed / post-indexed), A32 LDRH/STRH/LDRSB/LDRSH; T16 LDR/STR(B/H)
 * immediate, SP-relative and register offset, LDRSB/LDRSH register; T32
 * LDR/STR(B/H) and LDRSB/LDRSH in the imm12, imm8 (with writeback) and
 * register forms. Not decoded (reported as fatal): LDRD/STRD, LDM/STM,
 * exclusives, unprivileged (LDRT...) forms, PC-relative literals, loads to
 * PC, VFP/NEON loads and stores.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hal.h"

/* Layout shared with vectors.S (offsets FRAME_*). */
typedef struct {
    uint64_t d[32];
    uint32_t fpscr;
    uint32_t r[13];
    uint32_t sp;   /* banked sp of the interrupted mode */
    uint32_t lr;   /* banked lr of the interrupted mode */
    uint32_t pc;   /* see EXC_ENTRY in vectors.S */
    uint32_t cpsr; /* SPSR: the interrupted mode's CPSR */
} hal_armv7_frame;

_Static_assert(offsetof(hal_armv7_frame, fpscr) == 256, "FRAME_FPSCR");
_Static_assert(offsetof(hal_armv7_frame, sp) == 312, "FRAME_SP");
_Static_assert(offsetof(hal_armv7_frame, cpsr) - offsetof(hal_armv7_frame, sp) == 12,
               "BANKED_CPSR");
_Static_assert(sizeof(hal_armv7_frame) == 328 && sizeof(hal_armv7_frame) % 8 == 0,
               "frame size keeps the stack 8-byte aligned");

enum {
    EXC_UNDEF = 1,
    EXC_SVC = 2,
    EXC_PABT = 3,
    EXC_DABT = 4,
    EXC_IRQ = 6,
    EXC_FIQ = 7,
};

#define CPSR_T         (1u << 5)
#define CPSR_C         (1u << 29)
#define CPSR_MODE_MASK 0x1fu
#define MODE_USR       0x10u
#define MODE_IRQ       0x12u
#define MODE_SVC       0x13u
#define MODE_UND       0x1bu
#define MODE_SYS       0x1fu

void hal_armv7_exception(hal_armv7_frame *frame, unsigned kind);

/* ---- fault registers ------------------------------------------------------ */

static uint32_t read_dfsr(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c5, c0, 0" : "=r"(v));
    return v;
}

static uint32_t read_dfar(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c6, c0, 0" : "=r"(v));
    return v;
}

static uint32_t read_ifsr(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c5, c0, 1" : "=r"(v));
    return v;
}

static uint32_t read_ifar(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c6, c0, 2" : "=r"(v));
    return v;
}

/* ---- fatal report --------------------------------------------------------- */

static const char *kind_name(unsigned kind)
{
    switch (kind) {
    case EXC_UNDEF: return "undef";
    case EXC_SVC: return "svc";
    case EXC_PABT: return "pabt";
    case EXC_DABT: return "dabt";
    case EXC_IRQ: return "irq";
    case EXC_FIQ: return "fiq";
    default: return "unknown";
    }
}

static bool is_t32_prefix(uint16_t hw)
{
    return (hw >> 11) >= 0x1d; /* 0b11101, 0b11110, 0b11111 */
}

/* The address of the instruction that caused the exception. undef and svc
 * frames hold the next instruction; in Thumb the size of an undefined
 * instruction is a guess from the halfword 4 bytes back. */
static uint32_t faulting_pc(const hal_armv7_frame *frame, unsigned kind)
{
    bool thumb = (frame->cpsr & CPSR_T) != 0;

    if (kind == EXC_SVC)
        return frame->pc - (thumb ? 2u : 4u);
    if (kind != EXC_UNDEF)
        return frame->pc;
    if (!thumb)
        return frame->pc - 4u;
    return is_t32_prefix(*(const volatile uint16_t *)(uintptr_t)(frame->pc - 4u)) ? frame->pc - 4u
                                                                                  : frame->pc - 2u;
}

static void __attribute__((noreturn)) report_fatal(const hal_armv7_frame *frame, unsigned kind)
{
    printf("\n*** unhandled exception: %s PC=0x%08lx DFSR=0x%lx DFAR=0x%08lx IFSR=0x%lx "
           "IFAR=0x%08lx SPSR=0x%08lx LR=0x%08lx\n",
           kind_name(kind), (unsigned long)faulting_pc(frame, kind), (unsigned long)read_dfsr(),
           (unsigned long)read_dfar(), (unsigned long)read_ifsr(), (unsigned long)read_ifar(),
           (unsigned long)frame->cpsr, (unsigned long)frame->lr);
    fflush(stdout);
    hal_exc_stop(99);
}

/* ---- register file of the interrupted context ----------------------------- */

static uint32_t reg_get(const hal_armv7_frame *frame, unsigned n)
{
    if (n < 13)
        return frame->r[n];
    if (n == 13)
        return frame->sp;
    if (n == 14)
        return frame->lr;
    return frame->pc + ((frame->cpsr & CPSR_T) ? 4u : 8u); /* PC reads ahead */
}

static void reg_set(hal_armv7_frame *frame, unsigned n, uint32_t value)
{
    if (n < 13)
        frame->r[n] = value;
    else if (n == 13)
        frame->sp = value;
    else if (n == 14)
        frame->lr = value;
}

/* ---- instruction decode --------------------------------------------------- */

typedef struct {
    uint32_t addr;   /* effective address of the access */
    uint32_t rn_new; /* base register value after writeback */
    unsigned size;   /* 1, 2 or 4 bytes */
    unsigned rt;     /* transfer register */
    unsigned rn;     /* base register */
    unsigned length; /* instruction length: 2 or 4 */
    bool load;
    bool sign_extend;
    bool writeback;
} mmio_access;

static uint32_t bits(uint32_t v, unsigned hi, unsigned lo)
{
    return (v >> lo) & ((2u << (hi - lo)) - 1u);
}

static bool bit(uint32_t v, unsigned n)
{
    return ((v >> n) & 1u) != 0;
}

/* Base +/- offset, P (index), W (writeback) addressing shared by the A32
 * forms and the T32 imm8 form. */
static bool apply_indexing(const hal_armv7_frame *frame, mmio_access *acc, uint32_t offset, bool p,
                           bool u, bool w)
{
    uint32_t base = reg_get(frame, acc->rn);
    uint32_t offset_addr = u ? base + offset : base - offset;

    if (acc->rn == 15)
        return false; /* literal loads never address MMIO */
    acc->addr = p ? offset_addr : base;
    acc->writeback = !p || w;
    acc->rn_new = offset_addr;
    /* Writeback into the transfer register is UNPREDICTABLE. */
    return !(acc->writeback && acc->rn == acc->rt);
}

/* A32 register offset: Rm shifted by an immediate (LSL/LSR/ASR/ROR/RRX). */
static uint32_t a32_shifted_rm(const hal_armv7_frame *frame, uint32_t insn)
{
    uint32_t rm = reg_get(frame, bits(insn, 3, 0));
    unsigned amount = bits(insn, 11, 7);

    switch (bits(insn, 6, 5)) {
    case 0: /* LSL */ return rm << amount;
    case 1: /* LSR; #0 encodes #32 */ return amount == 0 ? 0u : rm >> amount;
    case 2: /* ASR; #0 encodes #32 */
        if (amount == 0)
            return (rm & 0x80000000u) ? 0xffffffffu : 0u;
        return (rm >> amount) | ((rm & 0x80000000u) ? ~(0xffffffffu >> amount) : 0u);
    default: /* ROR; #0 encodes RRX */
        if (amount == 0)
            return (rm >> 1) | ((frame->cpsr & CPSR_C) ? 0x80000000u : 0u);
        return (rm >> amount) | (rm << (32u - amount));
    }
}

/* A32 LDR/STR/LDRB/STRB. */
static bool decode_a32_word_byte(const hal_armv7_frame *frame, uint32_t insn, mmio_access *acc)
{
    bool register_offset = bit(insn, 25);
    uint32_t offset;

    if (register_offset && bit(insn, 4))
        return false; /* media instructions */
    if (!bit(insn, 24) && bit(insn, 21))
        return false; /* LDRT/STRT family */
    if (register_offset && bits(insn, 3, 0) == 15)
        return false;
    offset = register_offset ? a32_shifted_rm(frame, insn) : bits(insn, 11, 0);
    acc->size = bit(insn, 22) ? 1u : 4u;
    acc->sign_extend = false;
    return apply_indexing(frame, acc, offset, bit(insn, 24), bit(insn, 23), bit(insn, 21));
}

/* A32 "extra" load/store: LDRH/STRH, LDRSB, LDRSH (not LDRD/STRD). */
static bool decode_a32_extra(const hal_armv7_frame *frame, uint32_t insn, mmio_access *acc)
{
    unsigned op2 = bits(insn, 6, 5);
    bool immediate = bit(insn, 22);
    uint32_t offset;

    if (op2 == 1) {
        acc->size = 2;
        acc->sign_extend = false;
    } else if (acc->load) {
        acc->size = op2 == 2 ? 1u : 2u;
        acc->sign_extend = true;
    } else {
        return false; /* LDRD/STRD */
    }
    if (!bit(insn, 24) && bit(insn, 21))
        return false; /* LDRHT family */
    if (!immediate && bits(insn, 3, 0) == 15)
        return false;
    offset =
        immediate ? (bits(insn, 11, 8) << 4) | bits(insn, 3, 0) : reg_get(frame, bits(insn, 3, 0));
    return apply_indexing(frame, acc, offset, bit(insn, 24), bit(insn, 23), bit(insn, 21));
}

static bool decode_a32(const hal_armv7_frame *frame, uint32_t insn, mmio_access *acc)
{
    if (bits(insn, 31, 28) == 0xf)
        return false; /* unconditional space: PLD and friends */
    acc->length = 4;
    acc->load = bit(insn, 20);
    acc->rn = bits(insn, 19, 16);
    acc->rt = bits(insn, 15, 12);
    if (acc->rt == 15)
        return false; /* loads to PC branch; stores of PC are deprecated */
    if (bits(insn, 27, 26) == 1)
        return decode_a32_word_byte(frame, insn, acc);
    if (bits(insn, 27, 25) == 0 && bit(insn, 7) && bit(insn, 4) && bits(insn, 6, 5) != 0)
        return decode_a32_extra(frame, insn, acc);
    return false;
}

/* T16 register-offset forms: 0101 opB Rm Rn Rt. */
static bool decode_t16_register(const hal_armv7_frame *frame, uint16_t hw, mmio_access *acc)
{
    static const struct {
        uint8_t size;
        bool load;
        bool sign_extend;
    } forms[8] = {
        {4, false, false}, /* STR */
        {2, false, false}, /* STRH */
        {1, false, false}, /* STRB */
        {1, true, true},   /* LDRSB */
        {4, true, false},  /* LDR */
        {2, true, false},  /* LDRH */
        {1, true, false},  /* LDRB */
        {2, true, true},   /* LDRSH */
    };
    unsigned op = bits(hw, 11, 9);

    acc->size = forms[op].size;
    acc->load = forms[op].load;
    acc->sign_extend = forms[op].sign_extend;
    acc->rt = bits(hw, 2, 0);
    acc->rn = bits(hw, 5, 3);
    acc->addr = reg_get(frame, acc->rn) + reg_get(frame, bits(hw, 8, 6));
    return true;
}

static bool decode_t16(const hal_armv7_frame *frame, uint16_t hw, mmio_access *acc)
{
    unsigned imm5 = bits(hw, 10, 6);

    acc->length = 2;
    acc->writeback = false;
    acc->sign_extend = false;
    acc->load = bit(hw, 11);
    acc->rt = bits(hw, 2, 0);
    acc->rn = bits(hw, 5, 3);
    switch (hw >> 11) {
    case 0x0a:
    case 0x0b: /* 0101 xxx: register offset */ return decode_t16_register(frame, hw, acc);
    case 0x0c:
    case 0x0d: /* 0110 L: STR/LDR imm5*4 */
        acc->size = 4;
        acc->addr = reg_get(frame, acc->rn) + imm5 * 4u;
        return true;
    case 0x0e:
    case 0x0f: /* 0111 L: STRB/LDRB imm5 */
        acc->size = 1;
        acc->addr = reg_get(frame, acc->rn) + imm5;
        return true;
    case 0x10:
    case 0x11: /* 1000 L: STRH/LDRH imm5*2 */
        acc->size = 2;
        acc->addr = reg_get(frame, acc->rn) + imm5 * 2u;
        return true;
    case 0x12:
    case 0x13: /* 1001 L: STR/LDR [sp, #imm8*4] */
        acc->size = 4;
        acc->rt = bits(hw, 10, 8);
        acc->rn = 13;
        acc->addr = frame->sp + bits(hw, 7, 0) * 4u;
        return true;
    default: return false;
    }
}

/* T32 load/store single: 1111 100 S U size L Rn | Rt ... */
static bool decode_t32(const hal_armv7_frame *frame, uint16_t hw1, uint16_t hw2, mmio_access *acc)
{
    unsigned size_code = bits(hw1, 6, 5);

    if ((hw1 & 0xfe00u) != 0xf800u)
        return false;
    acc->length = 4;
    acc->writeback = false;
    acc->sign_extend = bit(hw1, 8);
    acc->load = bit(hw1, 4);
    acc->rn = bits(hw1, 3, 0);
    acc->rt = bits(hw2, 15, 12);
    if (size_code == 3 || acc->rn == 15 || acc->rt == 15)
        return false; /* undefined, literal, PLD/PLI or load to PC */
    if (acc->sign_extend && (!acc->load || size_code == 2))
        return false; /* SIMD element load/store or undefined */
    acc->size = 1u << size_code;

    if (bit(hw1, 7)) { /* imm12, positive offset */
        acc->addr = reg_get(frame, acc->rn) + bits(hw2, 11, 0);
        return true;
    }
    if (bit(hw2, 11)) { /* imm8: 1 P U W imm8 */
        bool p = bit(hw2, 10), u = bit(hw2, 9), w = bit(hw2, 8);
        if (p && u && !w)
            return false; /* LDRT family */
        if (!p && !w)
            return false; /* undefined */
        return apply_indexing(frame, acc, bits(hw2, 7, 0), p, u, w);
    }
    if (bits(hw2, 11, 6) == 0) { /* register: Rn + (Rm << imm2) */
        unsigned rm = bits(hw2, 3, 0);
        if (rm == 13 || rm == 15)
            return false;
        acc->addr = reg_get(frame, acc->rn) + (reg_get(frame, rm) << bits(hw2, 5, 4));
        return true;
    }
    return false;
}

static bool decode_at_pc(const hal_armv7_frame *frame, mmio_access *acc, uint32_t *insn_out)
{
    if (!(frame->cpsr & CPSR_T)) {
        uint32_t insn = *(const volatile uint32_t *)(uintptr_t)frame->pc;
        *insn_out = insn;
        return decode_a32(frame, insn, acc);
    }
    uint16_t hw1 = *(const volatile uint16_t *)(uintptr_t)frame->pc;
    if (!is_t32_prefix(hw1)) {
        *insn_out = hw1;
        return decode_t16(frame, hw1, acc);
    }
    uint16_t hw2 = *(const volatile uint16_t *)(uintptr_t)(frame->pc + 2u);
    *insn_out = ((uint32_t)hw1 << 16) | hw2;
    return decode_t32(frame, hw1, hw2, acc);
}

/* ---- emulation ------------------------------------------------------------ */

/* ITAdvance: a Thumb instruction inside an IT block moves ITSTATE on. */
static uint32_t it_advance(uint32_t cpsr)
{
    uint32_t it = bits(cpsr, 26, 25) | (bits(cpsr, 15, 10) << 2);

    if ((it & 7u) == 0)
        it = 0;
    else
        it = (it & 0xe0u) | ((it << 1) & 0x1fu);
    cpsr &= ~((3u << 25) | (0x3fu << 10));
    return cpsr | ((it & 3u) << 25) | ((it >> 2) << 10);
}

static uint32_t extend_load(uint32_t word, unsigned byte_shift, const mmio_access *acc)
{
    uint32_t v = word >> byte_shift;

    if (acc->size == 1)
        return acc->sign_extend ? (uint32_t)(int32_t)(int8_t)(v & 0xffu) : (v & 0xffu);
    if (acc->size == 2)
        return acc->sign_extend ? (uint32_t)(int32_t)(int16_t)(v & 0xffffu) : (v & 0xffffu);
    return v;
}

/* Sub-word stores become read-modify-write of the containing 32-bit register
 * (the callbacks only know 32-bit accesses). */
static void forward_store(const hal_mmio_region *region, uintptr_t offset, uint32_t value,
                          const mmio_access *acc)
{
    uintptr_t word_offset = offset & ~(uintptr_t)3;
    unsigned shift = (unsigned)(offset & 3u) * 8u;
    uint32_t mask;

    if (acc->size == 4) {
        region->write32(region->ctx, offset, value);
        return;
    }
    mask = (acc->size == 1 ? 0xffu : 0xffffu) << shift;
    value = (region->read32(region->ctx, word_offset) & ~mask) | ((value << shift) & mask);
    region->write32(region->ctx, word_offset, value);
}

static bool access_fits_region(const hal_mmio_region *region, const mmio_access *acc)
{
    uintptr_t offset = acc->addr - region->base;

    if ((acc->addr & (acc->size - 1u)) != 0)
        return false; /* unaligned: would straddle device registers */
    if (offset > region->size || region->size - offset < acc->size)
        return false;
    if (region->read32 == NULL)
        return false; /* needed by loads and sub-word stores */
    return acc->load || region->write32 != NULL;
}

static void emulate(hal_armv7_frame *frame, const hal_mmio_region *region, const mmio_access *acc)
{
    uintptr_t offset = acc->addr - region->base;

    if (acc->load) {
        uint32_t word = region->read32(region->ctx, offset & ~(uintptr_t)3);
        reg_set(frame, acc->rt, extend_load(word, (unsigned)(offset & 3u) * 8u, acc));
    } else {
        forward_store(region, offset, reg_get(frame, acc->rt), acc);
    }
    if (acc->writeback)
        reg_set(frame, acc->rn, acc->rn_new);
    frame->pc += acc->length;
    if (frame->cpsr & CPSR_T)
        frame->cpsr = it_advance(frame->cpsr);
    hal_mmio_trap_count++;
}

/* Asynchronous aborts leave DFAR and the PC unrelated to the access.
 * Short-descriptor format: FS = DFSR[10]:DFSR[3:0], 0x16 and 0x18 are
 * asynchronous. LPAE format (DFSR[9]): STATUS = DFSR[5:0], 0x11. */
static bool dfsr_is_synchronous(uint32_t dfsr)
{
    uint32_t fs;

    if (bit(dfsr, 9))
        return bits(dfsr, 5, 0) != 0x11u;
    fs = (bit(dfsr, 10) ? 0x10u : 0u) | bits(dfsr, 3, 0);
    return fs != 0x16u && fs != 0x18u;
}

/* The frame holds r0-r12, sp and lr of the interrupted context unless it
 * ran in FIQ mode (banked r8-r12), in the abort handler itself (a nested
 * fault) or in monitor/hyp mode (not reachable from abort mode). */
static bool mode_is_emulatable(uint32_t cpsr)
{
    switch (cpsr & CPSR_MODE_MASK) {
    case MODE_USR:
    case MODE_IRQ:
    case MODE_SVC:
    case MODE_UND:
    case MODE_SYS: return true;
    default: return false;
    }
}

static bool try_emulate_mmio(hal_armv7_frame *frame)
{
    uint32_t dfsr = read_dfsr();
    uint32_t dfar = read_dfar();
    const hal_mmio_region *region;
    mmio_access acc = {0};
    uint32_t insn = 0;

    if (!dfsr_is_synchronous(dfsr))
        return false;
    region = hal_mmio_find(dfar);
    if (region == NULL)
        return false;
    if (!mode_is_emulatable(frame->cpsr)) {
        HAL_LOG_ERR("mmio trap: fault at 0x%08lx from CPU mode 0x%02lx cannot be emulated",
                    (unsigned long)dfar, (unsigned long)(frame->cpsr & CPSR_MODE_MASK));
        return false;
    }
    if (!decode_at_pc(frame, &acc, &insn) || acc.addr != dfar ||
        !access_fits_region(region, &acc)) {
        HAL_LOG_ERR("mmio trap: cannot emulate %s instruction 0x%08lx at 0x%08lx (DFAR 0x%08lx)",
                    (frame->cpsr & CPSR_T) ? "Thumb" : "ARM", (unsigned long)insn,
                    (unsigned long)frame->pc, (unsigned long)dfar);
        return false;
    }
    emulate(frame, region, &acc);
    return true;
}

/* Without the Security Extensions (QEMU's virt board) an SMC is an
 * undefined instruction: with an emulator installed (hal_smc_emulate) it
 * answers as the secure firmware would, r0..r3 in, r0 out. The frame's pc
 * already holds the next instruction. */
static bool try_emulate_smc(hal_armv7_frame *frame)
{
    hal_smc_emulator fn = hal_smc_emulator_get();
    uint32_t at = faulting_pc(frame, EXC_UNDEF);
    bool smc;

    if (!fn)
        return false;
    if (frame->cpsr & CPSR_T)
        smc = frame->pc - at == 4u &&
              (*(const volatile uint16_t *)(uintptr_t)at & 0xFFF0u) == 0xF7F0u &&
              *(const volatile uint16_t *)(uintptr_t)(at + 2u) == 0x8000u;
    else
        smc = (*(const volatile uint32_t *)(uintptr_t)at & 0x0FFFFFF0u) == 0x01600070u;
    if (!smc)
        return false;
    frame->r[0] = (uint32_t)fn(frame->r[0], frame->r[1], frame->r[2], frame->r[3]);
    return true;
}

/* Called from vectors.S with the saved frame; returns only after a
 * successful emulation, and then the frame is what the CPU resumes with. */
void hal_armv7_exception(hal_armv7_frame *frame, unsigned kind)
{
    if (kind == EXC_DABT && try_emulate_mmio(frame))
        return;
    if (kind == EXC_UNDEF && try_emulate_smc(frame))
        return;
    report_fatal(frame, kind);
}
