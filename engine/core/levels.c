/* placeholder: being written */
#include "mbx/status.h"
