// SPDX-License-Identifier: Apache-2.0
/* The bench's runner: execs plugins as a runtime does (posix_spawn, config
 * on stdin, CNI_* in the environment) and measures each run with wait4():
 * wall time, CPU (user+sys of the process and every child it waited for,
 * the IPAM included) and peak RSS. Contenders are interleaved (the order
 * rotates every iteration) so that a load change hits all of them alike.
 *
 *   run cycle ITER NAME=DIR...   ADD then DEL of job 0; one sample per pair
 *   run add ITER NAME=DIR...     ADD of job 0 measured, its DEL not
 *   run wave ITER NAME=DIR...    every job's ADD at once, then every DEL
 *   run chain ITER NAME=DIR...   every job's ADD in order, then every DEL in
 *                                reverse order, one at a time (a pod's rails
 *                                as Multus runs them); see chain_round()
 *   run prefill DIR N            N leases (and the lock) as host-local writes them
 *
 * A job is a directory: bin (the program, usually a link), env (KEY=VALUE
 * lines), stdin (the config). Its stdout and stderr are pipes, as a
 * runtime's (libcni reads a plugin's stdout from one): a file on disk would
 * charge its truncation and writes to whoever prints. What came through
 * them is saved to out and err there when the run fails. One unmeasured warm-up round comes first;
 * its ADD is reported as "first" (an index rebuild shows there). Output, one line per contender:
 *   NAME wall MED P25 P75 cpu MED P25 P75 rss MAX first WALL RSS   (us, kB)
 * and in chain mode " add P50 P99 MAX": the wall time of the ADDs alone (a
 * pod's attach, what a runtime's NRI hook waits for).
 * Any run that fails stops everything: numbers of failed runs mean nothing. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define JOBS_MAX 64
#define ENV_MAX	 64

struct job {
	char dir[512];
	bool chained;		/* chain mode: its dir holds "chained" (see chain_round) */
	char *env[ENV_MAX + 2]; /* + CNI_COMMAND, NULL */
	size_t n_env;
	int out, err; /* read ends of the running command's stdout and stderr */
};

/* A pipe's read end is left to the runner; its write end, which the child
 * gets, is closed here once spawned. Pipes hold 1 MiB: a plugin's output is
 * read after it exits, so it must never fill one (results are a few kB). */
#define PIPE_SIZE (1 << 20)

struct contender {
	const char *name;
	struct job jobs[JOBS_MAX];
	size_t n_jobs;
	uint64_t *wall, *cpu, *add, first_wall; /* add: chain mode's ADDs alone */
	long rss, first_rss;
	size_t n;
};

struct sample {
	uint64_t wall, cpu, add_wall;
	long rss;
};

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "run: %s: %s\n", what, detail);
	exit(1);
}

