/*
 * test_util.h - the few assertion helpers every test program uses. A failed
 * check prints where and what, and the program's exit status becomes 1
 * (never 77 or 99, which meson reads as skip/error).
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>

static unsigned test_checks, test_failures;

static inline int test_check(int ok, const char *expr, const char *file, int line)
{
    test_checks++;
    if (!ok) {
        test_failures++;
        printf("FAIL %s:%d: %s\n", file, line, expr);
    }
    return ok;
}

static inline int test_check_eq_u(uint64_t got, uint64_t want, const char *expr, const char *file,
                                  int line)
{
    test_checks++;
    if (got != want) {
        test_failures++;
        printf("FAIL %s:%d: %s: got %llu (0x%llx), want %llu (0x%llx)\n", file, line, expr,
               (unsigned long long)got, (unsigned long long)got, (unsigned long long)want,
               (unsigned long long)want);
        return 0;
    }
    return 1;
}

#define CHECK(expr) test_check(!!(expr), #expr, __FILE__, __LINE__)
#define CHECK_EQ_U(got, want)                                                                      \
    test_check_eq_u((uint64_t)(got), (uint64_t)(want), #got " == " #want, __FILE__, __LINE__)

static inline int test_report(const char *name)
{
    printf("%s: %u checks, %u failed -> %s\n", name, test_checks, test_failures,
           test_failures ? "FAIL" : "PASS");
    return test_failures ? 1 : 0;
}

#endif
