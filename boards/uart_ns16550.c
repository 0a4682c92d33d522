/*
 * uart_ns16550.c - transmit on a 16550-style UART with 32-bit register
 * spacing (Rockchip's debug UARTs, DesignWare 8250), at the baud rate and
 * format U-Boot left. The board gives the base (board_uart_base).
 */
#include <stdint.h>

#include "board_uboot.h"
#include "hal.h"

#define UART_THR        0x00u
#define UART_LSR        0x14u /* register 5, shift 2 */
#define UART_LSR_THRE   0x20u
#define UART_SPIN_LIMIT 100000u

void board_uart_putc(char c)
{
    /* Bounded: a wedged UART drops characters rather than hanging boot. */
    for (unsigned i = 0; i < UART_SPIN_LIMIT; i++)
        if (hal_mmio_read32(board_uart_base + UART_LSR) & UART_LSR_THRE)
            break;
    hal_mmio_write32(board_uart_base + UART_THR, (uint8_t)c);
}
