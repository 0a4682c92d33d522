/*
 * psci_qemu_virt.c - the PSCI conduit of QEMU's virt machine for images
 * started by U-Boot: QEMU itself answers PSCI, through HVC, or through SMC
 * when the machine has EL2 (virtualization=on), which is exactly when
 * U-Boot starts the firmware at EL2.
 */
#include "board_uboot.h"
#include "hal_boot.h"

int board_psci_conduit(void)
{
    return hal_boot_entry_level() == 2 ? HAL_PSCI_SMC : HAL_PSCI_HVC;
}
