/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 */

#include "parser.h"
