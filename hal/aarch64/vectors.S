/* AArch64 EL1 vector table. Every exception saves x0-x30, ELR and
 * SPSR into a frame on the current stack (struct hal_exc_frame in exc.c), plus
 * q0-q31/FPSR/FPCR below it (C code such as printf or a trap callback may use
 * SIMD registers), and calls void hal_exc_handler(struct hal_exc_frame *f, unsigned kind).
 * kind = vector index 0..15 (4 = synchronous, current EL, SP_ELx).
 * On return the (possibly modified) frame is restored and we ERET. */
    .section .text.vectors, "ax"
    .balign 2048
    .global hal_exc_vectors
hal_exc_vectors:
.macro VENTRY kind
    .balign 128
    sub  sp, sp, #272
    stp  x0, x1,   [sp, #0]
    mov  x1, #\kind
    b    exc_common
.endm
    VENTRY 0   /* cur EL, SP0, sync  */
    VENTRY 1   /* cur EL, SP0, irq   */
    VENTRY 2   /* cur EL, SP0, fiq   */
    VENTRY 3   /* cur EL, SP0, serr  */
    VENTRY 4   /* cur EL, SPx, sync  */
    VENTRY 5   /* cur EL, SPx, irq   */
    VENTRY 6   /* cur EL, SPx, fiq   */
    VENTRY 7   /* cur EL, SPx, serr  */
    VENTRY 8   /* lower EL a64 sync  */
    VENTRY 9
    VENTRY 10
    VENTRY 11
    VENTRY 12  /* lower EL a32       */
    VENTRY 13
    VENTRY 14
    VENTRY 15

exc_common:
    /* x0/x1 already saved at [sp,#0]; x1 now holds 'kind' */
    stp  x2, x3,   [sp, #16]
    stp  x4, x5,   [sp, #32]
    stp  x6, x7,   [sp, #48]
    stp  x8, x9,   [sp, #64]
    stp  x10, x11, [sp, #80]
    stp  x12, x13, [sp, #96]
    stp  x14, x15, [sp, #112]
    stp  x16, x17, [sp, #128]
    stp  x18, x19, [sp, #144]
    stp  x20, x21, [sp, #160]
    stp  x22, x23, [sp, #176]
    stp  x24, x25, [sp, #192]
    stp  x26, x27, [sp, #208]
    stp  x28, x29, [sp, #224]
    mrs  x2, elr_el1
    mrs  x3, spsr_el1
    stp  x30, x2,  [sp, #240]   /* x30, elr */
    str  x3,       [sp, #256]   /* spsr */
    mov  x19, sp                /* x19 is callee-saved: frame pointer for later */
    mov  w20, w1
    sub  sp, sp, #528
    stp  q0, q1,   [sp, #0]
    stp  q2, q3,   [sp, #32]
    stp  q4, q5,   [sp, #64]
    stp  q6, q7,   [sp, #96]
    stp  q8, q9,   [sp, #128]
    stp  q10, q11, [sp, #160]
    stp  q12, q13, [sp, #192]
    stp  q14, q15, [sp, #224]
    stp  q16, q17, [sp, #256]
    stp  q18, q19, [sp, #288]
    stp  q20, q21, [sp, #320]
    stp  q22, q23, [sp, #352]
    stp  q24, q25, [sp, #384]
    stp  q26, q27, [sp, #416]
    stp  q28, q29, [sp, #448]
    stp  q30, q31, [sp, #480]
    mrs  x2, fpsr
    mrs  x3, fpcr
    str  x2, [sp, #512]
    str  x3, [sp, #520]
    mov  x0, x19
    mov  w1, w20
    bl   hal_exc_handler
    ldr  x2, [sp, #512]
    ldr  x3, [sp, #520]
    msr  fpsr, x2
    msr  fpcr, x3
    ldp  q0, q1,   [sp, #0]
    ldp  q2, q3,   [sp, #32]
    ldp  q4, q5,   [sp, #64]
    ldp  q6, q7,   [sp, #96]
    ldp  q8, q9,   [sp, #128]
    ldp  q10, q11, [sp, #160]
    ldp  q12, q13, [sp, #192]
    ldp  q14, q15, [sp, #224]
    ldp  q16, q17, [sp, #256]
    ldp  q18, q19, [sp, #288]
    ldp  q20, q21, [sp, #320]
    ldp  q22, q23, [sp, #352]
    ldp  q24, q25, [sp, #384]
    ldp  q26, q27, [sp, #416]
    ldp  q28, q29, [sp, #448]
    ldp  q30, q31, [sp, #480]
    add  sp, sp, #528
    ldp  x30, x2,  [sp, #240]
    ldr  x3,       [sp, #256]
    msr  elr_el1, x2
    msr  spsr_el1, x3
    ldp  x2, x3,   [sp, #16]
    ldp  x4, x5,   [sp, #32]
    ldp  x6, x7,   [sp, #48]
    ldp  x8, x9,   [sp, #64]
    ldp  x10, x11, [sp, #80]
    ldp  x12, x13, [sp, #96]
    ldp  x14, x15, [sp, #112]
    ldp  x16, x17, [sp, #128]
    ldp  x18, x19, [sp, #144]
    ldp  x20, x21, [sp, #160]
    ldp  x22, x23, [sp, #176]
    ldp  x24, x25, [sp, #192]
    ldp  x26, x27, [sp, #208]
    ldp  x28, x29, [sp, #224]
    ldp  x0, x1,   [sp, #0]
    add  sp, sp, #272
    eret

    .global hal_arch_vectors_install
    .type hal_arch_vectors_install, %function
hal_arch_vectors_install:
    adr  x0, hal_exc_vectors
    msr  vbar_el1, x0
    isb
    ret
