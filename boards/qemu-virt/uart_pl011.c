/*
 * uart_pl011.c - transmit on QEMU virt's PL011 (0x09000000), which U-Boot
 * has already enabled; the console of the images U-Boot starts.
 */
#include <stdint.h>

#include "board_uboot.h"
#include "hal.h"

#define PL011_BASE      0x09000000u
#define PL011_DR        0x00u
#define PL011_FR        0x18u
#define PL011_FR_TXFF   0x20u /* transmit FIFO full */
#define UART_SPIN_LIMIT 100000u

void board_uart_putc(char c)
{
    for (unsigned i = 0; i < UART_SPIN_LIMIT; i++)
        if (!(hal_mmio_read32(PL011_BASE + PL011_FR) & PL011_FR_TXFF))
            break;
    hal_mmio_write32(PL011_BASE + PL011_DR, (uint8_t)c);
}
