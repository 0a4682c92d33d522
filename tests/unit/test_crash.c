/*
 * test_crash - a fault in firmware must print a fault report and exit 99
 * (checked by the runner with EXPECT_EXIT=99), never hang.
 */
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    volatile uint32_t *nowhere = (volatile uint32_t *)(uintptr_t)0x0b000000u; /* hole on virt */

    puts("test_crash: reading an address with nothing behind it");
    return (int)*nowhere; /* must not return */
}
