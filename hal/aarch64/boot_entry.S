// boot_entry.S - AArch64 entry from a boot loader's `go` (hal_boot.h).
//
// U-Boot jumps here at EL2 (boards, QEMU virt,virtualization=on) or EL1
// (QEMU virt), with its MMU and D-cache on and our image possibly still
// dirty in the cache (it was loaded through it). We:
//   1. save what a later return to U-Boot needs (registers, EL, the
//      translation/vector system registers of that EL) and the entry count;
//   2. turn that EL's MMU and D-cache off and clean+invalidate the whole
//      data cache by set/way, so memory holds the image and nothing stale
//      is written back later;
//   3. at EL2: give EL1 an untrapped AArch64 world (timer, FP, IDs), point
//      VBAR_EL2 at a stub that an HVC from hal_boot_return() lands on, and
//      ERET to EL1;
//   4. jump to the C library's _start (stack, FP on, .data/.bss, main).
// The firmware then installs its own vectors and translation tables.
#include "hal_boot.h"

#define SCTLR_M (1 << 0)
#define SCTLR_C (1 << 2)
#define HCR_RW  (1 << 31)       // EL1 is AArch64; no traps, no stage 2
#define CNTHCTL_EL1_TIMER 3     // EL1PCTEN | EL1PCEN: EL1 may use the counter
#define CPTR_EL2_NO_TRAPS 0x33ff // RES1 bits only: FP/SIMD not trapped
#define SCTLR_EL1_OFF 0x30d00800 // RES1 bits; MMU, caches, alignment checks off
#define SPSR_EL1H_MASKED 0x3c5  // EL1h, D, A, I, F masked
#define S(n) (HAL_BOOT_SYSREG + 8 * (n))

    .section .text.boot.enter, "ax"
    .global hal_boot_entry
    .type hal_boot_entry, %function
