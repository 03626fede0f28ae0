#pragma once
// ACS_HOT marks the functions that every launch of a stream acs stepped aside from runs (the
// path a program without parallelism pays on each launch). GCC emits them into .text.hot, which
// the linker lays out together: the path then spans a few pages of code instead of the twenty
// it crossed when each function sat among its own file's code. That matters where the path runs
// cold, as in a framework whose host code between two launches evicts acs's code from the caches
// and its pages from the TLB (benchmarks/cpu/call_overhead_fake.cpp --cold).
#define ACS_HOT [[gnu::hot]]

