@ vectors.S - ARMv7-A (Cortex-A7) exception vectors for rknpu-bm.
@
@ Every exception builds the same frame (see hal_armv7_frame in exc.c) and
@ calls hal_armv7_exception(frame, kind). Only a data abort on an emulated
@ MMIO window returns: the C handler rewrites the frame (loaded value, base
@ writeback, return address, IT state) and we resume with RFE, which restores
@ CPSR from the saved SPSR, so ARM and Thumb callers both come back correctly.
@
@ Frame, lowest address first (328 bytes, a multiple of 8 so the C call sees
@ an AAPCS-aligned stack):
@     d0-d31 (256) | fpscr | r0-r12 | sp | lr | pc | cpsr
@ sp/lr are the *interrupted* mode's banked registers: a load may target lr
@ (GCC allocates it as a scratch register), so it must be readable and
@ writable like r0-r12. pc/cpsr are at the top because SRS pushes them there
@ and RFE pops them from there.
@
@ VFP/NEON state is saved because the C handler, libc and the software device
@ models may all use d0-d31; the interrupted code may hold live values there.
@ The FPU must be enabled (FPEXC.EN=1) before any exception: picolibc's crt0
@ does it, and newlib_hwinit.S does it for newlib.

    .syntax unified
    .arch armv7-a
    .fpu neon-vfpv4
    .arm

    .equ MODE_USR, 0x10
    .equ MODE_FIQ, 0x11
    .equ MODE_IRQ, 0x12
    .equ MODE_SVC, 0x13
    .equ MODE_MON, 0x16
    .equ MODE_ABT, 0x17
    .equ MODE_HYP, 0x1a
    .equ MODE_UND, 0x1b
    .equ MODE_SYS, 0x1f
    .equ MASK_IF, 0xc0

    .equ KIND_UNDEF, 1
    .equ KIND_SVC, 2
    .equ KIND_PABT, 3
    .equ KIND_DABT, 4
    .equ KIND_IRQ, 6
    .equ KIND_FIQ, 7

    @ Offsets into the frame; exc.c checks them with _Static_assert.
    .equ FRAME_FPSCR, 256
    .equ FRAME_SP, 312
    @ Relative to &frame.sp (the register the banked helpers get in r0).
    .equ BANKED_CPSR, 12

#ifndef HAL_ARMV7_ABT_STACK_SIZE
    @ Data aborts run the MMIO device models, which may simulate a whole NPU
    @ job on a doorbell write: give them room.
#define HAL_ARMV7_ABT_STACK_SIZE 16384
#endif
#ifndef HAL_ARMV7_FATAL_STACK_SIZE
    @ undef/irq/fiq only print a report (printf) and exit.
#define HAL_ARMV7_FATAL_STACK_SIZE 4096
#endif

@ ---- vector table (VBAR needs 32-byte alignment) --------------------------
    .section .text.vectors, "ax", %progbits
    .balign 32
    .global hal_armv7_vector_table
hal_armv7_vector_table:
    b     .                     @ 0x00 reset (not taken through VBAR)
    b     hal_armv7_undef_entry @ 0x04 undefined instruction
    b     hal_armv7_svc_entry   @ 0x08 supervisor call
    b     hal_armv7_pabt_entry  @ 0x0c prefetch abort
    b     hal_armv7_dabt_entry  @ 0x10 data abort
    b     .                     @ 0x14 hyp trap: not taken at PL1
    b     hal_armv7_irq_entry   @ 0x18 IRQ
    b     hal_armv7_fiq_entry   @ 0x1c FIQ

@ EXC_ENTRY: adj turns the banked lr into the address the frame's pc should
@ hold: the faulting instruction for aborts (lr-8 dabt, lr-4 pabt), the
@ return address for irq/fiq (lr-4). undef/svc leave lr (the next
@ instruction) alone; the C side works out the instruction size.
    .macro EXC_ENTRY name, kind, mode, adj
    .type \name, %function
\name:
    .if \adj
    sub   lr, lr, #\adj
    .endif
    srsdb sp!, #\mode           @ push pc (lr) and cpsr (spsr)
    sub   sp, sp, #8            @ room for the interrupted sp, lr
    push  {r0-r12}
    add   r0, sp, #52
    bl    hal_armv7_banked_save
    vmrs  r1, fpscr
    push  {r1}
    sub   sp, sp, #256
    vstmia sp, {d0-d15}
    add   r1, sp, #128
    vstmia r1, {d16-d31}
    mov   r0, sp
    mov   r1, #\kind
    bl    hal_armv7_exception
    b     hal_armv7_exc_return
    .size \name, . - \name
    .endm

    EXC_ENTRY hal_armv7_undef_entry, KIND_UNDEF, MODE_UND, 0
    EXC_ENTRY hal_armv7_svc_entry,   KIND_SVC,   MODE_SVC, 0
    EXC_ENTRY hal_armv7_pabt_entry,  KIND_PABT,  MODE_ABT, 4
    EXC_ENTRY hal_armv7_dabt_entry,  KIND_DABT,  MODE_ABT, 8
    EXC_ENTRY hal_armv7_irq_entry,   KIND_IRQ,   MODE_IRQ, 4
    EXC_ENTRY hal_armv7_fiq_entry,   KIND_FIQ,   MODE_FIQ, 4

