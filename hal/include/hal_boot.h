/*
 * hal_boot.h - firmware started by a boot loader (U-Boot's bootm or go): the entry
 * code (hal/<arch>/boot_entry.S) takes whatever exception level, MMU and
 * cache state the loader left, records it, cleans and disables the caches,
 * drops from EL2/HYP to EL1/SVC, and jumps to the C library's _start. Part
 * of the board-support library; boards started by U-Boot link it with
 * -e hal_boot_entry (boards/meson.build). Included by assembly too.
 */
#ifndef HAL_BOOT_H
#define HAL_BOOT_H

/* hal_boot_state: 8-byte slots written at entry (assembly offsets). */
#define HAL_BOOT_TICKS    0   /* generic timer count at entry */
#define HAL_BOOT_LEVEL    8   /* exception level at entry: 1 (EL1/SVC) or 2 (EL2/HYP) */
#define HAL_BOOT_RETURNED 16  /* 0, or 1 + the status hal_boot_return() gave the loader */
#define HAL_BOOT_REGS     24  /* the loader's registers: 15 slots (see below) */
#define HAL_BOOT_SYSREG   144 /* the loader's system registers: 12 slots */
#define HAL_BOOT_SIZE     240
/* HAL_BOOT_REGS holds the callee-saved registers, sp, lr and U-Boot's global
 * data pointer (x18 on aarch64, r9 on armv7), which it needs back. */

#ifndef __ASSEMBLER__
#include <stdint.h>

#define HAL_PSCI_HVC 0
#define HAL_PSCI_SMC 1

/* Generic timer count when the boot loader jumped to the firmware (0 when
 * it was not started through hal_boot_entry, e.g. QEMU -kernel). */
uint64_t hal_boot_entry_ticks(void);
/* Exception level at entry: 2 = EL2 (HYP on armv7), 1 = EL1 (SVC), 0 = not
 * started through hal_boot_entry. */
unsigned hal_boot_entry_level(void);
/* Back to the boot loader as if `go` returned `status`: caches cleaned and
 * off, the loader's translation tables, vectors, EL and registers restored.
 * Returns (to the caller) only if that is not possible (armv7 HYP entry).
 * The image then runs once per load: entered again without being loaded
 * again, hal_boot_entry returns the same status at once (U-Boot 2023.01's
 * bootm calls a standalone program twice, at its PREP and GO steps). */
void hal_boot_return(int status);
/* PSCI SYSTEM_OFF through the given conduit; returns only if the firmware
 * below refused it. */
void hal_psci_system_off(int conduit);
#endif

#endif
