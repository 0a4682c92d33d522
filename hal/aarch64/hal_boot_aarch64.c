/*
 * hal_boot_aarch64.c - PSCI SYSTEM_OFF (hal_boot.h), SMCs (hal.h), the architecture's name
 * for the boards' platform report. Board-support library.
 */
#include <stdint.h>

#include "hal.h"
#include "hal_boot.h"

#define PSCI_SYSTEM_OFF 0x84000008u

void hal_psci_system_off(int conduit)
{
    register uint64_t x0 __asm__("x0") = PSCI_SYSTEM_OFF;

    if (conduit == HAL_PSCI_SMC)
        __asm__ volatile("smc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
    else
        __asm__ volatile("hvc #0" : "+r"(x0) : : "x1", "x2", "x3", "memory");
}

/* SMCCC: the callee may change the argument registers and, in SMC64/SMC32
 * calls on aarch64, x4-x17 (SMCCC v1.0; v1.1 keeps them, v1.0 firmware
 * does not). */
uintptr_t hal_smc(uint32_t fid, uintptr_t a1, uintptr_t a2, uintptr_t a3)
{
    register uint64_t r0 __asm__("x0") = fid;
    register uint64_t r1 __asm__("x1") = a1;
    register uint64_t r2 __asm__("x2") = a2;
    register uint64_t r3 __asm__("x3") = a3;

    __asm__ volatile("smc #0"
                     : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3)
                     :
                     : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15",
                       "x16", "x17", "memory");
    return (uintptr_t)r0;
}

const char *hal_arch_name(void)
{
    return "aarch64";
}
