/*
 * test_hal_basics - the architecture-independent contract of the HAL on
 * every target: tick conversion, a monotonic timer, logging through the
 * hook (threshold, truncation), DMA address translation and cache
 * maintenance that keeps data intact.
 */
#include <string.h>

#include "hal.h"
#include "test_util.h"

static char last_log[256];
static int log_calls;

/* Overrides the weak default: the test sees exactly what the runtime logs. */
void rknpu_hook_log(rknpu_log_level level, const char *msg)
{
    (void)level;
    log_calls++;
    strncpy(last_log, msg, sizeof last_log - 1);
}

static void test_ticks_to_us(void)
{
    /* Reference values worked out by hand. */
    CHECK_EQ_U(hal_ticks_to_us(0, 24000000), 0);
    CHECK_EQ_U(hal_ticks_to_us(24000000, 24000000), 1000000);
    CHECK_EQ_U(hal_ticks_to_us(23999999, 24000000), 999999);
    CHECK_EQ_U(hal_ticks_to_us(62500, 62500000), 1000);
    CHECK_EQ_U(hal_ticks_to_us(1, 1000000000), 0);
    CHECK_EQ_U(hal_ticks_to_us(1000, 1000000000), 1);
    /* 2^63 ticks at 1 GHz = 9223372036854775 us (no overflow in the split). */
    CHECK_EQ_U(hal_ticks_to_us(1ull << 63, 1000000000), 9223372036854775ull);
    CHECK_EQ_U(hal_ticks_to_us(12345, 0), 0);
}

static void test_timer_monotonic(void)
{
    uint64_t t0 = hal_time_us(), prev = t0, f = hal_time_freq_hz();

    CHECK(f >= 1000000u); /* at least 1 MHz on every target */
    for (int i = 0; i < 2000; i++) {
        uint64_t t = hal_time_us();
        CHECK(t >= prev);
        prev = t;
    }
    hal_delay_us(2000);
    CHECK(hal_time_us() - t0 >= 2000);
}

static void test_logging(void)
{
    char big[400];

    rknpu_log_threshold = RKNPU_LOG_WARN;
    log_calls = 0;
    HAL_LOG_INFO("not shown %d", 1);
    CHECK(log_calls == 0);
    HAL_LOG_ERR("value %d name %s", 42, "x");
#if HAL_LOG_STRINGS
    CHECK(log_calls == 1 && strcmp(last_log, "value 42 name x") == 0);
#else
    CHECK(log_calls == 1 && strstr(last_log, "line") != NULL); /* the stripped form */
#endif
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = 0;
    HAL_LOG_WARN("%s", big); /* truncated, never overflows */
#if HAL_LOG_STRINGS
    CHECK(log_calls == 2 && strlen(last_log) > 100 && strlen(last_log) < sizeof big - 1);
#else
    CHECK(log_calls == 2);
#endif
}

static uint8_t window[8192] __attribute__((aligned(4096)));

static void test_dma_translation(void)
{
    hal_dma_window_set(window, 0x30000000u, sizeof window);
    CHECK_EQ_U(hal_virt_to_dma(window), 0x30000000u);
    CHECK_EQ_U(hal_virt_to_dma(window + 4095), 0x30000000u + 4095);
    CHECK(hal_dma_to_virt(0x30001000u) == window + 4096);
    CHECK(hal_dma_to_virt(0x30000000u + sizeof window) ==
          (void *)(uintptr_t)(0x30000000u + sizeof window));
    CHECK(rknpu_hook_virt_to_phys(window + 8) == 0x30000008u);
    CHECK(rknpu_hook_phys_to_virt(0x30000010u) == window + 16);
    hal_dma_window_set(NULL, 0, 0);
}

static void test_cache_maintenance_keeps_data(void)
{
    size_t line = hal_cache_line_size();

    CHECK(line >= 16 && line <= 256 && (line & (line - 1)) == 0);
    for (size_t i = 0; i < sizeof window; i++)
        window[i] = (uint8_t)(i * 7);
    /* Unaligned range: the partial edge lines hold data that must survive. */
    hal_cache_clean_range(window + 3, 1000);
    hal_cache_invalidate_range(window + 3, 1000);
    rknpu_hook_cache_clean(window, sizeof window);
    rknpu_hook_cache_invalidate(window + 1, 7);
    int intact = 1;
    for (size_t i = 0; i < sizeof window; i++)
        intact &= window[i] == (uint8_t)(i * 7);
    CHECK(intact);
}

int main(void)
{
    test_ticks_to_us();
    test_timer_monotonic();
    test_logging();
    test_dma_translation();
    test_cache_maintenance_keeps_data();
    CHECK(strlen(hal_arch_name()) > 0);
    return test_report("hal_basics");
}
