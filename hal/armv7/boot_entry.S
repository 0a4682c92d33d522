@ boot_entry.S - ARMv7-A entry from a boot loader's `go` (hal_boot.h).
@
@ U-Boot jumps here in SVC mode (or HYP when it was started in HYP) with its
@ MMU and D-cache on. We save what a return to U-Boot needs and the entry
@ count, turn the MMU and D-cache off, clean+invalidate the data cache by
@ set/way, drop from HYP to SVC when entered in HYP, and jump to the C
@ library's _start. The firmware then runs with the MMU off, as the QEMU
@ images started by -kernel do.
#include "hal_boot.h"

    .syntax unified
    .arch armv7-a
    .arch_extension virt
    .arch_extension sec
    .arm

    .equ MODE_MASK, 0x1f
    .equ MODE_HYP, 0x1a
    .equ SVC_MASKED, 0x1d3          @ SVC mode, A, I and F masked
    .equ SCTLR_M, 1 << 0
    .equ SCTLR_C, 1 << 2
    .equ TTBCR_EAE, 1 << 31
    .equ HCPTR_NO_TRAPS, 0x33ff     @ RES1 bits only: VFP/NEON not trapped
    .equ CNTHCTL_PL1_TIMER, 3       @ PL1PCTEN | PL1PCEN
    @ the loader's system registers, slots of HAL_BOOT_SYSREG
    .equ S_SCTLR, HAL_BOOT_SYSREG + 0
    .equ S_TTBCR, HAL_BOOT_SYSREG + 8
    .equ S_TTBR0, HAL_BOOT_SYSREG + 16   @ 64 bits (LPAE) or low word
    .equ S_DACR, HAL_BOOT_SYSREG + 24
    .equ S_PRRR, HAL_BOOT_SYSREG + 32    @ MAIR0 under LPAE
    .equ S_NMRR, HAL_BOOT_SYSREG + 40    @ MAIR1 under LPAE
    .equ S_VBAR, HAL_BOOT_SYSREG + 48

@ PL1's (SVC's) MMU and D-cache off; clobbers r0.
    .macro pl1_mmu_dcache_off
    mrc   p15, 0, r0, c1, c0, 0     @ SCTLR
    bic   r0, r0, #(SCTLR_M | SCTLR_C)
    mcr   p15, 0, r0, c1, c0, 0
    isb
    .endm

@ The I-cache, branch predictor and PL1 TLB dropped; clobbers r0.
    .macro pl1_drop_icache_tlb
    mov   r0, #0
    mcr   p15, 0, r0, c7, c5, 0     @ ICIALLU
    mcr   p15, 0, r0, c7, c5, 6     @ BPIALL
    mcr   p15, 0, r0, c8, c7, 0     @ TLBIALL
    dsb   sy
    isb
    .endm

    .section .text.boot.enter, "ax"
    .global hal_boot_entry
    .type hal_boot_entry, %function
