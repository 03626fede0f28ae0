#include "src/support/hot_flags.hpp"

namespace acs {

constinit hot_flags hot;

}  // namespace acs
