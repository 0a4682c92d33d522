/*
 * test_mem_pool - static object pools: capacity, zero-fill, exhaustion,
 * foreign and double returns, handle validation.
 */
#include <string.h>

#include "mem.h"
#include "test_util.h"

typedef struct {
    uint32_t a;
    uint8_t b[20];
} thing;

MEM_POOL_DEFINE(things, thing, 37); /* not a multiple of 32: bitmap tail */

int main(void)
{
    thing *all[37];
    thing outside;

    for (int i = 0; i < 37; i++) {
        all[i] = mem_pool_take(&things);
        if (!CHECK(all[i] != NULL))
            return test_report("mem_pool");
        CHECK(all[i]->a == 0 && all[i]->b[19] == 0); /* zero-filled */
        all[i]->a = 0xdeadbeefu;
        memset(all[i]->b, 0xab, sizeof all[i]->b);
        for (int j = 0; j < i; j++)
            CHECK(all[j] != all[i]);
    }
    CHECK(mem_pool_take(&things) == NULL); /* exhausted */
    CHECK_EQ_U(things.in_use, 37);
    CHECK(mem_pool_give(&things, &outside) == MEM_ERR_FOREIGN);
    CHECK(mem_pool_give(&things, (uint8_t *)all[3] + 1) == MEM_ERR_FOREIGN);
    CHECK(mem_pool_give(&things, NULL) == MEM_ERR_FOREIGN);
    CHECK(mem_pool_owns(&things, all[5]) && all[5] == all[0] + 5); /* slots in order */
    CHECK(mem_pool_give(&things, all[5]) == MEM_OK);
    CHECK(!mem_pool_owns(&things, all[5]));
    CHECK(mem_pool_give(&things, all[5]) == MEM_ERR_DOUBLE_FREE);
    thing *again = mem_pool_take(&things); /* the freed slot comes back, zeroed */
    CHECK(again == all[5] && again->a == 0 && again->b[0] == 0);
    CHECK(all[6]->a == 0xdeadbeefu); /* neighbours untouched */
    for (int i = 0; i < 37; i++)
        CHECK(mem_pool_give(&things, all[i]) == MEM_OK);
    CHECK_EQ_U(things.in_use, 0);
    return test_report("mem_pool");
}
