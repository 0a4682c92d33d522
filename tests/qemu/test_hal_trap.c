/*
 * test_hal_trap.c - the MMIO trap-and-emulate path and the HAL timer.
 *
 * A fake device is registered at RK3588 NPU core 0's address (0xFDAB0000,
 * 64 KiB). On QEMU virt nothing is mapped there, so every access aborts and
 * the exception handler must forward it to the callbacks below, both for
 * hal_mmio_read32/write32 and for plain volatile pointers (as the NPU driver
 * may use). The callbacks keep a log, which is the independent reference
 * the test checks against. On the host only the hal_mmio_* path exists (raw
 * pointers to that address would crash), so the raw part is bare metal only.
 *
 * Portable: only hal.h and libc; runs on aarch64, armv7 and the host.
 */
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "hal.h"

/* stdio.h of picolibc and newlib defines __NEWLIB__; glibc does not. */
#if defined(__NEWLIB__) || defined(_PICOLIBC__)
#define TEST_BARE_METAL 1
#else
#define TEST_BARE_METAL 0
#endif

#define DEV_BASE 0xFDAB0000u
#define DEV_SIZE 0x10000u

#define REG_SCRATCH0 0x0000u
#define REG_SCRATCH1 0x0010u
#define REG_DOORBELL 0x0020u /* write v: REG_STATUS becomes v | STATUS_DONE */
#define REG_STATUS   0x0024u
#define REG_LAST     (DEV_SIZE - 4u)
#define STATUS_DONE  0x80000000u

#define LOG_MAX 64

typedef struct {
    char kind; /* 'R' or 'W' */
    uint32_t offset;
    uint32_t value;
} access_log_entry;

typedef struct {
    uint32_t regs[DEV_SIZE / 4];
    access_log_entry log[LOG_MAX];
    unsigned log_count;
    unsigned bad_offsets;
} fake_device;

static fake_device dev;
static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                            \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static void log_access(fake_device *d, char kind, uintptr_t offset, uint32_t value)
{
    if (d->log_count < LOG_MAX)
        d->log[d->log_count] = (access_log_entry){kind, (uint32_t)offset, value};
    d->log_count++;
}

/* Floating-point work inside the "device", so the trap path has to keep
 * the interrupted code's FP/SIMD registers intact around it. */
static volatile double fp_sink;

static void use_fp_registers(uint32_t seed)
{
    double acc = (double)seed;
    for (int i = 0; i < 8; i++)
        acc = acc * 1.000001 + (double)i * 0.5;
    fp_sink = acc;
}

static uint32_t dev_read32(void *ctx, uintptr_t offset)
{
    fake_device *d = ctx;
    uint32_t value = 0;

    use_fp_registers((uint32_t)offset);
    if (offset % 4 != 0 || offset >= DEV_SIZE)
        d->bad_offsets++;
    else
        value = d->regs[offset / 4];
    log_access(d, 'R', offset, value);
    return value;
}

static void dev_write32(void *ctx, uintptr_t offset, uint32_t value)
{
    fake_device *d = ctx;

    use_fp_registers(value);
    log_access(d, 'W', offset, value);
    if (offset % 4 != 0 || offset >= DEV_SIZE) {
        d->bad_offsets++;
        return;
    }
    d->regs[offset / 4] = value;
    if (offset == REG_DOORBELL)
        d->regs[REG_STATUS / 4] = value | STATUS_DONE;
}

static const hal_mmio_region dev_region = {
    .base = DEV_BASE,
    .size = DEV_SIZE,
    .ctx = &dev,
    .read32 = dev_read32,
    .write32 = dev_write32,
};

/* The callbacks update dev from the exception handler, behind a plain
 * volatile pointer access the compiler does not see as touching dev: make
 * it re-read dev after such accesses. */
static void sync_with_device(void)
{
#if defined(__GNUC__)
    __asm__ volatile("" : : : "memory");
#endif
}

/* The n-th logged access must be exactly (kind, offset, value). */
static void expect_log(unsigned n, char kind, uint32_t offset, uint32_t value)
{
    sync_with_device();
    if (n >= dev.log_count || n >= LOG_MAX) {
        CHECK(0, "access #%u (%c 0x%04x) never reached the device", n, kind, (unsigned)offset);
        return;
    }
    const access_log_entry *e = &dev.log[n];
    CHECK(e->kind == kind && e->offset == offset && e->value == value,
          "access #%u: got %c 0x%04x=0x%08x, want %c 0x%04x=0x%08x", n, e->kind,
          (unsigned)e->offset, (unsigned)e->value, kind, (unsigned)offset, (unsigned)value);
}

static unsigned expected_accesses;

static uint32_t read_via_hal(uint32_t offset)
{
    expected_accesses++;
    return hal_mmio_read32(DEV_BASE + offset);
}

static void write_via_hal(uint32_t offset, uint32_t value)
{
    expected_accesses++;
    hal_mmio_write32(DEV_BASE + offset, value);
}

static void test_hal_accessors(void)
{
    sync_with_device();
    unsigned n = dev.log_count;

    write_via_hal(REG_SCRATCH0, 0x12345678u);
    expect_log(n, 'W', REG_SCRATCH0, 0x12345678u);
    uint32_t v = read_via_hal(REG_SCRATCH0);
    expect_log(n + 1, 'R', REG_SCRATCH0, 0x12345678u);
    CHECK(v == 0x12345678u, "hal read back 0x%08x, want 0x12345678", (unsigned)v);

    write_via_hal(REG_DOORBELL, 0x42u);
    v = read_via_hal(REG_STATUS);
    CHECK(v == (0x42u | STATUS_DONE), "doorbell via hal: status 0x%08x, want 0x%08x", (unsigned)v,
          (unsigned)(0x42u | STATUS_DONE));

    write_via_hal(REG_LAST, 0xdeadbeefu);
    v = read_via_hal(REG_LAST);
    expect_log(n + 5, 'R', REG_LAST, 0xdeadbeefu);
    CHECK(v == 0xdeadbeefu, "last register: 0x%08x", (unsigned)v);
}