@ Undo the frame and resume at frame.pc with CPSR = frame.cpsr.
    .type hal_armv7_exc_return, %function
hal_armv7_exc_return:
    add   r1, sp, #128
    vldmia r1, {d16-d31}
    vldmia sp, {d0-d15}
    add   sp, sp, #256
    pop   {r1}
    vmsr  fpscr, r1
    add   r0, sp, #52
    bl    hal_armv7_banked_restore
    pop   {r0-r12}
    add   sp, sp, #8
    rfeia sp!
    .size hal_armv7_exc_return, . - hal_armv7_exc_return

@ r2 := the mode holding the interrupted context's sp/lr, with IRQ/FIQ
@ masked, or 0 if it cannot be entered from here (monitor, hyp).
@ In: r0 = &frame.sp. Clobbers flags.
    .macro BANKED_MODE
    ldr   r2, [r0, #BANKED_CPSR]
    and   r2, r2, #0x1f
    cmp   r2, #MODE_USR
    moveq r2, #MODE_SYS         @ SYS shares USR's registers and is privileged
    cmp   r2, #MODE_MON
    cmpne r2, #MODE_HYP
    moveq r2, #0
    orrne r2, r2, #MASK_IF
    .endm

@ void hal_armv7_banked_save(uint32_t *sp_lr): store the interrupted mode's
@ sp and lr (0 when unreachable). Clobbers r1-r3.
    .type hal_armv7_banked_save, %function
hal_armv7_banked_save:
    BANKED_MODE
    cmp   r2, #0
    streq r2, [r0]
    streq r2, [r0, #4]
    bxeq  lr
    mrs   r3, cpsr
    msr   cpsr_c, r2
    str   sp, [r0]
    str   lr, [r0, #4]
    msr   cpsr_c, r3
    bx    lr
    .size hal_armv7_banked_save, . - hal_armv7_banked_save

@ void hal_armv7_banked_restore(const uint32_t *sp_lr): load them back.
@ Skipped when the interrupted mode is our own (a nested exception), since
@ that would overwrite the sp this code is running on. Clobbers r1-r3.
    .type hal_armv7_banked_restore, %function
hal_armv7_banked_restore:
    BANKED_MODE
    cmp   r2, #0
    bxeq  lr
    mrs   r3, cpsr
    and   r1, r3, #0x1f
    orr   r1, r1, #MASK_IF
    cmp   r1, r2
    bxeq  lr
    msr   cpsr_c, r2
    ldr   sp, [r0]
    ldr   lr, [r0, #4]
    msr   cpsr_c, r3
    bx    lr
    .size hal_armv7_banked_restore, . - hal_armv7_banked_restore

@ void hal_armv7_vectors_install(void): give the abort, undef, irq and fiq
@ modes their stacks (crt0 only sets up SVC's), point VBAR at the table,
@ and make exceptions enter in ARM state (SCTLR.TE=0: picolibc's crt0 sets
@ it) through VBAR (SCTLR.V=0). Must be called in a privileged mode.
    .section .text.hal_armv7_vectors_install, "ax", %progbits
    .global hal_armv7_vectors_install
    .type hal_armv7_vectors_install, %function
hal_armv7_vectors_install:
    mrs   r2, cpsr
    cpsid if, #MODE_ABT
    ldr   sp, =hal_armv7_abt_stack + HAL_ARMV7_ABT_STACK_SIZE
    cpsid if, #MODE_UND
    ldr   sp, =hal_armv7_fatal_stack + HAL_ARMV7_FATAL_STACK_SIZE
    cpsid if, #MODE_IRQ
    ldr   sp, =hal_armv7_fatal_stack + HAL_ARMV7_FATAL_STACK_SIZE
    cpsid if, #MODE_FIQ
    ldr   sp, =hal_armv7_fatal_stack + HAL_ARMV7_FATAL_STACK_SIZE
    msr   cpsr_c, r2            @ back to the caller's mode and masks
    ldr   r0, =hal_armv7_vector_table
    mcr   p15, 0, r0, c12, c0, 0        @ VBAR
    mrc   p15, 0, r0, c1, c0, 0         @ SCTLR
    bic   r0, r0, #(1 << 13)            @ V: vectors at VBAR, not 0xffff0000
    bic   r0, r0, #(1 << 30)            @ TE: take exceptions in ARM state
    mcr   p15, 0, r0, c1, c0, 0
    isb
    bx    lr
    .size hal_armv7_vectors_install, . - hal_armv7_vectors_install
    .ltorg

    .section .bss.hal_armv7_exc_stacks, "aw", %nobits
    .balign 8
hal_armv7_abt_stack:
    .space HAL_ARMV7_ABT_STACK_SIZE
hal_armv7_fatal_stack:
    .space HAL_ARMV7_FATAL_STACK_SIZE
