#include "testing.h"
