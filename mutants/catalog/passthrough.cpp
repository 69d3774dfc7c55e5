// passthrough: no fault; every call goes to the built-in library unchanged (the control: a
// campaign must never flag it).
#include "mutants/shim.hpp"
