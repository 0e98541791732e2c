// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "protocol/builtin.h"
#include "base/child.h"
#include "base/path.h"
#include "base/cleanup.h"
#include "protocol/cni.h"
#include "protocol/delegate.h"
#include "base/json.h"
#include "base/log.h"
#include "base/util.h"

extern char **environ;

int cni_delegate_find(const char *dirs, const char *name, char *out, size_t len,
		      struct cni_error *err)
{
	const char *p = dirs ? dirs : "";

	if (!name || !*name || strchr(name, '/'))
		return cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "invalid plugin type",
				  "\"%s\" must be a plain binary name found on CNI_PATH",
				  name ? name : "");
	while (*p) {
		size_t n = strcspn(p, ":");
		struct stat st;

		/* A relative entry ("", ".", "bin") would run whatever the
		 * working directory holds. */
		if (n && *p != '/')
			log_warn("CNI_PATH entry \"%.*s\" is not absolute; skipped", (int)n, p);
		else if (n && check_snprintf(out, len, "%.*s/%s", (int)n, p, name) == 0 &&
			 stat(out, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
		p += n;
		if (*p == ':')
			p++;
	}
	return cni_errorf(err, -ENOENT, CNI_ERR_INVALID_CONFIG, "failed to find plugin",
			  "\"%s\" is not in CNI_PATH [%s]", name, dirs ? dirs : "");
}

/* What a delegate is asked: a file to exec, or a builtin to serve in a
 * child (b set); the config it reads and the command. */
struct delegate_req {
	const char *path, *type;
	const struct cni_builtin *b;
	const struct cni_env *env;
	const struct cni_conf *conf;
	enum cni_command cmd;
};

/* Entries from first on are ours; those before are borrowed from environ. */
static void child_env_free(char **envp, size_t first)
{
	for (size_t i = first; envp[i]; i++)
		free(envp[i]);
	free(envp);
}

/* The attachment's variables come from env, not from ours: a release of
 * another attachment (ib-sriov's self-healing ADD, its node agent) names
 * that one. An empty value is left unset, as the spec allows for DEL. */
static const char *const env_keys[] = {
    "CNI_COMMAND=", "CNI_CONTAINERID=", "CNI_NETNS=", "CNI_IFNAME=", "CNI_ARGS=", "CNI_PATH="};
#define ENV_KEYS (sizeof(env_keys) / sizeof(env_keys[0]))

static bool env_key(const char *var)
{
	for (size_t k = 0; k < ENV_KEYS; k++)
		if (!strncmp(var, env_keys[k], strlen(env_keys[k])))
			return true;
	return false;
}

static char **child_env(enum cni_command cmd, const struct cni_env *env, size_t *first)
{
	const char *val[ENV_KEYS] = {cni_command_str(cmd), env->containerid, env->netns,
				     env->ifname,	   env->args,	     env->path};
	size_t n = 0, j = 0;
	char **envp;

	while (environ[n])
		n++;
	envp = calloc(n + ENV_KEYS + 1, sizeof(*envp));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!env_key(environ[i]))
			envp[j++] = environ[i];
	/* Ours from here on: child_env_free frees them. */
	*first = j;
	for (size_t k = 0; k < ENV_KEYS; k++) {
		if (!val[k] || (!*val[k] && k))
			continue;
		if (asprintf(&envp[j], "%s%s", env_keys[k], val[k]) < 0) {
			envp[j] = NULL;
			child_env_free(envp, *first);
			return NULL;
		}
		j++;
	}
	return envp;
}

static unsigned int delegate_timeout(void)
{
	const char *s = getenv("IBCNI_DELEGATE_TIMEOUT_MS");
	uint64_t v;

	if (s && !parse_u64(s, 10, 3600000, &v) && v)
		return (unsigned int)v;
	return CNI_DELEGATE_TIMEOUT_MS;
}

struct child {
	pid_t pid;
	int in, out;
};

/* vfork: no copy of our page tables, and none of the copy-on-write faults
 * a fork costs us afterwards. The child makes only system calls (nothing it
 * does touches our memory) until execve. Returns what vfork does. */
