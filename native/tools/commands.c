/*
 * native/tools/commands.c - the sub-commands of locklab-native beyond
 * `list` and `run` (core/main.c hands them over through backend_command):
 * calibrate, validate-report and filelock (docs/validate.md).
 */
#include <string.h>

#include <locklab/backend.h>

#include "validate.h"

int backend_command(const char *cmd, int argc, char **argv)
{
	if (!strcmp(cmd, "calibrate"))
		return native_calibrate_main(argc, argv);
	if (!strcmp(cmd, "validate-report"))
		return native_validate_report_main(argc, argv);
	if (!strcmp(cmd, "filelock"))
		return native_filelock_main(argc, argv);
	return -1;
}
