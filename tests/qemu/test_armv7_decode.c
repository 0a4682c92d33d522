/*
 * test_armv7_decode.c - armv7 only: every load/store form the MMIO trap
 * decoder claims to handle, written as explicit instructions (ARM build
 * and Thumb build), checked against values computed here by hand.
 * With an argument it runs a negative scenario that must end in the fatal
 * report (exit 99): ldrd, ldm, outside, undef, svc, pabt, nested.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hal.h"

#define BASE 0xFDAB0000u
#define SIZE 0x10000u

static uint32_t regs[SIZE / 4];
static unsigned reads, writes;
static int failures;

static volatile int nested_mode;

static uint32_t rd(void *ctx, uintptr_t off)
{
    (void)ctx;
    reads++;
    if (nested_mode)
        return *(volatile uint32_t *)(uintptr_t)(BASE + 0x44); /* traps inside the trap */
    return regs[off / 4];
}

static void wr(void *ctx, uintptr_t off, uint32_t v)
{
    (void)ctx;
    writes++;
    regs[off / 4] = v;
}

static const hal_mmio_region region = {BASE, SIZE, NULL, rd, wr};

#define EXPECT(name, got, want)                                                                    \
    do {                                                                                           \
        uint32_t g_ = (uint32_t)(got), w_ = (uint32_t)(want);                                      \
        if (g_ != w_) {                                                                            \
            printf("FAIL %s: got 0x%08lx want 0x%08lx\n", name, (unsigned long)g_,                 \
                   (unsigned long)w_);                                                             \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static void reset_regs(void)
{
    memset(regs, 0, sizeof regs);
    regs[0x40 / 4] = 0x80F1E2D3u;
    regs[0x44 / 4] = 0x11111111u;
    regs[0x48 / 4] = 0x22222222u;
    regs[0x3c / 4] = 0x33333333u;
    regs[0x50 / 4] = 0x44444444u;
}

static void test_common(void)
{
    uint32_t p = BASE + 0x40, v, b, idx;

    reset_regs();
    __asm__ volatile("ldrb %0, [%1, #1]" : "=r"(v) : "r"(p));
    EXPECT("ldrb imm", v, 0xE2);
    __asm__ volatile("ldrsb %0, [%1]" : "=r"(v) : "r"(p));
    EXPECT("ldrsb imm", v, 0xFFFFFFD3u);
    __asm__ volatile("ldrh %0, [%1, #2]" : "=r"(v) : "r"(p));
    EXPECT("ldrh imm", v, 0x80F1);
    __asm__ volatile("ldrsh %0, [%1]" : "=r"(v) : "r"(p));
    EXPECT("ldrsh imm", v, 0xFFFFE2D3u);
    __asm__ volatile("ldrsh %0, [%1, #2]" : "=r"(v) : "r"(p));
    EXPECT("ldrsh imm hi", v, 0xFFFF80F1u);

    __asm__ volatile("strb %0, [%1, #3]" : : "r"(0x55u), "r"(p) : "memory");
    EXPECT("strb rmw", regs[0x40 / 4], 0x55F1E2D3u);
    __asm__ volatile("strh %0, [%1]" : : "r"(0xABCD1234u), "r"(p) : "memory");
    EXPECT("strh rmw", regs[0x40 / 4], 0x55F11234u);

    b = p;
    __asm__ volatile("ldr %0, [%1, #4]!" : "=r"(v), "+r"(b));
    EXPECT("ldr pre-index value", v, 0x11111111u);
    EXPECT("ldr pre-index base", b, p + 4);
    b = p;
    __asm__ volatile("ldr %0, [%1], #8" : "=r"(v), "+r"(b));
    EXPECT("ldr post-index value", v, 0x55F11234u);
    EXPECT("ldr post-index base", b, p + 8);
    b = p;
    __asm__ volatile("ldr %0, [%1, #-4]!" : "=r"(v), "+r"(b));
    EXPECT("ldr pre-index neg value", v, 0x33333333u);
    EXPECT("ldr pre-index neg base", b, p - 4);
    __asm__ volatile("ldr %0, [%1, #-4]" : "=r"(v) : "r"(p));
    EXPECT("ldr neg offset", v, 0x33333333u);
    b = p;
    __asm__ volatile("str %1, [%0, #8]!" : "+r"(b) : "r"(0xCAFE0001u) : "memory");
    EXPECT("str pre-index value", regs[0x48 / 4], 0xCAFE0001u);
    EXPECT("str pre-index base", b, p + 8);

    idx = 4;
    __asm__ volatile("ldr %0, [%1, %2, lsl #2]" : "=r"(v) : "r"(p), "r"(idx));
    EXPECT("ldr reg lsl", v, 0x44444444u);
    __asm__ volatile("str %0, [%1, %2, lsl #2]" : : "r"(0xBEEF0002u), "r"(p), "r"(idx) : "memory");
    EXPECT("str reg lsl", regs[0x50 / 4], 0xBEEF0002u);

    /* lr as the destination (GCC uses it as a scratch register). */
    __asm__ volatile("ldr lr, [%1]\n\tmov %0, lr" : "=r"(v) : "r"(p + 4) : "lr");
    EXPECT("ldr lr", v, 0x11111111u);
    /* A high register base and destination (T32 in Thumb). */
    __asm__ volatile("mov r12, %1\n\tldr r12, [r12, #8]\n\tmov %0, r12" : "=r"(v) : "r"(p) : "r12");
    EXPECT("ldr r12", v, 0xCAFE0001u);
}

#ifdef __thumb__
static void test_thumb(void)
{
    uint32_t p = BASE + 0x40, v, b;
    uint32_t off = 4;

    reset_regs();
    /* T16 register offset (low registers only). */
    __asm__ volatile("ldr %0, [%1, %2]" : "=l"(v) : "l"(p), "l"(off));
    EXPECT("t16 ldr reg", v, 0x11111111u);
    off = 0;
    __asm__ volatile("ldrsh %0, [%1, %2]" : "=l"(v) : "l"(p), "l"(off));
    EXPECT("t16 ldrsh reg", v, 0xFFFFE2D3u);
    off = 1;
    __asm__ volatile("ldrsb %0, [%1, %2]" : "=l"(v) : "l"(p), "l"(off));
    EXPECT("t16 ldrsb reg", v, 0xFFFFFFE2u);
    off = 2;
    __asm__ volatile("ldrh %0, [%1, %2]" : "=l"(v) : "l"(p), "l"(off));
    EXPECT("t16 ldrh reg", v, 0x80F1);
    off = 8;
    __asm__ volatile("str %0, [%1, %2]" : : "l"(0x0DDBA11u), "l"(p), "l"(off) : "memory");
    EXPECT("t16 str reg", regs[0x48 / 4], 0x0DDBA11u);
    off = 3;
    __asm__ volatile("strb %0, [%1, %2]" : : "l"(0x77u), "l"(p), "l"(off) : "memory");
    EXPECT("t16 strb reg", regs[0x40 / 4], 0x77F1E2D3u);
    __asm__ volatile("strh %0, [%1, #2]" : : "l"(0x6666u), "l"(p) : "memory");
    EXPECT("t16 strh imm", regs[0x40 / 4], 0x6666E2D3u);
    __asm__ volatile("ldrb %0, [%1, #3]" : "=l"(v) : "l"(p));
    EXPECT("t16 ldrb imm", v, 0x66);

    /* T32 forms. */
    __asm__ volatile("ldr.w %0, [%1, #-4]" : "=r"(v) : "r"(p));
    EXPECT("t32 ldr imm8 neg", v, 0x33333333u);
    __asm__ volatile("ldrsh.w %0, [%1, #2]" : "=r"(v) : "r"(p));
    EXPECT("t32 ldrsh imm12", v, 0x00006666u);
    __asm__ volatile("ldrsb.w %0, [%1, #-3]" : "=r"(v) : "r"(p + 4));
    EXPECT("t32 ldrsb imm8 neg", v, 0xFFFFFFE2u);
    off = 2;
    __asm__ volatile("ldr.w %0, [%1, %2, lsl #2]" : "=r"(v) : "r"(p), "r"(off));
    EXPECT("t32 ldr reg lsl", v, 0x0DDBA11u);
    b = p;
    __asm__ volatile("ldrh %0, [%1], #-2" : "=r"(v), "+r"(b));
    EXPECT("t32 ldrh post neg value", v, 0xE2D3);
    EXPECT("t32 ldrh post neg base", b, p - 2);
    b = p;
    __asm__ volatile("strb %1, [%0, #1]!" : "+r"(b) : "r"(0x99u) : "memory");
    EXPECT("t32 strb pre value", regs[0x40 / 4], 0x666699D3u);
    EXPECT("t32 strb pre base", b, p + 1);

    /* IT blocks: the emulated load must advance ITSTATE, else the "ne"
     * instruction that follows would run under the "eq" condition. */
    v = 0;
    __asm__ volatile("cmp %1, %1\n\tite eq\n\tldreq %0, [%1]\n\tmovne %0, #0"
                     : "+l"(v)
                     : "l"(p + 4)
                     : "cc");
    EXPECT("it ite ldreq", v, 0x11111111u);
    __asm__ volatile("cmp %1, %1\n\titt eq\n\tldreq %0, [%1]\n\taddeq %0, %0, #1"
                     : "+l"(v)
                     : "l"(p + 4)
                     : "cc");
    EXPECT("it itt ldreq", v, 0x11111112u);
    __asm__ volatile("cmp %1, %1\n\titete eq\n\tldreq %0, [%1]\n\tmovne %0, #0\n\t"
                     "addeq %0, %0, #2\n\tmovne %0, #0"
                     : "+l"(v)
                     : "l"(p + 4)
                     : "cc");
    EXPECT("it itete", v, 0x11111113u);
}
#else
static void test_arm(void)
{
    uint32_t p = BASE + 0x40, v, b, idx;

    reset_regs();
    __asm__ volatile("cmp %1, %1\n\tldreq %0, [%1]\n\tmovne %0, #0" : "=r"(v) : "r"(p + 4) : "cc");
    EXPECT("arm ldreq", v, 0x11111111u);
    idx = 8;
    __asm__ volatile("ldr %0, [%1, %2, lsr #1]" : "=r"(v) : "r"(p), "r"(idx));
    EXPECT("arm ldr lsr", v, 0x11111111u);
    idx = 16;
    __asm__ volatile("ldr %0, [%1, -%2, asr #2]" : "=r"(v) : "r"(p), "r"(idx));
    EXPECT("arm ldr -asr", v, 0x33333333u);
    idx = 0x400; /* ror #8 -> 4 */
    __asm__ volatile("ldr %0, [%1, %2, ror #8]" : "=r"(v) : "r"(p), "r"(idx));
    EXPECT("arm ldr ror", v, 0x11111111u);
    idx = 2;
    __asm__ volatile("ldrh %0, [%1, %2]" : "=r"(v) : "r"(p), "r"(idx));
    EXPECT("arm ldrh reg", v, 0x80F1);
    b = p;
    __asm__ volatile("ldrh %0, [%1, #2]!" : "=r"(v), "+r"(b));
    EXPECT("arm ldrh pre value", v, 0x80F1);
    EXPECT("arm ldrh pre base", b, p + 2);
    b = p;
    __asm__ volatile("ldrsb %0, [%1], #4" : "=r"(v), "+r"(b));
    EXPECT("arm ldrsb post value", v, 0xFFFFFFD3u);
    EXPECT("arm ldrsb post base", b, p + 4);
    b = p + 4;
    __asm__ volatile("strh %1, [%0, #-4]!" : "+r"(b) : "r"(0x4321u) : "memory");
    EXPECT("arm strh pre neg value", regs[0x40 / 4], 0x80F14321u);
    EXPECT("arm strh pre neg base", b, p);
    b = p;
    __asm__ volatile("strb %1, [%0], -%2" : "+r"(b) : "r"(0xEEu), "r"(8u) : "memory");
    EXPECT("arm strb post reg value", regs[0x40 / 4], 0x80F143EEu);
    EXPECT("arm strb post reg base", b, p - 8);
}
#endif

/* Negative scenarios: each must end in the fatal report, exit 99. */
static void run_negative(const char *what)
{
    uint32_t p = BASE + 0x40;
    uint64_t pair;

    printf("negative scenario: %s\n", what);
    if (strcmp(what, "ldrd") == 0)
        __asm__ volatile("ldrd %Q0, %R0, [%1]" : "=r"(pair) : "r"(p));
    else if (strcmp(what, "ldm") == 0)
        __asm__ volatile("mov r0, %0\n\tldm r0, {r2, r3}" : : "r"(p) : "r0", "r2", "r3");
    else if (strcmp(what, "outside") == 0)
        (void)*(volatile uint32_t *)(uintptr_t)0xFDAA0000u;
    else if (strcmp(what, "undef") == 0)
        __asm__ volatile("udf #0");
    else if (strcmp(what, "svc") == 0)
        __asm__ volatile("svc #1");
    else if (strcmp(what, "nested") == 0) {
        nested_mode = 1;
        (void)*(volatile uint32_t *)(uintptr_t)p;
    } else if (strcmp(what, "pabt") == 0)
        ((void (*)(void))(uintptr_t)(BASE | 1u))();
    (void)pair;
    printf("scenario %s returned: not a fatal exception\n", what);
}

int main(int argc, char **argv)
{
    hal_exceptions_install(_exit);
    if (hal_mmio_register(&region) != 0) {
        printf("register failed\n");
        return 1;
    }
    static const char *const scenarios[] = {"ldrd", "ldm",  "outside", "undef",
                                            "svc",  "pabt", "nested"};
    for (unsigned i = 0; argc > 0 && i < sizeof scenarios / sizeof scenarios[0]; i++) {
        if (strcmp(argv[argc - 1], scenarios[i]) != 0)
            continue;
        run_negative(argv[argc - 1]);
        return 1;
    }
    uint32_t traps0 = hal_mmio_trap_count;
    test_common();
#ifdef __thumb__
    test_thumb();
#else
    test_arm();
#endif
    printf("%s: traps=%lu reads=%u writes=%u failures=%d\n",
#ifdef __thumb__
           "thumb",
#else
           "arm",
#endif
           (unsigned long)(hal_mmio_trap_count - traps0), reads, writes, failures);
    return failures != 0;
}