static pid_t start_child(const char *path, char *arg0, char **envp, int in, int out)
{
	char *argv[] = {arg0, NULL};
	pid_t parent = getpid();
	pid_t pid = vfork();

	if (pid)
		return pid;
	/* Dies with us: a delegate orphaned by a killed plugin could lease
	 * after the runtime's DEL has released everything. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	/* Its own process group, so a timeout kills what it spawned too. */
	setpgid(0, 0);
	dup2(in, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	execve(path, argv, envp);
	_exit(127);
}

static int spawn(const char *path, const struct delegate_req *rq, struct child *c)
{
	int pin[2], pout[2], ret;
	size_t first = 0;
	char **envp = child_env(rq->cmd, rq->env, &first);
	char arg0[PATH_MAX];
	pid_t pid;

	if (!envp)
		return -ENOMEM;
	if (copy_str(arg0, sizeof(arg0), path)) {
		child_env_free(envp, first);
		return -ENAMETOOLONG;
	}
	if (pipe2(pin, O_CLOEXEC) < 0) {
		ret = -errno;
		child_env_free(envp, first);
		return ret;
	}
	if (pipe2(pout, O_CLOEXEC) < 0) {
		ret = -errno;
		close(pin[0]);
		close(pin[1]);
		child_env_free(envp, first);
		return ret;
	}
	pid = start_child(path, arg0, envp, pin[0], pout[1]);
	ret = -errno;
	c->pid = pid;
	close(pin[0]);
	close(pout[1]);
	child_env_free(envp, first);
	if (pid < 0) {
		close(pin[1]);
		close(pout[0]);
		return ret;
	}
	c->in = pin[1];
	c->out = pout[0];
	fcntl(c->in, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Feed stdin and drain stdout until EOF or the deadline. */
static int pump(struct child *c, const char *in, size_t in_len, char *buf, size_t *used,
		uint64_t deadline)
{
	size_t sent = 0;

	while (c->out >= 0) {
		struct pollfd fds[2] = {{.fd = c->out, .events = POLLIN},
					{.fd = c->in, .events = POLLOUT}};
		uint64_t now = now_ms();
		ssize_t n;

		if (now >= deadline)
			return -ETIMEDOUT;
		if (poll(fds, c->in >= 0 ? 2 : 1, (int)(deadline - now)) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (c->in >= 0 && fds[1].revents) {
			n = (fds[1].revents & POLLOUT) ? write(c->in, in + sent, in_len - sent)
						       : -1;
			if (n > 0)
				sent += (size_t)n;
			if (n < 0 || sent == in_len) {
				close(c->in);
				c->in = -1;
			}
		}
		if (fds[0].revents) {
			n = read(c->out, buf + *used, CNI_DELEGATE_MAX_OUTPUT + 1 - *used);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(c->out);
				c->out = -1;
				break;
			}
			*used += (size_t)n;
			if (*used > CNI_DELEGATE_MAX_OUTPUT)
				return -EFBIG;
		}
	}
	return 0;
}

/* Copy a delegate's CNI error into err, untouched but for an empty msg,
 * which would reach the pod's events as nothing at all. */
static int delegate_error(const char *type, struct json_object *o, int status,
			  struct cni_error *err)
{
	const char *msg = "", *details = NULL;
	struct cni_error ignored = {0};
	char fallback[128];
	int64_t code = 0;

	if (o && json_object_is_type(o, json_type_object) &&
	    !cni_json_int(o, "code", NULL, (struct cni_int_range){1, INT32_MAX}, &code, &ignored)) {
		cni_json_string(o, "msg", NULL, &msg, &ignored);
		cni_json_string(o, "details", NULL, &details, &ignored);
		if (!*msg) {
			snprintf(fallback, sizeof(fallback),
				 "%.64s failed with code %d and no message", type, (int)code);
			msg = fallback;
		}
		return cni_errorf(err, -EIO, (int)code, msg, details ? "%s" : NULL, details);
	}
	return cni_errorf(err, -EIO, CNI_ERR_DELEGATE, "delegated plugin failed",
			  "%s exited with status %d and no CNI error on stdout; see its stderr",
			  type, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

/* The builtin's child (fork, no exec): the request served from the config
 * the caller parsed, its answer printed to out as the executable prints it,
 * its exit status the executable's. A child of its own, under the same
 * deadline as an exec'ed delegate: a data directory that never answers (a
 * FUSE or NFS mount, a dying disk) is killed with it, not waited for with
 * the VF in the pod. */
static _Noreturn void serve_builtin(const struct delegate_req *rq, pid_t parent, int out)
{
	struct json_object *o = NULL;
	const char *txt;
	size_t len;
	int status;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	setpgid(0, 0);
	status = rq->b->serve(rq->b->plugin, rq->env, rq->cmd, rq->conf, &o);
	if (status < 0)
		status = 1;
	if (o) {
		txt = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &len);
		if (!txt || write_all(out, txt, len))
			status = 1;
	}
	/* Nothing left for a leak checker (valgrind follows this child). */
	json_object_put(o);
	_exit(status);
}

static int fork_builtin(const struct delegate_req *rq, struct child *c)
{
	pid_t parent = getpid();
	int p[2], ret;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	c->pid = fork();
	ret = -errno;
	if (c->pid == 0) {
		close(p[0]);
		serve_builtin(rq, parent, p[1]);
	}
	close(p[1]);
	if (c->pid < 0) {
		close(p[0]);
		return ret;
	}
	c->out = p[0];
	return 0;
}

/* Run the delegate and take its answer: its own frame, so that the caller's
 * stack does not carry these buffers. */
static __attribute__((noinline)) int run_delegate(const struct delegate_req *rq,
						  struct json_object **out, struct cni_error *err)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_json_ struct json_object *o = NULL;
	unsigned int timeout = delegate_timeout();
	struct child c = {.pid = -1, .in = -1, .out = -1};
	const char *why = NULL, *type = rq->type;
	size_t used = 0;
	uint64_t deadline;
	int ret, status = 0;

	log_debug("delegating %s to %s%s", cni_command_str(rq->cmd), rq->path,
		  rq->b ? " (built in)" : "");
	ret = rq->b ? fork_builtin(rq, &c) : spawn(rq->path, rq, &c);
	if (ret)
		return cni_errorf(err, ret, CNI_ERR_DELEGATE, "cannot run delegated plugin",
				  "%s: %s", rq->path, strerror(-ret));
	deadline = now_ms() + timeout;
	/* After the fork: the builtin's child carries none of it. */
	buf = malloc(CNI_DELEGATE_MAX_OUTPUT + 2);
	ret = buf ? pump(&c, rq->conf->raw, rq->conf->raw_len, buf, &used, deadline) : -ENOMEM;
	if (c.in >= 0)
		close(c.in);
	if (c.out >= 0)
		close(c.out);
	if (!ret)
		ret = cni_child_wait_until(c.pid, deadline, &status);
	if (ret) {
		cni_child_kill(c.pid, CNI_DELEGATE_KILL_WAIT_MS);
		if (ret == -ETIMEDOUT)
			return cni_errorf(err, ret, CNI_ERR_DELEGATE, "delegated plugin timed out",
					  "%s %s did not finish within %u ms and was killed", type,
					  cni_command_str(rq->cmd), timeout);
		if (ret == -EFBIG)
			return cni_errorf(
			    err, ret, CNI_ERR_DELEGATE, "delegated plugin output too large",
			    "%s printed more than %d bytes", type, CNI_DELEGATE_MAX_OUTPUT);
		return cni_errorf(err, ret, CNI_ERR_DELEGATE, "delegated plugin failed", "%s: %s",
				  type, strerror(-ret));
	}
	buf[used] = '\0';
	if (strspn(buf, " \t\r\n") != used) {
		o = cni_json_parse(buf, used, &why);
		if (!o && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			return cni_errorf(err, -EBADMSG, CNI_ERR_DELEGATE,
					  "delegated plugin returned invalid JSON",
					  "%s: %s: %.200s", type, why, buf);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return delegate_error(type, o, status, err);
	*out = steal_ptr(o);
	return 0;
}

/* Whether b may serve conf in this process: only when every lookup it makes
 * is on the filesystem this process already uses (see struct cni_builtin);
 * anything mounted on the way (a FUSE or NFS volume that may never answer)
 * gets the child and its deadline. The check is two opens; a child costs
 * a fork and its copy-on-write faults in both processes. */
static bool builtin_inline(const struct cni_builtin *b, const struct cni_conf *conf)
{
	char dir[PATH_MAX];

	return b->touches && b->inline_root && !b->touches(conf, dir, sizeof(dir)) &&
	       cni_path_on_root_mount(b->inline_root, dir);
}

/* The builtin served in this process: its answer is taken exactly as its
 * printed one would be. */
static int run_inline(const struct cni_builtin *b, const struct cni_env *env,
		      const struct cni_conf *conf, enum cni_command cmd, struct json_object **out,
		      struct cni_error *err)
{
	_cleanup_json_ struct json_object *o = NULL;
	int status;

	log_debug("delegating %s to %s (built in)", cni_command_str(cmd), b->type);
	status = b->serve(b->plugin, env, cmd, conf, &o);
	if (status < 0)
		return cni_errorf(err, status, CNI_ERR_DELEGATE, "delegated plugin failed",
				  "%s: %s", b->type, strerror(-status));
	if (status)
		return delegate_error(b->type, o, W_EXITCODE(status, 0), err);
	*out = steal_ptr(o);
	return 0;
}

int cni_delegate_exec(const char *type, const struct cni_env *env, const struct cni_conf *conf,
		      enum cni_command cmd, struct json_object **out, struct cni_error *err)
{
	/* Allocated: below this frame a builtin delegate runs whole. */
	_cleanup_free_ char *path = malloc(PATH_MAX);
	const struct cni_builtin *b;
	int ret;

	*out = NULL;
	if (!path)
		return -ENOMEM;
	ret = cni_delegate_find(env->path, type, path, PATH_MAX, err);
	if (ret)
		return ret;
	b = cni_builtin_for(type, path);
	if (b && builtin_inline(b, conf))
		return run_inline(b, env, conf, cmd, out, err);
	return run_delegate(&(struct delegate_req){path, type, b, env, conf, cmd}, out, err);
}

static const char *ipam_type(const struct cni_conf *conf, struct cni_error *err)
{
	if (!conf->ipam_type || !*conf->ipam_type) {
		cni_errorf(err, -EINVAL, CNI_ERR_INVALID_CONFIG, "IPAM config missing 'type'",
			   "set \"ipam\": {\"type\": \"<ipam plugin>\", ...}");
		return NULL;
	}
	return conf->ipam_type;
}

int cni_ipam_add(const struct cni_env *env, const struct cni_conf *conf, struct cni_result **res,
		 struct cni_error *err)
{
	_cleanup_json_ struct json_object *o = NULL;
	const char *type = ipam_type(conf, err);
	struct cni_error bad = {0};
	int ret;

	*res = NULL;
	if (!type)
		return -EINVAL;
	ret = cni_delegate_exec(type, env, conf, CNI_CMD_ADD, &o, err);
	if (ret)
		return ret;
	if (!o)
		return cni_errorf(err, -EBADMSG, CNI_ERR_DELEGATE,
				  "delegated plugin returned no result",
				  "%s ADD exited 0 with nothing on stdout", type);
	ret = cni_result_from_json(o, conf->version, res, &bad);
	/* Say who produced the bad result. */
	cni_error_prefix(&bad, type);
	return cni_error_adopt(err, &bad, ret);
}

int cni_ipam_run(const struct cni_env *env, const struct cni_conf *conf, enum cni_command cmd,
		 struct cni_error *err)
{
	_cleanup_json_ struct json_object *o = NULL;
	const char *type = ipam_type(conf, err);

	if (!type)
		return -EINVAL;
	return cni_delegate_exec(type, env, conf, cmd, &o, err);
}