/* dir/name into buf; a path that does not fit stops the run. */
static char *path_of(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		die(dir, "path too long");
	return buf;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void job_load(struct job *j, const char *dir)
{
	char path[PATH_MAX], line[1024];
	FILE *f;

	if (strlen(dir) >= sizeof(j->dir))
		die(dir, "path too long");
	memcpy(j->dir, dir, strlen(dir) + 1);
	f = fopen(path_of(path, sizeof(path), dir, "env"), "re");
	if (!f)
		die(path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		if (j->n_env == ENV_MAX)
			die(path, "too many variables");
		j->env[j->n_env++] = strdup(line);
	}
	fclose(f);
	j->chained = !access(path_of(path, sizeof(path), dir, "chained"), F_OK);
}

static void contender_load(struct contender *c, char *spec, size_t iter)
{
	char *eq = strchr(spec, '='), dir[PATH_MAX], num[24];
	struct stat st;

	if (!eq)
		die(spec, "want NAME=DIR");
	*eq = '\0';
	c->name = spec;
	for (; c->n_jobs < JOBS_MAX; c->n_jobs++) {
		snprintf(num, sizeof(num), "%zu", c->n_jobs);
		if (stat(path_of(dir, sizeof(dir), eq + 1, num), &st) < 0)
			break;
		job_load(&c->jobs[c->n_jobs], dir);
	}
	if (!c->n_jobs)
		die(eq + 1, "no job 0");
	c->wall = calloc(iter, sizeof(*c->wall));
	c->cpu = calloc(iter, sizeof(*c->cpu));
	c->add = calloc(iter, sizeof(*c->add));
	if (!c->wall || !c->cpu || !c->add)
		die("memory", strerror(ENOMEM));
}

static void pipe_open(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		die("pipe", strerror(errno));
	if (fcntl(fds[1], F_SETPIPE_SZ, PIPE_SIZE) < 0)
		die("pipe size", strerror(errno));
}

static pid_t spawn(struct job *j, const char *cmd)
{
	char bin[PATH_MAX], in[PATH_MAX], command[32];
	posix_spawn_file_actions_t fa;
	int out[2], err[2], ret;
	pid_t pid;

	path_of(bin, sizeof(bin), j->dir, "bin");
	path_of(in, sizeof(in), j->dir, "stdin");
	snprintf(command, sizeof(command), "CNI_COMMAND=%s", cmd);
	j->env[j->n_env] = command;
	j->env[j->n_env + 1] = NULL;
	pipe_open(out);
	pipe_open(err);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	ret = posix_spawn(&pid, bin, &fa, NULL, (char *const[]){bin, NULL}, j->env);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	if (ret)
		die(bin, strerror(ret));
	j->out = out[0];
	j->err = err[0];
	return pid;
}

/* Empty the read end fd (the writer has exited); with keep, into the file
 * dir/name. Closes fd. */
static void pipe_drain(int fd, const char *dir, const char *name, bool keep)
{
	char path[PATH_MAX], buf[4096];
	int file = -1;
	ssize_t n;

	if (keep) {
		file = open(path_of(path, sizeof(path), dir, name),
			    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (file < 0)
			die(path, strerror(errno));
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (keep && write(file, buf, (size_t)n) != n)
			die(path, strerror(errno));
	if (n < 0)
		die(name, strerror(errno));
	close(fd);
	if (keep)
		close(file);
}

static uint64_t tv_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000 + (uint64_t)tv.tv_usec;
}

/* Wait for pid (a run of j); its CPU and RSS into s. */
static void reap(pid_t pid, struct job *j, const char *cmd, struct sample *s)
{
	struct rusage ru;
	int status;
	char what[PATH_MAX + 16];
	bool failed;

	if (wait4(pid, &status, 0, &ru) < 0)
		die("wait4", strerror(errno));
	failed = !WIFEXITED(status) || WEXITSTATUS(status);
	pipe_drain(j->out, j->dir, "out", failed);
	pipe_drain(j->err, j->dir, "err", failed);
	if (failed) {
		snprintf(what, sizeof(what), "%s %s", cmd, j->dir);
		die(what, "failed; see out and err there");
	}
	s->cpu += tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	if (ru.ru_maxrss > s->rss)
		s->rss = ru.ru_maxrss;
}

/* Every job of c (or job 0 only) runs cmd at once; wall time of the wave. */
static void wave(struct contender *c, size_t n_jobs, const char *cmd, struct sample *s)
{
	pid_t pids[JOBS_MAX];
	uint64_t start = now_us();

	for (size_t k = 0; k < n_jobs; k++)
		pids[k] = spawn(&c->jobs[k], cmd);
	for (size_t k = 0; k < n_jobs; k++)
		reap(pids[k], &c->jobs[k], cmd, s);
	s->wall += now_us() - start;
}

static void chain_round(struct contender *c, struct sample *s);

static void one_round(struct contender *c, const char *mode, bool warm)
{
	struct sample s = {0}, del = {0};
	size_t jobs = strcmp(mode, "wave") ? 1 : c->n_jobs;
	bool chain = !strcmp(mode, "chain");

	if (chain)
		chain_round(c, &s);
	else
		wave(c, jobs, "ADD", &s);
	if (warm) {
		c->first_wall = s.wall;
		c->first_rss = s.rss;
	}
	if (!chain)
		wave(c, jobs, "DEL", strcmp(mode, "add") ? &s : &del);
	if (s.rss > c->rss)
		c->rss = s.rss;
	if (del.rss > c->rss)
		c->rss = del.rss;
	if (!warm) {
		c->add[c->n] = s.add_wall;
		c->wall[c->n] = s.wall;
		c->cpu[c->n++] = s.cpu;
	}
}

/* Chain mode: a job's stdin is its file with, when given, ',"prevResult":
 * RESULT' spliced in before the final '}', written to a pipe (a config is
 * a few kB, well within one). */
static int stdin_pipe(const struct job *j, const char *prev)
{
	char path[PATH_MAX], buf[16384];
	int fds[2];
	ssize_t n;
	size_t len;
	FILE *f = fopen(path_of(path, sizeof(path), j->dir, "stdin"), "re");

	if (!f)
		die(path, strerror(errno));
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	while (len && buf[len - 1] != '}')
		len--;
	if (!len)
		die(path, "not a JSON object");
	pipe_open(fds);
	if (prev) {
		n = write(fds[1], buf, len - 1);
		if (n != (ssize_t)len - 1 || write(fds[1], ",\"prevResult\":", 14) != 14 ||
		    write(fds[1], prev, strlen(prev)) != (ssize_t)strlen(prev) ||
		    write(fds[1], "}", 1) != 1)
			die(path, "cannot write the config");
	} else if (write(fds[1], buf, len) != (ssize_t)len) {
		die(path, "cannot write the config");
	}
	close(fds[1]);
	return fds[0];
}

/* One run of j (cmd, stdin from stdin_pipe()), measured into s; its stdout
 * is returned (malloc'd) for the next job of the chain. */
static char *chain_run(struct job *j, const char *cmd, const char *prev, struct sample *s)
{
	char bin[PATH_MAX], command[32], *res = NULL;
	posix_spawn_file_actions_t fa;
	int in = stdin_pipe(j, prev), out[2], err[2], status, ret;
	size_t len = 0;
	struct rusage ru;
	FILE *mem;
	pid_t pid;

	path_of(bin, sizeof(bin), j->dir, "bin");
	snprintf(command, sizeof(command), "CNI_COMMAND=%s", cmd);
	j->env[j->n_env] = command;
	j->env[j->n_env + 1] = NULL;
	pipe_open(out);
	pipe_open(err);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	ret = posix_spawn(&pid, bin, &fa, NULL, (char *const[]){bin, NULL}, j->env);
	posix_spawn_file_actions_destroy(&fa);
	close(in);
	close(out[1]);
	close(err[1]);
	if (ret)
		die(bin, strerror(ret));
	if (wait4(pid, &status, 0, &ru) < 0)
		die("wait4", strerror(errno));
	mem = open_memstream(&res, &len);
	for (char buf[4096]; mem && (ret = (int)read(out[0], buf, sizeof(buf))) > 0;)
		fwrite(buf, 1, (size_t)ret, mem);
	if (!mem || fclose(mem))
		die("memory", strerror(ENOMEM));
	close(out[0]);
	pipe_drain(err[0], j->dir, "err", !WIFEXITED(status) || WEXITSTATUS(status));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		die(cmd, j->dir);
	s->cpu += tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	if (ru.ru_maxrss > s->rss)
		s->rss = ru.ru_maxrss;
	return res;
}

/* Jobs in order: a job marked "chained" gets the previous job's result as
 * prevResult (sbr, tuning after the rail's plugin), the others none. Then
 * DEL, last job first, each with the final result of its own chain, as
 * libcni and Multus delete. */
static void chain_round(struct contender *c, struct sample *s)
{
	char *res[JOBS_MAX] = {0};
	uint64_t start = now_us();
	size_t k, end;

	for (k = 0; k < c->n_jobs; k++)
		res[k] = chain_run(&c->jobs[k], "ADD", c->jobs[k].chained ? res[k - 1] : NULL, s);
	s->add_wall = now_us() - start;
	for (k = c->n_jobs; k-- > 0;) {
		for (end = k; end + 1 < c->n_jobs && c->jobs[end + 1].chained;)
			end++;
		free(chain_run(&c->jobs[k], "DEL", res[end], s));
	}
	s->wall += now_us() - start;
	for (k = 0; k < c->n_jobs; k++)
		free(res[k]);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void stats(uint64_t *v, size_t n, const char *label)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	printf(" %s %ju %ju %ju", label, (uintmax_t)v[n / 2], (uintmax_t)v[n / 4],
	       (uintmax_t)v[(3 * n) / 4]);
}

/* The tail, for a budget: median, 99th percentile, maximum. */
static void stats_tail(uint64_t *v, size_t n, const char *label)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	printf(" %s %ju %ju %ju", label, (uintmax_t)v[n / 2], (uintmax_t)v[(99 * n) / 100],
	       (uintmax_t)v[n - 1]);
}

static int prefill(const char *dir, unsigned long n)
{
	char name[32], text[32];

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		die(dir, strerror(errno));
	if (chdir(dir) < 0)
		die(dir, strerror(errno));
	/* host-local's lock file: what makes the directory a lease directory. */
	if (close(open("lock", O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0)
		die("lock", strerror(errno));
	for (unsigned long i = 0; i < n; i++) {
		int fd, len;

		snprintf(name, sizeof(name), "10.200.%lu.%lu", i / 250, 1 + i % 250);
		len = snprintf(text, sizeof(text), "old%lu\r\neth0", i);
		fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || write(fd, text, (size_t)len) != len || close(fd) < 0)
			die(name, strerror(errno));
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct contender cs[16];
	struct rusage self;
	size_t n = 0, iter;

	if (argc == 4 && !strcmp(argv[1], "prefill"))
		return prefill(argv[2], strtoul(argv[3], NULL, 10));
	if (argc < 4 || (strcmp(argv[1], "cycle") && strcmp(argv[1], "add") &&
			 strcmp(argv[1], "wave") && strcmp(argv[1], "chain")))
		die("usage", "run cycle|add|wave|chain ITER NAME=DIR... | run prefill DIR N");
	iter = strtoul(argv[2], NULL, 10);
	if (!iter)
		die("ITER", "must be at least 1");
	for (int i = 3; i < argc && n < 16; i++)
		contender_load(&cs[n++], argv[i], iter);
	/* Our own peak, printed for reference: wait4() reports what each
	 * program reached after its exec (the floor shows less than this). */
	getrusage(RUSAGE_SELF, &self);
	for (size_t k = 0; k < n; k++)
		one_round(&cs[k], argv[1], true);
	for (size_t i = 0; i < iter; i++)
		for (size_t k = 0; k < n; k++)
			one_round(&cs[(i + k) % n], argv[1], false);
	for (size_t k = 0; k < n; k++) {
		printf("%s", cs[k].name);
		stats(cs[k].wall, cs[k].n, "wall");
		stats(cs[k].cpu, cs[k].n, "cpu");
		if (!strcmp(argv[1], "chain"))
			stats_tail(cs[k].add, cs[k].n, "add");
		printf(" rss %ld first %ju %ld\n", cs[k].rss, (uintmax_t)cs[k].first_wall,
		       cs[k].first_rss);
	}
	printf("runner rss %ld\n", self.ru_maxrss);
	return 0;
}
