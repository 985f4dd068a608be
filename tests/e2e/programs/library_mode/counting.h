// The interface of the library-mode test library (counting.c): a plain host calls it.
#pragma once

// Starts two threads that count into the library's counters, joins them and returns the sum.
long counting_run(void);
