/*
 * Copyright (c) 2026 The clustercron authors
 * ISC licence: see LICENSE.
 *
 * parser_int.h: what the parser's files share privately.
 */

#ifndef PARSER_INT_H
#define PARSER_INT_H

#include "parser.h"

#endif /* PARSER_INT_H */
