// The key functions of simscope's exceptions: their type_info and vtables live here (error.hpp).
#include "core/error.hpp"

namespace simscope {

Error::~Error() = default;
Cancelled::~Cancelled() = default;

}  // namespace simscope
