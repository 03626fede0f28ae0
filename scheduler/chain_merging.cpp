// chain_merger's calls run at nearly every launch and are defined in chain_merging.hpp, to be
// inlined there; this unit only checks that the header stands alone.
#include "scheduler/chain_merging.hpp"
