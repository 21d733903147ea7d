/*
 * native/tools/commands.c - the sub-commands of locklab-native beyond
 * `list` and `run` (core/main.c finds them in backend_commands):
 * calibrate, validate-report and filelock (docs/validate.md), noise
 * (docs/variance.md).
 */
#include <locklab/args.h>

#include "validate.h"

const struct ll_command *const backend_commands[] = {
	&native_calibrate_cmd, &native_vreport_cmd, &native_filelock_cmd,
	&native_noise_cmd, NULL,
};
