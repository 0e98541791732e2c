// SPDX-License-Identifier: Apache-2.0
/* check-budget's page-fault counter: `faults FILE PROGRAM ARGS...` runs
 * PROGRAM with this process's stdin, stdout, stderr and environment, waits
 * for it with wait4() and writes "MINOR MAJOR" to FILE: the faults of
 * PROGRAM and of every child it waited for (a forked IPAM included), as
 * bench/run.c measures RSS. Exits with PROGRAM's status. */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv)
{
	struct rusage ru;
	FILE *f;
	pid_t pid;
	int st, err;

	if (argc < 3) {
		fprintf(stderr, "usage: faults FILE PROGRAM [ARGS...]\n");
		return 2;
	}
	/* posix_spawn, not fork: a forked child would copy-on-write fault on
	 * our pages before its exec, and those faults are not PROGRAM's. */
	err = posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ);
	if (err) {
		fprintf(stderr, "faults: %s: %s\n", argv[2], strerror(err));
		return 127;
	}
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("faults: wait4");
		return 2;
	}
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%ld %ld\n", ru.ru_minflt, ru.ru_majflt) < 0 || fclose(f)) {
		perror(argv[1]);
		return 2;
	}
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}
