#ifndef HEAP_STATS_H
#define HEAP_STATS_H

#include <stddef.h>

/// The bytes malloc has handed out and not had back, in every arena, mmapped blocks included
/// (glibc's `mallinfo2`: `uordblks + hblkhd`). 0 where glibc is not the allocator.
size_t heap_stats_in_use(void);

#endif
