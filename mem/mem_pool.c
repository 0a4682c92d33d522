/*
 * mem_pool.c - fixed-size object pools in static storage (see mem.h).
 */
#include <string.h>

#include "mem.h"

static int bit_get(const uint32_t *bits, uint32_t i)
{
    return (bits[i / 32] >> (i % 32)) & 1u;
}

static void bit_put(uint32_t *bits, uint32_t i, int v)
{
    if (v)
        bits[i / 32] |= 1u << (i % 32);
    else
        bits[i / 32] &= ~(1u << (i % 32));
}

/* Slot index of obj if it is an object start inside the pool, else -1. */
static int slot_of(const mem_pool *p, const void *obj)
{
    uintptr_t o = (uintptr_t)obj, s = (uintptr_t)p->storage;
    size_t span = p->object_size * p->capacity;

    if (!obj || o < s || o - s >= span || (o - s) % p->object_size)
        return -1;
    return (int)((o - s) / p->object_size);
}

void *mem_pool_take(mem_pool *p)
{
    for (uint32_t i = 0; i < p->capacity; i++) {
        if (!bit_get(p->used_bits, i)) {
            void *obj = p->storage + (size_t)i * p->object_size;
            bit_put(p->used_bits, i, 1);
            p->in_use++;
            memset(obj, 0, p->object_size);
            return obj;
        }
    }
    return NULL;
}

mem_status mem_pool_give(mem_pool *p, void *obj)
{
    int i = slot_of(p, obj);

    if (i < 0)
        return MEM_ERR_FOREIGN;
    if (!bit_get(p->used_bits, (uint32_t)i))
        return MEM_ERR_DOUBLE_FREE;
    bit_put(p->used_bits, (uint32_t)i, 0);
    p->in_use--;
    return MEM_OK;
}

int mem_pool_owns(const mem_pool *p, const void *obj)
{
    int i = slot_of(p, obj);

    return i >= 0 && bit_get(p->used_bits, (uint32_t)i);
}