hal_boot_entry:
    ldr  x9, =hal_boot_state         // literal: the state is in another section
    ldr  x10, [x9, #HAL_BOOT_RETURNED]
    cbnz x10, already_returned
    stp  x18, x19, [x9, #HAL_BOOT_REGS + 0]    // x18: U-Boot's global data
    stp  x20, x21, [x9, #HAL_BOOT_REGS + 16]
    stp  x22, x23, [x9, #HAL_BOOT_REGS + 32]
    stp  x24, x25, [x9, #HAL_BOOT_REGS + 48]
    stp  x26, x27, [x9, #HAL_BOOT_REGS + 64]
    stp  x28, x29, [x9, #HAL_BOOT_REGS + 80]
    mov  x10, sp
    stp  x30, x10, [x9, #HAL_BOOT_REGS + 96]
    mrs  x11, daif
    str  x11, [x9, #HAL_BOOT_REGS + 112]
    msr  daifset, #0xf
    mrs  x10, CurrentEL
    ubfx x10, x10, #2, #2
    str  x10, [x9, #HAL_BOOT_LEVEL]
    cmp  x10, #2
    b.eq from_el2
    cmp  x10, #1
    b.ne park                       // EL3 or EL0: not a place U-Boot's go leaves us

from_el1:
    mrs  x10, cntvct_el0
    str  x10, [x9, #HAL_BOOT_TICKS]
    mrs  x10, sctlr_el1
    mrs  x11, tcr_el1
    stp  x10, x11, [x9, #S(0)]
    mrs  x10, ttbr0_el1
    mrs  x11, mair_el1
    stp  x10, x11, [x9, #S(2)]
    mrs  x10, vbar_el1
    str  x10, [x9, #S(4)]
    bl   el1_caches_off
    b    _start

from_el2:
    msr  cntvoff_el2, xzr           // EL1's virtual count = the physical count
    isb
    mrs  x10, cntvct_el0
    str  x10, [x9, #HAL_BOOT_TICKS]
    mrs  x10, sctlr_el2
    mrs  x11, tcr_el2
    stp  x10, x11, [x9, #S(0)]
    mrs  x10, ttbr0_el2
    mrs  x11, mair_el2
    stp  x10, x11, [x9, #S(2)]
    mrs  x10, vbar_el2
    mrs  x11, hcr_el2
    stp  x10, x11, [x9, #S(4)]
    mrs  x10, cnthctl_el2
    mrs  x11, cptr_el2
    stp  x10, x11, [x9, #S(6)]
    mrs  x0, sctlr_el2
    bic  x0, x0, #SCTLR_M
    bic  x0, x0, #SCTLR_C
    msr  sctlr_el2, x0
    isb
    bl   dcache_clean_invalidate_all
    ic   iallu
    tlbi alle2
    dsb  sy
    isb
    mov  x0, #HCR_RW
    msr  hcr_el2, x0
    mrs  x0, cnthctl_el2
    orr  x0, x0, #CNTHCTL_EL1_TIMER
    msr  cnthctl_el2, x0
    mov  x0, #CPTR_EL2_NO_TRAPS
    msr  cptr_el2, x0
    mrs  x0, midr_el1
    msr  vpidr_el2, x0
    mrs  x0, mpidr_el1
    msr  vmpidr_el2, x0
    ldr  x0, =SCTLR_EL1_OFF
    msr  sctlr_el1, x0
    ldr  x0, =el2_return_vectors
    msr  vbar_el2, x0
    mov  x0, #SPSR_EL1H_MASKED
    msr  spsr_el2, x0
    adr  x0, enter_el1
    msr  elr_el2, x0
    eret
enter_el1:
    b    _start

already_returned:                   // ran and returned since the last load
    sub  x0, x10, #1
    ret

park:
    wfe
    b    park
    .ltorg
    .size hal_boot_entry, . - hal_boot_entry

// Clean and invalidate every data/unified cache up to the Level of
// Coherence by set/way. Uses x0-x8 and x10-x15 only: no stack, no memory.
    .type dcache_clean_invalidate_all, %function
dcache_clean_invalidate_all:
    mrs  x0, clidr_el1
    ubfx x3, x0, #24, #3            // LoC
    mov  x4, #0                     // cache level - 1
1:  cmp  x4, x3
    b.ge 5f
    add  x6, x4, x4, lsl #1         // Ctype field position: 3 * level
    lsr  x7, x0, x6
    and  x7, x7, #7
    cmp  x7, #2                     // 2 data, 3 separate, 4 unified
    b.lt 4f
    lsl  x5, x4, #1                 // CSSELR / set-way level field
    msr  csselr_el1, x5
    isb
    mrs  x7, ccsidr_el1
    and  x8, x7, #7
    add  x8, x8, #4                 // log2(line size in bytes)
    ubfx x1, x7, #3, #10            // ways - 1
    ubfx x2, x7, #13, #15           // sets - 1
    clz  w10, w1                    // the way field's shift
2:  mov  x11, x1
3:  lsl  x12, x11, x10
    lsl  x13, x2, x8
    orr  x12, x12, x13
    orr  x12, x12, x5
    dc   cisw, x12
    subs x11, x11, #1
    b.ge 3b
    subs x2, x2, #1
    b.ge 2b
4:  add  x4, x4, #1
    b    1b
5:  msr  csselr_el1, xzr
    dsb  sy
    isb
    ret
    .size dcache_clean_invalidate_all, . - dcache_clean_invalidate_all

// EL1's MMU and D-cache off, the data cache cleaned and invalidated, the
// I-cache and EL1's TLB dropped. No stack: x17 keeps the return address,
// and x0-x8, x10-x15 are clobbered (x9 is kept for the callers).
    .type el1_caches_off, %function
el1_caches_off:
    mov  x17, x30
    mrs  x0, sctlr_el1
    bic  x0, x0, #SCTLR_M
    bic  x0, x0, #SCTLR_C
    msr  sctlr_el1, x0
    isb
    bl   dcache_clean_invalidate_all
    ic   iallu
    tlbi vmalle1
    dsb  sy
    isb
    ret  x17
    .size el1_caches_off, . - el1_caches_off

// void hal_boot_return(int status): back to the loader as if `go` returned.
    .section .text.hal_boot_return, "ax"
    .global hal_boot_return
    .type hal_boot_return, %function
hal_boot_return:
    msr  daifset, #0xf
    mov  x19, x0
    bl   el1_caches_off
    mov  x0, x19
    ldr  x9, =hal_boot_state
    add  x10, x0, #1
    str  x10, [x9, #HAL_BOOT_RETURNED]
    ldr  x10, [x9, #HAL_BOOT_LEVEL]
    cmp  x10, #2
    b.eq 1f
    ldp  x10, x11, [x9, #S(2)]
    msr  ttbr0_el1, x10
    msr  mair_el1, x11
    ldr  x10, [x9, #S(1)]
    msr  tcr_el1, x10
    ldr  x10, [x9, #S(4)]
    msr  vbar_el1, x10
    isb
    ldr  x10, [x9, #S(0)]
    msr  sctlr_el1, x10
    isb
    b    restore_loader_registers
1:  hvc  #0                         // el2_return_vectors restores EL2
    b    1b
    .ltorg
    .size hal_boot_return, . - hal_boot_return

// x0 = status, x9 = hal_boot_state; at the loader's EL with its MMU on.
restore_loader_registers:
    ldp  x18, x19, [x9, #HAL_BOOT_REGS + 0]
    ldp  x20, x21, [x9, #HAL_BOOT_REGS + 16]
    ldp  x22, x23, [x9, #HAL_BOOT_REGS + 32]
    ldp  x24, x25, [x9, #HAL_BOOT_REGS + 48]
    ldp  x26, x27, [x9, #HAL_BOOT_REGS + 64]
    ldp  x28, x29, [x9, #HAL_BOOT_REGS + 80]
    ldp  x30, x10, [x9, #HAL_BOOT_REGS + 96]
    mov  sp, x10
    ldr  x11, [x9, #HAL_BOOT_REGS + 112]
    msr  daif, x11
    ret

// EL2 vectors while the firmware runs at EL1: the only expected entry is
// hal_boot_return's HVC (synchronous, lower EL, AArch64, at +0x400).
    .balign 2048
el2_return_vectors:
    .rept 8
    b    park
    .balign 128
    .endr
    ldr  x9, =hal_boot_state         // +0x400
    ldp  x10, x11, [x9, #S(6)]
    msr  cnthctl_el2, x10
    msr  cptr_el2, x11
    ldp  x10, x11, [x9, #S(4)]
    msr  vbar_el2, x10
    msr  hcr_el2, x11
    ldp  x10, x11, [x9, #S(2)]
    msr  ttbr0_el2, x10
    msr  mair_el2, x11
    ldr  x10, [x9, #S(1)]
    msr  tcr_el2, x10
    isb
    tlbi alle2
    dsb  sy
    isb
    ldr  x10, [x9, #S(0)]
    msr  sctlr_el2, x10
    isb
    b    restore_loader_registers
    .ltorg
    .balign 128
    .rept 7
    b    park
    .balign 128
    .endr

// Written at entry while the loader's cache is on, then cleaned with
// everything else: it lives in the image, where crt0 neither copies nor
// clears.
    .section .boot.state, "aw"
    .balign 8
    .global hal_boot_state
hal_boot_state:
    .zero HAL_BOOT_SIZE
