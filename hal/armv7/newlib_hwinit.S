@ newlib_hwinit.S - FPU enable for newlib's rdimon-crt0 (ARMv7-A, hard float).
@
@ rdimon-crt0 calls the weak _rdimon_hw_init_hook as the very first thing in
@ _start, before it clears .bss with newlib's NEON memset; with the FPU still
@ off that memset traps and the image hangs. picolibc's crt0 enables the FPU
@ itself and never calls this hook.
@ A weak reference does not pull a member out of an archive: link this file
@ as an object into newlib images, not through the HAL static library.
@ It also copies .data from its load address to RAM: rknpu-bm's linker
@ script (linker/baremetal.ld) keeps the .data image in the image region
@ (LMA) and places .data in RAM (VMA), as picolibc's crt0 expects, but
@ newlib's crt0 assumes .data was loaded in place and never copies it.
@ No stack exists yet: leaf code, registers only.
    .syntax unified
    .arch armv7-a
    .fpu neon-vfpv4
    .arm
    .section .text._rdimon_hw_init_hook, "ax", %progbits
    .global _rdimon_hw_init_hook
    .type _rdimon_hw_init_hook, %function
_rdimon_hw_init_hook:
    mrc   p15, 0, r0, c1, c0, 2     @ CPACR
    orr   r0, r0, #(0xf << 20)      @ cp10, cp11: full access
    mcr   p15, 0, r0, c1, c0, 2
    isb
    mov   r0, #0x40000000           @ FPEXC.EN
    vmsr  fpexc, r0
    ldr   r0, =__data_source        @ copy .data (word multiples, 8-aligned)
    ldr   r1, =__data_start
    ldr   r2, =__data_size
    cmp   r0, r1
    beq   2f
1:  subs  r2, r2, #4
    blt   2f
    ldr   r3, [r0], #4
    str   r3, [r1], #4
    b     1b
2:  bx    lr
    .ltorg
    .size _rdimon_hw_init_hook, . - _rdimon_hw_init_hook