/* Holds a double in an FP register across a hal_mmio read. */
static void test_fp_survives_hal_access(void)
{
    volatile double seed = 1.5;
    double x = seed * 3.0; /* 4.5 */
#if defined(__arm__) || defined(__aarch64__)
    __asm__ volatile("" : "+w"(x)); /* keep it in an FP/SIMD register */
#endif
    uint32_t v = read_via_hal(REG_SCRATCH0);
#if defined(__arm__) || defined(__aarch64__)
    __asm__ volatile("" : "+w"(x));
#endif
    volatile double result = x + 0.25;
    CHECK(result == 4.75, "FP value changed across hal access: %f (read 0x%08x)", (double)result,
          (unsigned)v);
}

#if TEST_BARE_METAL
static void test_raw_pointers(void)
{
    volatile uint32_t *regs = (volatile uint32_t *)(uintptr_t)DEV_BASE;
    sync_with_device();
    unsigned n = dev.log_count;

    expected_accesses++;
    regs[REG_SCRATCH1 / 4] = 0xa5a55a5au;
    expect_log(n, 'W', REG_SCRATCH1, 0xa5a55a5au);
    expected_accesses++;
    uint32_t v = regs[REG_SCRATCH1 / 4];
    expect_log(n + 1, 'R', REG_SCRATCH1, 0xa5a55a5au);
    CHECK(v == 0xa5a55a5au, "raw read back 0x%08x, want 0xa5a55a5a", (unsigned)v);

    expected_accesses += 2;
    regs[REG_DOORBELL / 4] = 7u;
    v = regs[REG_STATUS / 4];
    CHECK(v == (7u | STATUS_DONE), "doorbell via pointer: status 0x%08x", (unsigned)v);

    /* Mixed: written through a pointer, read through the HAL. */
    expected_accesses++;
    regs[REG_LAST / 4] = 0x0badf00du;
    CHECK(read_via_hal(REG_LAST) == 0x0badf00du, "pointer write not seen by hal read");

    /* A double live in an FP register while the raw load traps: no call in
     * between, so nothing but the trap path can clobber it. */
    volatile double seed = 2.5;
    double x = seed * 4.0; /* 10.0 */
#if defined(__arm__) || defined(__aarch64__)
    __asm__ volatile("" : "+w"(x));
#endif
    expected_accesses++;
    v = regs[REG_SCRATCH1 / 4];
#if defined(__arm__) || defined(__aarch64__)
    __asm__ volatile("" : "+w"(x));
#endif
    volatile double result = x + 0.5;
    CHECK(result == 10.5, "FP value changed across a trapped load: %f", (double)result);
    CHECK(v == 0xa5a55a5au, "raw read after FP check: 0x%08x", (unsigned)v);
}
#endif

static void test_time(void)
{
    CHECK(hal_time_freq_hz() != 0, "timer frequency is 0");
    printf("arch=%s timer=%llu Hz cache line=%u\n", hal_arch_name(),
           (unsigned long long)hal_time_freq_hz(), (unsigned)hal_cache_line_size());

    uint64_t t0 = hal_time_us();
    uint64_t prev = t0;
    uint64_t now = t0;
    unsigned long backwards = 0;
    /* Bounded busy loop: 1 ms must pass long before 50M readings. */
    for (unsigned long i = 0; i < 50000000ul && now < t0 + 1000u; i++) {
        now = hal_time_us();
        if (now < prev)
            backwards++;
        prev = now;
    }
    CHECK(backwards == 0, "hal_time_us went backwards %lu times", backwards);
    CHECK(now >= t0 + 1000u, "hal_time_us advanced only %llu us", (unsigned long long)(now - t0));

    uint64_t k0 = hal_time_ticks();
    uint64_t k1 = hal_time_ticks();
    CHECK(k1 >= k0, "hal_time_ticks went backwards");
}

int main(void)
{
    hal_exceptions_install(_exit);
    CHECK(hal_mmio_register(&dev_region) == 0, "hal_mmio_register failed");
    uint32_t traps_before = hal_mmio_trap_count;

    test_hal_accessors();
    test_fp_survives_hal_access();
#if TEST_BARE_METAL
    test_raw_pointers();
#endif
    uint32_t traps = hal_mmio_trap_count - traps_before;
    sync_with_device();

    CHECK(dev.log_count == expected_accesses, "device saw %u accesses, test made %u", dev.log_count,
          expected_accesses);
    CHECK(dev.bad_offsets == 0, "%u accesses at misaligned or out-of-window offsets",
          dev.bad_offsets);
#if TEST_BARE_METAL
    CHECK(traps == expected_accesses, "hal_mmio_trap_count rose by %u, want %u", (unsigned)traps,
          expected_accesses);
#endif
    printf("accesses=%u traps=%u\n", expected_accesses, (unsigned)traps);
    hal_mmio_unregister(&dev_region);

    test_time();

    if (failures != 0) {
        printf("test_hal_trap: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_hal_trap: OK\n");
    return 0;
}