hal_boot_entry:
    ldr   r12, =hal_boot_state
    ldr   r1, [r12, #HAL_BOOT_RETURNED]
    cmp   r1, #0
    subne r0, r1, #1                @ ran and returned since the last load
    bxne  lr
    cpsid aif
    ldr   r12, =hal_boot_state
    add   r12, r12, #HAL_BOOT_REGS
    stmia r12, {r4-r11, sp, lr}
    mrs   r0, cpsr
    str   r0, [r12, #40]
    ldr   r12, =hal_boot_state
    and   r0, r0, #MODE_MASK
    cmp   r0, #MODE_HYP
    moveq r1, #2
    movne r1, #1
    str   r1, [r12, #HAL_BOOT_LEVEL]
    beq   from_hyp

from_svc:
    bl    save_pl1_translation
    isb
    mrrc  p15, 1, r0, r1, c14       @ CNTVCT
    strd  r0, r1, [r12, #HAL_BOOT_TICKS]
    pl1_mmu_dcache_off
    bl    dcache_clean_invalidate_all
    pl1_drop_icache_tlb
    ldr   r0, =_start               @ Thumb in picolibc: interworking branch
    bx    r0

from_hyp:
    mov   r0, #0
    mov   r1, #0
    mcrr  p15, 4, r0, r1, c14       @ CNTVOFF = 0: virtual count = physical
    isb
    mrrc  p15, 1, r0, r1, c14
    strd  r0, r1, [r12, #HAL_BOOT_TICKS]
    mrc   p15, 4, r0, c1, c0, 0     @ HSCTLR
    bic   r0, r0, #(SCTLR_M | SCTLR_C)
    mcr   p15, 4, r0, c1, c0, 0
    isb
    bl    dcache_clean_invalidate_all
    mov   r0, #0
    mcr   p15, 0, r0, c7, c5, 0     @ ICIALLU
    mcr   p15, 4, r0, c8, c7, 0     @ TLBIALLH
    mcr   p15, 4, r0, c1, c1, 0     @ HCR = 0: nothing trapped, no stage 2
    ldr   r0, =HCPTR_NO_TRAPS
    mcr   p15, 4, r0, c1, c1, 2
    mrc   p15, 4, r0, c14, c1, 0    @ CNTHCTL
    orr   r0, r0, #CNTHCTL_PL1_TIMER
    mcr   p15, 4, r0, c14, c1, 0
    mrc   p15, 0, r0, c0, c0, 0     @ MIDR -> VPIDR
    mcr   p15, 4, r0, c0, c0, 0
    mrc   p15, 0, r0, c0, c0, 5     @ MPIDR -> VMPIDR
    mcr   p15, 4, r0, c0, c0, 5
    mrc   p15, 0, r0, c1, c0, 0     @ SVC's SCTLR: MMU and D-cache off
    bic   r0, r0, #(SCTLR_M | SCTLR_C)
    mcr   p15, 0, r0, c1, c0, 0
    dsb   sy
    isb
    ldr   r0, =SVC_MASKED
    msr   spsr_cxsf, r0             @ Hyp's own SPSR (SPSR_hyp by name is UNPREDICTABLE here)
    adr   r0, enter_svc             @ ARM state (SPSR.T = 0)
    msr   elr_hyp, r0
    eret
enter_svc:
    ldr   r0, =_start
    bx    r0
park:
    wfe
    b     park
    .ltorg
    .size hal_boot_entry, . - hal_boot_entry

@ Save the loader's PL1 translation registers (r12 = hal_boot_state).
save_pl1_translation:
    mrc   p15, 0, r0, c1, c0, 0
    str   r0, [r12, #S_SCTLR]
    mrc   p15, 0, r0, c2, c0, 2     @ TTBCR
    str   r0, [r12, #S_TTBCR]
    tst   r0, #TTBCR_EAE
    mrceq p15, 0, r0, c2, c0, 0     @ short descriptors: 32-bit TTBR0
    moveq r1, #0
    mrrcne p15, 0, r0, r1, c2       @ LPAE: 64-bit TTBR0
    strd  r0, r1, [r12, #S_TTBR0]
    mrc   p15, 0, r0, c3, c0, 0     @ DACR
    str   r0, [r12, #S_DACR]
    mrc   p15, 0, r0, c10, c2, 0    @ PRRR / MAIR0
    str   r0, [r12, #S_PRRR]
    mrc   p15, 0, r0, c10, c2, 1    @ NMRR / MAIR1
    str   r0, [r12, #S_NMRR]
    mrc   p15, 0, r0, c12, c0, 0    @ VBAR
    str   r0, [r12, #S_VBAR]
    bx    lr
    .size save_pl1_translation, . - save_pl1_translation

@ Clean and invalidate every data/unified cache up to the Level of
@ Coherence by set/way. Uses r0-r8 and r10-r12 only: no stack, no memory.
    .type dcache_clean_invalidate_all, %function
dcache_clean_invalidate_all:
    mrc   p15, 1, r0, c0, c0, 1     @ CLIDR
    ubfx  r3, r0, #24, #3           @ LoC
    mov   r4, #0                    @ cache level - 1
1:  cmp   r4, r3
    bge   5f
    add   r6, r4, r4, lsl #1        @ Ctype field position: 3 * level
    lsr   r7, r0, r6
    and   r7, r7, #7
    cmp   r7, #2                    @ 2 data, 3 separate, 4 unified
    blt   4f
    lsl   r5, r4, #1                @ CSSELR / set-way level field
    mcr   p15, 2, r5, c0, c0, 0
    isb
    mrc   p15, 1, r7, c0, c0, 0     @ CCSIDR
    and   r8, r7, #7
    add   r8, r8, #4                @ log2(line size in bytes)
    ubfx  r1, r7, #3, #10           @ ways - 1
    ubfx  r2, r7, #13, #15          @ sets - 1
    clz   r10, r1                   @ the way field's shift
2:  mov   r11, r1
3:  lsl   r12, r11, r10
    orr   r12, r12, r2, lsl r8
    orr   r12, r12, r5
    mcr   p15, 0, r12, c7, c14, 2   @ DCCISW
    subs  r11, r11, #1
    bge   3b
    subs  r2, r2, #1
    bge   2b
4:  add   r4, r4, #1
    b     1b
5:  mov   r5, #0
    mcr   p15, 2, r5, c0, c0, 0
    dsb   sy
    isb
    bx    lr
    .size dcache_clean_invalidate_all, . - dcache_clean_invalidate_all

@ void hal_boot_return(int status): back to the loader as if `go` returned.
@ Only from an SVC entry; after a HYP entry it returns to the caller.
    .section .text.hal_boot_return, "ax"
    .global hal_boot_return
    .type hal_boot_return, %function
hal_boot_return:
    ldr   r12, =hal_boot_state
    ldr   r1, [r12, #HAL_BOOT_LEVEL]
    cmp   r1, #1
    bxne  lr
    cpsid aif
    mov   r9, r0
    pl1_mmu_dcache_off
    bl    dcache_clean_invalidate_all
    ldr   r12, =hal_boot_state
    add   r0, r9, #1
    str   r0, [r12, #HAL_BOOT_RETURNED]
    ldr   r0, [r12, #S_TTBCR]
    mcr   p15, 0, r0, c2, c0, 2
    tst   r0, #TTBCR_EAE
    ldrd  r0, r1, [r12, #S_TTBR0]
    mcreq p15, 0, r0, c2, c0, 0
    mcrrne p15, 0, r0, r1, c2
    ldr   r0, [r12, #S_DACR]
    mcr   p15, 0, r0, c3, c0, 0
    ldr   r0, [r12, #S_PRRR]
    mcr   p15, 0, r0, c10, c2, 0
    ldr   r0, [r12, #S_NMRR]
    mcr   p15, 0, r0, c10, c2, 1
    ldr   r0, [r12, #S_VBAR]
    mcr   p15, 0, r0, c12, c0, 0
    pl1_drop_icache_tlb
    ldr   r0, [r12, #S_SCTLR]
    mcr   p15, 0, r0, c1, c0, 0
    isb
    mov   r0, r9
    add   r1, r12, #HAL_BOOT_REGS
    ldr   r2, [r1, #40]
    msr   cpsr_c, r2                @ the loader's mode and interrupt masks
    ldmia r1, {r4-r11, sp, lr}
    bx    lr
    .ltorg
    .size hal_boot_return, . - hal_boot_return

@ Written at entry while the loader's cache is on, then cleaned with
@ everything else: it lives in the image, where crt0 neither copies nor
@ clears.
    .section .boot.state, "aw"
    .balign 8
    .global hal_boot_state
hal_boot_state:
    .zero HAL_BOOT_SIZE
